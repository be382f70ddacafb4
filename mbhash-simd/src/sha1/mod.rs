//! SHA-1 compression kernels (FIPS 180-4, section 6.1).
//!
//! The contract, shared by every kernel in this module:
//!
//! * a *lane* is one chaining state ([`State`], five `u32` words in FIPS
//!   order `a..e`) plus a run of whole 64-byte [`Block`]s;
//! * `compress(states, blocks)` runs every lane over all of its blocks; every
//!   lane must hold the same number of blocks (kernels panic otherwise, before
//!   any state is touched: a bug in the caller, never a memory-safety issue);
//! * nothing about lengths, padding or jobs: the caller pads.
//!
//! SIMD kernels are reachable only through a proof token ([`Avx2x8`],
//! [`Avx512x16`], [`ShaNi`]) whose `new()` runs detection.
//! All kernels implement [`Compress`] for the lane counts they support.

pub mod avx2_x8;
pub mod avx512_x16;
#[cfg(target_arch = "x86_64")]
mod multilane;
pub mod scalar;
pub mod shani;

pub use avx2_x8::Avx2x8;
pub use avx512_x16::Avx512x16;
pub use scalar::Scalar;
pub use shani::ShaNi;

/// One 64-byte message block.
pub type Block = [u8; 64];

/// A chaining state: the five working words `a..e`.
pub type State = [u32; 5];

/// Initial hash value of SHA-1.
pub const IV: State = [0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476, 0xc3d2e1f0];

/// The round constants, one for each group of 20 rounds.
pub const K: [u32; 4] = [0x5a827999, 0x6ed9eba1, 0x8f1bbcdc, 0xca62c1d6];

/// A kernel that compresses `N` lanes at once.
///
/// Implemented by every token type for each lane count it supports (the
/// scalar kernel for 1, SHA-NI for 1, 2 and 4, AVX2 for 8, AVX-512 for 16).
pub trait Compress<const N: usize>: Copy {
    /// Runs every lane over all of its blocks.
    ///
    /// # Panics
    /// If the lanes do not all hold the same number of blocks.
    fn compress(self, states: [&mut State; N], blocks: [&[Block]; N]);
}

#[allow(unused_imports)] // used by the SIMD kernels, which are x86-64 only
pub(crate) use crate::common_len;
