//! Every SM3 kernel against the scalar reference, through one harness;
//! every kernel against the known answers of GB/T 32905-2016, and every
//! one-stream kernel against the RustCrypto `sm3` crate.

mod common;

use common::{Rng, harness, token_or_skip};
use mbhash_simd::cpu::Feature;
use mbhash_simd::sm3::{self, Block, Compress, State};
// The RustCrypto crate, named apart from our module.
use ::sm3 as oracle;
use oracle::digest::Digest;
use oracle::digest::block_api::UpdateCore;
use oracle::digest::common::hazmat::SerializableState;

/// The one-stream vector kernel with its AVX2 message expansion, where AVX2
/// is available (a skip otherwise).
fn avx2_x1_avx2_expansion() -> Option<sm3::Avx2x1> {
    let k = token_or_skip(Feature::Avx2, "sm3 avx2_x1", sm3::Avx2x1::new())?.avx2_schedule();
    assert!(!k.uses_avx512());
    Some(k)
}

/// The one-stream vector kernel with its AVX-512 message expansion, where
/// AVX-512 is available (a skip otherwise).
fn avx2_x1_avx512() -> Option<sm3::Avx2x1> {
    let k = sm3::Avx2x1::new().filter(|k| k.uses_avx512());
    token_or_skip(Feature::Avx512, "sm3 avx2_x1 (AVX-512 expansion)", k)
}

/// Every lane count of a kernel goes through the one shared harness.
fn check_kernel<const N: usize, K: Compress<N>>(kernel: K) {
    harness::check_kernel::<harness::Sm3, N>(|states, blocks| kernel.compress(states, blocks));
}

#[test]
fn scalar_x1() {
    check_kernel::<1, _>(sm3::Scalar);
}

#[test]
fn portable_x1() {
    check_kernel::<1, _>(sm3::Portable);
}

/// The one-stream kernel with its AVX2 message expansion.
#[test]
fn avx2_x1() {
    if let Some(k) = avx2_x1_avx2_expansion() {
        check_kernel::<1, _>(k);
    }
}

/// The one-stream kernel with its AVX-512 message expansion.
#[test]
fn avx2_x1_avx512_expansion() {
    if let Some(k) = avx2_x1_avx512() {
        check_kernel::<1, _>(k);
    }
}

#[test]
fn avx2_x8() {
    if let Some(k) = token_or_skip(Feature::Avx2, "sm3 avx2_x8", sm3::Avx2x8::new()) {
        check_kernel::<8, _>(k);
    }
}

#[test]
fn avx512_x16() {
    if let Some(k) = token_or_skip(Feature::Avx512, "sm3 avx512_x16", sm3::Avx512x16::new()) {
        check_kernel::<16, _>(k);
    }
}

/// The `sm3` crate's compression from any state: its core's serialized
/// form is the eight state words (little-endian) and the block count, so a
/// state can be put in and read back around `update_blocks`.
fn crate_compress(state: &mut State, blocks: &[Block]) {
    let mut bytes = [0u8; 40];
    for (b, w) in bytes.chunks_exact_mut(4).zip(state.iter()) {
        b.copy_from_slice(&w.to_le_bytes());
    }
    let mut core = oracle::Sm3Core::deserialize(&bytes.into()).expect("any state deserializes");
    let blocks: Vec<_> = blocks.iter().map(|b| (*b).into()).collect();
    core.update_blocks(&blocks);
    let out = core.serialize();
    for (w, b) in state.iter_mut().zip(out.chunks_exact(4)) {
        *w = u32::from_le_bytes(b.try_into().unwrap());
    }
}

/// A one-stream kernel as a function of one state and its blocks.
type OneStream = Box<dyn Fn(&mut State, &[Block])>;

/// Every one-stream kernel this CPU runs, by name: the scalar reference,
/// the portable kernel, and the vector-assisted one with each of its
/// message expansions.
fn one_stream_kernels() -> Vec<(&'static str, OneStream)> {
    fn boxed<K: Compress<1> + 'static>(k: K) -> OneStream {
        Box::new(move |state, blocks| k.compress([state], [blocks]))
    }
    let mut kernels = vec![
        ("scalar", boxed(sm3::Scalar)),
        ("portable", boxed(sm3::Portable)),
    ];
    if let Some(k) = avx2_x1_avx2_expansion() {
        kernels.push(("avx2_x1, AVX2 expansion", boxed(k)));
    }
    if let Some(k) = avx2_x1_avx512() {
        kernels.push(("avx2_x1, AVX-512 expansion", boxed(k)));
    }
    kernels
}

/// Every one-stream kernel against the `sm3` crate's compression function,
/// from the IV and from random states.
#[test]
fn one_stream_kernels_match_sm3_crate() {
    for (name, kernel) in one_stream_kernels() {
        let mut rng = Rng::new(0x5a3);
        for nblocks in 0..10 {
            for from_iv in [true, false] {
                let data = rng.bytes(nblocks * 64);
                let blocks = data.as_chunks::<64>().0;
                let mut ours = sm3::IV;
                if !from_iv {
                    for w in &mut ours {
                        *w = rng.next_u64() as u32;
                    }
                }
                let mut theirs = ours;
                kernel(&mut ours, blocks);
                crate_compress(&mut theirs, blocks);
                assert_eq!(
                    ours, theirs,
                    "{name}: {nblocks} blocks, from the IV: {from_iv}"
                );
            }
        }
    }
}

/// `message` padded as GB/T 32905-2016 5.2 pads it (as SHA-256: `0x80`,
/// zeros to 56 mod 64, the bit length as a big-endian `u64`); the kernels
/// do not pad.
fn pad(message: &[u8]) -> Vec<Block> {
    let mut bytes = message.to_vec();
    bytes.push(0x80);
    while bytes.len() % 64 != 56 {
        bytes.push(0);
    }
    bytes.extend_from_slice(&(message.len() as u64 * 8).to_be_bytes());
    bytes.as_chunks::<64>().0.to_vec()
}

/// The digest: the final state's words, big-endian.
fn digest_bytes(state: &State) -> Vec<u8> {
    state.iter().flat_map(|w| w.to_be_bytes()).collect()
}

/// Digests through every one-stream kernel and the padding above, against
/// the `sm3` crate's digest, at every length 0..=300 (every tail, and the
/// padding spilling into a second block at 56..64) and at a few longer ones.
#[test]
fn one_stream_digests_match_sm3_crate() {
    for (name, kernel) in one_stream_kernels() {
        let mut rng = Rng::new(0x5a3d);
        for len in (0..=300).chain([1000, 4096, 65_537]) {
            let message = rng.bytes(len);
            let mut state = sm3::IV;
            kernel(&mut state, &pad(&message));
            assert_eq!(
                digest_bytes(&state),
                oracle::Sm3::digest(&message).to_vec(),
                "{name}: length {len}"
            );
        }
    }
}

/// GB/T 32905-2016 appendix A: example 1 ("abc") and example 2 ("abcd"
/// 16 times, two blocks once padded).
const KNOWN_ANSWERS: [(&[u8], [u32; 8]); 2] = [
    (
        b"abc",
        [
            0x66c7f0f4, 0x62eeedd9, 0xd1f2d46b, 0xdc10e4e2, 0x4167c487, 0x5cf2f7a2, 0x297da02b,
            0x8f4ba8e0,
        ],
    ),
    (
        b"abcdabcdabcdabcdabcdabcdabcdabcdabcdabcdabcdabcdabcdabcdabcdabcd",
        [
            0xdebe9ff9, 0x2275b8a1, 0x38604889, 0xc18e5a4d, 0x6fdb70e5, 0x387e5765, 0x293dcba3,
            0x9c0c5732,
        ],
    ),
];

/// The known answers in every lane of a kernel (the message padded first).
fn check_known_answers<const N: usize, K: Compress<N>>(kernel: K) {
    for (message, expected) in KNOWN_ANSWERS {
        let blocks = pad(message);
        let mut states = [sm3::IV; N];
        let mut it = states.iter_mut();
        let lanes = std::array::from_fn(|_| it.next().unwrap());
        kernel.compress(lanes, [&blocks[..]; N]);
        for (lane, state) in states.iter().enumerate() {
            assert_eq!(
                *state,
                expected,
                "{N} lanes, lane {lane}, message {:?}",
                String::from_utf8_lossy(message)
            );
        }
    }
}

#[test]
fn known_answers_scalar() {
    check_known_answers::<1, _>(sm3::Scalar);
}

#[test]
fn known_answers_portable() {
    check_known_answers::<1, _>(sm3::Portable);
}

#[test]
fn known_answers_avx2_x1() {
    if let Some(k) = avx2_x1_avx2_expansion() {
        check_known_answers::<1, _>(k);
    }
    if let Some(k) = avx2_x1_avx512() {
        check_known_answers::<1, _>(k);
    }
}

#[test]
fn known_answers_avx2_x8() {
    if let Some(k) = token_or_skip(Feature::Avx2, "sm3 avx2_x8", sm3::Avx2x8::new()) {
        check_known_answers::<8, _>(k);
    }
}

#[test]
fn known_answers_avx512_x16() {
    if let Some(k) = token_or_skip(Feature::Avx512, "sm3 avx512_x16", sm3::Avx512x16::new()) {
        check_known_answers::<16, _>(k);
    }
}

/// The known answers are also the `sm3` crate's (the table above is read
/// right).
#[test]
fn known_answers_match_sm3_crate() {
    for (message, expected) in KNOWN_ANSWERS {
        let expected: Vec<u8> = expected.iter().flat_map(|w| w.to_be_bytes()).collect();
        assert_eq!(oracle::Sm3::digest(message).to_vec(), expected);
    }
}
