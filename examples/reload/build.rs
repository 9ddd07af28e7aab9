// The example's test bakes with the writer (Slang): its test binary needs the Slang rpath.
include!("../../writer/slang_rpath.rs");

fn main() {
    link_slang_rpath();
}
