#![doc = include_str!("../README.md")]
#![no_std]
//!
//! This facade re-exports [`mbhash_core`].
pub use mbhash_core::*;
