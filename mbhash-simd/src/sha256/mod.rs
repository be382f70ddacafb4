//! SHA-256 compression kernels (FIPS 180-4, section 6.2).
//!
//! The contract, shared by every kernel in this module:
//!
//! * a *lane* is one chaining state ([`State`], eight `u32` words in FIPS
//!   order `a..h`) plus a run of whole 64-byte [`Block`]s;
//! * `compress(states, blocks)` runs every lane over all of its blocks; every
//!   lane must hold the same number of blocks (kernels panic otherwise, which
//!   is a bug in the caller, never a memory-safety issue);
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

/// A chaining state: the eight working words `a..h`.
pub type State = [u32; 8];

/// Initial hash value of SHA-256.
pub const IV: State = [
    0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
];

/// Initial hash value of SHA-224.
pub const IV_224: State = [
    0xc1059ed8, 0x367cd507, 0x3070dd17, 0xf70e5939, 0xffc00b31, 0x68581511, 0x64f98fa7, 0xbefa4fa4,
];

/// The 64 round constants.
pub const K: [u32; 64] = [
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
];

/// A kernel that compresses `N` lanes at once.
///
/// Implemented by every token type for each lane count it supports (the
/// scalar kernel and SHA-NI for 1, SHA-NI also for 2, AVX2 for 8, AVX-512
/// for 16).
pub trait Compress<const N: usize>: Copy {
    /// Runs every lane over all of its blocks.
    ///
    /// # Panics
    /// If the lanes do not all hold the same number of blocks.
    fn compress(self, states: [&mut State; N], blocks: [&[Block]; N]);
}

pub(crate) use crate::common_len;
