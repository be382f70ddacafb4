//! CRC32C by AVX-512 VPCLMULQDQ folding alone: eight 512-bit accumulators,
//! 512 bytes per step, one final reduction.
//!
//! Where the carry-less multiplier takes one 512-bit VPCLMULQDQ per cycle
//! (Intel Xeon, Ice Lake and later: 32 bytes per cycle for two products per
//! 64 bytes), folding alone outruns the fused design of [`super::vpclmul`],
//! whose `crc32` streams are sized for a core that starts two `crc32` per
//! cycle and one VPCLMULQDQ per two (AMD Zen 5).
//!
//! **Lanes.** As in [`super::vpclmul`]: a 128-bit lane `X = H * x^64 + L`
//! (low qword `H`, high qword `L`, bits reflected) moves `d` bytes on as
//! `H * k_H + L * k_L` with `[k_H, k_L] = fold(d)` (`x^(8d + 63)` and
//! `x^(8d - 1)` modulo `P`, computed at compile time), and the 128 bits of
//! the last 16 bytes reduce to the register by two `crc32` instructions.
//!
//! **Any length, no tail.** The input is cut into 64-byte vectors from its
//! end, so that only the first is partial: it is loaded with a byte mask
//! that leaves zeros in front of the data (leading zeros do not change a CRC
//! whose register is zero), and the incoming register goes in front of its
//! first data byte (one carry-less product, or a plain XOR when the length
//! is a multiple of 64).
//!
//! * Up to [`DIRECT_MAX`] vectors: each vector is multiplied straight onto
//!   the last 16 bytes, every lane by its own constant: two
//!   VPCLMULQDQ per vector, all independent, no loop-carried chain.
//! * Longer inputs: the vectors are grouped by eight from the end, so that
//!   the first group, the head, has one to eight vectors. The head is
//!   multiplied straight onto the last vector of the next group (a constant
//!   per vector, the same in every lane), whose eight vectors then seed the
//!   eight accumulators; each step folds them 512 bytes on over the next
//!   group; at the end each of their 32 lanes is multiplied onto the last
//!   16 bytes by its own constant, as for short inputs. Each step
//!   prefetches the lines three steps ahead, and from 8 KiB on the bytes
//!   past the input's last 64-byte boundary in memory run as a `crc32`
//!   chain afterwards, so that every vector load is aligned.
//!
//! Every length runs the same few paths, so the kernel is as correct at
//! 0, 1 or 65 bytes (where no loop step runs) as at a megabyte.

use super::Kernel;

/// Accumulators of the main loop.
pub const ACCS: usize = 8;

/// Bytes folded per step of the main loop.
pub const STEP: usize = 64 * ACCS;

/// Inputs of at most this many 64-byte vectors (1 KiB) are multiplied
/// straight onto their end; longer ones run the accumulators.
pub const DIRECT_MAX: usize = 16;

/// Proof that the CPU has AVX-512 VPCLMULQDQ (and SSE4.2 and PCLMULQDQ).
#[cfg(target_arch = "x86_64")]
#[derive(Clone, Copy, Debug)]
pub struct VpclmulFold {
    _private: (),
}

/// Proof that the CPU has AVX-512 VPCLMULQDQ (never, on this target).
#[cfg(not(target_arch = "x86_64"))]
#[derive(Clone, Copy, Debug)]
pub enum VpclmulFold {}

impl VpclmulFold {
    /// Detects the CPU features (VPCLMULQDQ and AVX-512 for the folding,
    /// SSE4.2 for the final reduction, PCLMULQDQ for `shift`); `None` when
    /// any is missing or hidden (`MBHASH_DISABLE=avx512` or `vpclmul`).
    pub fn new() -> Option<Self> {
        #[cfg(target_arch = "x86_64")]
        {
            use crate::cpu::{Feature, available};
            if available(Feature::Vpclmul)
                && available(Feature::Avx512)
                && super::Sse42::new().is_some()
            {
                return Some(VpclmulFold { _private: () });
            }
        }
        None
    }
}

impl Kernel for VpclmulFold {
    #[inline]
    fn update(self, crc: u32, data: &[u8]) -> u32 {
        #[cfg(target_arch = "x86_64")]
        {
            // SAFETY: the token proves AVX-512 F/BW/VL, VPCLMULQDQ, SSE4.2
            // and PCLMULQDQ are available.
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
            unsafe { super::sse42::x86::shift(crc, len) }
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
                #[target_feature(enable = "avx512f,avx512bw,avx512vl,vpclmulqdq,sse4.2,pclmulqdq")]
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

/// `LANES[t]`: for a vector `t` vectors before the last one, lane `l`'s
/// constants `fold(64 t + 16 (3 - l))` in qwords `2l, 2l + 1`, which move
/// that lane onto the last 16 bytes.
#[cfg(target_arch = "x86_64")]
pub(crate) static LANES: [x86::Vec512; DIRECT_MAX] = {
    let mut t = [const { x86::Vec512([0; 8]) }; DIRECT_MAX];
    let mut v = 0;
    while v < DIRECT_MAX {
        let mut l = 0;
        while l < 4 {
            let f = x86::fold((64 * v + 16 * (3 - l)) as i64);
            t[v].0[2 * l] = f[0];
            t[v].0[2 * l + 1] = f[1];
            l += 1;
        }
        v += 1;
    }
    t
};

/// `MOVE[t] = fold(64 t)` in every lane: moves a vector `t` vectors on.
#[cfg(target_arch = "x86_64")]
pub(crate) static MOVE: [x86::Vec512; 2 * ACCS] = {
    let mut t = [const { x86::Vec512([0; 8]) }; 2 * ACCS];
    let mut v = 0;
    while v < 2 * ACCS {
        let f = x86::fold(64 * v as i64);
        let mut l = 0;
        while l < 4 {
            t[v].0[2 * l] = f[0];
            t[v].0[2 * l + 1] = f[1];
            l += 1;
        }
        v += 1;
    }
    t
};

#[cfg(target_arch = "x86_64")]
mod x86 {
    pub(crate) use crate::crc32c::vpclmul::x86::{Vec512, XNEG, fold};

    use super::{ACCS, DIRECT_MAX, LANES, MOVE, STEP};
    use core::arch::x86_64::*;

    /// `a * k`, lane by lane: `H * k_H + L * k_L` on every 128-bit lane (the
    /// constants in the low and high qwords of each lane of `k`), XORed with
    /// `c`.
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,vpclmulqdq")]
    fn mul_add(a: __m512i, k: __m512i, c: __m512i) -> __m512i {
        _mm512_ternarylogic_epi64::<0x96>(
            _mm512_clmulepi64_epi128::<0x00>(a, k),
            _mm512_clmulepi64_epi128::<0x11>(a, k),
            c,
        )
    }

    /// Loads a table vector.
    #[inline]
    #[target_feature(enable = "avx512f")]
    fn get(v: &Vec512) -> __m512i {
        // SAFETY: `v` is 64 readable bytes, aligned to 64.
        unsafe { _mm512_load_si512(v.0.as_ptr().cast()) }
    }

    /// Loads 64 bytes.
    #[inline]
    #[target_feature(enable = "avx512f")]
    fn load(chunk: &[u8; 64]) -> __m512i {
        // SAFETY: `chunk` is 64 readable bytes and the load is unaligned.
        unsafe { _mm512_loadu_si512(chunk.as_ptr().cast()) }
    }

    /// The XOR of the four 128-bit lanes of `z` (all of them values of the
    /// last 16 bytes), reduced to the register: `crc32(crc32(0, H), L)` is
    /// `H * x^96 + L * x^32`.
    #[inline]
    #[target_feature(enable = "avx512f,avx512vl,sse4.2")]
    fn reduce(z: __m512i) -> u32 {
        let lo = _mm512_castsi512_si256(z);
        let hi = _mm512_extracti64x4_epi64::<1>(z);
        let x = _mm256_xor_si256(lo, hi);
        let x = _mm_xor_si128(_mm256_castsi256_si128(x), _mm256_extracti128_si256::<1>(x));
        let h = _mm_cvtsi128_si64(x) as u64;
        let l = _mm_extract_epi64::<1>(x) as u64;
        _mm_crc32_u64(_mm_crc32_u64(0, h), l) as u32
    }

    /// How far ahead of the group being folded its lines are prefetched.
    const PREFETCH: usize = 3 * STEP;

    /// Advances the raw register over `data`.
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,vpclmulqdq,sse4.2,pclmulqdq")]
    pub(super) fn update(crc: u32, data: &[u8]) -> u32 {
        if data.len() <= 64 * DIRECT_MAX {
            direct(crc, data)
        } else {
            aligned(crc, data)
        }
    }

    /// Inputs from this length on align their vector loads.
    pub(crate) const ALIGN_MIN: usize = 8 << 10;

    /// More than [`DIRECT_MAX`] vectors. The vectors end where `data` ends,
    /// so their loads are aligned only if its end is: from [`ALIGN_MIN`]
    /// bytes on, the bytes past the last multiple of 64 in memory (fewer
    /// than 64) run as a `crc32` chain after the rest (split loads cost
    /// about 5% from L1 and L2 on Intel Xeon; below that the chain's
    /// latency costs more). Out of line: its call of [`folded`] before
    /// the chain would have every call of [`update`] save registers.
    #[inline(never)]
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,vpclmulqdq,sse4.2,pclmulqdq")]
    fn aligned(crc: u32, data: &[u8]) -> u32 {
        let t = (data.as_ptr() as usize).wrapping_add(data.len()) % 64;
        if t == 0 || data.len() < ALIGN_MIN {
            return folded(crc, data);
        }
        let (body, tail) = data.split_at(data.len() - t);
        crate::crc32c::sse42::x86::single(folded(crc, body), tail)
    }

    /// The vectors of a non-empty input: the first, `pad` zero bytes and
    /// then the first `64 - pad` bytes, with the incoming register in front
    /// of its first data byte; then the others, whole.
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,vpclmulqdq,sse4.2,pclmulqdq")]
    fn vectors(crc: u32, data: &[u8]) -> (__m512i, &[[u8; 64]]) {
        let pad = data.len().wrapping_neg() % 64;
        let (first, rest) = data.split_at(64 - pad);
        let (vectors, _) = rest.as_chunks::<64>();
        let v0 = if pad == 0 {
            let first: &[u8; 64] = first.try_into().unwrap();
            _mm512_xor_si512(
                load(first),
                _mm512_zextsi128_si512(_mm_cvtsi32_si128(crc as i32)),
            )
        } else {
            let v0 = crate::crc32c::vpclmul::x86::padded_first(first, pad);
            // x^(31 - 8 pad): the register moved back over the pad.
            let crc = _mm_clmulepi64_si128::<0x00>(
                _mm_cvtsi32_si128(crc as i32),
                _mm_cvtsi32_si128(XNEG[pad] as i32),
            );
            _mm512_xor_si512(v0, _mm512_zextsi128_si512(crc))
        };
        (v0, vectors)
    }

    /// At most [`DIRECT_MAX`] vectors: each multiplied lane by lane onto
    /// the last 16 bytes.
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,vpclmulqdq,sse4.2,pclmulqdq")]
    fn direct(crc: u32, data: &[u8]) -> u32 {
        if data.is_empty() {
            return crc;
        }
        let (v0, vectors) = vectors(crc, data);
        // A straight-line body per vector count: no loop counter, no
        // branch, the table and data loads folded into their instructions.
        macro_rules! by_count {
            ($($n:literal)*) => {
                match vectors.len() {
                    $($n => direct_n::<$n>(v0, vectors),)*
                    _ => unreachable!("at most DIRECT_MAX vectors"),
                }
            };
        }
        by_count!(0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15)
    }

    /// [`direct`] for `N` vectors after `v0`.
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,vpclmulqdq,sse4.2,pclmulqdq")]
    fn direct_n<const N: usize>(v0: __m512i, vectors: &[[u8; 64]]) -> u32 {
        let vectors: &[[u8; 64]; N] = vectors.try_into().expect("N vectors");
        let mut z = mul_add(v0, get(&LANES[N]), _mm512_setzero_si512());
        for i in 0..N {
            z = mul_add(load(&vectors[i]), get(&LANES[N - 1 - i]), z);
        }
        reduce(z)
    }

    /// More than [`DIRECT_MAX`] vectors, folded by the eight accumulators.
    #[inline(never)]
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,vpclmulqdq,sse4.2,pclmulqdq")]
    fn folded(crc: u32, data: &[u8]) -> u32 {
        let (v0, vectors) = vectors(crc, data);
        // The head: v0 and r - 1 more vectors; then whole groups (at least
        // two, since there are more than 2 * ACCS vectors in all).
        let r = vectors.len() % ACCS + 1;
        let (head, rest) = vectors.split_at(r - 1);
        let (groups, _) = rest.as_chunks::<ACCS>();
        let (seed, groups) = groups.split_first().expect("at least two groups");

        // The head onto the last vector of the first group: vector i of the
        // head is r + ACCS - 1 - i vectors before it.
        let mut h = mul_add(v0, get(&MOVE[r + ACCS - 1]), _mm512_setzero_si512());
        for (v, k) in head.iter().zip(MOVE[ACCS..ACCS + r - 1].iter().rev()) {
            h = mul_add(load(v), get(k), h);
        }
        let mut acc: [__m512i; ACCS] = core::array::from_fn(|j| load(&seed[j]));
        acc[ACCS - 1] = _mm512_xor_si512(acc[ACCS - 1], h);

        let k = get(&MOVE[ACCS]);
        for g in groups {
            // Each line of the group three groups on, into L1: the
            // hardware prefetchers alone leave about 15% on the table from
            // L2 (measured on Intel Xeon).
            for v in g {
                _mm_prefetch::<_MM_HINT_T0>(v.as_ptr().wrapping_add(PREFETCH).cast());
            }
            for j in 0..ACCS {
                acc[j] = mul_add(acc[j], k, load(&g[j]));
            }
        }
        // Every lane of accumulator j onto the last 16 bytes: it is
        // ACCS - 1 - j vectors before the last one. Two chains, so that the
        // sum is not one long sequence of dependent XORs.
        let half = ACCS / 2;
        let mut z = [_mm512_setzero_si512(); 2];
        for j in 0..half {
            z[0] = mul_add(acc[j], get(&LANES[ACCS - 1 - j]), z[0]);
            z[1] = mul_add(acc[j + half], get(&LANES[half - 1 - j]), z[1]);
        }
        reduce(_mm512_xor_si512(z[0], z[1]))
    }

    #[cfg(test)]
    mod tests {
        use super::fold;
        use crate::crc32c::table;

        /// Carry-less product of two 64-bit integers.
        fn clmul(a: u64, b: u64) -> u128 {
            (0..64)
                .filter(|i| b >> i & 1 != 0)
                .fold(0, |p, i| p ^ (a as u128) << i)
        }

        /// The constants of `fold(d)`, applied with carry-less products
        /// computed in software, move 16 bytes `d` bytes on: the CRC of the
        /// result (as the last 16 bytes of a message) is the CRC of those
        /// bytes followed by `d` zero bytes.
        #[test]
        fn fold_constants_move_lanes() {
            let mut x = 0x0123_4567_89ab_cdefu64;
            for d in (0..=1100).step_by(16).chain([4096, 65536, 1 << 20]) {
                x = x.rotate_left(17).wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ d as u64;
                let (h, l) = (x, x.rotate_left(29) ^ 0x5555_aaaa_0f0f_f0f0);
                let lane: Vec<u8> = [h.to_le_bytes(), l.to_le_bytes()].concat();
                let [kh, kl] = fold(d as i64).map(|k| k as u64);
                let moved = clmul(h, kh) ^ clmul(l, kl);
                let mut padded = lane.clone();
                padded.resize(16 + d, 0);
                assert_eq!(
                    table::update(0, &moved.to_le_bytes()),
                    table::update(0, &padded),
                    "distance {d}"
                );
            }
        }
    }
}
