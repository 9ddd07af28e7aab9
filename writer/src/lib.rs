//! writer
