//! The block-level layer of RustCrypto's `digest` 0.11, so that `hmac`'s
//! `Hmac`, `hkdf`'s `Hkdf` and `pbkdf2` take an mbhash hasher.
//!
//! [`StreamHasherCore`] compresses whole blocks with the hasher's engine and pads
//! the bytes `digest`'s eager block buffer hands it at the end; it is the
//! `Core` of each hasher's [`CoreProxy`] impl. [`StreamHasher`] itself keeps its
//! own buffer (so its speed is untouched) and gets [`BlockSizeUser`]
//! (enough for `SimpleHmac` and `SimpleHkdf`), [`AlgorithmName`] and the
//! conversions to and from the core.
//!
//! ```
//! use hmac::{Hmac, KeyInit, Mac};
//! let mut mac = Hmac::<mbhash_core::Sha256>::new_from_slice(b"key").unwrap();
//! mac.update(b"The quick brown fox jumps over the lazy dog");
//! let tag = mac.finalize().into_bytes();
//! assert_eq!(tag[..4], [0xf7, 0xbc, 0x83, 0xf4]);
//! ```

use core::fmt;

use digest::HashMarker;
use digest::block_api::{
    AlgorithmName, Block, BlockSizeUser, Buffer, BufferKindUser, CoreProxy, Eager, FixedOutputCore,
    OutputSizeUser, UpdateCore,
};
use digest::common::hazmat::{DeserializeStateError, SerializableState, SerializedState};
use digest::{Output, Reset};

use super::{SingleOf, StreamHasher};
use crate::alg::{self, Algorithm, Family, StateOf};
use crate::buffer::BlockBuffer;
use crate::engine::HashAlgorithm;
use crate::engine::SingleStream;

/// The block-level core of [`StreamHasher`]: whole blocks in, padding at the end,
/// on the configured engine's single-stream kernel.
///
/// Code rarely names it: `hmac::Hmac<mbhash::Sha256>` finds it through
/// `Sha256`'s [`CoreProxy`] impl.
pub struct StreamHasherCore<A: HashAlgorithm> {
    engine: SingleOf<A>,
    state: StateOf<A>,
    /// Whole blocks compressed so far.
    blocks: u64,
}

impl<A: HashAlgorithm> StreamHasherCore<A> {
    fn compress(&mut self, blocks: &[u8]) {
        let (blocks, rest) = <A::Family as Family>::split_blocks(blocks);
        debug_assert!(rest.is_empty());
        self.engine.compress(&mut self.state, blocks);
        self.blocks = self.blocks.wrapping_add(blocks.len() as u64);
    }

    /// Pads the `tail` (shorter than a block) and writes the digest.
    fn finish(&mut self, tail: &[u8], out: &mut [u8]) {
        let block_len = <A::Family as Family>::BLOCK_LEN;
        let total_len = self
            .blocks
            .wrapping_mul(block_len as u64)
            .wrapping_add(tail.len() as u64);
        let mut buf = BlockBuffer::<A::Family>::new();
        buf.keep(tail);
        self.engine.compress(&mut self.state, buf.pad(total_len));
        let mut digest = A::ZERO_OUTPUT;
        <A::Family as Family>::write_digest(&self.state, digest.as_mut());
        out.copy_from_slice(digest.as_ref());
    }
}

impl<A: HashAlgorithm> Default for StreamHasherCore<A> {
    fn default() -> Self {
        // The engine a new hasher picks, so that both follow one rule.
        let engine = StreamHasher::<A>::new().engine;
        StreamHasherCore {
            engine,
            state: A::IV,
            blocks: 0,
        }
    }
}

impl<A: HashAlgorithm> Clone for StreamHasherCore<A> {
    fn clone(&self) -> Self {
        StreamHasherCore {
            engine: self.engine,
            state: self.state,
            blocks: self.blocks,
        }
    }
}

impl<A: HashAlgorithm> Reset for StreamHasherCore<A> {
    fn reset(&mut self) {
        self.state = A::IV;
        self.blocks = 0;
    }
}

impl<A: HashAlgorithm> HashMarker for StreamHasherCore<A> {}

impl<A: HashAlgorithm> StreamHasherCore<A> {
    /// The state words and the count of whole blocks as `sha2` serializes
    /// its block-level cores: each word little-endian, then the count
    /// little-endian in the bytes left (8 for SHA-256's `u64`, 16 for
    /// SHA-512's `u128`).
    fn serialize_into(&self, out: &mut [u8]) {
        let words = <A::Family as Family>::WORD_LEN;
        let (state, count) = out.split_at_mut(<A::Family as Family>::STATE_WORDS * words);
        <A::Family as Family>::write_words_le(&self.state, state);
        let blocks = u128::from(self.blocks).to_le_bytes();
        count.copy_from_slice(&blocks[..count.len()]);
    }

    /// The inverse of [`StreamHasherCore::serialize_into`], on the
    /// configured engine. A block count beyond what this hasher counts
    /// (2^64 bytes) is an error.
    fn deserialize_from(bytes: &[u8]) -> Result<Self, DeserializeStateError> {
        let words = <A::Family as Family>::WORD_LEN;
        let (state, count) = bytes.split_at(<A::Family as Family>::STATE_WORDS * words);
        let mut wide = [0u8; 16];
        wide[..count.len()].copy_from_slice(count);
        let blocks = u128::from_le_bytes(wide);
        let block_len = <A::Family as Family>::BLOCK_LEN as u128;
        if blocks.saturating_mul(block_len) > u128::from(u64::MAX) {
            return Err(DeserializeStateError);
        }
        let mut core = Self::default();
        <A::Family as Family>::read_words_le(state, &mut core.state);
        core.blocks = blocks as u64;
        Ok(core)
    }
}

#[cfg(feature = "zeroize")]
impl<A: HashAlgorithm> Drop for StreamHasherCore<A> {
    fn drop(&mut self) {
        <A::Family as Family>::zeroize_state(&mut self.state);
        digest::zeroize::Zeroize::zeroize(&mut self.blocks);
    }
}

#[cfg(feature = "zeroize")]
impl<A: HashAlgorithm> digest::zeroize::ZeroizeOnDrop for StreamHasherCore<A> {}

macro_rules! block_api {
    ($alg:ty, $block:ty, $output:ty, $name:expr, $oid:literal, $core_state:ty, $state:ty) => {
        impl fmt::Debug for StreamHasherCore<$alg> {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.debug_struct(concat!($name, "Core"))
                    .field("engine", &self.engine.name())
                    .finish_non_exhaustive()
            }
        }

        impl fmt::Debug for StreamHasher<$alg> {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.debug_struct($name)
                    .field("engine", &self.engine.name())
                    .finish_non_exhaustive()
            }
        }

        #[cfg(feature = "oid")]
        impl digest::const_oid::AssociatedOid for StreamHasher<$alg> {
            const OID: digest::const_oid::ObjectIdentifier =
                digest::const_oid::ObjectIdentifier::new_unwrap($oid);
        }

        #[cfg(feature = "oid")]
        impl digest::const_oid::AssociatedOid for StreamHasherCore<$alg> {
            const OID: digest::const_oid::ObjectIdentifier =
                digest::const_oid::ObjectIdentifier::new_unwrap($oid);
        }

        /// The bytes `sha2`'s block-level core of the same algorithm
        /// serializes to (its state words and block count).
        impl SerializableState for StreamHasherCore<$alg> {
            type SerializedStateSize = $core_state;

            fn serialize(&self) -> SerializedState<Self> {
                let mut out = SerializedState::<Self>::default();
                self.serialize_into(&mut out);
                out
            }

            fn deserialize(
                serialized_state: &SerializedState<Self>,
            ) -> Result<Self, DeserializeStateError> {
                Self::deserialize_from(serialized_state)
            }
        }

        /// The bytes `sha2`'s hasher of the same algorithm serializes to:
        /// the block-level core, then the partial block (its length byte
        /// and the bytes, zero-filled), so a state saved by one restores in
        /// the other.
        impl SerializableState for StreamHasher<$alg> {
            type SerializedStateSize = $state;

            fn serialize(&self) -> SerializedState<Self> {
                let (core, buffer) = self.clone().decompose();
                core.serialize().concat(buffer.serialize())
            }

            fn deserialize(
                serialized_state: &SerializedState<Self>,
            ) -> Result<Self, DeserializeStateError> {
                let (core, buffer) = serialized_state.split_ref::<$core_state>();
                let core = StreamHasherCore::<$alg>::deserialize(core)?;
                let buffer = Buffer::<StreamHasherCore<$alg>>::deserialize(buffer)
                    .map_err(|_| DeserializeStateError)?;
                Ok(Self::compose(core, buffer))
            }
        }

        impl BlockSizeUser for StreamHasherCore<$alg> {
            type BlockSize = $block;
        }

        impl OutputSizeUser for StreamHasherCore<$alg> {
            type OutputSize = $output;
        }

        impl BufferKindUser for StreamHasherCore<$alg> {
            type BufferKind = Eager;
        }

        impl UpdateCore for StreamHasherCore<$alg> {
            #[inline]
            fn update_blocks(&mut self, blocks: &[Block<Self>]) {
                self.compress(Block::<Self>::cast_slice_to_core(blocks).as_flattened());
            }
        }

        impl FixedOutputCore for StreamHasherCore<$alg> {
            fn finalize_fixed_core(&mut self, buffer: &mut Buffer<Self>, out: &mut Output<Self>) {
                self.finish(buffer.get_data(), out);
            }
        }

        impl AlgorithmName for StreamHasherCore<$alg> {
            fn write_alg_name(f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str($name)
            }
        }

        impl BlockSizeUser for StreamHasher<$alg> {
            type BlockSize = $block;
        }

        impl AlgorithmName for StreamHasher<$alg> {
            fn write_alg_name(f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str($name)
            }
        }

        impl CoreProxy for StreamHasher<$alg> {
            type Core = StreamHasherCore<$alg>;

            fn compose(core: Self::Core, buffer: Buffer<Self::Core>) -> Self {
                let tail = buffer.get_data();
                let block_len = <<$alg as Algorithm>::Family as Family>::BLOCK_LEN as u64;
                let mut hasher = StreamHasher::with_single(core.engine);
                hasher.state = core.state;
                hasher.total_len = core
                    .blocks
                    .wrapping_mul(block_len)
                    .wrapping_add(tail.len() as u64);
                AsMut::<[u8]>::as_mut(&mut hasher.block)[..tail.len()].copy_from_slice(tail);
                hasher
            }

            fn decompose(self) -> (Self::Core, Buffer<Self::Core>) {
                let block_len = <<$alg as Algorithm>::Family as Family>::BLOCK_LEN;
                // Both buffers are eager: the partial block is shorter
                // than a block.
                let pos = self.pos();
                let core = StreamHasherCore {
                    engine: self.engine,
                    state: self.state,
                    blocks: self.total_len / block_len as u64,
                };
                (
                    core,
                    Buffer::<Self::Core>::new(&AsRef::<[u8]>::as_ref(&self.block)[..pos]),
                )
            }
        }
    };
}

/// The block-level `digest` layer of every algorithm in the catalogue
/// ([`for_each_algorithm!`](crate::for_each_algorithm)).
macro_rules! block_apis {
    ([] $($(#[$doc:meta])* $v:ident = $t:ident {
        family: $family:ident, iv: $iv:path, len: $len:literal,
        name: $name:literal, tag: $tag:literal, tags: [$($tags:literal),*], hashlib: $hashlib:literal,
        hasher: $hasher:ident $hdoc:literal, manager: $manager:ident, context: $context:ident,
        oid: $oid:literal, sizes: [$out:ident, $block:ident, $core_state:ident, $state:ident], c: $c:literal $(,)?
    };)*) => {$(
        block_api!(
            alg::$t,
            digest::consts::$block,
            digest::consts::$out,
            stringify!($hasher),
            $oid,
            digest::consts::$core_state,
            digest::consts::$state
        );

        // The catalogue's sizes are the family's.
        const _: () = {
            use digest::typenum::Unsigned;
            type F = alg::$family;
            assert!(digest::consts::$block::USIZE == <F as Family>::BLOCK_LEN);
            assert!(digest::consts::$out::USIZE == $len);
            let core = <F as Family>::STATE_WORDS * <F as Family>::WORD_LEN
                + <F as Family>::LENGTH_LEN;
            assert!(digest::consts::$core_state::USIZE == core);
            assert!(digest::consts::$state::USIZE == core + <F as Family>::BLOCK_LEN);
        };
    )*};
}

crate::for_each_algorithm!(block_apis);
