include!("../writer/slang_rpath.rs");

fn main() {
    link_slang_rpath();
}
