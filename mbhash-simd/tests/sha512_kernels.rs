//! Every SHA-512 kernel against the scalar reference, through one harness,
//! and the scalar reference against the `sha2` crate.

mod common;

use common::{Rng, token_or_skip};
use mbhash_simd::cpu::Feature;
use mbhash_simd::sha512::{self, Block, Compress, State};
use sha2::Digest;

/// Runs `kernel` on `N` lanes of `nblocks` random blocks each, from random
/// states, with the block data starting at byte offset `offset` of a buffer
/// (so blocks are unaligned), and compares every lane with the scalar kernel.
fn check_once<const N: usize, K: Compress<N>>(
    kernel: K,
    rng: &mut Rng,
    nblocks: usize,
    offset: usize,
) {
    let mut bufs: Vec<Vec<u8>> = (0..N)
        .map(|_| {
            let mut v = vec![0u8; offset + nblocks * 128];
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
    let mut states: [State; N] = std::array::from_fn(|_| std::array::from_fn(|_| rng.next_u64()));
    states[0] = sha512::IV;
    if N > 2 {
        states[2] = [u64::MAX; 8];
    }
    let mut expected = states;
    let blocks: [&[Block]; N] = std::array::from_fn(|i| bufs[i][offset..].as_chunks::<128>().0);
    for (s, b) in expected.iter_mut().zip(blocks) {
        sha512::scalar::compress(s, b);
    }
    let refs: [&mut State; N] = {
        let mut it = states.iter_mut();
        std::array::from_fn(|_| it.next().unwrap())
    };
    kernel.compress(refs, blocks);
    assert_eq!(
        states, expected,
        "{N} lanes, {nblocks} blocks, offset {offset}"
    );
}

/// The shared harness: block counts 0..=20 and a few long runs, odd offsets.
fn check_kernel<const N: usize, K: Compress<N>>(kernel: K) {
    let mut rng = Rng::new(0x5eed_0512 ^ N as u64);
    for nblocks in (0..=20).chain([31, 32, 33, 129]) {
        for offset in [0, 1, 3, 7] {
            check_once(kernel, &mut rng, nblocks, offset);
        }
    }
}

/// Lanes with different block counts are a caller bug: the kernel panics.
fn check_unequal_lanes_panic<const N: usize, K: Compress<N>>(kernel: K) {
    let data = [[0u8; 128]; 2];
    let mut blocks: [&[Block]; N] = [&data[..]; N];
    blocks[N - 1] = &data[..1];
    let mut states = [sha512::IV; N];
    let refs: [&mut State; N] = {
        let mut it = states.iter_mut();
        std::array::from_fn(|_| it.next().unwrap())
    };
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        kernel.compress(refs, blocks);
    }));
    assert!(
        result.is_err(),
        "{N} lanes: unequal block counts must panic"
    );
}

#[test]
fn scalar_x1() {
    check_kernel::<1, _>(sha512::Scalar);
}

#[test]
fn avx2_x1() {
    if let Some(k) = token_or_skip(Feature::Avx2, "sha512 avx2_x1", sha512::Avx2x1::new()) {
        check_kernel::<1, _>(k);
    }
}

#[test]
fn avx2_x4() {
    if let Some(k) = token_or_skip(Feature::Avx2, "sha512 avx2_x4", sha512::Avx2x4::new()) {
        check_kernel::<4, _>(k);
        check_unequal_lanes_panic::<4, _>(k);
    }
}

#[test]
fn avx512_x8() {
    if let Some(k) = token_or_skip(Feature::Avx512, "sha512 avx512_x8", sha512::Avx512x8::new()) {
        check_kernel::<8, _>(k);
        check_unequal_lanes_panic::<8, _>(k);
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
