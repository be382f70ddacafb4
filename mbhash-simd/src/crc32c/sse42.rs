//! CRC32C with the SSE4.2 `crc32` instruction, six streams at once.
//!
//! The `crc32` instruction has a latency of three cycles; Intel cores start
//! one per cycle, AMD Zen 5 two (measured here: three interleaved chains
//! 32 GB/s, six 64 GB/s), so the classic three streams use only half of a
//! Zen 5 and six streams cost Intel nothing but a longer recombination.
//! Inputs of at least [`MULTI_MIN`] bytes are cut into [`STREAMS`] equal
//! streams `S0 | S1 | ... | S5` of `L` bytes, after a head of fewer than 48
//! bytes; the head runs as a seventh chain from the incoming CRC, the six
//! streams from zero, all interleaved, and are then recombined:
//!
//! `crc = H * x^(8*6L) + S0 * x^(8*5L) + ... + S4 * x^(8*L) + S5  (mod P)`
//!
//! Each shift is one PCLMULQDQ by a precomputed constant `x^(8*d - 33)`,
//! and one `crc32` over the XOR of the 64-bit products reduces them all:
//! `crc32_u64(0, v) = v * x^32`, and the integer product of two reflected
//! values is the polynomial product times `x^-1` in the 64-bit reflected
//! order, so the `- 33` cancels exactly. Long inputs run in blocks of
//! `6 * 1 KiB`, the register carried from block to block by the same kind
//! of shift (off the streams' critical path). Shorter inputs run one plain
//! chain with no setup.

use super::Kernel;

/// Inputs shorter than this run as one plain `crc32` chain.
///
/// Measured on AMD Zen 5 against one chain: from 256 bytes the six streams
/// halve the latency of a call (2x the speed when each call waits for the
/// previous one) and are about as fast when independent calls overlap;
/// below it one chain costs fewer instructions, which wins when calls
/// overlap (1.5x at 128 bytes) and loses little when they do not.
pub const MULTI_MIN: usize = 256;

/// The number of interleaved streams.
pub const STREAMS: usize = 6;

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
    #[inline]
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

    #[inline]
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

    #[inline]
    fn entry(self, max_len: usize) -> super::Entry {
        #[cfg(target_arch = "x86_64")]
        {
            let _ = max_len;
            super::entry!(
                #[target_feature(enable = "sse4.2,pclmulqdq")]
                x86::update
            )
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            let _ = max_len;
            match self {}
        }
    }
}

#[cfg(target_arch = "x86_64")]
pub(crate) mod x86 {
    use super::{MULTI_MIN, STREAMS};
    use crate::crc32c::{ORDER, mul, shift_exponent, x16_table, xpow};
    use core::arch::x86_64::*;

    /// Words (8 bytes) per stream in the fixed blocks; also the largest
    /// stream length with constants in [`MULTI`].
    pub(crate) const W_MAX: usize = 128;
    /// The fixed block: six streams of 1 KiB.
    const BLOCK: usize = STREAMS * 8 * W_MAX;

    /// `MULTI[w - 1][k - 1] = x^(64*w*k - 33)`: moves the register of a
    /// stream of `w` words over `k` further such streams, for
    /// `crc32_u64(0, clmul(c, K))` (`k = 6` moves the head, in front of all
    /// six streams).
    pub(crate) static MULTI: [[u32; STREAMS]; W_MAX] = {
        // One multiplication per entry: w + 1 words is w words times x^(64k).
        let mut step = [0u32; STREAMS];
        let mut k = 0;
        while k < STREAMS {
            step[k] = xpow(64 * (k as u64 + 1));
            k += 1;
        }
        let mut t = [[0u32; STREAMS]; W_MAX];
        let mut k = 0;
        while k < STREAMS {
            t[0][k] = xpow(64 * (k as u64 + 1) + ORDER - 33);
            k += 1;
        }
        let mut w = 1;
        while w < W_MAX {
            let mut k = 0;
            while k < STREAMS {
                t[w][k] = mul(t[w - 1][k], step[k]);
                k += 1;
            }
            w += 1;
        }
        t
    };

    /// Moves the carried register over one fixed block.
    const BLOCK_SHIFT: u32 = xpow(8 * BLOCK as u64 - 33);

    /// `X16_33[k][d] = x^(d * 16^k - 33) mod P`: multiplying by it
    /// through [`mul_33`] multiplies by `x^(d * 16^k)`.
    static X16_33: [[u32; 16]; 8] = x16_table(ORDER - 33);

    /// The carry-less product of two 32-bit values (in the low 64 bits).
    #[inline]
    #[target_feature(enable = "sse4.2,pclmulqdq")]
    pub(crate) fn clmul(a: u32, b: u32) -> __m128i {
        _mm_clmulepi64_si128::<0x00>(_mm_cvtsi32_si128(a as i32), _mm_cvtsi32_si128(b as i32))
    }

    /// `crc32_u64(0, v)` on the low qword of `v`: `v * x^32 mod P`.
    #[inline]
    #[target_feature(enable = "sse4.2,pclmulqdq")]
    pub(crate) fn reduce(v: __m128i) -> u32 {
        _mm_crc32_u64(0, _mm_cvtsi128_si64(v) as u64) as u32
    }

    /// `a * b * x^33 mod P`.
    #[inline]
    #[target_feature(enable = "sse4.2,pclmulqdq")]
    pub(crate) fn mul_33(a: u32, b: u32) -> u32 {
        reduce(clmul(a, b))
    }

    /// The six streams of `w` words that end `data`, and the head in front
    /// of them.
    #[inline(always)]
    pub(crate) fn split(data: &[u8], w: usize) -> (&[u8], [&[[u8; 8]]; STREAMS]) {
        let (head, body) = data.split_at(data.len() - STREAMS * 8 * w);
        let (words, _) = body.as_chunks::<8>();
        let (s0, rest) = words.split_at(w);
        let (s1, rest) = rest.split_at(w);
        let (s2, rest) = rest.split_at(w);
        let (s3, rest) = rest.split_at(w);
        let (s4, s5) = rest.split_at(w);
        (head, [s0, s1, s2, s3, s4, s5])
    }

    /// `Σ clmul(c[j], k[j])` over the first five streams.
    #[inline]
    #[target_feature(enable = "sse4.2,pclmulqdq")]
    pub(crate) fn shifted(c: &[u64; STREAMS], k: &[u32; STREAMS - 1]) -> __m128i {
        let p01 = _mm_xor_si128(clmul(c[0] as u32, k[0]), clmul(c[1] as u32, k[1]));
        let p23 = _mm_xor_si128(clmul(c[2] as u32, k[2]), clmul(c[3] as u32, k[3]));
        _mm_xor_si128(_mm_xor_si128(p01, p23), clmul(c[4] as u32, k[4]))
    }

    /// Stream `j`'s shift constants, in stream order: `[k5, k4, .., k1]`,
    /// and the head's (`k6`).
    #[inline(always)]
    pub(crate) fn multi_shifts(w: usize) -> ([u32; STREAMS - 1], u32) {
        let m = MULTI[w - 1];
        ([m[4], m[3], m[2], m[1], m[0]], m[5])
    }

    /// Advances the raw register over `data`.
    #[target_feature(enable = "sse4.2,pclmulqdq")]
    pub(crate) fn update(crc: u32, data: &[u8]) -> u32 {
        if data.len() < MULTI_MIN {
            single(crc, data)
        } else {
            multi(crc, data)
        }
    }

    /// The six-stream path (kept out of line so that short inputs pay for
    /// no stack frame).
    #[inline(never)]
    #[target_feature(enable = "sse4.2,pclmulqdq")]
    pub(crate) fn multi(crc: u32, data: &[u8]) -> u32 {
        let mut crc = crc;
        let mut data = data;
        if data.len() > BLOCK {
            // Leave 1..=BLOCK bytes for the last, variable block.
            let n = (data.len() - 1) / BLOCK;
            let (blocks, rest) = data.split_at(n * BLOCK);
            let (k, _) = multi_shifts(W_MAX);
            for block in blocks.as_chunks::<BLOCK>().0 {
                let (_, s) = split(block, W_MAX);
                let mut c = [0u64; STREAMS];
                crate::crc32c::streams!(c, s);
                let p = _mm_xor_si128(shifted(&c, &k), clmul(crc, BLOCK_SHIFT));
                crc = reduce(p) ^ c[5] as u32;
            }
            data = rest;
        }
        let w = data.len() / (STREAMS * 8);
        if w == 0 {
            return single(crc, data);
        }
        let (head, s) = split(data, w);
        let mut c = [0u64; STREAMS];
        // The head runs as a seventh chain from the incoming register, so
        // that stream 0 is no longer than the others.
        let h = single(crc, head);
        crate::crc32c::streams!(c, s);
        let (k, kh) = multi_shifts(w);
        reduce(_mm_xor_si128(shifted(&c, &k), clmul(h, kh))) ^ c[5] as u32
    }

    /// Advances the raw register over `data` with one dependent chain:
    /// 64 bytes per loop step, then 32, 16, 8, 4, 2 and 1 as the length's
    /// bits say (fewer instructions for short inputs than a loop of words,
    /// whose count LLVM would split into an unrolled part and a remainder).
    #[inline]
    #[target_feature(enable = "sse4.2")]
    pub(crate) fn single(crc: u32, data: &[u8]) -> u32 {
        let word = |x: &[u8], i: usize| u64::from_le_bytes(x[8 * i..8 * i + 8].try_into().unwrap());
        let (blocks, mut rest) = data.as_chunks::<64>();
        let mut c = crc as u64;
        for b in blocks {
            for i in 0..8 {
                c = _mm_crc32_u64(c, word(b, i));
            }
        }
        if rest.is_empty() {
            return c as u32;
        }
        if let Some((x, r)) = rest.split_first_chunk::<32>() {
            for i in 0..4 {
                c = _mm_crc32_u64(c, word(x, i));
            }
            rest = r;
        }
        if let Some((x, r)) = rest.split_first_chunk::<16>() {
            c = _mm_crc32_u64(c, word(x, 0));
            c = _mm_crc32_u64(c, word(x, 1));
            rest = r;
        }
        if let Some((x, r)) = rest.split_first_chunk::<8>() {
            c = _mm_crc32_u64(c, word(x, 0));
            rest = r;
        }
        let mut c = c as u32;
        if let Some((x, r)) = rest.split_first_chunk::<4>() {
            c = _mm_crc32_u32(c, u32::from_le_bytes(*x));
            rest = r;
        }
        if let Some((x, r)) = rest.split_first_chunk::<2>() {
            c = _mm_crc32_u16(c, u16::from_le_bytes(*x));
            rest = r;
        }
        if let Some(&b) = rest.first() {
            c = _mm_crc32_u8(c, b);
        }
        c
    }

    /// `crc * x^(8*len) mod P`: at most eight carry-less multiplications.
    #[target_feature(enable = "sse4.2,pclmulqdq")]
    pub(crate) fn shift(crc: u32, len: u64) -> u32 {
        let e = shift_exponent(len);
        // Two independent chains (the CPU overlaps them). The second starts
        // from x^-33 so that joining them with `mul_33` (which multiplies by
        // x^33 too) needs no correction.
        let mut acc = [crc, X16_33[0][0]];
        let mut used = 0;
        for (k, row) in X16_33.iter().enumerate() {
            let d = (e >> (4 * k)) & 15;
            if d != 0 {
                acc[used & 1] = mul_33(acc[used & 1], row[d as usize]);
                used += 1;
            }
        }
        if used > 1 {
            mul_33(acc[0], acc[1])
        } else {
            acc[0]
        }
    }
}
