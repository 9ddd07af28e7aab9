include!("../writer/slang_rpath.rs");
