//! Hostile inputs that once cost the reader unbounded time: a blob whose records all name one
//! long pool slice (quadratic validation), and paths that are not regular files.

use slangpack_reader::{ErrorKind, Package};
use std::path::Path;

#[test]
fn records_naming_one_long_pool_slice_are_refused_quickly() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/hostile/quadratic_pool_validation.slangpack");
    let bytes = std::fs::read(&path).unwrap();
    // Before the bound this package validated (after 2·10^10 index checks) and opened.
    // Its directory is sound: the blob is refused when the entry loads.
    let package = Package::from_bytes(&bytes).expect("the directory opens");
    let error = package.load_at(0).expect_err("refused");
    assert_eq!(error.kind(), ErrorKind::LimitExceeded, "{error}");
    let error = Package::open(&path)
        .and_then(|p| p.verify_all())
        .expect_err("refused when mapped too");
    assert_eq!(error.kind(), ErrorKind::LimitExceeded);
}

#[test]
fn paths_that_are_not_regular_files_are_refused() {
    for path in ["/dev/zero", "/proc/self", "/"] {
        let error = Package::open(path).expect_err(path);
        assert_eq!(error.kind(), ErrorKind::Io, "{path}: {error}");
        assert!(error.to_string().contains("not a regular file"), "{error}");
    }
}
