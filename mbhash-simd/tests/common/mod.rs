//! Shared test support: the RNG and the skip/require policy of
//! `mbhash-test-support`, and the kernel harness.
#![allow(dead_code)]

pub mod harness;

use mbhash_simd::cpu::{self, Feature};
pub use mbhash_test_support::Rng;

/// [`mbhash_test_support::token_or_skip`] for a kernel needing `feature`.
pub fn token_or_skip<T>(feature: Feature, kernel: &str, token: Option<T>) -> Option<T> {
    let why = cpu::unavailable_reason(feature);
    mbhash_test_support::token_or_skip(feature.name(), why, kernel, token)
}
