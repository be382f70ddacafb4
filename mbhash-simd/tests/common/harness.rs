//! The one harness every hash kernel runs through, generic over the family
//! (SHA-256: eight `u32` words, 64-byte blocks; SHA-512: eight `u64`, 128
//! bytes; MD5: four `u32`, 64 bytes; any state width).

use std::fmt::Debug;

use super::Rng;
use mbhash_simd::{md5, sha256, sha512, sm3};

/// What the harness needs to know of a family.
pub trait Family {
    /// State word.
    type Word: Copy + PartialEq + Debug;
    /// A chaining state: `[Word; W]` for the family's width `W` (4 words
    /// for MD5, 5 for SHA-1, 8 for the SHA-2 families and SM3).
    type State: Copy + PartialEq + Debug + Default + AsMut<[Self::Word]>;
    /// One block.
    type Block: 'static;
    /// Bytes per block.
    const BLOCK: usize;
    /// The family's initial value.
    const IV: Self::State;
    /// The all-ones word.
    const ONES: Self::Word;
    /// Name in messages.
    const NAME: &'static str;
    /// A random word.
    fn word(rng: &mut Rng) -> Self::Word;
    /// Whole blocks of `bytes` (a multiple of the block size).
    fn blocks(bytes: &[u8]) -> &[Self::Block];
    /// The scalar reference.
    fn scalar(state: &mut Self::State, blocks: &[Self::Block]);
}

/// SHA-256 and SHA-224.
pub struct Sha256;
/// SHA-512 and its truncated variants.
pub struct Sha512;
/// MD5.
pub struct Md5;
/// SM3.
pub struct Sm3;

impl Family for Sha256 {
    type Word = u32;
    type State = sha256::State;
    type Block = sha256::Block;
    const BLOCK: usize = 64;
    const IV: sha256::State = sha256::IV;
    const ONES: u32 = u32::MAX;
    const NAME: &'static str = "sha256";
    fn word(rng: &mut Rng) -> u32 {
        rng.next_u64() as u32
    }
    fn blocks(bytes: &[u8]) -> &[sha256::Block] {
        bytes.as_chunks::<64>().0
    }
    fn scalar(state: &mut sha256::State, blocks: &[sha256::Block]) {
        sha256::scalar::compress(state, blocks);
    }
}

impl Family for Sha512 {
    type Word = u64;
    type State = sha512::State;
    type Block = sha512::Block;
    const BLOCK: usize = 128;
    const IV: sha512::State = sha512::IV;
    const ONES: u64 = u64::MAX;
    const NAME: &'static str = "sha512";
    fn word(rng: &mut Rng) -> u64 {
        rng.next_u64()
    }
    fn blocks(bytes: &[u8]) -> &[sha512::Block] {
        bytes.as_chunks::<128>().0
    }
    fn scalar(state: &mut sha512::State, blocks: &[sha512::Block]) {
        sha512::scalar::compress(state, blocks);
    }
}

impl Family for Md5 {
    type Word = u32;
    type State = md5::State;
    type Block = md5::Block;
    const BLOCK: usize = 64;
    const IV: md5::State = md5::IV;
    const ONES: u32 = u32::MAX;
    const NAME: &'static str = "md5";
    fn word(rng: &mut Rng) -> u32 {
        rng.next_u64() as u32
    }
    fn blocks(bytes: &[u8]) -> &[md5::Block] {
        bytes.as_chunks::<64>().0
    }
    fn scalar(state: &mut md5::State, blocks: &[md5::Block]) {
        md5::scalar::compress(state, blocks);
    }
}

impl Family for Sm3 {
    type Word = u32;
    type State = sm3::State;
    type Block = sm3::Block;
    const BLOCK: usize = 64;
    const IV: sm3::State = sm3::IV;
    const ONES: u32 = u32::MAX;
    const NAME: &'static str = "sm3";
    fn word(rng: &mut Rng) -> u32 {
        rng.next_u64() as u32
    }
    fn blocks(bytes: &[u8]) -> &[sm3::Block] {
        bytes.as_chunks::<64>().0
    }
    fn scalar(state: &mut sm3::State, blocks: &[sm3::Block]) {
        sm3::scalar::compress(state, blocks);
    }
}

/// A state of random words.
fn random_state<F: Family>(rng: &mut Rng) -> F::State {
    let mut s = F::State::default();
    for w in s.as_mut() {
        *w = F::word(rng);
    }
    s
}

fn refs<T, const N: usize>(states: &mut [T; N]) -> [&mut T; N] {
    let mut it = states.iter_mut();
    std::array::from_fn(|_| it.next().unwrap())
}

/// `N` lanes of `nblocks` random blocks each from random states (lane 0
/// from the IV, with all-ones data; lane 1 all-zero data; lane 2 an
/// all-ones state), the data at byte `offset` of its buffer (unaligned),
/// against the scalar kernel.
fn check_once<F: Family, const N: usize>(
    compress: &impl Fn([&mut F::State; N], [&[F::Block]; N]),
    rng: &mut Rng,
    nblocks: usize,
    offset: usize,
) {
    let mut bufs: Vec<Vec<u8>> = (0..N)
        .map(|_| {
            let mut v = vec![0u8; offset + nblocks * F::BLOCK];
            rng.fill(&mut v);
            v
        })
        .collect();
    if nblocks > 0 {
        bufs[0][offset..].fill(0xff);
        if N > 1 {
            bufs[1][offset..].fill(0);
        }
    }
    let mut states: [F::State; N] = std::array::from_fn(|_| random_state::<F>(rng));
    states[0] = F::IV;
    if N > 2 {
        states[2].as_mut().fill(F::ONES);
    }
    let mut expected = states;
    let blocks: [&[F::Block]; N] = std::array::from_fn(|i| F::blocks(&bufs[i][offset..]));
    for (s, b) in expected.iter_mut().zip(blocks) {
        F::scalar(s, b);
    }
    compress(refs(&mut states), blocks);
    assert_eq!(
        states,
        expected,
        "{} {N} lanes, {nblocks} blocks, offset {offset}",
        F::NAME
    );
}

/// The states live in separate heap allocations, handed to the kernel in a
/// scrambled order, so a kernel that assumed they were contiguous or in
/// memory order would mix up lanes.
fn check_scattered_states<F: Family, const N: usize>(
    compress: &impl Fn([&mut F::State; N], [&[F::Block]; N]),
    rng: &mut Rng,
    nblocks: usize,
) {
    let data: Vec<Vec<u8>> = (0..N)
        .map(|_| {
            let mut v = vec![0u8; nblocks * F::BLOCK];
            rng.fill(&mut v);
            v
        })
        .collect();
    let blocks: [&[F::Block]; N] = std::array::from_fn(|i| F::blocks(&data[i]));
    let mut boxes: Vec<Box<F::State>> = (0..N).map(|_| Box::new(random_state::<F>(rng))).collect();
    // Lane i gets the state at position (i * 5 + 3) % N, a permutation for
    // every power-of-two N (5 is odd).
    let order: Vec<usize> = (0..N).map(|i| (i * 5 + 3) % N).collect();
    let expected: Vec<F::State> = (0..N)
        .map(|lane| {
            let mut s = *boxes[order[lane]];
            F::scalar(&mut s, blocks[lane]);
            s
        })
        .collect();
    {
        let mut slots: Vec<Option<&mut F::State>> =
            boxes.iter_mut().map(|b| Some(&mut **b)).collect();
        let lanes = std::array::from_fn(|lane| slots[order[lane]].take().unwrap());
        compress(lanes, blocks);
    }
    for lane in 0..N {
        assert_eq!(
            *boxes[order[lane]],
            expected[lane],
            "{} scattered states, lane {lane}, {nblocks} blocks",
            F::NAME
        );
    }
}

/// Lanes with different block counts are a caller bug: the kernel must
/// panic (before touching any state), never read past a lane's blocks.
fn check_unequal_lengths_panic<F: Family, const N: usize>(
    compress: &impl Fn([&mut F::State; N], [&[F::Block]; N]),
) {
    if N < 2 {
        return;
    }
    let data = vec![0u8; 3 * F::BLOCK];
    let all = F::blocks(&data);
    for short in [0, N - 1] {
        let blocks: [&[F::Block]; N] =
            std::array::from_fn(|i| if i == short { &all[..2] } else { all });
        let mut states = [F::IV; N];
        let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            compress(refs(&mut states), blocks);
        }));
        assert!(result.is_err(), "lane {short} one block short must panic");
        assert!(
            states.iter().all(|s| *s == F::IV),
            "state changed before the panic"
        );
    }
}

/// The shared harness: block counts 0..=20 and a few long runs, odd
/// offsets, scattered states, unequal block counts.
pub fn check_kernel<F: Family, const N: usize>(
    compress: impl Fn([&mut F::State; N], [&[F::Block]; N]),
) {
    let mut rng = Rng::new(0x5eed ^ (F::BLOCK as u64) << 8 ^ N as u64);
    for nblocks in (0..=20).chain([31, 32, 33, 63, 64, 65, 129]) {
        for offset in [0, 1, 3, 7] {
            check_once::<F, N>(&compress, &mut rng, nblocks, offset);
        }
    }
    for nblocks in [0, 1, 5] {
        check_scattered_states::<F, N>(&compress, &mut rng, nblocks);
    }
    check_unequal_lengths_panic::<F, N>(&compress);
}

/// SHA-1: five `u32` words, 64-byte blocks.
pub struct Sha1;

impl Family for Sha1 {
    type Word = u32;
    type State = mbhash_simd::sha1::State;
    type Block = mbhash_simd::sha1::Block;
    const BLOCK: usize = 64;
    const IV: Self::State = mbhash_simd::sha1::IV;
    const ONES: u32 = u32::MAX;
    const NAME: &'static str = "sha1";
    fn word(rng: &mut Rng) -> u32 {
        rng.next_u64() as u32
    }
    fn blocks(bytes: &[u8]) -> &[Self::Block] {
        bytes.as_chunks::<64>().0
    }
    fn scalar(state: &mut Self::State, blocks: &[Self::Block]) {
        mbhash_simd::sha1::scalar::compress(state, blocks);
    }
}
