//! CRC32C by AVX-512 VPCLMULQDQ folding, fused with `crc32` streams from
//! [`FUSE_MIN`] bytes on.
//!
//! **Folding.** Four 512-bit accumulators (sixteen 128-bit lanes) cover a
//! group of 256 bytes; each step moves every lane 256 bytes forward and adds
//! the next group: a lane `X = H * x^64 + L` (low qword `H`, high qword `L`,
//! bits in the reflected order) becomes `H * k_H + L * k_L + data`, two
//! carry-less multiplications and one three-way XOR (`vpternlogq`). The
//! constants are `k_H = x^(8d + 63)` and `k_L = x^(8d - 1)` modulo `P` for a
//! distance of `d` bytes (the integer product of two 64-bit reflected values
//! is the polynomial product times `x^-1` in the 128-bit reflected order,
//! and the 32-bit constants sit in the high half of each qword, hence
//! `+ 63 = + 64 - 1`); they are computed at compile time by
//! [`crate::crc32c::xpow`]. At the end all sixteen lanes are multiplied at
//! once, each by its own constant, onto the last 16 bytes and XORed
//! together, and two `crc32` instructions reduce those 128 bits:
//! `crc32_u64(crc32_u64(0, H), L)` is `H * x^96 + L * x^32`, exactly the
//! register for 16 bytes.
//!
//! **Any length, no tail.** The input is cut into 64-byte vectors from its
//! end, so only the first one is partial: it is loaded with a byte mask that
//! leaves zeros in front of the data (leading zeros do not change a CRC
//! whose register is zero), and the groups of four vectors are counted from
//! the end too, the first group padded in front with zero vectors. The
//! incoming register, which belongs in front of the first data byte, goes
//! into that vector as one carry-less product by `x^(31 - 8 pad)` (moving it
//! back over the `pad` zero bytes), or as a plain XOR when the length is a
//! multiple of 64. Folding alone is bound by the carry-less multiplier (on
//! AMD Zen 4 and 5 one VPCLMULQDQ per two cycles: 16 bytes per cycle), the
//! same at every vector width.
//!
//! **Fusion.** That leaves the `crc32` unit idle, which does as much again
//! on its own (two or more per cycle on six streams, see [`super::sse42`]).
//! From [`FUSE_MIN`] bytes the input is laid out as
//! `V | S0 | S1 | ... | S5 | T`: a folded part `V` of any length, six
//! `crc32` streams of `w` words each (`w` a multiple of 5), and the last 256
//! bytes `T`. The accumulators fold through `V` and then jump over the
//! streams onto `T` (one step by a distance that depends on `w` only), while
//! the streams run from zero, five words of each per step. Their registers
//! need no recombination pass: each is a 32-bit value that one carry-less
//! product by `x^(8 * dist - 97)` turns into its contribution to the last 16
//! bytes (`dist` bytes from the end; `- 97` for the reduction and the
//! product's place in the lane), and all six products are two VPCLMULQDQ
//! instructions on one vector, XORed in before the final reduction.
//! Inputs longer than [`CHUNK_MAX`] run in chunks of [`CHUNK`] bytes, each
//! from a zero register (so that they overlap in the CPU), the register
//! carried by one product with `x^(8 * CHUNK)` per chunk.
//!
//! Inputs shorter than [`THRESHOLD`] run the single `crc32` chain of the
//! SSE4.2 kernel.

use super::Kernel;

/// Inputs shorter than this run one `crc32` chain (measured on AMD Zen 5:
/// folding wins from about 200 bytes, by 1.5 times at 256).
pub const THRESHOLD: usize = 224;

/// Inputs from this length on are folded and hashed by `crc32` streams at
/// once; shorter ones are folded only.
pub const FUSE_MIN: usize = 1536;

/// Longer inputs run in chunks.
pub const CHUNK_MAX: usize = 12 * 1024;

/// The chunk of long inputs.
pub const CHUNK: usize = 8 * 1024;

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
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use super::{CHUNK, CHUNK_MAX, FUSE_MIN, THRESHOLD};
    use crate::crc32c::sse42::x86 as sse42;
    use crate::crc32c::{ORDER, xpow};
    use core::arch::x86_64::*;

    /// `x^e mod P` for any integer exponent (`x` has order [`ORDER`]).
    const fn xp(e: i64) -> u32 {
        xpow(e.rem_euclid(ORDER as i64) as u64)
    }

    /// The constants `[k_H, k_L]` that move a 128-bit lane `d` bytes on.
    const fn fold(d: i64) -> [i64; 2] {
        [
            ((xp(8 * d + 63) as u64) << 32) as i64,
            ((xp(8 * d - 1) as u64) << 32) as i64,
        ]
    }

    const F256: [i64; 2] = fold(256);

    /// 64 bytes aligned for a vector load.
    #[repr(C, align(64))]
    struct Vec512([i64; 8]);

    /// Loads a [`Vec512`].
    macro_rules! get {
        ($v:expr) => {{
            let v: &Vec512 = $v;
            // SAFETY: `v` is 64 readable bytes, aligned to 64.
            unsafe { _mm512_load_si512(v.0.as_ptr().cast()) }
        }};
    }

    /// `acc * x^(8d) + data` on every 128-bit lane, with `k = fold(d)`.
    macro_rules! fold {
        ($acc:expr, $k:expr, $data:expr) => {
            _mm512_ternarylogic_epi64::<0x96>(
                _mm512_clmulepi64_epi128::<0x00>($acc, $k),
                _mm512_clmulepi64_epi128::<0x11>($acc, $k),
                $data,
            )
        };
    }

    /// Loads 64 bytes.
    macro_rules! load {
        ($chunk:expr) => {{
            let chunk: &[u8; 64] = $chunk;
            // SAFETY: `chunk` is 64 readable bytes and the load is unaligned.
            unsafe { _mm512_loadu_si512(chunk.as_ptr().cast()) }
        }};
    }

    /// Both qwords of `k` in every 128-bit lane.
    macro_rules! broadcast {
        ($k:expr) => {{
            let k: [i64; 2] = $k;
            _mm512_set_epi64(k[1], k[0], k[1], k[0], k[1], k[0], k[1], k[0])
        }};
    }

    /// Folds four accumulators over a group of four vectors.
    macro_rules! fold4 {
        ($acc:ident, $k:expr, $group:expr) => {{
            let g: &[[u8; 64]; 4] = $group;
            $acc[0] = fold!($acc[0], $k, load!(&g[0]));
            $acc[1] = fold!($acc[1], $k, load!(&g[1]));
            $acc[2] = fold!($acc[2], $k, load!(&g[2]));
            $acc[3] = fold!($acc[3], $k, load!(&g[3]));
        }};
    }

    /// Per-lane constants that move lane `l` of accumulator `j` (sitting
    /// `(3 - j) * 64 + (3 - l) * 16` bytes before the end of the group) to
    /// the last 16 bytes; zero for the last lane itself.
    static LANES: [Vec512; 4] = {
        let mut t = [const { Vec512([0; 8]) }; 4];
        let mut j = 0;
        while j < 4 {
            let mut l = 0;
            while l < 4 {
                let d = ((3 - j) * 64 + (3 - l) * 16) as i64;
                if d > 0 {
                    let f = fold(d);
                    t[j].0[2 * l] = f[0];
                    t[j].0[2 * l + 1] = f[1];
                }
                l += 1;
            }
            j += 1;
        }
        t
    };

    /// `XNEG[pad] = x^(31 - 8 pad)`: the product of a register with it, as
    /// the first qword of a lane, is that register moved back over `pad`
    /// zero bytes and XORed into the lane's first four bytes.
    static XNEG: [u32; 64] = {
        let mut t = [0; 64];
        let mut pad = 0;
        while pad < 64 {
            t[pad] = xp(31 - 8 * pad as i64);
            pad += 1;
        }
        t
    };

    /// Words of each stream per folding step.
    const Q: usize = 5;
    /// The streams.
    const K: usize = 6;
    /// One step of the fused loop: a group folded and `Q` words of every
    /// stream.
    const STEP: usize = 256 + 8 * K * Q;
    /// The longest streams (in words), those of `CHUNK_MAX` bytes.
    const W_MAX: usize = (CHUNK_MAX - 256) / (8 * K);

    /// `STREAM[w]`: for streams of `w` words, stream `j`'s constant
    /// `x^(8 * dist - 97)` in qword `j`, `dist = (5 - j) * 8w + 256` bytes
    /// from the end.
    static STREAM: [Vec512; W_MAX + 1] = {
        let mut t = [const { Vec512([0; 8]) }; W_MAX + 1];
        let mut w = 0;
        while w <= W_MAX {
            let mut j = 0;
            while j < K {
                let dist = ((K - 1 - j) * 8 * w + 256) as i64;
                t[w].0[j] = xp(8 * dist - 97) as i64;
                j += 1;
            }
            w += 1;
        }
        t
    };

    /// `JUMP[w] = fold(48w + 256)`: moves the accumulators over streams of
    /// `w` words onto the last group.
    static JUMP: [[i64; 2]; W_MAX + 1] = {
        let mut t = [[0; 2]; W_MAX + 1];
        let mut w = 0;
        while w <= W_MAX {
            t[w] = fold((8 * K * w + 256) as i64);
            w += 1;
        }
        t
    };

    /// `x^(8 * CHUNK - 33)`: carries the register over a chunk (for
    /// `crc32(0, clmul(crc, K))`).
    const CHUNK_SHIFT: u32 = xpow(8 * CHUNK as u64 - 33);

    /// The sixteen lanes of four accumulators, each moved onto the last 16
    /// bytes: three vectors to XOR together with whatever else is added
    /// there, then `fold_lanes!`.
    macro_rules! to_end {
        ($acc:expr) => {{
            let [a0, a1, a2, a3]: [__m512i; 4] = $acc;
            let (k0, k1) = (get!(&LANES[0]), get!(&LANES[1]));
            let (k2, k3) = (get!(&LANES[2]), get!(&LANES[3]));
            [
                _mm512_ternarylogic_epi64::<0x96>(
                    _mm512_clmulepi64_epi128::<0x00>(a0, k0),
                    _mm512_clmulepi64_epi128::<0x11>(a0, k0),
                    _mm512_clmulepi64_epi128::<0x00>(a1, k1),
                ),
                _mm512_ternarylogic_epi64::<0x96>(
                    _mm512_clmulepi64_epi128::<0x11>(a1, k1),
                    _mm512_clmulepi64_epi128::<0x00>(a2, k2),
                    _mm512_clmulepi64_epi128::<0x11>(a2, k2),
                ),
                _mm512_ternarylogic_epi64::<0x96>(
                    _mm512_clmulepi64_epi128::<0x00>(a3, k3),
                    _mm512_clmulepi64_epi128::<0x11>(a3, k3),
                    _mm512_maskz_mov_epi64(0b1100_0000, a3),
                ),
            ]
        }};
    }

    /// The XOR of the four 128-bit lanes of `z`, reduced to the register:
    /// `crc32(crc32(0, H), L)` is `H * x^96 + L * x^32`.
    macro_rules! fold_lanes {
        ($z:expr) => {{
            let z: __m512i = $z;
            let y = _mm256_xor_si256(_mm512_castsi512_si256(z), _mm512_extracti64x4_epi64::<1>(z));
            let x = _mm_xor_si128(_mm256_castsi256_si128(y), _mm256_extracti128_si256::<1>(y));
            let h = _mm_cvtsi128_si64(x) as u64;
            let l = _mm_extract_epi64::<1>(x) as u64;
            _mm_crc32_u64(_mm_crc32_u64(0, h), l) as u32
        }};
    }

    /// The accumulators for the first group of `v` (at least one byte),
    /// with the register `crc` in front, and the groups after it.
    macro_rules! start {
        ($crc:expr, $v:expr) => {{
            let (crc, v): (u32, &[u8]) = ($crc, $v);
            let q = v.len().div_ceil(64);
            let pad = 64 * q - v.len();
            let (first, rest) = v.split_at(64 - pad);
            let (vectors, _) = rest.as_chunks::<64>();
            let v0 = if pad == 0 {
                let first: &[u8; 64] = first.try_into().unwrap();
                _mm512_xor_si512(
                    load!(first),
                    _mm512_zextsi128_si512(_mm_cvtsi32_si128(crc as i32)),
                )
            } else {
                // SAFETY: the mask enables the last `64 - pad` bytes of the
                // vector, which are `first`; the `pad` bytes in front of it are
                // neither read nor faulted on (AVX-512 masked loads suppress
                // masked-out elements).
                let v0 = unsafe {
                    _mm512_maskz_loadu_epi8(!0 << pad, first.as_ptr().wrapping_sub(pad).cast())
                };
                let crc = _mm_clmulepi64_si128::<0x00>(
                    _mm_cvtsi32_si128(crc as i32),
                    _mm_cvtsi32_si128(XNEG[pad] as i32),
                );
                _mm512_xor_si512(v0, _mm512_zextsi128_si512(crc))
            };
            // The first group holds 1 to 4 vectors, at its end.
            let zero = _mm512_setzero_si512();
            let (acc, rest) = match vectors {
                [v1, v2, v3, rest @ ..] if (q - 1) % 4 == 3 => {
                    ([v0, load!(v1), load!(v2), load!(v3)], rest)
                }
                [v1, v2, rest @ ..] if (q - 1) % 4 == 2 => ([zero, v0, load!(v1), load!(v2)], rest),
                [v1, rest @ ..] if (q - 1) % 4 == 1 => ([zero, zero, v0, load!(v1)], rest),
                rest => ([zero, zero, zero, v0], rest),
            };
            (acc, rest.as_chunks::<4>().0)
        }};
    }

    /// Advances the raw register over `data`.
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,vpclmulqdq,sse4.2,pclmulqdq")]
    pub(super) fn update(crc: u32, data: &[u8]) -> u32 {
        if data.len() < THRESHOLD {
            sse42::single(crc, data)
        } else if data.len() < FUSE_MIN {
            folded(crc, data)
        } else if data.len() <= CHUNK_MAX {
            fused(crc, data)
        } else {
            chunked(crc, data)
        }
    }

    /// Folding only (any non-empty input).
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,vpclmulqdq,sse4.2,pclmulqdq")]
    fn folded(crc: u32, data: &[u8]) -> u32 {
        let (mut acc, groups) = start!(crc, data);
        let k256 = broadcast!(F256);
        for g in groups {
            fold4!(acc, k256, g);
        }
        let [a, b, c] = to_end!(acc);
        fold_lanes!(_mm512_ternarylogic_epi64::<0x96>(a, b, c))
    }

    /// Folding fused with six `crc32` streams, for inputs of [`FUSE_MIN`]
    /// to [`CHUNK_MAX`] bytes: `H | V | S0 .. S5 | T`, a head `H` of fewer
    /// than 48 bytes run as a `crc32` chain into the first folded vector,
    /// `m` groups `V` folded, six streams of `w` words, the last group `T`.
    ///
    /// The loops walk raw pointers inside those regions: written with
    /// slice iterators the code is about 10% slower on AMD Zen 5 (LLVM
    /// unrolls the short loops and spills the stream offsets).
    #[inline(never)]
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,vpclmulqdq,sse4.2,pclmulqdq")]
    fn fused(crc: u32, data: &[u8]) -> u32 {
        let n = data.len();
        // As many steps as leave at least Q words per step in every stream
        // (the streams take a little less time than the folding).
        let m = (n - 256 - (8 * K - 1)) / STEP;
        let w = (n - 256 * (m + 1)) / (8 * K);
        let head = n - 256 * (m + 1) - 8 * K * w;
        assert!(m >= 1 && Q * m <= w && w <= W_MAX && head < 8 * K);
        let p = data.as_ptr();

        // The regions of `data`, in order: `head` bytes from `p`, `m` groups
        // of 256 bytes from `v`, six streams of `w` words from `s` (stream
        // j at s + 8jw), the last 256 bytes from `last`; the assertion and
        // the computation of m, w and head put them all inside its `n`
        // bytes. Every read below says which region it is in.
        //
        // The head chain also yields the end of the head, from which the
        // other regions are counted (cheaper than computing them apart).
        let mut q = p;
        // SAFETY: reads in the head: q + 8 <= p + (head & !7), then its
        // last 4, 2 and 1 bytes.
        let h = unsafe {
            let mut h = crc as u64;
            let end = p.add(head & !7);
            while q < end {
                h = _mm_crc32_u64(h, q.cast::<u64>().read_unaligned());
                q = q.add(8);
            }
            let mut h = h as u32;
            if head & 4 != 0 {
                h = _mm_crc32_u32(h, q.cast::<u32>().read_unaligned());
                q = q.add(4);
            }
            if head & 2 != 0 {
                h = _mm_crc32_u16(h, q.cast::<u16>().read_unaligned());
                q = q.add(2);
            }
            if head & 1 != 0 {
                h = _mm_crc32_u8(h, *q);
                q = q.add(1);
            }
            h
        };
        let mut v = q;
        let mut s = q.wrapping_add(256 * m);
        let last = p.wrapping_add(n - 256);
        // SAFETY: the first group, 256 bytes at `v`.
        let mut acc = unsafe {
            [
                _mm512_loadu_si512(v.cast()),
                _mm512_loadu_si512(v.add(64).cast()),
                _mm512_loadu_si512(v.add(128).cast()),
                _mm512_loadu_si512(v.add(192).cast()),
            ]
        };
        acc[0] = _mm512_xor_si512(acc[0], _mm512_zextsi128_si512(_mm_cvtsi32_si128(h as i32)));
        let k256 = broadcast!(F256);
        let mut c = [0u64; K];
        let l = 8 * w;
        // Word `k` from `s` of every stream.
        macro_rules! words {
            ($k:expr) => {{
                let k: usize = 8 * $k;
                // SAFETY: callers keep s + k inside the first stream, so
                // s + k + j * l is inside stream j.
                let x = unsafe {
                    [
                        s.add(k).cast::<u64>().read_unaligned(),
                        s.add(k + l).cast::<u64>().read_unaligned(),
                        s.add(k + 2 * l).cast::<u64>().read_unaligned(),
                        s.add(k + 3 * l).cast::<u64>().read_unaligned(),
                        s.add(k + 4 * l).cast::<u64>().read_unaligned(),
                        s.add(k + 5 * l).cast::<u64>().read_unaligned(),
                    ]
                };
                for j in 0..K {
                    c[j] = _mm_crc32_u64(c[j], x[j]);
                }
            }};
        }
        // Words beyond Q per step go first, so that the streams end with the
        // folding: w - Q m of them, then Q per step for m steps.
        let extra = s.wrapping_add(8 * (w - Q * m));
        while s < extra {
            words!(0);
            s = s.wrapping_add(8);
        }
        // Steps 1..m fold the next group; step m jumps over the streams onto
        // the last group.
        let mut i = 1;
        loop {
            let is_last = i == m;
            let k = if is_last { broadcast!(JUMP[w]) } else { k256 };
            let g = if is_last { last } else { v.wrapping_add(256) };
            // SAFETY: group i at v + 256 i for i < m, else the last group.
            let d = unsafe {
                [
                    _mm512_loadu_si512(g.cast()),
                    _mm512_loadu_si512(g.add(64).cast()),
                    _mm512_loadu_si512(g.add(128).cast()),
                    _mm512_loadu_si512(g.add(192).cast()),
                ]
            };
            for j in 0..4 {
                acc[j] = fold!(acc[j], k, d[j]);
            }
            for k in 0..Q {
                words!(k);
            }
            s = s.wrapping_add(8 * Q);
            v = v.wrapping_add(256);
            if is_last {
                break;
            }
            i += 1;
        }

        let [a, b, d] = to_end!(acc);
        let s = _mm512_set_epi64(
            0,
            0,
            c[5] as i64,
            c[4] as i64,
            c[3] as i64,
            c[2] as i64,
            c[1] as i64,
            c[0] as i64,
        );
        let k = get!(&STREAM[w]);
        let p = _mm512_xor_si512(
            _mm512_clmulepi64_epi128::<0x00>(s, k),
            _mm512_clmulepi64_epi128::<0x11>(s, k),
        );
        fold_lanes!(_mm512_ternarylogic_epi64::<0x96>(
            a,
            b,
            _mm512_xor_si512(d, p)
        ))
    }

    /// Chunks of [`CHUNK`] bytes, each from a zero register, the register
    /// carried by a product; then the rest (more than `CHUNK_MAX - CHUNK`
    /// bytes) from the carried register.
    #[inline(never)]
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,vpclmulqdq,sse4.2,pclmulqdq")]
    fn chunked(crc: u32, data: &[u8]) -> u32 {
        let n = (data.len() - CHUNK_MAX).div_ceil(CHUNK);
        let (chunks, rest) = data.split_at(n * CHUNK);
        let mut crc = crc;
        for chunk in chunks.as_chunks::<CHUNK>().0 {
            crc = fused(0, chunk) ^ sse42::mul_33(crc, CHUNK_SHIFT);
        }
        fused(crc, rest)
    }
}
