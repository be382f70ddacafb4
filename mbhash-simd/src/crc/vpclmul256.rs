//! Generic CRC by VPCLMULQDQ folding of 32-byte AVX2 vectors (two 128-bit
//! lanes each), with Barrett reduction: any spec, through its [`Consts`].
//! For CPUs with VPCLMULQDQ but no AVX-512 (AMD Zen 3, Intel Alder Lake).
//!
//! The shape of [`super::vpclmul512`], two lanes wide (the bytes past the
//! last whole 16-byte lane join at the end as in `pclmul`); the lanes are grouped into vectors from the end, so that only the first
//! vector may be short: it is loaded with zero lanes in front (leading
//! zeros do not change a CRC whose register goes in front of the first
//! data lane). Up to [`DIRECT_MAX`] vectors, each lane is multiplied
//! straight onto the last lane by its own constant (`Consts::lanes256`);
//! longer inputs run [`ACCS`] accumulators 256 bytes a step and end the
//! same way. The four lanes are XORed into one and reduced as in
//! `pclmul`. Inputs shorter than [`MIN_LEN`] run the `pclmul` kernel.

use super::{Consts, Entry};

/// Inputs of at most this many vectors (1 KiB) are multiplied straight
/// onto the end.
pub const DIRECT_MAX: usize = 32;

/// Accumulators of the main loop.
pub const ACCS: usize = 8;

/// Shorter inputs run the 128-bit kernel.
pub const MIN_LEN: usize = 128;

/// Proof that the CPU has VPCLMULQDQ with AVX2, and PCLMULQDQ.
#[cfg(target_arch = "x86_64")]
#[derive(Clone, Copy, Debug)]
pub struct Vpclmul256 {
    _private: (),
}

/// Proof that the CPU has VPCLMULQDQ with AVX2 (never, on this target).
#[cfg(not(target_arch = "x86_64"))]
#[derive(Clone, Copy, Debug)]
pub enum Vpclmul256 {}

impl Vpclmul256 {
    /// Detects the features; `None` when any is missing or hidden
    /// (`MBHASH_DISABLE=vpclmul256` or `pclmul`).
    pub fn new() -> Option<Self> {
        #[cfg(target_arch = "x86_64")]
        {
            use crate::cpu::{Feature, available};
            if available(Feature::Vpclmul256) && super::Pclmul::new().is_some() {
                return Some(Vpclmul256 { _private: () });
            }
        }
        None
    }

    /// Advances the normalised register `reg` over `data`.
    #[inline]
    pub fn update(self, c: &Consts, reg: u64, data: &[u8]) -> u64 {
        self.entry().update(c, reg, data)
    }

    /// The kernel as an [`Entry`].
    pub fn entry(self) -> Entry {
        #[cfg(target_arch = "x86_64")]
        {
            Entry(x86::update)
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            match self {}
        }
    }

    entry_for!();
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use super::super::Consts;
    use super::super::pclmul::x86 as narrow;
    use super::{ACCS, DIRECT_MAX, MIN_LEN};
    use core::arch::x86_64::*;

    /// Lane by lane `H * k_H + L * k_L`, XORed with `acc`.
    #[inline]
    #[target_feature(enable = "avx2,vpclmulqdq,pclmulqdq,sse4.1,ssse3")]
    fn fold(x: __m256i, k: __m256i, acc: __m256i) -> __m256i {
        _mm256_xor_si256(
            _mm256_xor_si256(
                _mm256_clmulepi64_epi128::<0x00>(x, k),
                _mm256_clmulepi64_epi128::<0x11>(x, k),
            ),
            acc,
        )
    }

    /// The lane constants of a vector `t` vectors before the last.
    #[inline]
    #[target_feature(enable = "avx2,vpclmulqdq,pclmulqdq,sse4.1,ssse3")]
    fn lanes(c: &Consts, t: usize) -> __m256i {
        // SAFETY: `lanes256[t]` is 32 readable bytes; the load is unaligned.
        unsafe { _mm256_loadu_si256(c.lanes256[t].as_ptr().cast()) }
    }

    /// The fold constants `k` in every lane.
    #[inline]
    #[target_feature(enable = "avx2,vpclmulqdq,pclmulqdq,sse4.1,ssse3")]
    fn broadcast(c: &Consts, k: usize) -> __m256i {
        _mm256_broadcastsi128_si256(narrow::key(c, k))
    }

    /// Puts a vector's bytes in the kernel's lane order.
    #[inline]
    #[target_feature(enable = "avx2,vpclmulqdq,pclmulqdq,sse4.1,ssse3")]
    fn order<const REFL: bool>(x: __m256i) -> __m256i {
        if REFL {
            x
        } else {
            let rev = _mm256_broadcastsi128_si256(_mm_set_epi8(
                0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15,
            ));
            _mm256_shuffle_epi8(x, rev)
        }
    }

    /// Loads 32 bytes in the kernel's lane order.
    #[inline]
    #[target_feature(enable = "avx2,vpclmulqdq,pclmulqdq,sse4.1,ssse3")]
    fn load<const REFL: bool>(b: &[u8; 32]) -> __m256i {
        // SAFETY: `b` is 32 readable bytes; the load is unaligned.
        order::<REFL>(unsafe { _mm256_loadu_si256(b.as_ptr().cast()) })
    }

    /// The XOR of the two lanes.
    #[inline]
    #[target_feature(enable = "avx2,vpclmulqdq,pclmulqdq,sse4.1,ssse3")]
    fn collapse(z: __m256i) -> __m128i {
        _mm_xor_si128(_mm256_castsi256_si128(z), _mm256_extracti128_si256::<1>(z))
    }

    /// Advances the normalised register over `data`.
    #[target_feature(enable = "avx2,vpclmulqdq,pclmulqdq,sse4.1,ssse3")]
    pub(super) fn update(c: &Consts, reg: u64, data: &[u8]) -> u64 {
        if c.reflected {
            run::<true>(c, reg, data)
        } else {
            run::<false>(c, reg, data)
        }
    }

    #[inline]
    #[target_feature(enable = "avx2,vpclmulqdq,pclmulqdq,sse4.1,ssse3")]
    pub(crate) fn run<const REFL: bool>(c: &Consts, reg: u64, data: &[u8]) -> u64 {
        debug_assert_eq!(c.reflected, REFL, "an entry of the other orientation");
        if data.len() < MIN_LEN {
            return narrow::run::<REFL>(c, reg, data);
        }
        if data.len() >= SHORT_MAX {
            return long::<REFL>(c, reg, data);
        }
        body::<REFL, false>(c, reg, data)
    }

    /// [`run`] from [`SHORT_MAX`] bytes on, out of line: its accumulators
    /// need a stack frame, which the short inputs (most calls) do not pay
    /// for.
    #[inline(never)]
    #[target_feature(enable = "avx2,vpclmulqdq,pclmulqdq,sse4.1,ssse3")]
    fn long<const REFL: bool>(c: &Consts, reg: u64, data: &[u8]) -> u64 {
        body::<REFL, true>(c, reg, data)
    }

    /// Inputs of fewer bytes than this (and at least [`MIN_LEN`]) have
    /// fewer than [`DIRECT_MAX`] vectors after the first: one chain.
    const SHORT_MAX: usize = 32 * DIRECT_MAX;

    /// The body of [`run`] for at least [`MIN_LEN`] bytes; with `LONG`
    /// false, for fewer than [`SHORT_MAX`] only (the accumulators left
    /// out).
    #[inline]
    #[target_feature(enable = "avx2,vpclmulqdq,pclmulqdq,sse4.1,ssse3")]
    fn body<const REFL: bool, const LONG: bool>(c: &Consts, reg: u64, data: &[u8]) -> u64 {
        let t = data.len() % 16;
        let rest = &data[..data.len() - t];
        // A lane in front of the first whole vector, or none.
        let lead = (rest.len() / 16) % 2;
        let (first, rest) = rest.split_at(16 * lead);
        let (vectors, _) = rest.as_chunks::<32>();
        let reg_lane = narrow::reg_lane::<REFL>(reg);
        let (v0, vectors) = if lead == 0 {
            // (Never empty: a fallback, not a panic, keeps the entry free
            // of a stack frame.)
            let Some((v0, vectors)) = vectors.split_first() else {
                return narrow::run::<REFL>(c, reg, data);
            };
            let v0 = load::<REFL>(v0);
            (
                _mm256_xor_si256(v0, _mm256_zextsi128_si256(reg_lane)),
                vectors,
            )
        } else {
            // A zero lane, then the lone lane with the register.
            let Ok(first) = <&[u8; 16]>::try_from(first) else {
                return narrow::run::<REFL>(c, reg, data);
            };
            let lane = _mm_xor_si128(narrow::load::<REFL>(first), reg_lane);
            (
                _mm256_inserti128_si256::<1>(_mm256_setzero_si256(), lane),
                vectors,
            )
        };
        let z = if !LONG || vectors.len() < DIRECT_MAX {
            direct::<REFL>(c, v0, vectors)
        } else {
            folded::<REFL>(c, v0, vectors)
        };
        narrow::reduce::<REFL>(c, narrow::with_tail::<REFL>(c, collapse(z), data, t))
    }

    /// The last vector `last`, with every lane but its last multiplied
    /// onto that one, XORed into `z`.
    #[inline]
    #[target_feature(enable = "avx2,vpclmulqdq,pclmulqdq,sse4.1,ssse3")]
    fn end(c: &Consts, last: __m256i, z: __m256i) -> __m256i {
        // The last lane goes in as lane 0 of the addend (the two lanes are
        // XORed together next).
        let unmoved = _mm256_zextsi128_si256(_mm256_extracti128_si256::<1>(last));
        fold(last, lanes(c, 0), _mm256_xor_si256(z, unmoved))
    }

    /// `v0` and `vectors` (fewer than [`DIRECT_MAX`]) straight onto the
    /// last lane.
    #[inline]
    #[target_feature(enable = "avx2,vpclmulqdq,pclmulqdq,sse4.1,ssse3")]
    fn direct<const REFL: bool>(c: &Consts, v0: __m256i, vectors: &[[u8; 32]]) -> __m256i {
        let n = vectors.len();
        let Some((last, middle)) = vectors.split_last() else {
            return end(c, v0, _mm256_setzero_si256());
        };
        let mut z = fold(v0, lanes(c, n), _mm256_setzero_si256());
        for (i, v) in middle.iter().enumerate() {
            z = fold(load::<REFL>(v), lanes(c, n - 1 - i), z);
        }
        end(c, load::<REFL>(last), z)
    }

    /// At least [`DIRECT_MAX`] vectors after `v0`: [`ACCS`] accumulators.
    #[inline]
    #[target_feature(enable = "avx2,vpclmulqdq,pclmulqdq,sse4.1,ssse3")]
    fn folded<const REFL: bool>(c: &Consts, v0: __m256i, vectors: &[[u8; 32]]) -> __m256i {
        let mut acc = [v0; ACCS];
        for j in 1..ACCS {
            acc[j] = load::<REFL>(&vectors[j - 1]);
        }
        let rest = &vectors[ACCS - 1..];
        let (groups, tail) = rest.as_chunks::<ACCS>();
        // 256 bytes on: 16 lanes.
        let k = broadcast(c, 2 * ACCS - 1);
        for g in groups {
            for j in 0..ACCS {
                acc[j] = fold(acc[j], k, load::<REFL>(&g[j]));
            }
        }
        let t = tail.len();
        let Some((last, middle)) = tail.split_last() else {
            let mut z = _mm256_setzero_si256();
            for (j, a) in acc[..ACCS - 1].iter().enumerate() {
                z = fold(*a, lanes(c, ACCS - 1 - j), z);
            }
            return end(c, acc[ACCS - 1], z);
        };
        let mut z = _mm256_setzero_si256();
        for (j, a) in acc.iter().enumerate() {
            z = fold(*a, lanes(c, ACCS - 1 - j + t), z);
        }
        for (i, v) in middle.iter().enumerate() {
            z = fold(load::<REFL>(v), lanes(c, t - 1 - i), z);
        }
        end(c, load::<REFL>(last), z)
    }
}
