#![doc = include_str!("../README.md")]
#![no_std]
//!
//! This facade re-exports [`mbhash_core`].
#![cfg_attr(docsrs, feature(doc_cfg))]
pub use mbhash_core::*;
