//! CRC32C by folding with AVX-512 VPCLMULQDQ, for long buffers.
//!
//! Four 512-bit accumulators (sixteen 128-bit lanes) cover 256 bytes; each
//! iteration moves every lane 256 bytes forward and adds the next 256 bytes:
//! a lane `X = H * x^64 + L` (low qword `H`, high qword `L`, bits in the
//! reflected order) becomes `H * k_H + L * k_L + data`, two carry-less
//! multiplications and one three-way XOR (`vpternlogq`). The constants are
//! `k_H = x^(8d + 63)` and `k_L = x^(8d - 1)` modulo `P` for a distance of
//! `d` bytes (the integer product of two 64-bit reflected values is the
//! polynomial product times `x^-1` in the 128-bit reflected order, and the
//! 32-bit constants sit in the high half of each qword, hence `+ 63 = + 64
//! - 1`); they are computed at compile time by [`crate::crc32c::xpow`].
//!
//! At the end the four accumulators are folded into one (distances 192, 128
//! and 64 bytes), whole 64-byte chunks are folded in, the four lanes of the
//! last register into one (48, 32, 16 bytes), and two `crc32` instructions
//! reduce the remaining 128 bits (`crc32_u64(crc32_u64(0, H), L)` is
//! `H * x^96 + L * x^32`, exactly the register for those 16 bytes). The
//! last bytes (fewer than 64) and inputs shorter than [`THRESHOLD`] go
//! through the SSE4.2 kernel.

use super::Kernel;

/// Inputs shorter than this use the SSE4.2 kernel (measured on AMD Zen 4:
/// from here on folding is faster). At least 256.
pub const THRESHOLD: usize = 512;

/// Proof that the CPU has AVX-512 VPCLMULQDQ (and SSE4.2 and PCLMULQDQ).
#[cfg(target_arch = "x86_64")]
#[derive(Clone, Copy, Debug)]
pub struct Vpclmul {
    _private: (),
}

/// Proof that the CPU has AVX-512 VPCLMULQDQ (never, on this target).
#[cfg(not(target_arch = "x86_64"))]
#[derive(Clone, Copy, Debug)]
pub enum Vpclmul {}

impl Vpclmul {
    /// Detects the CPU features (VPCLMULQDQ and AVX-512, plus SSE4.2 and
    /// PCLMULQDQ for short inputs); `None` when any is missing or hidden
    /// (`MBHASH_DISABLE=avx512` hides this kernel too).
    pub fn new() -> Option<Self> {
        #[cfg(target_arch = "x86_64")]
        {
            use crate::cpu::{Feature, available};
            if available(Feature::Vpclmul)
                && available(Feature::Avx512)
                && super::Sse42::new().is_some()
            {
                return Some(Vpclmul { _private: () });
            }
        }
        None
    }
}

impl Kernel for Vpclmul {
    fn update(self, crc: u32, data: &[u8]) -> u32 {
        #[cfg(target_arch = "x86_64")]
        {
            // SAFETY: the token proves AVX-512 F, VPCLMULQDQ, SSE4.2 and
            // PCLMULQDQ are available.
            unsafe { x86::update(crc, data) }
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            let _ = (crc, data);
            match self {}
        }
    }

    fn shift(self, crc: u32, len: u64) -> u32 {
        #[cfg(target_arch = "x86_64")]
        {
            // SAFETY: the token proves SSE4.2 and PCLMULQDQ are available.
            unsafe { super::sse42::x86::shift(crc, len) }
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            let _ = (crc, len);
            match self {}
        }
    }
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use super::THRESHOLD;
    use crate::crc32c::sse42::x86 as sse42;
    use crate::crc32c::xpow;
    use core::arch::x86_64::*;

    const _: () = assert!(THRESHOLD >= 256);

    /// The constants `[k_H, k_L]` that move a 128-bit lane `d` bytes on.
    const fn fold(d: u64) -> [i64; 2] {
        [
            ((xpow(8 * d + 63) as u64) << 32) as i64,
            ((xpow(8 * d - 1) as u64) << 32) as i64,
        ]
    }

    const F256: [i64; 2] = fold(256);
    const F192: [i64; 2] = fold(192);
    const F128: [i64; 2] = fold(128);
    const F64: [i64; 2] = fold(64);
    const F48: [i64; 2] = fold(48);
    const F32: [i64; 2] = fold(32);
    const F16: [i64; 2] = fold(16);

    /// Advances the raw register over `data`.
    #[target_feature(enable = "avx512f,vpclmulqdq,sse4.2,pclmulqdq")]
    pub(super) fn update(crc: u32, data: &[u8]) -> u32 {
        if data.len() < THRESHOLD {
            return sse42::update(crc, data);
        }
        let (blocks, rest) = data.as_chunks::<256>();
        let Some((first, blocks)) = blocks.split_first() else {
            return sse42::update(crc, data);
        };

        let load = |chunk: &[u8; 64]| -> __m512i {
            // SAFETY: `chunk` is 64 readable bytes and the load is unaligned.
            unsafe { _mm512_loadu_si512(chunk.as_ptr().cast()) }
        };
        let load4 = |block: &[u8; 256]| -> [__m512i; 4] {
            let c = block.as_chunks::<64>().0;
            [load(&c[0]), load(&c[1]), load(&c[2]), load(&c[3])]
        };
        let broadcast =
            |k: [i64; 2]| _mm512_set_epi64(k[1], k[0], k[1], k[0], k[1], k[0], k[1], k[0]);
        // acc * x^(8d) + data, lane by lane.
        let fold = |acc: __m512i, k: __m512i, data: __m512i| -> __m512i {
            _mm512_ternarylogic_epi64::<0x96>(
                _mm512_clmulepi64_epi128::<0x00>(acc, k),
                _mm512_clmulepi64_epi128::<0x11>(acc, k),
                data,
            )
        };

        // The incoming register adds to the first four bytes.
        let [mut a0, mut a1, mut a2, mut a3] = load4(first);
        a0 = _mm512_xor_si512(a0, _mm512_zextsi128_si512(_mm_cvtsi32_si128(crc as i32)));
        let k256 = broadcast(F256);
        for block in blocks {
            let [d0, d1, d2, d3] = load4(block);
            a0 = fold(a0, k256, d0);
            a1 = fold(a1, k256, d1);
            a2 = fold(a2, k256, d2);
            a3 = fold(a3, k256, d3);
        }

        // Four accumulators into one, then the remaining whole 64-byte chunks.
        let k64 = broadcast(F64);
        let mut acc = fold(a0, broadcast(F192), a3);
        acc = fold(a1, broadcast(F128), acc);
        acc = fold(a2, k64, acc);
        let (chunks, tail) = rest.as_chunks::<64>();
        for chunk in chunks {
            acc = fold(acc, k64, load(chunk));
        }

        // Lanes 0..3 of `acc` sit 48, 32, 16 and 0 bytes before the end.
        let k = _mm512_set_epi64(0, 0, F16[1], F16[0], F32[1], F32[0], F48[1], F48[0]);
        let t = _mm512_ternarylogic_epi64::<0x96>(
            _mm512_clmulepi64_epi128::<0x00>(acc, k),
            _mm512_clmulepi64_epi128::<0x11>(acc, k),
            _mm512_maskz_mov_epi64(0b1100_0000, acc),
        );
        let y = _mm256_xor_si256(_mm512_castsi512_si256(t), _mm512_extracti64x4_epi64::<1>(t));
        let x = _mm_xor_si128(_mm256_castsi256_si128(y), _mm256_extracti128_si256::<1>(y));
        let h = _mm_cvtsi128_si64(x) as u64;
        let l = _mm_extract_epi64::<1>(x) as u64;
        let crc = _mm_crc32_u64(_mm_crc32_u64(0, h), l) as u32;
        sse42::single(crc, tail)
    }
}
