//! The slangpack runtime reader.
#![deny(missing_docs)]
