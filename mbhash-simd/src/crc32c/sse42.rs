//! CRC32C with the SSE4.2 `crc32` instruction, three streams at once.
//!
//! The `crc32` instruction has a latency of three cycles but can start one
//! per cycle, so a single dependent chain uses a third of it. Inputs of at
//! least [`THREE_WAY_MIN`] bytes are cut into blocks of three equal
//! streams `A | B | C`; the three registers run interleaved (A from the
//! incoming CRC, B and C from zero) and are then recombined:
//!
//! `crc = A * x^(8*2L) + B * x^(8*L) + C  (mod P)`
//!
//! Each shift is one PCLMULQDQ by a precomputed constant `x^(8*d - 33)`,
//! and one `crc32` over the XOR of the two 64-bit products reduces both:
//! `crc32_u64(0, v) = v * x^32`, and the integer product of two reflected
//! values is the polynomial product times `x^-1` in the 64-bit reflected
//! order, so the `- 33` cancels exactly. Shorter inputs run one plain chain
//! with no setup.

use super::Kernel;

/// Inputs shorter than this run as one plain `crc32` chain (measured on
/// AMD Zen 4: below it the recombination costs more than it saves).
pub const THREE_WAY_MIN: usize = 192;

/// Proof that the CPU has SSE4.2 and PCLMULQDQ.
#[cfg(target_arch = "x86_64")]
#[derive(Clone, Copy, Debug)]
pub struct Sse42 {
    _private: (),
}

/// Proof that the CPU has SSE4.2 and PCLMULQDQ (never, on this target).
#[cfg(not(target_arch = "x86_64"))]
#[derive(Clone, Copy, Debug)]
pub enum Sse42 {}

impl Sse42 {
    /// Detects the CPU features (SSE4.2 and PCLMULQDQ); `None` when they are
    /// missing or hidden.
    pub fn new() -> Option<Self> {
        #[cfg(target_arch = "x86_64")]
        {
            use crate::cpu::{Feature, available};
            if available(Feature::Sse42) && available(Feature::Pclmul) {
                return Some(Sse42 { _private: () });
            }
        }
        None
    }
}

impl Kernel for Sse42 {
    fn update(self, crc: u32, data: &[u8]) -> u32 {
        #[cfg(target_arch = "x86_64")]
        {
            // SAFETY: the token proves SSE4.2 and PCLMULQDQ are available.
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
            unsafe { x86::shift(crc, len) }
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            let _ = (crc, len);
            match self {}
        }
    }
}

#[cfg(target_arch = "x86_64")]
pub(crate) mod x86 {
    use super::THREE_WAY_MIN;
    use crate::crc32c::{ORDER, mul, shift_exponent, xpow};
    use core::arch::x86_64::*;

    /// Per-stream length of the long blocks (12 KiB per block).
    const LONG: usize = 4096;
    /// Shift constants exist for per-stream lengths 8, 16, ..., 8 * WORDS.
    const WORDS: usize = 128;

    /// The two shift constants for a block of three streams of `len` bytes:
    /// `x^(8*2*len - 33)` for stream A and `x^(8*len - 33)` for stream B.
    const fn shifts(len: usize) -> [u32; 2] {
        [xpow(16 * len as u64 - 33), xpow(8 * len as u64 - 33)]
    }

    const LONG_SHIFTS: [u32; 2] = shifts(LONG);

    /// `SHIFTS[w - 1]` holds the constants for streams of `8 * w` bytes.
    static SHIFTS: [[u32; 2]; WORDS] = {
        // One multiplication per entry: each step adds 8 bytes per stream.
        let (x64, x128) = (xpow(64), xpow(128));
        let mut t = [[0u32; 2]; WORDS];
        t[0] = shifts(8);
        let mut w = 1;
        while w < WORDS {
            t[w] = [mul(t[w - 1][0], x128), mul(t[w - 1][1], x64)];
            w += 1;
        }
        t
    };

    /// `X2N_33[k] = x^(2^k - 33) mod P`: multiplying by it through
    /// [`mul_33`] multiplies by `x^(2^k)`.
    static X2N_33: [u32; 31] = {
        let mut t = [0u32; 31];
        let mut k = 0;
        while k < 31 {
            t[k] = xpow((1u64 << k) + ORDER - 33);
            k += 1;
        }
        t
    };

    /// Advances the raw register over `data`.
    #[target_feature(enable = "sse4.2,pclmulqdq")]
    pub(crate) fn update(crc: u32, data: &[u8]) -> u32 {
        if data.len() < THREE_WAY_MIN {
            return single(crc, data);
        }
        // One block of three streams of `len` bytes each; `block` holds
        // exactly `3 * len` bytes and `len` is a multiple of 8.
        let three_way = |crc: u32, block: &[u8], len: usize, k: [u32; 2]| -> u32 {
            let (a, rest) = block.split_at(len);
            let (b, c) = rest.split_at(len);
            let (wa, wb, wc) = (
                a.as_chunks::<8>().0,
                b.as_chunks::<8>().0,
                c.as_chunks::<8>().0,
            );
            let (mut ca, mut cb, mut cc) = (crc as u64, 0u64, 0u64);
            for ((x, y), z) in wa.iter().zip(wb).zip(wc) {
                ca = _mm_crc32_u64(ca, u64::from_le_bytes(*x));
                cb = _mm_crc32_u64(cb, u64::from_le_bytes(*y));
                cc = _mm_crc32_u64(cc, u64::from_le_bytes(*z));
            }
            let pa = _mm_clmulepi64_si128::<0x00>(
                _mm_cvtsi32_si128(ca as i32),
                _mm_cvtsi32_si128(k[0] as i32),
            );
            let pb = _mm_clmulepi64_si128::<0x00>(
                _mm_cvtsi32_si128(cb as i32),
                _mm_cvtsi32_si128(k[1] as i32),
            );
            let v = _mm_cvtsi128_si64(_mm_xor_si128(pa, pb)) as u64;
            _mm_crc32_u64(0, v) as u32 ^ cc as u32
        };
        let mut crc = crc;
        let mut data = data;
        while data.len() >= 3 * LONG {
            let (block, rest) = data.split_at(3 * LONG);
            crc = three_way(crc, block, LONG, LONG_SHIFTS);
            data = rest;
        }
        while data.len() >= 3 * 8 * WORDS {
            let (block, rest) = data.split_at(3 * 8 * WORDS);
            crc = three_way(crc, block, 8 * WORDS, SHIFTS[WORDS - 1]);
            data = rest;
        }
        if data.len() >= THREE_WAY_MIN {
            let words = data.len() / 24;
            let (block, rest) = data.split_at(24 * words);
            crc = three_way(crc, block, 8 * words, SHIFTS[words - 1]);
            data = rest;
        }
        single(crc, data)
    }

    /// Advances the raw register over `data` with one dependent chain.
    #[target_feature(enable = "sse4.2")]
    pub(crate) fn single(crc: u32, data: &[u8]) -> u32 {
        let (words, tail) = data.as_chunks::<8>();
        let mut crc64 = crc as u64;
        for w in words {
            crc64 = _mm_crc32_u64(crc64, u64::from_le_bytes(*w));
        }
        let mut crc = crc64 as u32;
        let mut tail = tail;
        if let Some((w, rest)) = tail.split_first_chunk::<4>() {
            crc = _mm_crc32_u32(crc, u32::from_le_bytes(*w));
            tail = rest;
        }
        if let Some((w, rest)) = tail.split_first_chunk::<2>() {
            crc = _mm_crc32_u16(crc, u16::from_le_bytes(*w));
            tail = rest;
        }
        if let Some(&b) = tail.first() {
            crc = _mm_crc32_u8(crc, b);
        }
        crc
    }

    /// `crc * x^(8*len) mod P`: at most 31 carry-less multiplications.
    #[target_feature(enable = "sse4.2,pclmulqdq")]
    pub(crate) fn shift(crc: u32, len: u64) -> u32 {
        // `a * k * x^33`: the carry-less product, reduced by one `crc32`.
        let mul_33 = |a: u32, k: u32| -> u32 {
            let p = _mm_clmulepi64_si128::<0x00>(
                _mm_cvtsi32_si128(a as i32),
                _mm_cvtsi32_si128(k as i32),
            );
            _mm_crc32_u64(0, _mm_cvtsi128_si64(p) as u64) as u32
        };
        let mut e = shift_exponent(len);
        let mut crc = crc;
        while e != 0 {
            crc = mul_33(crc, X2N_33[e.trailing_zeros() as usize]);
            e &= e - 1;
        }
        crc
    }
}
