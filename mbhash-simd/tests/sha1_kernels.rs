//! Every SHA-1 kernel against the scalar reference, through one harness;
//! the scalar kernel against the `sha1` crate; every kernel on the known
//! answers of FIPS 180-2, appendix A.

mod common;

use ::sha1::Digest;
use common::{Rng, harness, token_or_skip};
use mbhash_simd::cpu::Feature;
use mbhash_simd::sha1::{self, Compress, State};

/// Every lane count of a kernel goes through the one shared harness, then
/// the known answers in every lane.
fn check_kernel<const N: usize, K: Compress<N>>(kernel: K) {
    harness::check_kernel::<harness::Sha1, N>(|states, blocks| kernel.compress(states, blocks));
    known_answers::<N, K>(kernel);
}

#[test]
fn scalar_x1() {
    check_kernel::<1, _>(sha1::Scalar);
}

#[test]
fn avx2_x8() {
    if let Some(k) = token_or_skip(Feature::Avx2, "sha1 avx2_x8", sha1::Avx2x8::new()) {
        check_kernel::<8, _>(k);
    }
}

#[test]
fn avx512_x16() {
    if let Some(k) = token_or_skip(Feature::Avx512, "sha1 avx512_x16", sha1::Avx512x16::new()) {
        check_kernel::<16, _>(k);
    }
}

#[test]
fn shani_x1() {
    if let Some(k) = token_or_skip(Feature::ShaNi, "sha1 shani", sha1::ShaNi::new()) {
        check_kernel::<1, _>(k);
    }
}

#[test]
fn shani_x2() {
    if let Some(k) = token_or_skip(Feature::ShaNi, "sha1 shani x2", sha1::ShaNi::new()) {
        check_kernel::<2, _>(k);
    }
}

#[test]
fn shani_x4() {
    if let Some(k) = token_or_skip(Feature::ShaNi, "sha1 shani x4", sha1::ShaNi::new()) {
        check_kernel::<4, _>(k);
    }
}

/// The scalar kernel itself against the `sha1` crate's compression function.
#[test]
fn scalar_matches_sha1_crate() {
    let mut rng = Rng::new(42);
    for nblocks in 0..10 {
        let mut data = vec![0u8; nblocks * 64];
        rng.fill(&mut data);
        let blocks = data.as_chunks::<64>().0;
        let mut ours = sha1::IV;
        sha1::scalar::compress(&mut ours, blocks);
        let mut theirs = sha1::IV;
        ::sha1::block_api::compress(&mut theirs, blocks);
        assert_eq!(ours, theirs);
    }
}

/// `msg` padded as FIPS 180-4, 5.1.1 says: a 1 bit, zeros up to 56 bytes
/// modulo 64, the bit length as a 64-bit big-endian number.
fn pad(msg: &[u8]) -> Vec<u8> {
    let mut padded = msg.to_vec();
    padded.push(0x80);
    while padded.len() % 64 != 56 {
        padded.push(0);
    }
    padded.extend_from_slice(&((msg.len() as u64) * 8).to_be_bytes());
    padded
}

/// The big-endian bytes of a final state: the digest.
fn digest_bytes(state: &State) -> Vec<u8> {
    state.iter().flat_map(|w| w.to_be_bytes()).collect()
}

/// Parses a hexadecimal digest (spaces between the words allowed).
fn hex(s: &str) -> Vec<u8> {
    let s: String = s.split_whitespace().collect();
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
        .collect()
}

/// FIPS 180-2, appendix A: A.1 "abc" (one block), A.2 the 448-bit message
/// (two blocks, the padding in the second), A.3 a million "a".
fn fips_vectors() -> [(&'static str, Vec<u8>, Vec<u8>); 3] {
    [
        (
            "A.1 abc",
            b"abc".to_vec(),
            hex("a9993e36 4706816a ba3e2571 7850c26c 9cd0d89d"),
        ),
        (
            "A.2 448 bits",
            b"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".to_vec(),
            hex("84983e44 1c3bd26e baae4aa1 f95129e5 e54670f1"),
        ),
        (
            "A.3 a million a",
            vec![b'a'; 1_000_000],
            hex("34aa973c d4c4daa4 f61eeb2b dbad2731 6534016f"),
        ),
    ]
}

/// Every known answer in every lane of the kernel, the lanes' data in
/// separate buffers.
fn known_answers<const N: usize, K: Compress<N>>(kernel: K) {
    for (name, msg, want) in fips_vectors() {
        let padded: Vec<Vec<u8>> = (0..N).map(|_| pad(&msg)).collect();
        let blocks: [&[sha1::Block]; N] = std::array::from_fn(|i| padded[i].as_chunks::<64>().0);
        let mut states = [sha1::IV; N];
        let mut it = states.iter_mut();
        kernel.compress(std::array::from_fn(|_| it.next().unwrap()), blocks);
        for (lane, s) in states.iter().enumerate() {
            assert_eq!(digest_bytes(s), want, "{name}, {N} lanes, lane {lane}");
        }
    }
}

/// The padding helper and the vectors themselves, against the `sha1`
/// crate's whole-message digest.
#[test]
fn known_answers_match_sha1_crate() {
    for (name, msg, want) in fips_vectors() {
        assert_eq!(::sha1::Sha1::digest(&msg)[..], want[..], "{name}");
    }
    let mut rng = Rng::new(7);
    for len in [0, 1, 3, 55, 56, 63, 64, 65, 119, 120, 1000] {
        let mut msg = vec![0u8; len];
        rng.fill(&mut msg);
        let mut state = sha1::IV;
        sha1::scalar::compress(&mut state, pad(&msg).as_chunks::<64>().0);
        assert_eq!(
            digest_bytes(&state),
            ::sha1::Sha1::digest(&msg)[..],
            "{len} bytes"
        );
    }
}
