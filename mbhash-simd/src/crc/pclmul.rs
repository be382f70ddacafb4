//! Generic CRC by PCLMULQDQ folding of 128-bit lanes, with Barrett
//! reduction: any spec, through its [`Consts`].
//!
//! The input is cut into 16-byte lanes from its start; the register goes
//! into the high-degree half of the first lane. The bytes past the last
//! whole lane (fewer than 16) join at the end: the folded lane and the
//! tail, 16 + t bytes, are split by byte shuffles into a short lane moved
//! 16 bytes on and a last whole lane (the last 16 bytes of the input, the
//! folded lane's last 16 - t bytes in front of them). Inputs shorter than
//! 16 bytes run the table. Up to
//! [`DIRECT_MAX`] lanes, each is folded onto the next by the constant for
//! 16 bytes (one register, one chain); longer inputs run eight
//! accumulators 128 bytes a step, each multiplied straight onto the last
//! lane at the end by its own constant. The last lane `V` then gives the register
//! `V * x^64 mod P'`: one product to 128 bits, then Barrett.
//!
//! Lanes in the kernel's order: reflected, a lane is its 16 bytes as a
//! little-endian `u128` (the high-degree half `H` in the low qword); not
//! reflected, the bytes reversed first (`H` in the high qword). The fold
//! constants of [`Consts::fold`] are stored in that qword order, so one
//! code folds both; only the loads and the last reduction differ.

use super::{Consts, Entry};

/// Inputs of at most this many 16-byte lanes are folded one lane at a
/// time.
pub const DIRECT_MAX: usize = 16;

/// Proof that the CPU has PCLMULQDQ (with SSSE3 and SSE4.1).
#[cfg(target_arch = "x86_64")]
#[derive(Clone, Copy, Debug)]
pub struct Pclmul {
    _private: (),
}

/// Proof that the CPU has PCLMULQDQ (never, on this target).
#[cfg(not(target_arch = "x86_64"))]
#[derive(Clone, Copy, Debug)]
pub enum Pclmul {}

impl Pclmul {
    /// Detects PCLMULQDQ; `None` when missing or hidden
    /// (`MBHASH_DISABLE=pclmul`).
    pub fn new() -> Option<Self> {
        #[cfg(target_arch = "x86_64")]
        {
            use crate::cpu::{Feature, available};
            if available(Feature::Pclmul) {
                return Some(Pclmul { _private: () });
            }
        }
        None
    }

    /// Advances the normalised register `reg` over `data`.
    #[inline]
    pub fn update(self, c: &Consts, reg: u64, data: &[u8]) -> u64 {
        self.entry().update(c, reg, data)
    }

    /// [`Consts::shift`] by carry-less multiplication: the normalised
    /// register advanced over `len` zero bytes, at most 64 products with
    /// Barrett reduction.
    #[inline]
    pub fn shift(self, c: &Consts, reg: u64, len: u64) -> u64 {
        #[cfg(target_arch = "x86_64")]
        {
            // SAFETY: the token proves PCLMULQDQ, SSSE3 and SSE4.1.
            unsafe { x86::shift(c, reg, len) }
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            let _ = (c, reg, len);
            match self {}
        }
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
pub(crate) mod x86 {
    use super::super::{Consts, table};
    use super::DIRECT_MAX;
    use core::arch::x86_64::*;

    /// `H * k_H + L * k_L` of lane `x` (constants in the qword order of
    /// the lane), XORed with `acc`.
    #[inline]
    #[target_feature(enable = "pclmulqdq,sse4.1,ssse3")]
    pub(crate) fn fold(x: __m128i, k: __m128i, acc: __m128i) -> __m128i {
        _mm_xor_si128(
            _mm_xor_si128(
                _mm_clmulepi64_si128::<0x00>(x, k),
                _mm_clmulepi64_si128::<0x11>(x, k),
            ),
            acc,
        )
    }

    /// The fold constants `k` (for `16 * (k + 1)` bytes) as a lane.
    #[inline]
    #[target_feature(enable = "pclmulqdq,sse4.1,ssse3")]
    pub(crate) fn key(c: &Consts, k: usize) -> __m128i {
        let [lo, hi] = c.fold[k];
        _mm_set_epi64x(hi as i64, lo as i64)
    }

    /// Loads 16 bytes as a lane in the kernel's order.
    #[inline]
    #[target_feature(enable = "pclmulqdq,sse4.1,ssse3")]
    pub(crate) fn load<const REFL: bool>(b: &[u8; 16]) -> __m128i {
        // SAFETY: `b` is 16 readable bytes; the load is unaligned.
        let x = unsafe { _mm_loadu_si128(b.as_ptr().cast()) };
        if REFL {
            x
        } else {
            _mm_shuffle_epi8(
                x,
                _mm_set_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15),
            )
        }
    }

    /// The register as a lane's high-degree half, to XOR into the first.
    #[inline]
    #[target_feature(enable = "pclmulqdq,sse4.1,ssse3")]
    pub(crate) fn reg_lane<const REFL: bool>(reg: u64) -> __m128i {
        if REFL {
            _mm_set_epi64x(0, reg as i64)
        } else {
            _mm_set_epi64x(reg as i64, 0)
        }
    }

    /// The register of a message whose last lane (folded) is `v`:
    /// `v * x^64 mod P'`.
    #[inline]
    #[target_feature(enable = "pclmulqdq,sse4.1,ssse3")]
    pub(crate) fn reduce<const REFL: bool>(c: &Consts, v: __m128i) -> u64 {
        // Everything stays in vector registers (a round trip through a
        // general register costs more latency than the shifts it saves):
        // only the result leaves.
        if REFL {
            // W = H * x^128 + L * x^64: H in the low qword (Wh), L in the
            // high one (Wl).
            let k = _mm_cvtsi64_si128(c.k128 as i64);
            let w = _mm_xor_si128(_mm_clmulepi64_si128::<0x00>(v, k), _mm_srli_si128::<8>(v));
            // A reflected product carries a factor x too many; the
            // constants carry one too few. q = floor(Wh * x^64 / P') is the
            // high-degree qword of Wh * floor(x^127 / P') * x (exact, as
            // Wh has degree below 64): the low qword.
            // SAFETY: `barrett_refl` and `unit_refl` are 16 readable
            // bytes each; the loads are unaligned.
            let b = unsafe { _mm_loadu_si128(c.barrett_refl.as_ptr().cast()) };
            // SAFETY: as above.
            let unit = unsafe { _mm_loadu_si128(c.unit_refl.as_ptr().cast()) };
            let t = _mm_clmulepi64_si128::<0x00>(w, b);
            // The low half of q * P' = q * floor(P' / x) * x + q * (P' mod
            // x), in the high qword, added to Wl.
            let qp = _mm_clmulepi64_si128::<0x10>(t, b);
            let q = _mm_and_si128(_mm_slli_si128::<8>(t), unit);
            _mm_extract_epi64::<1>(_mm_xor_si128(_mm_xor_si128(w, qp), q)) as u64
        } else {
            // W = H * x^128 + L * x^64: H in the high qword (Wh), L in the
            // low one (Wl).
            let k = _mm_set_epi64x(c.mu as i64, c.k128 as i64);
            let p = _mm_set_epi64x(0, c.poly as i64);
            let t = _mm_clmulepi64_si128::<0x01>(v, k);
            let w = _mm_xor_si128(t, _mm_slli_si128::<8>(v));
            // q = Wh + floor(Wh * mu / x^64), in the high qword.
            let q = _mm_xor_si128(w, _mm_clmulepi64_si128::<0x11>(w, k));
            // Wl + the low half of q * P'.
            let c2 = _mm_clmulepi64_si128::<0x01>(q, p);
            _mm_cvtsi128_si64(_mm_xor_si128(w, c2)) as u64
        }
    }

    /// Byte-shuffle masks: `SHUFFLE[k..k + 16]` moves a lane's bytes
    /// `16 - k` places up (zeros below), `SHUFFLE[16 + k..32 + k]` moves
    /// them `k` places down (zeros above); the high bit of a mask byte
    /// marks a zero.
    static SHUFFLE: [u8; 48] = {
        let mut t = [0x80u8; 48];
        let mut i = 0;
        while i < 16 {
            t[16 + i] = i as u8;
            i += 1;
        }
        t
    };

    #[inline]
    #[target_feature(enable = "pclmulqdq,sse4.1,ssse3")]
    fn mask(at: usize) -> __m128i {
        let m: &[u8; 16] = SHUFFLE[at..at + 16].try_into().expect("16 bytes");
        // SAFETY: `m` is 16 readable bytes; the load is unaligned.
        unsafe { _mm_loadu_si128(m.as_ptr().cast()) }
    }

    /// The folded lane `v` of the input's whole lanes followed by its last
    /// `t` bytes (`0 < t < 16`; `last` is the input's last 16 bytes), as one
    /// lane: the first `t` bytes of `v` (a short lane, zeros in front) move
    /// 16 bytes on, onto the last whole lane (`v`'s last `16 - t` bytes,
    /// then the tail).
    #[inline]
    #[target_feature(enable = "pclmulqdq,sse4.1,ssse3")]
    pub(crate) fn tail<const REFL: bool>(
        c: &Consts,
        v: __m128i,
        last: &[u8; 16],
        t: usize,
    ) -> __m128i {
        let d = load::<REFL>(last);
        let (short, end) = if REFL {
            // Message byte i is lane byte i.
            let short = _mm_shuffle_epi8(v, mask(t));
            let down = _mm_shuffle_epi8(v, mask(16 + t));
            (short, _mm_blendv_epi8(d, down, mask(t)))
        } else {
            // Message byte i is lane byte 15 - i.
            let short = _mm_shuffle_epi8(v, mask(32 - t));
            let up = _mm_shuffle_epi8(v, mask(16 - t));
            (short, _mm_blendv_epi8(up, d, mask(16 - t)))
        };
        fold(short, key(c, 0), end)
    }

    /// [`super::super::Consts::shift`] with carry-less products: in the
    /// normal order, `r * x^(8 * 2^k) mod P'` for each bit `k` of `len`, the
    /// 127-bit product reduced by Barrett; the register stays in a vector
    /// register throughout.
    #[target_feature(enable = "pclmulqdq,sse4.1,ssse3")]
    pub(super) fn shift(c: &Consts, reg: u64, len: u64) -> u64 {
        let order = |v: u64| if c.reflected { v.reverse_bits() } else { v };
        // mu in the low qword, P' in the high one.
        let k = _mm_set_epi64x(order(c.poly) as i64, order(c.mu) as i64);
        let mut r = _mm_cvtsi64_si128(order(reg) as i64);
        let mut bits = len;
        while bits != 0 {
            let i = bits.trailing_zeros() as usize;
            bits &= bits - 1;
            let w = _mm_clmulepi64_si128::<0x00>(r, _mm_cvtsi64_si128(c.x2n[i] as i64));
            // q = Wh + floor(Wh * mu / x^64): Wh is w's high qword.
            let t = _mm_clmulepi64_si128::<0x01>(w, k);
            let q = _mm_xor_si128(_mm_srli_si128::<8>(w), _mm_srli_si128::<8>(t));
            // r = Wl + low(q * P').
            r = _mm_xor_si128(w, _mm_clmulepi64_si128::<0x10>(q, k));
        }
        order(_mm_cvtsi128_si64(r) as u64)
    }

    /// Advances the normalised register over `data`.
    #[target_feature(enable = "pclmulqdq,sse4.1,ssse3")]
    pub(super) fn update(c: &Consts, reg: u64, data: &[u8]) -> u64 {
        if c.reflected {
            run::<true>(c, reg, data)
        } else {
            run::<false>(c, reg, data)
        }
    }

    #[inline]
    #[target_feature(enable = "pclmulqdq,sse4.1,ssse3")]
    pub(crate) fn run<const REFL: bool>(c: &Consts, reg: u64, data: &[u8]) -> u64 {
        debug_assert_eq!(c.reflected, REFL, "an entry of the other orientation");
        if data.len() < 16 {
            return table::update(c, reg, data);
        }
        let (lanes, rest) = data.as_chunks::<16>();
        let first = _mm_xor_si128(load::<REFL>(&lanes[0]), reg_lane::<REFL>(reg));
        let v = if lanes.len() <= DIRECT_MAX {
            direct::<REFL>(c, first, &lanes[1..])
        } else {
            folded::<REFL>(c, first, &lanes[1..])
        };
        reduce::<REFL>(c, with_tail::<REFL>(c, v, data, rest.len()))
    }

    /// [`tail`] when the input (at least 16 bytes) ends `t` bytes past its
    /// last whole lane.
    #[inline]
    #[target_feature(enable = "pclmulqdq,sse4.1,ssse3")]
    pub(crate) fn with_tail<const REFL: bool>(
        c: &Consts,
        v: __m128i,
        data: &[u8],
        t: usize,
    ) -> __m128i {
        if t == 0 {
            return v;
        }
        let last: &[u8; 16] = data[data.len() - 16..].try_into().expect("16 bytes");
        tail::<REFL>(c, v, last, t)
    }

    /// `first` and `rest` folded one lane at a time onto the next, by the
    /// one constant for 16 bytes (kept in a register). A chain of
    /// dependent products, but the fewest instructions and loads: with
    /// calls back to back (short inputs are mostly checksummed many at a
    /// time, and then the calls overlap) it measured faster than
    /// multiplying each lane straight onto the last by its own constant.
    #[inline]
    #[target_feature(enable = "pclmulqdq,sse4.1,ssse3")]
    fn direct<const REFL: bool>(c: &Consts, first: __m128i, rest: &[[u8; 16]]) -> __m128i {
        let k = key(c, 0);
        let mut v = first;
        for l in rest {
            v = fold(v, k, load::<REFL>(l));
        }
        v
    }

    /// More than [`DIRECT_MAX`] lanes: eight accumulators, 128 bytes a
    /// step, then onto the last lane.
    #[inline]
    #[target_feature(enable = "pclmulqdq,sse4.1,ssse3")]
    fn folded<const REFL: bool>(c: &Consts, first: __m128i, rest: &[[u8; 16]]) -> __m128i {
        let mut acc = [first; 8];
        for j in 1..8 {
            acc[j] = load::<REFL>(&rest[j - 1]);
        }
        let rest = &rest[7..];
        let (groups, tail) = rest.as_chunks::<8>();
        let k8 = key(c, 7);
        for g in groups {
            for j in 0..8 {
                acc[j] = fold(acc[j], k8, load::<REFL>(&g[j]));
            }
        }
        // The accumulators end `tail.len()` lanes before the last one
        // (`tail` may be empty: then the last accumulator is the last lane).
        let t = tail.len();
        let mut v = match tail.split_last() {
            Some((last, _)) => load::<REFL>(last),
            None => acc[7],
        };
        let skip_last_acc = t == 0;
        for (j, a) in acc.iter().enumerate() {
            if skip_last_acc && j == 7 {
                continue;
            }
            // Lane j is (7 - j) + t lanes before the last.
            v = fold(*a, key(c, 7 - j + t - 1), v);
        }
        if t > 0 {
            for (i, l) in tail[..t - 1].iter().enumerate() {
                v = fold(load::<REFL>(l), key(c, t - 2 - i), v);
            }
        }
        v
    }
}
