//! Every SHA-512 kernel against the scalar reference, through one harness,
//! and the scalar reference against the `sha2` crate.

mod common;

use common::{Rng, harness, token_or_skip};
use mbhash_simd::cpu::Feature;
use mbhash_simd::sha512::{self, Compress, State};
use sha2::Digest;

/// Every lane count of a kernel goes through the one shared harness.
fn check_kernel<const N: usize, K: Compress<N>>(kernel: K) {
    harness::check_kernel::<harness::Sha512, N>(|states, blocks| kernel.compress(states, blocks));
}

#[test]
fn scalar_x1() {
    check_kernel::<1, _>(sha512::Scalar);
}

#[test]
fn avx2_x1() {
    if let Some(k) = token_or_skip(Feature::Avx2, "sha512 avx2_x1", sha512::Avx2x1::new()) {
        let k = k.avx2_schedule();
        assert!(!k.uses_avx512());
        check_kernel::<1, _>(k);
    }
}

/// The one-stream kernel with its AVX-512 message schedule.
#[test]
fn avx2_x1_avx512_schedule() {
    let k = sha512::Avx2x1::new().filter(|k| k.uses_avx512());
    if let Some(k) = token_or_skip(Feature::Avx512, "sha512 avx2_x1 (avx512 schedule)", k) {
        check_kernel::<1, _>(k);
    }
}

#[test]
fn avx2_x4() {
    if let Some(k) = token_or_skip(Feature::Avx2, "sha512 avx2_x4", sha512::Avx2x4::new()) {
        check_kernel::<4, _>(k);
    }
}

#[test]
fn avx512_x8() {
    if let Some(k) = token_or_skip(Feature::Avx512, "sha512 avx512_x8", sha512::Avx512x8::new()) {
        assert!(!k.uses_lean_rounds());
        check_kernel::<8, _>(k);
    }
}

/// The same kernel with its rounds in the lean form.
#[test]
fn avx512_x8_lean_rounds() {
    let k = sha512::Avx512x8::new().map(|k| k.with_lean_rounds(true));
    if let Some(k) = token_or_skip(Feature::Avx512, "sha512 avx512_x8 (lean rounds)", k) {
        assert!(k.uses_lean_rounds());
        check_kernel::<8, _>(k);
    }
}

/// The scalar kernel itself against the `sha2` crate's compression function.
#[test]
fn scalar_matches_sha2_crate() {
    let mut rng = Rng::new(42);
    for nblocks in 0..10 {
        let mut data = vec![0u8; nblocks * 128];
        rng.fill(&mut data);
        let blocks = data.as_chunks::<128>().0;
        let mut ours = sha512::IV;
        sha512::scalar::compress(&mut ours, blocks);
        let mut theirs = sha512::IV;
        sha2::block_api::compress512(&mut theirs, blocks);
        assert_eq!(ours, theirs);
    }
}

/// Pads `msg` (FIPS 180-4, 5.1.2), compresses it from `iv` with the scalar
/// kernel and returns the big-endian state bytes, untruncated.
fn scalar_digest(iv: State, msg: &[u8]) -> Vec<u8> {
    let mut padded = msg.to_vec();
    padded.push(0x80);
    while padded.len() % 128 != 112 {
        padded.push(0);
    }
    padded.extend_from_slice(&((msg.len() as u128) * 8).to_be_bytes());
    let mut state = iv;
    sha512::scalar::compress(&mut state, padded.as_chunks::<128>().0);
    state.iter().flat_map(|w| w.to_be_bytes()).collect()
}

/// The four initial values (and the constants) against the `sha2` crate's
/// whole-message digests, across the padding boundaries.
#[test]
fn initial_values_match_sha2_crate() {
    let mut rng = Rng::new(7);
    for len in [0, 1, 3, 111, 112, 127, 128, 129, 240, 1000] {
        let mut msg = vec![0u8; len];
        rng.fill(&mut msg);
        assert_eq!(
            scalar_digest(sha512::IV, &msg)[..64],
            sha2::Sha512::digest(&msg)[..]
        );
        assert_eq!(
            scalar_digest(sha512::IV_384, &msg)[..48],
            sha2::Sha384::digest(&msg)[..]
        );
        assert_eq!(
            scalar_digest(sha512::IV_512_256, &msg)[..32],
            sha2::Sha512_256::digest(&msg)[..]
        );
        assert_eq!(
            scalar_digest(sha512::IV_512_224, &msg)[..28],
            sha2::Sha512_224::digest(&msg)[..]
        );
    }
}
