//! Every SHA-256 kernel against the scalar reference, through one harness.

mod common;

use common::{Rng, harness, token_or_skip};
use mbhash_simd::cpu::Feature;
use mbhash_simd::sha256::{self, Compress};

/// Every lane count of a kernel goes through the one shared harness.
fn check_kernel<const N: usize, K: Compress<N>>(kernel: K) {
    harness::check_kernel::<harness::Sha256, N>(|states, blocks| kernel.compress(states, blocks));
}

#[test]
fn scalar_x1() {
    check_kernel::<1, _>(sha256::Scalar);
}

#[test]
fn avx2_x8() {
    if let Some(k) = token_or_skip(Feature::Avx2, "sha256 avx2_x8", sha256::Avx2x8::new()) {
        check_kernel::<8, _>(k);
    }
}

#[test]
fn avx512_x16() {
    if let Some(k) = token_or_skip(
        Feature::Avx512,
        "sha256 avx512_x16",
        sha256::Avx512x16::new(),
    ) {
        check_kernel::<16, _>(k);
    }
}

#[test]
fn shani_x1() {
    if let Some(k) = token_or_skip(Feature::ShaNi, "sha256 shani", sha256::ShaNi::new()) {
        check_kernel::<1, _>(k);
    }
}

#[test]
fn shani_x2() {
    if let Some(k) = token_or_skip(Feature::ShaNi, "sha256 shani x2", sha256::ShaNi::new()) {
        check_kernel::<2, _>(k);
    }
}

#[test]
fn shani_x4() {
    if let Some(k) = token_or_skip(Feature::ShaNi, "sha256 shani x4", sha256::ShaNi::new()) {
        check_kernel::<4, _>(k);
    }
}

/// The scalar kernel itself against the `sha2` crate's compression function.
#[test]
fn scalar_matches_sha2_crate() {
    let mut rng = Rng::new(42);
    for nblocks in 0..10 {
        let mut data = vec![0u8; nblocks * 64];
        rng.fill(&mut data);
        let blocks = data.as_chunks::<64>().0;
        let mut ours = sha256::IV;
        sha256::scalar::compress(&mut ours, blocks);
        let mut theirs = sha256::IV;
        sha2::block_api::compress256(&mut theirs, blocks);
        assert_eq!(ours, theirs);
    }
}
