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
//! register for 16 bytes. Folding alone is bound by the carry-less
//! multiplier: on AMD Zen 5 and 5 one VPCLMULQDQ per two cycles whatever the
//! vector width, 16 bytes per cycle.
//!
//! **Any length, no tail.** Below [`FUSE_MIN`] bytes the input is cut into
//! 64-byte vectors from its end, so that only the first one is partial: it
//! is loaded with a byte mask that leaves zeros in front of the data
//! (leading zeros do not change a CRC whose register is zero). The incoming
//! register, which belongs in front of the first data byte, goes into that
//! vector as one carry-less product by `x^(31 - 8 pad)` (moved back over the
//! `pad` zeros), or as a plain XOR when the length is a multiple of 64. The
//! groups are counted from the end too; the first one, of one to four
//! vectors, lies at the end of its accumulators, and the accumulators in
//! front of it take the next group unmultiplied.
//!
//! **Fusion.** Folding leaves the `crc32` unit idle, which does as much
//! again on its own (two per cycle on six streams, see [`super::sse42`]).
//! From [`FUSE_MIN`] bytes the input is laid out as
//! `H | V | S0 | ... | S5 | T`: a head `H` of fewer than 48 bytes, run as a
//! `crc32` chain into the first folded vector; `m` groups `V`; six streams
//! `S0..S5` of `w` words; the last group `T`. The accumulators fold through
//! `V` and then jump over the streams onto `T` (a step whose distance
//! depends on `w` only), while the streams run from zero, five words of each
//! per step. The stream registers need no recombination pass: one
//! carry-less product by `x^(8 * dist - 97)` turns each into its share of
//! the last 16 bytes (`dist` bytes from the end; `- 97` for the reduction
//! and the product's place in the lane), and the six products are two
//! VPCLMULQDQ on one vector, XORed in before the final reduction.
//!
//! **Long inputs.** Beyond [`LONG`] bytes, fixed blocks of [`BLOCK`] bytes
//! (four groups, then six streams of 160 bytes) come first, the
//! accumulators carried from block to block; each block's stream registers
//! go into the first vector of the next by two VPCLMULQDQ. The rest, more
//! than `LONG - BLOCK` bytes, runs as above from the register they leave.
//!
//! Inputs shorter than [`THRESHOLD`] run the single `crc32` chain of the
//! SSE4.2 kernel.

use super::Kernel;

/// Inputs shorter than this run one `crc32` chain (measured on AMD Zen 5:
/// folding is as fast at 128 bytes and wins from 160, by 1.5 times at 256).
pub const THRESHOLD: usize = 160;

/// Inputs from this length on are folded and hashed by `crc32` streams at
/// once; shorter ones are folded only (measured on AMD Zen 5: fusion wins
/// from 800 bytes, by 1.3 times at 2 KiB and 1.6 at 8 KiB).
pub const FUSE_MIN: usize = 800;

/// Inputs longer than this run fixed blocks first.
pub const LONG: usize = 6 * 1024;

/// Groups folded in a fixed block.
const B_STEPS: usize = 4;
/// Words of each stream per group in a fixed block.
const B_W: usize = 5;
/// Streams in a fixed block.
const BK: usize = 6;
/// Bytes in each stream of a fixed block.
const B_L: usize = 8 * B_STEPS * B_W;
/// Bytes folded in a fixed block.
const B_V: usize = 256 * B_STEPS;

/// The fixed block of long inputs: four groups folded, six streams.
pub const BLOCK: usize = B_V + BK * B_L;

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
            // Short inputs branch here, in the caller, straight to the
            // chain: one call, no stack frame.
            if data.len() < THRESHOLD {
                // SAFETY: the token proves SSE4.2 is available.
                return unsafe { super::sse42::x86::single(crc, data) };
            }
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
            // Inputs that are all shorter than THRESHOLD run the chain
            // directly.
            if max_len < THRESHOLD {
                return super::entry!(
                    #[target_feature(enable = "sse4.2")]
                    super::sse42::x86::single
                );
            }
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

#[cfg(target_arch = "x86_64")]
pub(crate) mod x86 {
    use super::{B_L, B_STEPS, B_V, B_W, BK, BLOCK, FUSE_MIN, LONG, THRESHOLD};
    use crate::crc32c::sse42::x86 as sse42;
    use crate::crc32c::{ORDER, xpow};
    use core::arch::x86_64::*;

    /// `x^e mod P` for any integer exponent (`x` has order [`ORDER`]).
    pub(crate) const fn xp(e: i64) -> u32 {
        xpow(e.rem_euclid(ORDER as i64) as u64)
    }

    /// The constants `[k_H, k_L]` that move a 128-bit lane `d` bytes on.
    pub(crate) const fn fold(d: i64) -> [i64; 2] {
        [
            ((xp(8 * d + 63) as u64) << 32) as i64,
            ((xp(8 * d - 1) as u64) << 32) as i64,
        ]
    }

    const F256: [i64; 2] = fold(256);

    /// 64 bytes aligned for a vector load.
    #[repr(C, align(64))]
    pub(crate) struct Vec512(pub(crate) [i64; 8]);

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

    /// Eight registers `[u64; 8]` in the qwords of a vector.
    macro_rules! pack {
        ($c:expr) => {{
            let c: [u64; 8] = $c;
            _mm512_set_epi64(
                c[7] as i64,
                c[6] as i64,
                c[5] as i64,
                c[4] as i64,
                c[3] as i64,
                c[2] as i64,
                c[1] as i64,
                c[0] as i64,
            )
        }};
    }

    /// Per-lane constants that move lane `l` of accumulator `j` (sitting
    /// `(3 - j) * 64 + (3 - l) * 16` bytes before the end of the group) a
    /// further `d` bytes on, to the last 16 bytes (for `d = 0`, the last
    /// lane is multiplied by `x^0`: a different value of the same residue,
    /// which the final reduction does not tell apart).
    const fn lanes(d: usize) -> [Vec512; 4] {
        let mut t = [const { Vec512([0; 8]) }; 4];
        let mut j = 0;
        while j < 4 {
            let mut l = 0;
            while l < 4 {
                let f = fold(((3 - j) * 64 + (3 - l) * 16 + d) as i64);
                t[j].0[2 * l] = f[0];
                t[j].0[2 * l + 1] = f[1];
                l += 1;
            }
            j += 1;
        }
        t
    }

    /// Moves the lanes of the last group to the last 16 bytes.
    static LANES: [Vec512; 4] = lanes(0);

    /// `XNEG[pad] = x^(31 - 8 pad)`: the product of a register with it, as
    /// the first qword of a lane, is that register moved back over `pad`
    /// zero bytes and XORed into the lane's first four bytes.
    pub(crate) static XNEG: [u32; 64] = {
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
    /// The longest streams (in words), those of `LONG` bytes.
    const W_MAX: usize = (LONG - 256) / (8 * K);

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

    /// Moves the accumulators over a block's streams into the next block.
    const B_NEXT: [i64; 2] = fold((256 + BK * B_L) as i64);
    /// Stream `j`'s register (qword `j`) into lane `j / 2` of the next
    /// block's first vector: `x^(8 * (dist + 16 * (j / 2)) + 31)` for
    /// `dist = (5 - j) * B_L` bytes to the end of the block.
    static B_INJECT: Vec512 = {
        let mut t = Vec512([0; 8]);
        let mut j = 0;
        while j < BK {
            let d = (BK - 1 - j) * B_L + 16 * (j / 2);
            t.0[j] = xp(8 * d as i64 + 31) as i64;
            j += 1;
        }
        t
    };
    /// Stream `j`'s register onto the last 16 bytes of the block.
    static B_STREAM: Vec512 = {
        let mut t = Vec512([0; 8]);
        let mut j = 0;
        while j < BK {
            t.0[j] = xp(8 * ((BK - 1 - j) * B_L) as i64 - 97) as i64;
            j += 1;
        }
        t
    };
    /// Moves the lanes of the last group over the streams to the last 16
    /// bytes of the block.
    static B_LANES: [Vec512; 4] = lanes(BK * B_L);

    /// The sixteen lanes of four accumulators, each moved by its constant
    /// in `$t` (a `[Vec512; 4]`, see `lanes`) onto the last 16 bytes: three
    /// vectors to XOR together with whatever else is added there, then
    /// `fold_lanes!`.
    macro_rules! to_end {
        ($acc:expr, $t:expr) => {{
            let [a0, a1, a2, a3]: [__m512i; 4] = $acc;
            let t: &[Vec512; 4] = $t;
            let (k0, k1, k2, k3) = (get!(&t[0]), get!(&t[1]), get!(&t[2]), get!(&t[3]));
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
                _mm512_xor_si512(
                    _mm512_clmulepi64_epi128::<0x00>(a3, k3),
                    _mm512_clmulepi64_epi128::<0x11>(a3, k3),
                ),
            ]
        }};
    }

    /// The XOR of the four 128-bit lanes of `z`, reduced to the register:
    /// `crc32(crc32(0, H), L)` is `H * x^96 + L * x^32`.
    macro_rules! fold_lanes {
        ($z:expr) => {{
            let z: __m512i = $z;
            let x = _mm_ternarylogic_epi64::<0x96>(
                _mm512_castsi512_si128(z),
                _mm512_extracti32x4_epi32::<1>(z),
                _mm512_extracti32x4_epi32::<2>(z),
            );
            let x = _mm_xor_si128(x, _mm512_extracti32x4_epi32::<3>(z));
            let h = _mm_cvtsi128_si64(x) as u64;
            let l = _mm_extract_epi64::<1>(x) as u64;
            _mm_crc32_u64(_mm_crc32_u64(0, h), l) as u32
        }};
    }

    /// Advances the raw register over `data`.
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,vpclmulqdq,sse4.2,pclmulqdq")]
    pub(super) fn update(crc: u32, data: &[u8]) -> u32 {
        if data.len() < THRESHOLD {
            sse42::single(crc, data)
        } else if data.len() < FUSE_MIN {
            folded(crc, data)
        } else if data.len() <= LONG {
            fused(crc, data)
        } else {
            long(crc, data)
        }
    }

    /// The first vector of an input: `pad` zero bytes (1 to 63), then
    /// `first` (`64 - pad` bytes). A masked load from `pad` bytes before
    /// `first` where those bytes are in `first`'s page; where they are in
    /// the page before, which may be unmapped, a masked load of `first`
    /// from its own address, moved up by `pad` bytes in the register: AMD
    /// Zen cores take an assist of about a thousand cycles to suppress a
    /// masked-out fault (measured on Zen 5), at every call on an input at
    /// the start of a mapping. Not through a buffer on the stack: a 64-byte
    /// load of a store it only partly overlaps cannot be forwarded, and
    /// waited for the store, 20-25 ns a call (Intel Xeon, 200 bytes at the
    /// start of a page).
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,avx512vl")]
    pub(crate) fn padded_first(first: &[u8], pad: usize) -> __m512i {
        debug_assert!(pad > 0 && pad < 64 && first.len() == 64 - pad);
        if (first.as_ptr() as usize) % 4096 >= pad {
            // SAFETY: the mask enables the last `64 - pad` bytes of the
            // vector, which are `first`; the `pad` bytes in front of it are
            // in the same (mapped) page, neither read nor faulted on
            // (AVX-512 masked loads suppress masked-out elements).
            unsafe { _mm512_maskz_loadu_epi8(!0 << pad, first.as_ptr().wrapping_sub(pad).cast()) }
        } else {
            // SAFETY: the mask enables the first `64 - pad` bytes, which
            // are `first`; the masked-out rest lies less than 128 bytes
            // into `first`'s page (`first` starts fewer than `pad` bytes
            // into it), so in that mapped page: no fault to suppress.
            let v = unsafe { _mm512_maskz_loadu_epi8(!0 >> pad, first.as_ptr().cast()) };
            bytes_up(v, pad)
        }
    }

    /// `v` moved up by `pad` bytes (0 to 63) across the whole vector, zeros
    /// below: byte `i` of the result is byte `i - pad` of `v`. AVX-512BW
    /// permutes 16-bit words, so an odd `pad` is two word moves, `pad / 2`
    /// and one more, whose bytes interleave: each word of the result is
    /// the low byte of the first's word (moved to the high byte) and the
    /// high byte of the second's.
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw")]
    fn bytes_up(v: __m512i, pad: usize) -> __m512i {
        debug_assert!(pad < 64);
        let w = pad / 2;
        // Word `j` of the index is `j - w` (the permute reads its low five
        // bits; the words below `w` are masked out).
        let iota = _mm512_set_epi16(
            31, 30, 29, 28, 27, 26, 25, 24, 23, 22, 21, 20, 19, 18, 17, 16, 15, 14, 13, 12, 11, 10,
            9, 8, 7, 6, 5, 4, 3, 2, 1, 0,
        );
        let idx = _mm512_sub_epi16(iota, _mm512_set1_epi16(w as i16));
        let a = _mm512_maskz_permutexvar_epi16((!0u64 << w) as u32, idx, v);
        if pad.is_multiple_of(2) {
            return a;
        }
        let idx = _mm512_sub_epi16(idx, _mm512_set1_epi16(1));
        let b = _mm512_maskz_permutexvar_epi16((!0u64 << (w + 1)) as u32, idx, v);
        _mm512_or_si512(_mm512_slli_epi16::<8>(a), _mm512_srli_epi16::<8>(b))
    }

    /// Folding only (any non-empty input). The vectors are counted from
    /// the end, so that only the first is partial; the groups too, so that
    /// only the first has fewer than four vectors (`r`), at its end: the
    /// accumulators in front of them take the next group as it is.
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,vpclmulqdq,sse4.2,pclmulqdq")]
    fn folded(crc: u32, data: &[u8]) -> u32 {
        let q = data.len().div_ceil(64);
        let pad = 64 * q - data.len();
        let (first, rest) = data.split_at(64 - pad);
        let (vectors, _) = rest.as_chunks::<64>();
        let v0 = if pad == 0 {
            let first: &[u8; 64] = first.try_into().unwrap();
            _mm512_xor_si512(
                load!(first),
                _mm512_zextsi128_si512(_mm_cvtsi32_si128(crc as i32)),
            )
        } else {
            let v0 = padded_first(first, pad);
            let crc = _mm_clmulepi64_si128::<0x00>(
                _mm_cvtsi32_si128(crc as i32),
                _mm_cvtsi32_si128(XNEG[pad] as i32),
            );
            _mm512_xor_si512(v0, _mm512_zextsi128_si512(crc))
        };
        let r = (q - 1) % 4 + 1;
        let (v, rest) = vectors.split_at(r - 1);
        let (groups, _) = rest.as_chunks::<4>();
        let k256 = broadcast!(F256);
        let zero = _mm512_setzero_si512();
        let mut acc = match groups.split_first() {
            None => match v {
                [v1, v2, v3] => [v0, load!(v1), load!(v2), load!(v3)],
                [v1, v2] => [zero, v0, load!(v1), load!(v2)],
                [v1] => [zero, zero, v0, load!(v1)],
                _ => [zero, zero, zero, v0],
            },
            Some((g, _)) => {
                let d = [load!(&g[0]), load!(&g[1]), load!(&g[2]), load!(&g[3])];
                match v {
                    [v1, v2, v3] => [
                        fold!(v0, k256, d[0]),
                        fold!(load!(v1), k256, d[1]),
                        fold!(load!(v2), k256, d[2]),
                        fold!(load!(v3), k256, d[3]),
                    ],
                    [v1, v2] => [
                        d[0],
                        fold!(v0, k256, d[1]),
                        fold!(load!(v1), k256, d[2]),
                        fold!(load!(v2), k256, d[3]),
                    ],
                    [v1] => [
                        d[0],
                        d[1],
                        fold!(v0, k256, d[2]),
                        fold!(load!(v1), k256, d[3]),
                    ],
                    _ => [d[0], d[1], d[2], fold!(v0, k256, d[3])],
                }
            }
        };
        for g in groups.iter().skip(1) {
            fold4!(acc, k256, g);
        }
        let [a, b, c] = to_end!(acc, &LANES);
        fold_lanes!(_mm512_ternarylogic_epi64::<0x96>(a, b, c))
    }

    /// Folding fused with six `crc32` streams, for inputs of [`FUSE_MIN`]
    /// to [`LONG`] bytes: `H | V | S0 .. S5 | T`, a head `H` of fewer
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

        let [a, b, d] = to_end!(acc, &LANES);
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

    /// Whole fixed blocks from the register `crc`: the accumulators carried
    /// from block to block, each block's stream registers multiplied into
    /// the first vector of the next.
    #[inline(never)]
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,vpclmulqdq,sse4.2,pclmulqdq")]
    fn blocks(crc: u32, blocks: &[[u8; BLOCK]]) -> u32 {
        if blocks.is_empty() {
            return crc;
        }
        let k256 = broadcast!(F256);
        let k_next = broadcast!(B_NEXT);
        let k_inject = get!(&B_INJECT);
        let mut acc = [_mm512_setzero_si512(); 4];
        let mut inject = _mm512_zextsi128_si512(_mm_cvtsi32_si128(crc as i32));
        let mut c = [0u64; 8];
        for (b, block) in blocks.iter().enumerate() {
            let p = block.as_ptr();
            let s = p.wrapping_add(B_V);
            c = [0; 8];
            for i in 0..B_STEPS {
                // SAFETY: group i of the block, 256 bytes at p + 256 i.
                let mut d = unsafe {
                    let g = p.add(256 * i);
                    [
                        _mm512_loadu_si512(g.cast()),
                        _mm512_loadu_si512(g.add(64).cast()),
                        _mm512_loadu_si512(g.add(128).cast()),
                        _mm512_loadu_si512(g.add(192).cast()),
                    ]
                };
                if i == 0 {
                    d[0] = _mm512_xor_si512(d[0], inject);
                    if b == 0 {
                        acc = d;
                    } else {
                        for j in 0..4 {
                            acc[j] = fold!(acc[j], k_next, d[j]);
                        }
                    }
                } else {
                    for j in 0..4 {
                        acc[j] = fold!(acc[j], k256, d[j]);
                    }
                }
                for k in 0..B_W {
                    let o = 8 * (B_W * i + k);
                    for (j, c) in c.iter_mut().enumerate().take(BK) {
                        // SAFETY: word B_W i + k of stream j, at
                        // s + j B_L + o with o + 8 <= B_L: in the block.
                        let x = unsafe { s.add(o + j * B_L).cast::<u64>().read_unaligned() };
                        *c = _mm_crc32_u64(*c, x);
                    }
                }
            }
            let sv = pack!(c);
            inject = _mm512_xor_si512(
                _mm512_clmulepi64_epi128::<0x00>(sv, k_inject),
                _mm512_clmulepi64_epi128::<0x11>(sv, k_inject),
            );
        }
        // The last block: its groups and streams onto its last 16 bytes.
        let [a, b, d] = to_end!(acc, &B_LANES);
        let sv = pack!(c);
        let k = get!(&B_STREAM);
        let p = _mm512_xor_si512(
            _mm512_clmulepi64_epi128::<0x00>(sv, k),
            _mm512_clmulepi64_epi128::<0x11>(sv, k),
        );
        fold_lanes!(_mm512_ternarylogic_epi64::<0x96>(
            a,
            b,
            _mm512_xor_si512(d, p)
        ))
    }

    /// Fixed blocks, then the rest (more than `LONG - BLOCK` bytes) by
    /// `fused`.
    #[inline(never)]
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,vpclmulqdq,sse4.2,pclmulqdq")]
    fn long(crc: u32, data: &[u8]) -> u32 {
        let n = (data.len() - LONG).div_ceil(BLOCK);
        let (front, rest) = data.split_at(n * BLOCK);
        fused(blocks(crc, front.as_chunks::<BLOCK>().0), rest)
    }
}
