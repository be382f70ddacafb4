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

pub mod algo;
mod lanes;

#[cfg(feature = "std")]
pub use algo::UnknownAlgo;
pub use algo::{Algo, Digest, MAX_OUTPUT_LEN};
pub(crate) use lanes::lanes_of;
pub use lanes::{LaneArray, LaneCount, Lanes, lane_array};

/// The largest lane count of any engine or lane set (MD5's AVX-512 x32:
/// two interleaved sets of 16 lanes of `u32`). Lane masks are `u32`; arrays
/// per lane are sized by their family ([`Family::LANES`], through
/// [`LaneArray`]), not by this bound.
pub const MAX_LANES: usize = 32;

mod sealed {
    pub trait Sealed {}
}

/// A state word: `u32` or `u64`, with the byte orders a family may use.
///
/// Sealed: implemented for `u32` and `u64` only.
pub trait Word: sealed::Sealed + Copy + Eq + Debug + Default + Send + Sync + 'static {
    /// Bytes per word.
    const LEN: usize;
    /// Writes the word into `out` (`LEN` bytes), big-endian if `big`.
    fn write(self, out: &mut [u8], big: bool);
    /// Reads a word written little-endian (`LEN` bytes).
    fn read_le(bytes: &[u8]) -> Self;
}

macro_rules! words {
    ($($w:ty),*) => {$(
        impl sealed::Sealed for $w {}

        impl Word for $w {
            const LEN: usize = core::mem::size_of::<$w>();

            #[inline(always)]
            fn write(self, out: &mut [u8], big: bool) {
                let bytes = if big { self.to_be_bytes() } else { self.to_le_bytes() };
                out.copy_from_slice(&bytes[..out.len()]);
            }

            #[inline(always)]
            fn read_le(bytes: &[u8]) -> Self {
                let mut b = [0u8; core::mem::size_of::<$w>()];
                b.copy_from_slice(bytes);
                <$w>::from_le_bytes(b)
            }
        }
    )*};
}

words!(u32, u64);

/// A family of algorithms sharing one compression function: its word, state
/// width, block, length field and byte order.
///
/// Sealed: implemented only for the families of this crate.
pub trait Family: sealed::Sealed + Sized + 'static {
    /// State word: `u32` or `u64`.
    type Word: Word;
    /// The chaining state, `[Word; STATE_WORDS]`: what a kernel lane holds.
    type State: Copy
        + Eq
        + Debug
        + Default
        + Send
        + Sync
        + AsRef<[Self::Word]>
        + AsMut<[Self::Word]>
        + 'static;
    /// One message block: `[u8; BLOCK_LEN]`.
    type Block: Copy + Eq + Debug + Send + Sync + AsRef<[u8]> + AsMut<[u8]> + 'static;
    /// The lanes of a job manager's lane set: as many as the family's
    /// widest kernel runs (16 for SHA-256, 8 for SHA-512, 32 for MD5), for
    /// jobs `J`.
    type Lanes<J>: LaneCount<Self, J>;
    /// The number of those lanes (checked equal at compile time).
    const LANES: usize;
    /// Words in the state.
    const STATE_WORDS: usize;
    /// Bytes per block.
    const BLOCK_LEN: usize;
    /// A block of zeros.
    const ZERO_BLOCK: Self::Block;
    /// Bytes of the padding's length field (the message length in bits).
    const LENGTH_LEN: usize;
    /// True if the length field and the digest are big-endian (the SHA
    /// families, SM3), false if little-endian (MD5).
    const BIG_ENDIAN: bool;
    /// Bytes per state word.
    const WORD_LEN: usize = <Self::Word as Word>::LEN;

    /// Splits `data` into whole blocks and the remaining tail.
    fn split_blocks(data: &[u8]) -> (&[Self::Block], &[u8]);
    /// Views two blocks as `2 * BLOCK_LEN` bytes.
    fn bytes_mut(blocks: &mut [Self::Block; 2]) -> &mut [u8];

    /// Writes the padding length field for `total_bytes` of message into
    /// `field` (`LENGTH_LEN` bytes): the length in bits, modulo
    /// `2^(8 * LENGTH_LEN)`, in the family's byte order.
    #[inline]
    fn write_length(field: &mut [u8], total_bytes: u64) {
        let bits = u128::from(total_bytes) * 8;
        if Self::BIG_ENDIAN {
            field.copy_from_slice(&bits.to_be_bytes()[16 - Self::LENGTH_LEN..]);
        } else {
            field.copy_from_slice(&bits.to_le_bytes()[..Self::LENGTH_LEN]);
        }
    }

    /// Writes the state as the digest's bytes into `out` (in the family's
    /// byte order), truncated to `out`'s length: whole words as whole
    /// stores, a truncated digest's part word last.
    #[inline]
    fn write_digest(state: &Self::State, out: &mut [u8]) {
        let mut chunks = out.chunks_mut(Self::WORD_LEN);
        for (chunk, word) in (&mut chunks).zip(state.as_ref()) {
            word.write(chunk, Self::BIG_ENDIAN);
        }
    }

    /// Writes the state words little-endian into `out`
    /// (`STATE_WORDS * WORD_LEN` bytes): the saved-state layout of
    /// RustCrypto's `SerializableState`.
    fn write_words_le(state: &Self::State, out: &mut [u8]) {
        for (chunk, word) in out.chunks_exact_mut(Self::WORD_LEN).zip(state.as_ref()) {
            word.write(chunk, false);
        }
    }

    /// Reads state words written by [`Family::write_words_le`].
    fn read_words_le(bytes: &[u8], state: &mut Self::State) {
        for (word, chunk) in state
            .as_mut()
            .iter_mut()
            .zip(bytes.chunks_exact(Self::WORD_LEN))
        {
            *word = Word::read_le(chunk);
        }
    }

    /// Overwrites the state with zeros in a way the compiler keeps.
    #[cfg(feature = "zeroize")]
    fn zeroize_state(state: &mut Self::State);

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
    /// The BSD-style tag, e.g. `"SHA256"`, `"SHA512/256"`, as coreutils'
    /// `--tag` writes it.
    const TAG: &'static str;
    /// Every tag a check line of this algorithm may carry (coreutils',
    /// BSD's and OpenSSL's spellings), [`Algorithm::TAG`] first.
    const CHECK_TAGS: &'static [&'static str];
    /// Python's `hashlib` name, e.g. `"sha512_256"`.
    const HASHLIB: &'static str;
    /// The C library's number of the algorithm (`MBH_SHA256` = 1, ...).
    const C_ID: u32;
    /// The run-time id of the algorithm.
    const ALGO: Algo;
    /// Initial chaining value.
    const IV: <Self::Family as Family>::State;
    /// An all-zero output, for initialising buffers.
    const ZERO_OUTPUT: Self::Output;
}

/// The state of an algorithm's family.
pub type StateOf<A> = <<A as Algorithm>::Family as Family>::State;
/// The block type of an algorithm's family.
pub type BlockOf<A> = <<A as Algorithm>::Family as Family>::Block;

/// Calls the macro `$m` with the catalogue of every hash family, as
/// [`for_each_algorithm!`](crate::for_each_algorithm) does with the
/// algorithms: `[ARGS]`, then one entry per family:
///
/// ```text
/// #[doc = ...] Variant = FamilyType {
///     word: u32, words: 8, block: 64, length: 8, big_endian: true, lanes: 16,
///     engine: Sha256Engine, kernels: Sha256Kernels, name: "sha256",
/// };
/// ```
///
/// `FamilyType` is the [`Family`] generated here; `Variant` its
/// [`EngineFamily`](crate::engine::EngineFamily); `word` and `words` the
/// state, `block` and `length` the bytes of a block and of the padding's
/// length field, `big_endian` the byte order of the length and the digest,
/// `lanes` the widest kernel's lanes (the lane set's size), `engine` and
/// `kernels` the names of the family's engine alias and its
/// [`Kernels`](crate::engine::Kernels) (written in `engine/<name>.rs`),
/// `name` the family's name in messages and engine variables
/// (`MBHASH_<NAME>_ENGINE`). `for_each_family!(@names m)` calls `m` with
/// the names alone: `Variant FamilyType Engine Kernels "name";` per
/// family. The families, the engine aliases,
/// `EngineFamily`, `AnyEngine`, the per-family defaults and the service's
/// per-family engines are generated from it.
#[macro_export]
macro_rules! for_each_family {
    (@list [$($m:tt)*] [$($args:tt)*]) => {
        $($m)*! { [$($args)*]
            /// SHA-256 and SHA-224: eight 32-bit words, 64-byte blocks, a 64-bit
            /// big-endian length.
            Sha256 = Sha256Family {
                word: u32, words: 8, block: 64, length: 8, big_endian: true, lanes: 16,
                engine: Sha256Engine, kernels: Sha256Kernels, name: "sha256",
            };
            /// SHA-512, SHA-384, SHA-512/256 and SHA-512/224: eight 64-bit words,
            /// 128-byte blocks, a 128-bit big-endian length.
            Sha512 = Sha512Family {
                word: u64, words: 8, block: 128, length: 16, big_endian: true, lanes: 8,
                engine: Sha512Engine, kernels: Sha512Kernels, name: "sha512",
            };
            /// MD5 (RFC 1321): four 32-bit words, 64-byte blocks, a 64-bit
            /// little-endian length, a little-endian digest.
            Md5 = Md5Family {
                word: u32, words: 4, block: 64, length: 8, big_endian: false, lanes: 32,
                engine: Md5Engine, kernels: Md5Kernels, name: "md5",
            };
            /// SHA-1 (FIPS 180-4): five 32-bit words, 64-byte blocks, a 64-bit
            /// big-endian length.
            Sha1 = Sha1Family {
                word: u32, words: 5, block: 64, length: 8, big_endian: true, lanes: 16,
                engine: Sha1Engine, kernels: Sha1Kernels, name: "sha1",
            };
            /// SM3 (GB/T 32905-2016): eight 32-bit words, 64-byte blocks, a
            /// 64-bit big-endian length.
            Sm3 = Sm3Family {
                word: u32, words: 8, block: 64, length: 8, big_endian: true, lanes: 16,
                engine: Sm3Engine, kernels: Sm3Kernels, name: "sm3",
            };
        }
    };
    // The names only: `$m! { Variant FamilyType Engine Kernels "name"; ... }`,
    // for code that needs no more of an entry.
    (@names $m:ident) => {
        $crate::for_each_family! { @list [$crate::__family_names] [$m] }
    };
    ($m:ident $(, $($args:tt)*)?) => {
        $crate::for_each_family! { @list [$m] [$($($args)*)?] }
    };
}

/// [`for_each_family!`]`(@names m)`: calls `m` with each family's variant,
/// type, engine alias, kernels type and name.
#[doc(hidden)]
#[macro_export]
macro_rules! __family_names {
    ([$m:ident] $($(#[$doc:meta])* $v:ident = $ty:ident {
        word: $word:ty, words: $words:literal, block: $block:literal, length: $len:literal,
        big_endian: $big:literal, lanes: $lanes:literal,
        engine: $engine:ident, kernels: $kernels:ident, name: $name:literal $(,)?
    };)*) => {
        $m! { $($v $ty $engine $kernels $name;)* }
    };
}

/// The families' [`Family`] impls, from the catalogue.
macro_rules! families {
    ([] $($(#[$doc:meta])* $v:ident = $ty:ident {
        word: $word:ty, words: $words:literal, block: $block:literal, length: $len:literal,
        big_endian: $big:literal, lanes: $lanes:literal,
        engine: $engine:ident, kernels: $kernels:ident, name: $name:literal $(,)?
    };)*) => {$(
        $(#[$doc])*
        #[derive(Debug)]
        pub enum $ty {}

        impl sealed::Sealed for $ty {}

        impl Family for $ty {
            type Word = $word;
            type State = [$word; $words];
            type Block = [u8; $block];
            type Lanes<J> = Lanes<$lanes>;
            const LANES: usize = $lanes;
            const STATE_WORDS: usize = $words;
            const BLOCK_LEN: usize = $block;
            const ZERO_BLOCK: [u8; $block] = [0; $block];
            const LENGTH_LEN: usize = $len;
            const BIG_ENDIAN: bool = $big;

            #[inline]
            fn split_blocks(data: &[u8]) -> (&[[u8; $block]], &[u8]) {
                data.as_chunks::<$block>()
            }

            #[inline]
            fn bytes_mut(blocks: &mut [[u8; $block]; 2]) -> &mut [u8] {
                blocks.as_flattened_mut()
            }

            #[cfg(feature = "zeroize")]
            fn zeroize_state(state: &mut [$word; $words]) {
                digest::zeroize::Zeroize::zeroize(state);
            }
        }

        // The lane set holds as many lanes as the family says.
        const _: () = {
            assert!(<<$ty as Family>::Lanes<()> as LaneCount<$ty, ()>>::N == <$ty>::LANES);
            assert!(<$ty>::LANES <= MAX_LANES);
            assert!(<$ty>::LENGTH_LEN <= 16 && <$ty>::LENGTH_LEN < <$ty>::BLOCK_LEN);
        };
    )*};
}

crate::for_each_family!(families);

/// The marker types, generated from the catalogue
/// ([`for_each_algorithm!`](crate::for_each_algorithm)).
macro_rules! markers {
    ([] $($(#[$doc:meta])* $v:ident = $t:ident {
        family: $family:ident, iv: $iv:path, len: $len:literal,
        name: $name:literal, tag: $tag:literal, tags: [$($tags:literal),*], hashlib: $hashlib:literal,
        hasher: $hasher:ident $hdoc:literal, manager: $manager:ident, context: $context:ident,
        oid: $oid:literal, sizes: [$out:ident, $block:ident, $core_state:ident, $state:ident], c: $c:literal $(,)?
    };)*) => {$(
        #[doc = concat!("Marker for ", stringify!($v), ": the [`Algorithm`] of [`crate::", stringify!($hasher), "`].")]
        #[derive(Debug)]
        pub enum $t {}

        impl Algorithm for $t {
            type Family = $family;
            type Output = [u8; $len];
            const NAME: &'static str = $name;
            const TAG: &'static str = $tag;
            const CHECK_TAGS: &'static [&'static str] = &[$($tags),*];
            const HASHLIB: &'static str = $hashlib;
            const C_ID: u32 = $c;
            const ALGO: Algo = Algo::$v;
            const IV: <$family as Family>::State = $iv;
            const ZERO_OUTPUT: [u8; $len] = [0; $len];
        }

        const _: () = {
            assert!($len <= <$family as Family>::STATE_WORDS * <$family as Family>::WORD_LEN);
            let tags: &[&str] = &[$($tags),*];
            assert!(!tags.is_empty());
        };
    )*};
}

crate::for_each_algorithm!(markers);
