//! SHA-512 family compression kernels (FIPS 180-4, section 6.4).
//!
//! SHA-384, SHA-512/224 and SHA-512/256 use the same compression function
//! from a different initial value ([`IV_384`], [`IV_512_224`],
//! [`IV_512_256`]); only the caller's truncation of the final state differs.
//!
//! The contract, shared by every kernel in this module (and the same as
//! [`crate::sha256`]'s):
//!
//! * a *lane* is one chaining state ([`State`], eight `u64` words in FIPS
//!   order `a..h`) plus a run of whole 128-byte [`Block`]s;
//! * `compress(states, blocks)` runs every lane over all of its blocks; every
//!   lane must hold the same number of blocks (kernels panic otherwise, which
//!   is a bug in the caller, never a memory-safety issue);
//! * nothing about lengths, padding or jobs: the caller pads.
//!
//! SIMD kernels are reachable only through a proof token ([`Avx2x1`],
//! [`Avx2x4`], [`Avx512x8`]) whose `new()` runs detection.
//! All kernels implement [`Compress`] for the lane counts they support.

pub mod avx2_x1;
pub mod avx2_x4;
pub mod avx512_x8;
#[cfg(target_arch = "x86_64")]
mod multilane;
pub mod scalar;

pub use avx2_x1::Avx2x1;
pub use avx2_x4::Avx2x4;
pub use avx512_x8::Avx512x8;
pub use scalar::Scalar;

/// One 128-byte message block.
pub type Block = [u8; 128];

/// A chaining state: the eight working words `a..h`.
pub type State = [u64; 8];

/// Initial hash value of SHA-512 (FIPS 180-4, 5.3.5).
pub const IV: State = [
    0x6a09e667f3bcc908,
    0xbb67ae8584caa73b,
    0x3c6ef372fe94f82b,
    0xa54ff53a5f1d36f1,
    0x510e527fade682d1,
    0x9b05688c2b3e6c1f,
    0x1f83d9abfb41bd6b,
    0x5be0cd19137e2179,
];

/// Initial hash value of SHA-384 (FIPS 180-4, 5.3.4).
pub const IV_384: State = [
    0xcbbb9d5dc1059ed8,
    0x629a292a367cd507,
    0x9159015a3070dd17,
    0x152fecd8f70e5939,
    0x67332667ffc00b31,
    0x8eb44a8768581511,
    0xdb0c2e0d64f98fa7,
    0x47b5481dbefa4fa4,
];

/// Initial hash value of SHA-512/256 (FIPS 180-4, 5.3.6.2).
pub const IV_512_256: State = [
    0x22312194fc2bf72c,
    0x9f555fa3c84c64c2,
    0x2393b86b6f53b151,
    0x963877195940eabd,
    0x96283ee2a88effe3,
    0xbe5e1e2553863992,
    0x2b0199fc2c85b8aa,
    0x0eb72ddc81c52ca2,
];

/// Initial hash value of SHA-512/224 (FIPS 180-4, 5.3.6.1).
pub const IV_512_224: State = [
    0x8c3d37c819544da2,
    0x73e1996689dcd4d6,
    0x1dfab7ae32ff9c82,
    0x679dd514582f9fcf,
    0x0f6d2b697bd44da8,
    0x77e36f7304c48942,
    0x3f9d85a86a1d36c8,
    0x1112e6ad91d692a1,
];

/// The 80 round constants (FIPS 180-4, 4.2.3).
pub const K: [u64; 80] = [
    0x428a2f98d728ae22,
    0x7137449123ef65cd,
    0xb5c0fbcfec4d3b2f,
    0xe9b5dba58189dbbc,
    0x3956c25bf348b538,
    0x59f111f1b605d019,
    0x923f82a4af194f9b,
    0xab1c5ed5da6d8118,
    0xd807aa98a3030242,
    0x12835b0145706fbe,
    0x243185be4ee4b28c,
    0x550c7dc3d5ffb4e2,
    0x72be5d74f27b896f,
    0x80deb1fe3b1696b1,
    0x9bdc06a725c71235,
    0xc19bf174cf692694,
    0xe49b69c19ef14ad2,
    0xefbe4786384f25e3,
    0x0fc19dc68b8cd5b5,
    0x240ca1cc77ac9c65,
    0x2de92c6f592b0275,
    0x4a7484aa6ea6e483,
    0x5cb0a9dcbd41fbd4,
    0x76f988da831153b5,
    0x983e5152ee66dfab,
    0xa831c66d2db43210,
    0xb00327c898fb213f,
    0xbf597fc7beef0ee4,
    0xc6e00bf33da88fc2,
    0xd5a79147930aa725,
    0x06ca6351e003826f,
    0x142929670a0e6e70,
    0x27b70a8546d22ffc,
    0x2e1b21385c26c926,
    0x4d2c6dfc5ac42aed,
    0x53380d139d95b3df,
    0x650a73548baf63de,
    0x766a0abb3c77b2a8,
    0x81c2c92e47edaee6,
    0x92722c851482353b,
    0xa2bfe8a14cf10364,
    0xa81a664bbc423001,
    0xc24b8b70d0f89791,
    0xc76c51a30654be30,
    0xd192e819d6ef5218,
    0xd69906245565a910,
    0xf40e35855771202a,
    0x106aa07032bbd1b8,
    0x19a4c116b8d2d0c8,
    0x1e376c085141ab53,
    0x2748774cdf8eeb99,
    0x34b0bcb5e19b48a8,
    0x391c0cb3c5c95a63,
    0x4ed8aa4ae3418acb,
    0x5b9cca4f7763e373,
    0x682e6ff3d6b2b8a3,
    0x748f82ee5defb2fc,
    0x78a5636f43172f60,
    0x84c87814a1f0ab72,
    0x8cc702081a6439ec,
    0x90befffa23631e28,
    0xa4506cebde82bde9,
    0xbef9a3f7b2c67915,
    0xc67178f2e372532b,
    0xca273eceea26619c,
    0xd186b8c721c0c207,
    0xeada7dd6cde0eb1e,
    0xf57d4f7fee6ed178,
    0x06f067aa72176fba,
    0x0a637dc5a2c898a6,
    0x113f9804bef90dae,
    0x1b710b35131c471b,
    0x28db77f523047d84,
    0x32caab7b40c72493,
    0x3c9ebe0a15c9bebc,
    0x431d67c49c100d4c,
    0x4cc5d4becb3e42b6,
    0x597f299cfc657e2a,
    0x5fcb6fab3ad6faec,
    0x6c44198c4a475817,
];

/// A kernel that compresses `N` lanes at once.
///
/// Implemented by every token type for each lane count it supports (the
/// scalar and AVX2 kernels for 1, AVX2 for 4, AVX-512 for 8).
pub trait Compress<const N: usize>: Copy {
    /// Runs every lane over all of its blocks.
    ///
    /// # Panics
    /// If the lanes do not all hold the same number of blocks.
    fn compress(self, states: [&mut State; N], blocks: [&[Block]; N]);
}

pub(crate) use crate::common_len;

#[cfg(test)]
mod tests {
    use super::*;

    /// FIPS 180-4, 5.3.6: the SHA-512/t IV is SHA-512 of the text
    /// "SHA-512/t", computed from `IV ^ 0xa5a5...a5`.
    fn iv_512_t(name: &[u8]) -> State {
        let mut state = IV.map(|w| w ^ 0xa5a5_a5a5_a5a5_a5a5);
        let mut block = [0u8; 128];
        block[..name.len()].copy_from_slice(name);
        block[name.len()] = 0x80;
        block[127] = (name.len() * 8) as u8;
        scalar::compress(&mut state, &[block]);
        state
    }

    #[test]
    fn sha512_t_ivs_follow_the_generation_function() {
        assert_eq!(iv_512_t(b"SHA-512/256"), IV_512_256);
        assert_eq!(iv_512_t(b"SHA-512/224"), IV_512_224);
    }
}
