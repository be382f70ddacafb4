//! Shared test support: the RNG and the skip/require policy of
//! `mbhash-test-support`, and the kernel harness.
#![allow(dead_code)]

pub mod harness;

pub use mbhash_test_support::{Rng, token_or_skip};
