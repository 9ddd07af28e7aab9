include!("slang_rpath.rs");

fn main() {
    // The crate's own tests load Slang.
    link_slang_rpath();
}
