//! Shared test support: a seeded PRNG and the skip/require policy.
#![allow(dead_code)]

pub mod harness;

use mbhash_simd::cpu::{self, Feature};

/// xoshiro-style 64-bit generator (splitmix64); deterministic, seedable.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(seed)
    }
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    /// Uniform in `0..n` (n > 0).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }
    pub fn fill(&mut self, buf: &mut [u8]) {
        for chunk in buf.chunks_mut(8) {
            let v = self.next_u64().to_le_bytes();
            chunk.copy_from_slice(&v[..chunk.len()]);
        }
    }
}

/// Decides whether a test of a kernel needing `feature` runs.
///
/// Returns `Some(token)` when it runs. When the token is missing, prints why
/// and returns `None`, unless `MBHASH_REQUIRE` names the feature (or `all`),
/// in which case it panics: a required kernel that cannot run is a failure.
pub fn token_or_skip<T>(feature: Feature, kernel: &str, token: Option<T>) -> Option<T> {
    if token.is_some() {
        return token;
    }
    let why = if !cpu::detected(feature) {
        "the CPU lacks it"
    } else if cpu::disabled(feature) {
        "MBHASH_DISABLE hides it"
    } else {
        "the kernel is not built for this target"
    };
    let required = std::env::var("MBHASH_REQUIRE").unwrap_or_default();
    let required = required
        .split(',')
        .map(str::trim)
        .any(|r| r == feature.name() || r == "all");
    if required && !cpu::disabled(feature) {
        panic!("{kernel}: required by MBHASH_REQUIRE but unavailable: {why}");
    }
    // Straight to the process's stderr, past the test harness's output
    // capture, so that a skip shows in every log.
    use std::io::Write;
    let _ = writeln!(
        std::io::stderr(),
        "SKIPPED {kernel}: needs {} but {why}",
        feature.name()
    );
    None
}
