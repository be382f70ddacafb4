//! One-stream hashers with the RustCrypto `digest` traits.
//!
//! [`Sha256`], [`Sha224`], [`Sha512`], [`Sha384`], [`Sha512_256`] and
//! [`Sha512_224`] drop into code written for the `sha2` crate:
//! they implement `Digest` (through `Update`, `FixedOutput`, `Default` and
//! `HashMarker`), `Reset`, `FixedOutputReset`, `BlockSizeUser` and the
//! block-level `CoreProxy` layer (so `hmac`, `hkdf` and `pbkdf2` take
//! them: see [`StreamHasherCore`]), and (with `std`) `std::io::Write`.
//!
//! ```
//! use mbhash_core::Sha256;
//! use digest::Digest;
//! let digest = Sha256::digest(b"abc");
//! assert_eq!(digest[..4], [0xba, 0x78, 0x16, 0xbf]);
//! ```

use digest::{FixedOutput, FixedOutputReset, HashMarker, Output, OutputSizeUser, Reset, Update};

use crate::alg::{self, Algorithm, BlockOf, Family, StateOf};
use crate::engine::{FamilyEngine, HashAlgorithm};
use crate::engine::{LaneEngine, SingleStream};

mod block_api;
pub use block_api::StreamHasherCore;

impl crate::Algo {
    /// Hashes `data` at once on the calling thread, with the configured
    /// engine's one-stream path (the [`StreamHasher`]).
    ///
    /// ```
    /// use mbhash_core::Algo;
    /// assert_eq!(Algo::Sha256.digest(b"abc").as_bytes()[..2], [0xba, 0x78]);
    /// ```
    pub fn digest(self, data: &[u8]) -> crate::alg::Digest {
        crate::with_algo!(self, A => crate::alg::Digest::of::<A>(&StreamHasher::<A>::hash(data)))
    }
}

/// The one-stream kernel a hasher of `A` keeps.
type SingleOf<A> = <<<A as Algorithm>::Family as FamilyEngine>::Engine as LaneEngine<
    <A as Algorithm>::Family,
>>::Single;

/// A one-stream hasher for algorithm `A`, on the configured engine's
/// single-stream kernel (SHA-NI where present).
///
/// Usually named by its aliases ([`Sha256`] = `StreamHasher<Sha256Alg>`,
/// [`Sha512`], ...). Named so as not to clash with `std::hash::Hasher`, the
/// hash-map trait.
///
/// ```
/// use mbhash_core::{Sha256, Sha256Alg, StreamHasher};
/// use mbhash_core::engine::{Sha256Engine, LaneEngine};
///
/// let mut h = Sha256::new();
/// h.update(b"hello ");
/// h.update(b"world");
/// let digest: [u8; 32] = h.finalize_reset_output();
/// // A chosen engine (here the scalar reference) gives the same digest.
/// let mut scalar = StreamHasher::<Sha256Alg>::with_engine(Sha256Engine::from_name("scalar").unwrap());
/// scalar.update(b"hello world");
/// assert_eq!(scalar.finalize_reset_output(), digest);
/// assert_eq!(Sha256::hash(b"hello world"), digest);
/// ```
///
/// It holds what `sha2`'s hashers hold (the chaining state, the message
/// length, one block of buffer), and the engine's one-stream kernel in a
/// few bytes: 112 bytes for the SHA-256 family, 208 for SHA-512's.
pub struct StreamHasher<A: HashAlgorithm> {
    state: StateOf<A>,
    /// Bytes absorbed; the last `total_len % BLOCK_LEN` of them are in
    /// `block`.
    total_len: u64,
    /// The partial block: a block is compressed as soon as it is whole,
    /// so this is never full between calls and its length is
    /// `total_len`'s remainder.
    block: BlockOf<A>,
    /// The engine's one-stream kernel (not the whole engine: a hasher is
    /// made and moved for every message).
    engine: SingleOf<A>,
}

/// The one-stream hashers' type aliases and `digest` traits, generated
/// from the catalogue ([`for_each_algorithm!`](crate::for_each_algorithm)).
///
/// ```
/// use digest::Digest;
/// use mbhash_core::Sha256;
///
/// fn hex_digest<D: Digest>(data: &[u8]) -> String {
///     D::digest(data).iter().map(|b| format!("{b:02x}")).collect()
/// }
/// assert_eq!(
///     hex_digest::<Sha256>(b"abc"),
///     "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
/// );
/// ```
macro_rules! hashers {
    ([] $($(#[$doc:meta])* $v:ident = $t:ident {
        family: $family:ident, iv: $iv:path, len: $len:literal,
        name: $name:literal, tag: $tag:literal, tags: [$($tags:literal),*], hashlib: $hashlib:literal,
        hasher: $hasher:ident $hdoc:literal, manager: $manager:ident, context: $context:ident,
        oid: $oid:literal, sizes: [$out:ident, $block:ident, $core_state:ident, $state:ident], c: $c:literal $(,)?
    };)*) => {$(
        #[doc = concat!("The one-stream ", $tag, " hasher, ", $hdoc, ".")]
        pub type $hasher = StreamHasher<alg::$t>;

        digest_traits!(alg::$t, digest::consts::$out);
    )*};
}

impl<A: HashAlgorithm> StreamHasher<A> {
    /// A hasher on the configured engine (`auto` if the engine
    /// environment variable is invalid: see [`StreamHasher::try_new`]).
    #[inline]
    pub fn new() -> Self {
        Self::with_single(<<A::Family as FamilyEngine>::Engine as LaneEngine<
            A::Family,
        >>::configured_single())
    }

    /// A hasher on the configured engine.
    ///
    /// # Errors
    /// If the engine environment variable names an unknown or unsupported
    /// engine.
    pub fn try_new() -> Result<Self, crate::engine::EngineError> {
        Ok(Self::with_engine(
            <<A::Family as FamilyEngine>::Engine as LaneEngine<A::Family>>::try_configured()?,
        ))
    }

    /// A hasher on a given engine.
    #[inline]
    pub fn with_engine(engine: <A::Family as FamilyEngine>::Engine) -> Self {
        Self::with_single(engine.single())
    }

    #[inline]
    fn with_single(engine: SingleOf<A>) -> Self {
        StreamHasher {
            state: A::IV,
            total_len: 0,
            block: <A::Family as Family>::ZERO_BLOCK,
            engine,
        }
    }

    /// Bytes held in the partial block.
    #[inline]
    fn pos(&self) -> usize {
        // The block length divides 2^64: the remainder stays right when the
        // length wraps.
        (self.total_len % <A::Family as Family>::BLOCK_LEN as u64) as usize
    }

    /// Absorbs `data`: anything that is bytes (`&[u8]`, `&str`, `Vec<u8>`,
    /// `[u8; N]`, ...), as `Digest::update` takes it.
    #[inline]
    pub fn update(&mut self, data: impl AsRef<[u8]>) {
        self.absorb(data.as_ref());
    }

    #[inline]
    fn absorb(&mut self, mut data: &[u8]) {
        let block_len = <A::Family as Family>::BLOCK_LEN;
        let pos = self.pos();
        self.total_len = self.total_len.wrapping_add(data.len() as u64);
        if pos != 0 {
            let room = block_len - pos;
            let buf = self.block.as_mut();
            if data.len() < room {
                buf[pos..pos + data.len()].copy_from_slice(data);
                return;
            }
            let (head, rest) = data.split_at(room);
            buf[pos..].copy_from_slice(head);
            self.engine
                .compress(&mut self.state, core::slice::from_ref(&self.block));
            data = rest;
        }
        // Whole blocks straight from `data`, the tail into the buffer.
        let (blocks, tail) = <A::Family as Family>::split_blocks(data);
        if !blocks.is_empty() {
            self.engine.compress(&mut self.state, blocks);
        }
        self.block.as_mut()[..tail.len()].copy_from_slice(tail);
    }

    /// Pads, and returns the digest; the hasher is reset.
    #[inline]
    pub fn finalize_reset_output(&mut self) -> A::Output {
        let mut out = A::ZERO_OUTPUT;
        self.finish_into(out.as_mut());
        self.reset_state();
        out
    }

    /// Pads and writes the digest to `out` (its length); the hasher is
    /// left finished, to be reset or dropped.
    #[inline]
    fn finish_into(&mut self, out: &mut [u8]) {
        let block_len = <A::Family as Family>::BLOCK_LEN;
        let pos = self.pos();
        if pos < block_len - <A::Family as Family>::LENGTH_LEN {
            // The padding fits: written into the partial block itself.
            <A::Family as Family>::pad_bytes(self.block.as_mut(), pos, self.total_len);
            self.engine
                .compress(&mut self.state, core::slice::from_ref(&self.block));
        } else {
            // The length field spills into a second block, made on the stack.
            let mut two = [self.block, <A::Family as Family>::ZERO_BLOCK];
            let n = <A::Family as Family>::pad(&mut two, pos, self.total_len);
            self.engine.compress(&mut self.state, &two[..n]);
        }
        <A::Family as Family>::write_digest(&self.state, out);
    }

    /// Hashes one message.
    pub fn hash(data: &[u8]) -> A::Output {
        let mut h = Self::new();
        h.update(data);
        h.finalize_reset_output()
    }

    #[inline]
    fn reset_state(&mut self) {
        self.state = A::IV;
        self.total_len = 0;
    }
}

impl<A: HashAlgorithm> Default for StreamHasher<A> {
    fn default() -> Self {
        Self::new()
    }
}

impl<A: HashAlgorithm> Clone for StreamHasher<A> {
    fn clone(&self) -> Self {
        StreamHasher {
            state: self.state,
            total_len: self.total_len,
            block: self.block,
            engine: self.engine,
        }
    }
}

/// With the `zeroize` feature, a dropped hasher overwrites its state, its
/// buffered block and its length.
#[cfg(feature = "zeroize")]
impl<A: HashAlgorithm> Drop for StreamHasher<A> {
    fn drop(&mut self) {
        <A::Family as Family>::zeroize_state(&mut self.state);
        digest::zeroize::Zeroize::zeroize(self.block.as_mut());
        digest::zeroize::Zeroize::zeroize(&mut self.total_len);
    }
}

#[cfg(feature = "zeroize")]
impl<A: HashAlgorithm> digest::zeroize::ZeroizeOnDrop for StreamHasher<A> {}

#[cfg(feature = "std")]
impl<A: HashAlgorithm> std::io::Write for StreamHasher<A> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.absorb(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

macro_rules! digest_traits {
    ($alg:ty, $size:ty) => {
        impl OutputSizeUser for StreamHasher<$alg> {
            type OutputSize = $size;
        }

        impl Update for StreamHasher<$alg> {
            #[inline]
            fn update(&mut self, data: &[u8]) {
                self.absorb(data);
            }
        }

        impl FixedOutput for StreamHasher<$alg> {
            #[inline]
            fn finalize_into(mut self, out: &mut Output<Self>) {
                self.finish_into(out);
            }
        }

        impl Reset for StreamHasher<$alg> {
            fn reset(&mut self) {
                self.reset_state();
            }
        }

        impl FixedOutputReset for StreamHasher<$alg> {
            #[inline]
            fn finalize_into_reset(&mut self, out: &mut Output<Self>) {
                self.finish_into(out);
                self.reset_state();
            }
        }

        impl HashMarker for StreamHasher<$alg> {}
    };
}

crate::for_each_algorithm!(hashers);

#[cfg(test)]
mod tests {
    use super::*;

    /// A hasher is made and moved for every message: it holds no more
    /// than `sha2`'s (state, length, one block) and a few bytes of kernel.
    #[test]
    fn hashers_are_small() {
        use core::mem::size_of;
        assert!(size_of::<SingleOf<alg::Sha256Alg>>() <= 8);
        assert!(size_of::<SingleOf<alg::Sha512Alg>>() <= 8);
        assert_eq!(size_of::<crate::Sha256>(), 112);
        assert_eq!(size_of::<crate::Sha224>(), 112);
        assert_eq!(size_of::<crate::Sha512>(), 208);
        assert_eq!(size_of::<crate::Sha384>(), 208);
    }

    /// Every split of messages up to three blocks, so that each buffered
    /// length meets each chunk length: against a one-call digest on the
    /// scalar engine, on every engine this CPU runs.
    #[test]
    fn every_split_of_short_messages() {
        use crate::engine::Sha256Engine;
        let data: std::vec::Vec<u8> = (0..192u32).map(|i| (i * 31 + 7) as u8).collect();
        let scalar = Sha256Engine::from_name("scalar").unwrap();
        for name in Sha256Engine::names().filter(|n| Sha256Engine::is_supported(n)) {
            let engine = Sha256Engine::from_name(name).unwrap();
            for len in 0..=data.len() {
                let mut whole = crate::Sha256::with_engine(scalar);
                whole.update(&data[..len]);
                let want = whole.finalize_reset_output();
                for cut in 0..=len {
                    let mut h = crate::Sha256::with_engine(engine);
                    h.update(&data[..cut]);
                    h.update(&data[cut..len]);
                    assert_eq!(h.finalize_reset_output(), want, "{name} {len} {cut}");
                }
            }
        }
    }
}
