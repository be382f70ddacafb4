//! SM3 compression kernels (GB/T 32905-2016, also draft-sca-cfrg-sm3).
//!
//! The contract, shared by every kernel in this module, is SHA-256's:
//!
//! * a *lane* is one chaining state ([`State`], eight `u32` words `A..H`)
//!   plus a run of whole 64-byte [`Block`]s, read as big-endian words;
//! * `compress(states, blocks)` runs every lane over all of its blocks; every
//!   lane must hold the same number of blocks (kernels panic otherwise,
//!   before any state is touched: a bug in the caller, never a
//!   memory-safety issue);
//! * nothing about lengths, padding or jobs: the caller pads (SM3 pads as
//!   SHA-256 does: `0x80`, zeros, the bit length as a big-endian `u64`).
//!
//! One stream has three kernels: [`scalar`], the readable reference;
//! [`Portable`], the same function written for speed without `core::arch`
//! (a rolling message window, unrolled rounds with renamed words, constants
//! folded); and [`Avx2x1`], the portable kernel's rounds on BMI2 with the
//! message expansion in vectors, the fastest where AVX2 is available.
//!
//! SIMD kernels are reachable only through a proof token ([`Avx2x1`],
//! [`Avx2x8`], [`Avx512x16`]) whose `new()` runs detection. All kernels
//! implement [`Compress`] for the lane counts they support. There is no
//! SM3-NI kernel yet: it needs a CPU with SM3-NI to be tested on.

pub mod avx2_x1;
pub mod avx2_x8;
pub mod avx512_x16;
#[cfg(target_arch = "x86_64")]
mod multilane;
pub mod portable;
pub mod scalar;

pub use avx2_x1::Avx2x1;
pub use avx2_x8::Avx2x8;
pub use avx512_x16::Avx512x16;
pub use portable::Portable;
pub use scalar::Scalar;

/// One 64-byte message block.
pub type Block = [u8; 64];

/// A chaining state: the eight words `A..H`.
pub type State = [u32; 8];

/// Initial value of SM3 (GB/T 32905-2016, 4.1).
pub const IV: State = [
    0x7380166f, 0x4914b2b9, 0x172442d7, 0xda8a0600, 0xa96f30bc, 0x163138aa, 0xe38dee4d, 0xb0fb0e4e,
];

/// The round constant `T_j` of the standard (4.2): one value for rounds
/// 0..16, another for rounds 16..64.
const fn t(j: usize) -> u32 {
    if j < 16 { 0x79cc4519 } else { 0x7a879d8a }
}

/// The constants the rounds add: `T_j <<< (j mod 32)` for `j` in 0..64
/// (the compression function, 5.3.3, rotates `T_j` by `j` in every round;
/// computed once here).
pub const T_ROTATED: [u32; 64] = {
    let mut out = [0u32; 64];
    let mut j = 0;
    while j < 64 {
        out[j] = t(j).rotate_left((j % 32) as u32);
        j += 1;
    }
    out
};

/// A kernel that compresses `N` lanes at once.
///
/// Implemented by every token type for each lane count it supports (the
/// scalar kernel for 1, AVX2 for 8, AVX-512 for 16).
pub trait Compress<const N: usize>: Copy {
    /// Runs every lane over all of its blocks.
    ///
    /// # Panics
    /// If the lanes do not all hold the same number of blocks (before any
    /// state is changed).
    fn compress(self, states: [&mut State; N], blocks: [&[Block]; N]);
}

#[allow(unused_imports)] // used by the SIMD kernels, which are x86-64 only
pub(crate) use crate::common_len;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rotated_constants() {
        // Spot checks against values computed apart from this code.
        assert_eq!(T_ROTATED[0], 0x79cc4519);
        assert_eq!(T_ROTATED[1], 0xf3988a32);
        assert_eq!(T_ROTATED[15], 0x228cbce6);
        assert_eq!(T_ROTATED[16], 0x9d8a7a87);
        assert_eq!(T_ROTATED[32], 0x7a879d8a);
        assert_eq!(T_ROTATED[63], 0x3d43cec5);
    }
}
