//! MD5 compression kernels (RFC 1321, section 3.4).
//!
//! The contract, shared by every kernel in this module:
//!
//! * a *lane* is one chaining state ([`State`], four `u32` words `A, B, C,
//!   D`) plus a run of whole 64-byte [`Block`]s, each read as sixteen
//!   little-endian words;
//! * `compress(states, blocks)` runs every lane over all of its blocks; every
//!   lane must hold the same number of blocks (kernels panic otherwise, before
//!   any state is touched: a bug in the caller, never a memory-safety issue);
//! * nothing about lengths, padding or jobs: the caller pads (MD5's length
//!   field is the bit count, little-endian, and the digest is the state
//!   written little-endian).
//!
//! MD5's rounds form one serial chain: each step needs the word the step
//! before produced. A word-sliced lane kernel is therefore bound by that
//! chain's latency, not by how many instructions the vector units can issue.
//! [`Avx2x16`] and [`Avx512x32`] run two independent sets of lanes
//! interleaved in one round loop, so that one set's instructions fill the
//! other's waits (ISA-L crypto's AVX-512 manager, "x16x2", does the same).
//!
//! SIMD kernels are reachable only through a proof token ([`Avx2x8`],
//! [`Avx2x16`], [`Avx512x16`], [`Avx512x32`]) whose `new()` runs detection.
//! All kernels implement [`Compress`] for the lane counts they support.

pub mod avx2_x16;
pub mod avx2_x8;
pub mod avx512_x16;
pub mod avx512_x32;
#[cfg(target_arch = "x86_64")]
mod multilane;
pub mod scalar;

pub use avx2_x8::Avx2x8;
pub use avx2_x16::Avx2x16;
pub use avx512_x16::Avx512x16;
pub use avx512_x32::Avx512x32;
pub use scalar::Scalar;

/// One 64-byte message block.
pub type Block = [u8; 64];

/// A chaining state: the four words `A, B, C, D`.
pub type State = [u32; 4];

/// Initial value of MD5 (RFC 1321, section 3.3), as words.
pub const IV: State = [0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476];

/// The 64 step constants `T[i] = floor(2³² · |sin(i + 1)|)`.
pub const K: [u32; 64] = [
    0xd76aa478, 0xe8c7b756, 0x242070db, 0xc1bdceee, 0xf57c0faf, 0x4787c62a, 0xa8304613, 0xfd469501,
    0x698098d8, 0x8b44f7af, 0xffff5bb1, 0x895cd7be, 0x6b901122, 0xfd987193, 0xa679438e, 0x49b40821,
    0xf61e2562, 0xc040b340, 0x265e5a51, 0xe9b6c7aa, 0xd62f105d, 0x02441453, 0xd8a1e681, 0xe7d3fbc8,
    0x21e1cde6, 0xc33707d6, 0xf4d50d87, 0x455a14ed, 0xa9e3e905, 0xfcefa3f8, 0x676f02d9, 0x8d2a4c8a,
    0xfffa3942, 0x8771f681, 0x6d9d6122, 0xfde5380c, 0xa4beea44, 0x4bdecfa9, 0xf6bb4b60, 0xbebfbc70,
    0x289b7ec6, 0xeaa127fa, 0xd4ef3085, 0x04881d05, 0xd9d4d039, 0xe6db99e5, 0x1fa27cf8, 0xc4ac5665,
    0xf4292244, 0x432aff97, 0xab9423a7, 0xfc93a039, 0x655b59c3, 0x8f0ccc92, 0xffeff47d, 0x85845dd1,
    0x6fa87e4f, 0xfe2ce6e0, 0xa3014314, 0x4e0811a1, 0xf7537e82, 0xbd3af235, 0x2ad7d2bb, 0xeb86d391,
];

/// The left-rotation amount of each step, four per round (steps `4j..4j+4`
/// of round `r` rotate by `S[r]`).
pub const S: [[u32; 4]; 4] = [
    [7, 12, 17, 22],
    [5, 9, 14, 20],
    [4, 11, 16, 23],
    [6, 10, 15, 21],
];

/// The message word step `i` (0..64) reads: `i`, `5i + 1`, `3i + 5` and `7i`
/// modulo 16 in rounds 1 to 4.
pub const fn message_index(i: usize) -> usize {
    match i / 16 {
        0 => i,
        1 => (5 * i + 1) % 16,
        2 => (3 * i + 5) % 16,
        _ => (7 * i) % 16,
    }
}

/// A kernel that compresses `N` lanes at once.
///
/// Implemented by every token type for its lane count (the scalar kernel
/// for 1, AVX2 for 8 and 16, AVX-512 for 16 and 32).
pub trait Compress<const N: usize>: Copy {
    /// Runs every lane over all of its blocks.
    ///
    /// # Panics
    /// If the lanes do not all hold the same number of blocks.
    fn compress(self, states: [&mut State; N], blocks: [&[Block]; N]);
}

pub(crate) use crate::common_len;
