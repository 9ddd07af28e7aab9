//! The slangpack on-disk format.
#![deny(missing_docs)]
