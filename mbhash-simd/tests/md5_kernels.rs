//! Every MD5 kernel against the scalar reference, through one harness; the
//! scalar kernel against the `md-5` crate; every kernel on the known answers
//! of RFC 1321.

mod common;

use common::{Rng, harness, token_or_skip};
use mbhash_simd::cpu::Feature;
use mbhash_simd::md5::{self, Block, Compress, State};

/// Every lane count of a kernel goes through the one shared harness.
fn check_kernel<const N: usize, K: Compress<N>>(kernel: K) {
    harness::check_kernel::<harness::Md5, N>(|states, blocks| kernel.compress(states, blocks));
    check_known_answers::<N, K>(kernel);
}

#[test]
fn scalar_x1() {
    check_kernel::<1, _>(md5::Scalar);
}

#[test]
fn avx2_x8() {
    if let Some(k) = token_or_skip(Feature::Avx2, "md5 avx2_x8", md5::Avx2x8::new()) {
        check_kernel::<8, _>(k);
    }
}

#[test]
fn avx2_x16() {
    if let Some(k) = token_or_skip(Feature::Avx2, "md5 avx2_x16", md5::Avx2x16::new()) {
        check_kernel::<16, _>(k);
    }
}

#[test]
fn avx512_x16() {
    if let Some(k) = token_or_skip(Feature::Avx512, "md5 avx512_x16", md5::Avx512x16::new()) {
        check_kernel::<16, _>(k);
    }
}

#[test]
fn avx512_x32() {
    if let Some(k) = token_or_skip(Feature::Avx512, "md5 avx512_x32", md5::Avx512x32::new()) {
        check_kernel::<32, _>(k);
    }
}

/// `message` padded as RFC 1321 section 3.1-3.2 pads it: a one bit, zeros
/// to 56 bytes modulo 64, the bit length as a little-endian 64-bit word.
fn pad(message: &[u8]) -> Vec<Block> {
    let mut bytes = message.to_vec();
    bytes.push(0x80);
    while bytes.len() % 64 != 56 {
        bytes.push(0);
    }
    bytes.extend_from_slice(&((message.len() as u64) * 8).to_le_bytes());
    bytes.as_chunks::<64>().0.to_vec()
}

/// The digest of a final state: its words, little-endian.
fn digest(state: &State) -> [u8; 16] {
    let mut out = [0u8; 16];
    for (o, w) in out.chunks_exact_mut(4).zip(state) {
        o.copy_from_slice(&w.to_le_bytes());
    }
    out
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// RFC 1321 appendix A.5, the test suite.
const RFC_1321_SUITE: [(&str, &str); 7] = [
    ("", "d41d8cd98f00b204e9800998ecf8427e"),
    ("a", "0cc175b9c0f1b6a831c399e269772661"),
    ("abc", "900150983cd24fb0d6963f7d28e17f72"),
    ("message digest", "f96b697d7cb7938d525a2f31aaf161d0"),
    (
        "abcdefghijklmnopqrstuvwxyz",
        "c3fcd3d76192e4007dfb496cca67e13b",
    ),
    (
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789",
        "d174ab98d277d9f5a5611c2c9f419d9f",
    ),
    (
        "12345678901234567890123456789012345678901234567890123456789012345678901234567890",
        "57edf4a22be3c955ac49da2e2107b67a",
    ),
];

/// Each message of the RFC 1321 suite in every lane of `kernel` at once
/// (from the IV), every lane's digest against the RFC's.
fn check_known_answers<const N: usize, K: Compress<N>>(kernel: K) {
    for (message, expected) in RFC_1321_SUITE {
        let blocks = pad(message.as_bytes());
        let mut states = [md5::IV; N];
        let mut it = states.iter_mut();
        let lanes: [&mut State; N] = std::array::from_fn(|_| it.next().unwrap());
        kernel.compress(lanes, [&blocks[..]; N]);
        for (lane, state) in states.iter().enumerate() {
            assert_eq!(
                hex(&digest(state)),
                expected,
                "MD5({message:?}), {N} lanes, lane {lane}"
            );
        }
    }
}

/// The padding helper and the scalar kernel against the `md-5` crate's
/// digest, at every length up to three blocks and a few longer ones.
#[test]
fn padded_scalar_matches_md5_crate_digest() {
    use ::md5::Digest;
    let mut rng = Rng::new(1321);
    for len in (0..=192).chain([1000, 4096, 65537]) {
        let message = rng.bytes(len);
        let mut state = md5::IV;
        md5::scalar::compress(&mut state, &pad(&message));
        assert_eq!(
            digest(&state)[..],
            ::md5::Md5::digest(&message)[..],
            "{len} bytes"
        );
    }
}

/// The scalar kernel itself against the `md-5` crate's compression
/// function, from the IV and from random states.
#[test]
fn scalar_matches_md5_crate() {
    let mut rng = Rng::new(42);
    for nblocks in 0..10 {
        let mut data = vec![0u8; nblocks * 64];
        rng.fill(&mut data);
        let blocks = data.as_chunks::<64>().0;
        for start in [md5::IV, [0; 4], [u32::MAX; 4], {
            let w = rng.next_u64();
            [w as u32, (w >> 32) as u32, !(w as u32), 0x1234_5678]
        }] {
            let mut ours = start;
            md5::scalar::compress(&mut ours, blocks);
            let mut theirs = start;
            ::md5::block_api::compress(&mut theirs, blocks);
            assert_eq!(ours, theirs, "{nblocks} blocks from {start:08x?}");
        }
    }
}

/// The step constants are RFC 1321's `T[i]`, the integer part of
/// `2³² · |sin(i + 1)|` (the RFC's own definition).
#[test]
fn constants_are_sines() {
    for (i, k) in md5::K.iter().enumerate() {
        let t = (((i + 1) as f64).sin().abs() * 4294967296.0) as u32;
        assert_eq!(*k, t, "T[{}]", i + 1);
    }
}
