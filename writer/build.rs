include!("slang_rpath.rs");
