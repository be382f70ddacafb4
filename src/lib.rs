//! mbhash: multi-buffer SHA-2 and CRC32C hashing for storage stacks.
//!
//! This facade re-exports [`mbhash_core`]; see its documentation and the
//! README for the job-manager model (`submit` / `flush`).
pub use mbhash_core::*;

/// The README's examples, compiled and run as doctests.
#[doc = include_str!("../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;
