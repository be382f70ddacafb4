//! Block-level functions, as `sha2::block_api` has them: compress whole
//! blocks into a chaining state, with no padding and no buffering (for
//! code that builds its own constructions on the compression function).
//!
//! Both run on the configured engine's one-stream kernel (SHA-NI or the
//! AVX2 message schedule where `auto` measured them fastest), as the
//! hashers do.
//!
//! ```
//! use mbhash_core::block_api::compress256;
//! // The IV of SHA-256 and one block of "abc" with its padding.
//! let mut state = [
//!     0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
//!     0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
//! ];
//! let mut block = [0u8; 64];
//! block[..3].copy_from_slice(b"abc");
//! block[3] = 0x80;
//! block[63] = 24;
//! compress256(&mut state, &[block]);
//! assert_eq!(state[0], 0xba7816bf);
//! ```

pub use crate::hasher::StreamHasherCore;

use crate::alg::{Sha256Family, Sha512Family};
use crate::engine::{LaneEngine, SingleStream};

/// Compresses `blocks` into a SHA-256 (or SHA-224) chaining state; the
/// signature of `sha2::block_api::compress256`.
#[inline]
pub fn compress256(state: &mut [u32; 8], blocks: &[[u8; 64]]) {
    <crate::engine::Sha256Engine as LaneEngine<Sha256Family>>::configured_single()
        .compress(state, blocks);
}

/// Compresses `blocks` into a SHA-512 (or SHA-384, SHA-512/t) chaining
/// state; the signature of `sha2::block_api::compress512`.
#[inline]
pub fn compress512(state: &mut [u64; 8], blocks: &[[u8; 128]]) {
    <crate::engine::Sha512Engine as LaneEngine<Sha512Family>>::configured_single()
        .compress(state, blocks);
}
