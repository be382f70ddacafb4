//! Every SHA-256 kernel against the scalar reference, through one harness.

mod common;

use common::{Rng, token_or_skip};
use mbhash_simd::cpu::Feature;
use mbhash_simd::sha256::{self, Block, Compress, State};

/// Runs `kernel` on `N` lanes of `nblocks` random blocks each, from random
/// states, with the block data starting at byte offset `offset` of a buffer
/// (so blocks are unaligned), and compares every lane with the scalar kernel.
fn check_once<const N: usize, K: Compress<N>>(kernel: K, rng: &mut Rng, nblocks: usize, offset: usize) {
    let mut bufs: Vec<Vec<u8>> = (0..N)
        .map(|_| {
            let mut v = vec![0u8; offset + nblocks * 64];
            rng.fill(&mut v);
            v
        })
        .collect();
    // Make lane 0 all-ones and lane 1 all-zero to hit carries and constants.
    if nblocks > 0 {
        bufs[0][offset..].fill(0xff);
        if N > 1 {
            bufs[1][offset..].fill(0);
        }
    }
    let mut states: [State; N] = std::array::from_fn(|_| {
        let mut s = sha256::IV;
        for w in &mut s {
            *w = rng.next_u64() as u32;
        }
        s
    });
    states[0] = sha256::IV;
    let mut expected = states;
    let blocks: [&[Block]; N] = std::array::from_fn(|i| bufs[i][offset..].as_chunks::<64>().0);
    for (s, b) in expected.iter_mut().zip(blocks) {
        sha256::scalar::compress(s, b);
    }
    let refs: [&mut State; N] = {
        let mut it = states.iter_mut();
        std::array::from_fn(|_| it.next().unwrap())
    };
    kernel.compress(refs, blocks);
    assert_eq!(states, expected, "{N} lanes, {nblocks} blocks, offset {offset}");
}

/// The shared harness: block counts 0..=20 and a few long runs, offsets 0..8.
fn check_kernel<const N: usize, K: Compress<N>>(kernel: K) {
    let mut rng = Rng::new(0x5eed_0256 ^ N as u64);
    for nblocks in (0..=20).chain([63, 64, 65, 257]) {
        for offset in [0, 1, 3, 7] {
            check_once(kernel, &mut rng, nblocks, offset);
        }
    }
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
    if let Some(k) = token_or_skip(Feature::Avx512, "sha256 avx512_x16", sha256::Avx512x16::new()) {
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
