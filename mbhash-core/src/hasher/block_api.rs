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
use digest::{Output, Reset};

use super::{SingleOf, StreamHasher};
use crate::alg::{self, Algorithm, Family, StateOf};
use crate::buffer::BlockBuffer;
use crate::engine::SingleStream;

/// The block-level core of [`StreamHasher`]: whole blocks in, padding at the end,
/// on the configured engine's single-stream kernel.
///
/// Code rarely names it: `hmac::Hmac<mbhash::Sha256>` finds it through
/// `Sha256`'s [`CoreProxy`] impl.
pub struct StreamHasherCore<A: Algorithm> {
    engine: SingleOf<A>,
    state: StateOf<A>,
    /// Whole blocks compressed so far.
    blocks: u64,
}

impl<A: Algorithm> StreamHasherCore<A> {
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

impl<A: Algorithm> Default for StreamHasherCore<A> {
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

impl<A: Algorithm> Clone for StreamHasherCore<A> {
    fn clone(&self) -> Self {
        StreamHasherCore {
            engine: self.engine,
            state: self.state,
            blocks: self.blocks,
        }
    }
}

impl<A: Algorithm> Reset for StreamHasherCore<A> {
    fn reset(&mut self) {
        self.state = A::IV;
        self.blocks = 0;
    }
}

impl<A: Algorithm> HashMarker for StreamHasherCore<A> {}

impl<A: Algorithm> fmt::Debug for StreamHasherCore<A> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("StreamHasherCore")
            .field("algorithm", &A::NAME)
            .field("engine", &self.engine.name())
            .finish_non_exhaustive()
    }
}

macro_rules! block_api {
    ($alg:ty, $block:ty, $output:ty, $name:literal) => {
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
                hasher.buf.keep(tail);
                hasher
            }

            fn decompose(mut self) -> (Self::Core, Buffer<Self::Core>) {
                let block_len = <<$alg as Algorithm>::Family as Family>::BLOCK_LEN;
                // The hasher may hold back one whole block; the eager buffer
                // holds less than a block, so compress it.
                if let Some(block) = self.buf.take_block() {
                    self.engine.compress(&mut self.state, block);
                }
                let done = self.total_len.wrapping_sub(self.buf.len() as u64);
                let core = StreamHasherCore {
                    engine: self.engine,
                    state: self.state,
                    blocks: done / block_len as u64,
                };
                let bytes = self.buf.blocks().as_flattened();
                (core, Buffer::<Self::Core>::new(&bytes[..self.buf.len()]))
            }
        }
    };
}

block_api!(
    alg::Sha256Alg,
    digest::consts::U64,
    digest::consts::U32,
    "Sha256"
);
block_api!(
    alg::Sha224Alg,
    digest::consts::U64,
    digest::consts::U28,
    "Sha224"
);
block_api!(
    alg::Sha512Alg,
    digest::consts::U128,
    digest::consts::U64,
    "Sha512"
);
block_api!(
    alg::Sha384Alg,
    digest::consts::U128,
    digest::consts::U48,
    "Sha384"
);
block_api!(
    alg::Sha512_256Alg,
    digest::consts::U128,
    digest::consts::U32,
    "Sha512_256"
);
block_api!(
    alg::Sha512_224Alg,
    digest::consts::U128,
    digest::consts::U28,
    "Sha512_224"
);
