//! Algorithms and their families.
//!
//! A [`Family`] is what a compression kernel sees: the word type, the block
//! size and the length field of the padding (SHA-256 and SHA-224 share one;
//! SHA-512 and its truncated variants another). An [`Algorithm`] adds the
//! initial value and the output length. The job manager, the contexts and the
//! padding are written once, generic over the algorithm.
//!
//! The markers are named with an `Alg` suffix ([`Sha256Alg`], ...), so that
//! they never collide with the hashers of the same algorithm
//! ([`Sha256`](crate::Sha256) = [`StreamHasher<Sha256Alg>`](crate::StreamHasher))
//! or with the run-time id ([`Algo::Sha256`]):
//!
//! ```
//! use mbhash_core::{Algo, JobManager, Sha256, Sha256Alg, alg::Algorithm, hash_many};
//! use digest::Digest;
//! let mut mgr = JobManager::<Sha256Alg>::new();
//! let _ = &mut mgr;
//! assert_eq!(Sha256Alg::ALGO, Algo::Sha256);
//! assert_eq!(
//!     hash_many::<Sha256Alg>(&[b"abc"])[0],
//!     <[u8; 32]>::from(Sha256::digest(b"abc")),
//! );
//! ```

use core::fmt::Debug;

use crate::algo::Algo;
use crate::engine::LaneEngine;

/// The largest lane count of any engine (AVX-512 with 16 lanes of `u32`).
pub const MAX_LANES: usize = 16;

mod sealed {
    pub trait Sealed {}
}

/// A family of algorithms sharing one compression function.
///
/// Sealed: implemented only for [`Sha256Family`] and [`Sha512Family`].
pub trait Family: sealed::Sealed + Sized + 'static {
    /// State word: `u32` or `u64`.
    type Word: Copy + Eq + Debug + Default + Send + Sync + 'static;
    /// One message block: `[u8; 64]` or `[u8; 128]`.
    type Block: Copy + Eq + Debug + Send + Sync + 'static;
    /// The engine type that runs this family's kernels.
    type Engine: LaneEngine<Self>;
    /// The lanes of a job manager's lane set: as many as the family's
    /// widest kernel runs (16 for SHA-256, 8 for SHA-512), for jobs `J`.
    type Lanes<J>: crate::lanes::LaneCount<Self, J>;
    /// The number of those lanes (checked equal at compile time).
    const LANES: usize;
    /// Bytes per block.
    const BLOCK_LEN: usize;
    /// A block of zeros.
    const ZERO_BLOCK: Self::Block;

    /// Splits `data` into whole blocks and the remaining tail.
    fn split_blocks(data: &[u8]) -> (&[Self::Block], &[u8]);
    /// Views two blocks as `2 * BLOCK_LEN` bytes.
    fn bytes_mut(blocks: &mut [Self::Block; 2]) -> &mut [u8];
    /// Writes the padding length field for `total_bytes` of message into
    /// `field` (8 bytes for SHA-256, 16 for SHA-512), big-endian, in bits.
    fn write_length(field: &mut [u8], total_bytes: u64);
    /// Bytes of the length field.
    const LENGTH_LEN: usize;
    /// Writes the state as big-endian bytes into `out`, truncated to its length.
    fn write_digest(state: &[Self::Word; 8], out: &mut [u8]);
    /// Bytes per state word.
    const WORD_LEN: usize;
    /// Writes the state words little-endian into `out` (`8 * WORD_LEN`
    /// bytes): the saved-state layout of `sha2`'s `SerializableState`.
    fn write_words_le(state: &[Self::Word; 8], out: &mut [u8]);
    /// Reads state words written by [`Family::write_words_le`].
    fn read_words_le(bytes: &[u8], state: &mut [Self::Word; 8]);
    /// Overwrites the state with zeros in a way the compiler keeps.
    #[cfg(feature = "zeroize")]
    fn zeroize_state(state: &mut [Self::Word; 8]);

    /// Pads the end of a message of `total_len` bytes, whose last `len`
    /// bytes (fewer than `2 * BLOCK_LEN - LENGTH_LEN`) are at the start of
    /// `bytes` (two blocks): the 0x80 byte, zeros, the length field. Returns the number of blocks to
    /// compress (1 or 2). The one padding routine of every hasher, manager
    /// and context layer.
    #[inline]
    fn pad_bytes(bytes: &mut [u8], len: usize, total_len: u64) -> usize {
        let blocks = if len < Self::BLOCK_LEN - Self::LENGTH_LEN {
            1
        } else {
            2
        };
        let end = blocks * Self::BLOCK_LEN;
        bytes[len] = 0x80;
        bytes[len + 1..end - Self::LENGTH_LEN].fill(0);
        Self::write_length(&mut bytes[end - Self::LENGTH_LEN..end], total_len);
        blocks
    }

    /// [`Family::pad_bytes`] on two blocks.
    #[inline]
    fn pad(buf: &mut [Self::Block; 2], len: usize, total_len: u64) -> usize {
        Self::pad_bytes(Self::bytes_mut(buf), len, total_len)
    }
}

/// One hash algorithm: a family plus its initial value and output length.
pub trait Algorithm: Sized + Send + Sync + 'static {
    /// The family whose kernels compute it.
    type Family: Family;
    /// The digest as bytes, e.g. `[u8; 32]`.
    type Output: Copy + Eq + Debug + AsRef<[u8]> + AsMut<[u8]> + Send + Sync + 'static;
    /// Lower-case name, e.g. `"sha256"`.
    const NAME: &'static str;
    /// The BSD-style tag, e.g. `"SHA256"`, `"SHA512/256"`.
    const TAG: &'static str;
    /// The run-time id of the algorithm.
    const ALGO: Algo;
    /// Initial chaining value.
    const IV: [<Self::Family as Family>::Word; 8];
    /// An all-zero output, for initialising buffers.
    const ZERO_OUTPUT: Self::Output;
}

/// The state words of an algorithm's family.
pub type StateOf<A> = [<<A as Algorithm>::Family as Family>::Word; 8];
/// The block type of an algorithm's family.
pub type BlockOf<A> = <<A as Algorithm>::Family as Family>::Block;

/// Writes big-endian `words` as the first `out.len()` bytes: whole words as
/// whole stores, a truncated digest's part word last.
#[inline(always)]
fn write_words<const W: usize>(words: [[u8; W]; 8], out: &mut [u8]) {
    let whole = out.len() / W;
    let mut chunks = out.chunks_exact_mut(W);
    for (chunk, word) in (&mut chunks).zip(&words) {
        chunk.copy_from_slice(word);
    }
    let rest = chunks.into_remainder();
    if let Some(word) = words.get(whole) {
        rest.copy_from_slice(&word[..rest.len()]);
    }
}

/// SHA-256 and SHA-224: 32-bit words, 64-byte blocks.
#[derive(Debug)]
pub enum Sha256Family {}

impl sealed::Sealed for Sha256Family {}

impl Family for Sha256Family {
    type Word = u32;
    type Block = [u8; 64];
    type Engine = crate::engine::Sha256Engine;
    type Lanes<J> = crate::lanes::Lanes<16>;
    const LANES: usize = 16;
    const BLOCK_LEN: usize = 64;
    const ZERO_BLOCK: [u8; 64] = [0; 64];
    const LENGTH_LEN: usize = 8;

    #[inline]
    fn split_blocks(data: &[u8]) -> (&[[u8; 64]], &[u8]) {
        data.as_chunks::<64>()
    }

    #[inline]
    fn bytes_mut(blocks: &mut [[u8; 64]; 2]) -> &mut [u8] {
        blocks.as_flattened_mut()
    }

    #[inline]
    fn write_length(field: &mut [u8], total_bytes: u64) {
        // SHA-256 defines messages up to 2^64 - 1 bits; the field is the bit
        // length modulo 2^64.
        field.copy_from_slice(&total_bytes.wrapping_mul(8).to_be_bytes());
    }

    #[inline]
    fn write_digest(state: &[u32; 8], out: &mut [u8]) {
        write_words(state.map(u32::to_be_bytes), out);
    }

    const WORD_LEN: usize = 4;

    fn write_words_le(state: &[u32; 8], out: &mut [u8]) {
        for (chunk, word) in out.chunks_exact_mut(4).zip(state) {
            chunk.copy_from_slice(&word.to_le_bytes());
        }
    }

    fn read_words_le(bytes: &[u8], state: &mut [u32; 8]) {
        for (word, chunk) in state.iter_mut().zip(bytes.as_chunks::<4>().0) {
            *word = u32::from_le_bytes(*chunk);
        }
    }

    #[cfg(feature = "zeroize")]
    fn zeroize_state(state: &mut [u32; 8]) {
        digest::zeroize::Zeroize::zeroize(state);
    }
}

/// SHA-512, SHA-384, SHA-512/256 and SHA-512/224: 64-bit words, 128-byte
/// blocks, a 128-bit length field.
#[derive(Debug)]
pub enum Sha512Family {}

impl sealed::Sealed for Sha512Family {}

impl Family for Sha512Family {
    type Word = u64;
    type Block = [u8; 128];
    type Engine = crate::engine::Sha512Engine;
    type Lanes<J> = crate::lanes::Lanes<8>;
    const LANES: usize = 8;
    const BLOCK_LEN: usize = 128;
    const ZERO_BLOCK: [u8; 128] = [0; 128];
    const LENGTH_LEN: usize = 16;

    #[inline]
    fn split_blocks(data: &[u8]) -> (&[[u8; 128]], &[u8]) {
        data.as_chunks::<128>()
    }

    #[inline]
    fn bytes_mut(blocks: &mut [[u8; 128]; 2]) -> &mut [u8] {
        blocks.as_flattened_mut()
    }

    #[inline]
    fn write_length(field: &mut [u8], total_bytes: u64) {
        field.copy_from_slice(&(u128::from(total_bytes) * 8).to_be_bytes());
    }

    #[inline]
    fn write_digest(state: &[u64; 8], out: &mut [u8]) {
        write_words(state.map(u64::to_be_bytes), out);
    }

    const WORD_LEN: usize = 8;

    fn write_words_le(state: &[u64; 8], out: &mut [u8]) {
        for (chunk, word) in out.chunks_exact_mut(8).zip(state) {
            chunk.copy_from_slice(&word.to_le_bytes());
        }
    }

    fn read_words_le(bytes: &[u8], state: &mut [u64; 8]) {
        for (word, chunk) in state.iter_mut().zip(bytes.as_chunks::<8>().0) {
            *word = u64::from_le_bytes(*chunk);
        }
    }

    #[cfg(feature = "zeroize")]
    fn zeroize_state(state: &mut [u64; 8]) {
        digest::zeroize::Zeroize::zeroize(state);
    }
}

/// The marker types, one per line: its run-time id, family, word, IV,
/// names and output length.
macro_rules! markers {
    ($($(#[$doc:meta])* $ty:ident = $algo:ident, $family:ident, $word:ty, $iv:path,
     $name:literal, $tag:literal, $len:literal;)*) => {$(
        $(#[$doc])*
        #[derive(Debug)]
        pub enum $ty {}

        impl Algorithm for $ty {
            type Family = $family;
            type Output = [u8; $len];
            const NAME: &'static str = $name;
            const TAG: &'static str = $tag;
            const ALGO: Algo = Algo::$algo;
            const IV: [$word; 8] = $iv;
            const ZERO_OUTPUT: [u8; $len] = [0; $len];
        }
    )*};
}

markers! {
    /// Marker for SHA-256 (FIPS 180-4).
    Sha256Alg = Sha256, Sha256Family, u32, mbhash_simd::sha256::IV, "sha256", "SHA256", 32;
    /// Marker for SHA-224 (FIPS 180-4): SHA-256 with its own IV, truncated.
    Sha224Alg = Sha224, Sha256Family, u32, mbhash_simd::sha256::IV_224, "sha224", "SHA224", 28;
    /// Marker for SHA-512 (FIPS 180-4).
    Sha512Alg = Sha512, Sha512Family, u64, mbhash_simd::sha512::IV, "sha512", "SHA512", 64;
    /// Marker for SHA-384: SHA-512 with its own IV, truncated to 48 bytes.
    Sha384Alg = Sha384, Sha512Family, u64, mbhash_simd::sha512::IV_384, "sha384", "SHA384", 48;
    /// Marker for SHA-512/256 (ZFS's "sha512" checksum): its own IV, 32 bytes.
    Sha512_256Alg = Sha512_256, Sha512Family, u64, mbhash_simd::sha512::IV_512_256, "sha512-256", "SHA512/256", 32;
    /// Marker for SHA-512/224: its own IV, 28 bytes.
    Sha512_224Alg = Sha512_224, Sha512Family, u64, mbhash_simd::sha512::IV_512_224, "sha512-224", "SHA512/224", 28;
}

// Each family's lane count is the lane set's.
const _: () = {
    use crate::lanes::LaneCount;
    assert!(
        <<Sha256Family as Family>::Lanes<()> as LaneCount<Sha256Family, ()>>::N
            == Sha256Family::LANES
    );
    assert!(
        <<Sha512Family as Family>::Lanes<()> as LaneCount<Sha512Family, ()>>::N
            == Sha512Family::LANES
    );
};
