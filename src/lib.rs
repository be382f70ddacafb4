#![doc = include_str!("../README.md")]
//!
//! This facade re-exports [`mbhash_core`].
pub use mbhash_core::*;
