//! SHA-256, AVX-512, sixteen lanes of `__m512i`.
//!
//! The rounds are the generic word-sliced ones of `multilane`; this file
//! supplies the instructions: native rotates (`vprord`), `vpternlogd` for
//! the three-input functions (`Ch`, `Maj`, three-way XOR), and transposes of
//! the lane-major blocks and states into word-sliced vectors.

use super::{Block, Compress, State};

/// Proof that the CPU supports AVX-512 F, BW and VL (see [`Avx512x16::new`]).
#[cfg(target_arch = "x86_64")]
#[derive(Clone, Copy, Debug)]
pub struct Avx512x16 {
    _private: (),
}

/// Proof that the CPU supports this kernel: never, on this target.
#[cfg(not(target_arch = "x86_64"))]
#[derive(Clone, Copy, Debug)]
pub enum Avx512x16 {}

impl Avx512x16 {
    /// Lanes per call.
    pub const LANES: usize = 16;

    /// Detects the CPU features; `None` when they are missing or hidden.
    #[cfg(target_arch = "x86_64")]
    pub fn new() -> Option<Self> {
        crate::cpu::available(crate::cpu::Feature::Avx512).then_some(Avx512x16 { _private: () })
    }

    /// Detects the CPU features; always `None` on this target.
    #[cfg(not(target_arch = "x86_64"))]
    pub fn new() -> Option<Self> {
        None
    }
}

impl Compress<16> for Avx512x16 {
    #[cfg(target_arch = "x86_64")]
    fn compress(self, states: [&mut State; 16], blocks: [&[Block]; 16]) {
        // SAFETY: `self` exists only if `new` found AVX-512 F, BW and VL.
        unsafe { imp::compress(states, blocks) }
    }

    #[cfg(not(target_arch = "x86_64"))]
    fn compress(self, _states: [&mut State; 16], _blocks: [&[Block]; 16]) {
        match self {}
    }
}

#[cfg(target_arch = "x86_64")]
mod imp {
    use core::arch::x86_64::*;

    use super::super::multilane::{self, Vector};
    use super::super::{Block, State};

    /// The kernel entry: everything below is inlined into it.
    #[target_feature(enable = "avx512f,avx512bw,avx512vl")]
    pub(super) fn compress(states: [&mut State; 16], blocks: [&[Block]; 16]) {
        // SAFETY: this function is compiled for AVX-512 F, BW and VL (the
        // `__m512i` implementation of `Vector` uses F and BW), and only runs
        // on a CPU that has them: it is reached through the token.
        unsafe { multilane::compress::<16, __m512i>(states, blocks) }
    }

    /// Transposes the 4x4 matrix of 32-bit words in each 128-bit chunk:
    /// word `j` of chunk `c` of output `i` is word `i` of chunk `c` of
    /// input `j`.
    ///
    /// # Safety
    ///
    /// The CPU must support AVX-512 F.
    #[inline(always)]
    unsafe fn transpose4([r0, r1, r2, r3]: [__m512i; 4]) -> [__m512i; 4] {
        // SAFETY: the caller guarantees AVX-512 F.
        unsafe {
            let t0 = _mm512_unpacklo_epi32(r0, r1);
            let t1 = _mm512_unpackhi_epi32(r0, r1);
            let t2 = _mm512_unpacklo_epi32(r2, r3);
            let t3 = _mm512_unpackhi_epi32(r2, r3);
            [
                _mm512_unpacklo_epi64(t0, t2),
                _mm512_unpackhi_epi64(t0, t2),
                _mm512_unpacklo_epi64(t1, t3),
                _mm512_unpackhi_epi64(t1, t3),
            ]
        }
    }

    /// Loads a 16-byte chunk (`T` is `[u8; 16]` or `[u32; 4]`).
    ///
    /// # Safety
    ///
    /// The CPU must support SSE2 (every x86-64 does).
    #[inline(always)]
    unsafe fn load128<T>(chunk: &T) -> __m128i {
        const { assert!(size_of::<T>() == 16) };
        // SAFETY: `chunk` refers to 16 readable bytes (checked above); the
        // load is unaligned.
        unsafe { _mm_loadu_si128((chunk as *const T).cast()) }
    }

    /// Builds a vector from four 16-byte chunks, `c[0]` in the lowest.
    ///
    /// # Safety
    ///
    /// The CPU must support AVX-512 F.
    #[inline(always)]
    unsafe fn load4x128<T>(c: [&T; 4]) -> __m512i {
        // SAFETY: the caller guarantees AVX-512 F; `load128` reads within
        // its argument.
        unsafe {
            let v = _mm512_castsi128_si512(load128(c[0]));
            let v = _mm512_inserti32x4::<1>(v, load128(c[1]));
            let v = _mm512_inserti32x4::<2>(v, load128(c[2]));
            _mm512_inserti32x4::<3>(v, load128(c[3]))
        }
    }

    /// Needs AVX-512 F (and BW for the byte shuffle in `load_message`).
    impl Vector<16> for __m512i {
        // Used only without LEAN.
        const SEPARATE_T1: bool = true;
        // Sixteen lanes in one vector leave the rounds bound by the issue
        // ports (two 512-bit ones on Intel Xeon), not by the `e` chain: the
        // two additions the latency-first form spends per round cost more
        // than its shorter chain saves (measured 5% on Intel Xeon).
        const LEAN: bool = true;

        #[inline(always)]
        unsafe fn opaque(self) -> Self {
            // SAFETY: the caller guarantees AVX-512 F.
            unsafe { opaque(self) }
        }

        #[inline(always)]
        unsafe fn splat(x: u32) -> Self {
            // SAFETY: the caller guarantees AVX-512 F.
            unsafe { _mm512_set1_epi32(x as i32) }
        }

        #[inline(always)]
        unsafe fn add(self, rhs: Self) -> Self {
            // SAFETY: the caller guarantees AVX-512 F.
            unsafe { _mm512_add_epi32(self, rhs) }
        }

        #[inline(always)]
        unsafe fn sub(self, rhs: Self) -> Self {
            // SAFETY: the caller guarantees AVX-512 F.
            unsafe { _mm512_sub_epi32(self, rhs) }
        }

        #[inline(always)]
        unsafe fn big_sigma0(self) -> Self {
            // SAFETY: the caller guarantees AVX-512 F.
            unsafe {
                xor3(
                    _mm512_ror_epi32::<2>(self),
                    _mm512_ror_epi32::<13>(self),
                    _mm512_ror_epi32::<22>(self),
                )
            }
        }

        #[inline(always)]
        unsafe fn big_sigma1(self) -> Self {
            // SAFETY: the caller guarantees AVX-512 F.
            unsafe {
                xor3(
                    _mm512_ror_epi32::<6>(self),
                    _mm512_ror_epi32::<11>(self),
                    _mm512_ror_epi32::<25>(self),
                )
            }
        }

        #[inline(always)]
        unsafe fn small_sigma0(self) -> Self {
            // SAFETY: the caller guarantees AVX-512 F.
            unsafe {
                xor3(
                    _mm512_ror_epi32::<7>(self),
                    _mm512_ror_epi32::<18>(self),
                    _mm512_srli_epi32::<3>(self),
                )
            }
        }

        #[inline(always)]
        unsafe fn small_sigma1(self) -> Self {
            // SAFETY: the caller guarantees AVX-512 F.
            unsafe {
                xor3(
                    _mm512_ror_epi32::<17>(self),
                    _mm512_ror_epi32::<19>(self),
                    _mm512_srli_epi32::<10>(self),
                )
            }
        }

        #[inline(always)]
        unsafe fn ch(e: Self, f: Self, g: Self) -> Self {
            // SAFETY: the caller guarantees AVX-512 F.
            // Truth table of `e ? f : g` with (e, f, g) as (A, B, C).
            unsafe { _mm512_ternarylogic_epi32::<0xca>(e, f, g) }
        }

        #[inline(always)]
        unsafe fn maj(a: Self, b: Self, c: Self) -> Self {
            // SAFETY: the caller guarantees AVX-512 F.
            // Truth table of "at least two of A, B, C".
            unsafe { _mm512_ternarylogic_epi32::<0xe8>(a, b, c) }
        }

        #[inline(always)]
        unsafe fn load_message(blocks: [&Block; 16]) -> [Self; 16] {
            // A 16x16 transpose of 32-bit words: one whole block per row,
            // 4x4 transposes within the 128-bit chunks of each group of four
            // rows, then a 4x4 transpose of the chunks themselves. (Building
            // rows from 16-byte chunks of four lanes instead, as
            // `load_states` does, measured slower.)
            // SAFETY: the caller guarantees AVX-512 F and BW; each load
            // reads one whole block through a reference to it.
            unsafe {
                let bswap = _mm512_broadcast_i32x4(_mm_set_epi8(
                    12, 13, 14, 15, 8, 9, 10, 11, 4, 5, 6, 7, 0, 1, 2, 3,
                ));
                let rows: [__m512i; 16] = core::array::from_fn(|l| {
                    _mm512_shuffle_epi8(_mm512_loadu_si512(blocks[l].as_ptr().cast()), bswap)
                });
                // s[g][j], chunk c: word 4c + j of lanes 4g..4g+4.
                let s: [[__m512i; 4]; 4] = core::array::from_fn(|g| {
                    transpose4([
                        rows[4 * g],
                        rows[4 * g + 1],
                        rows[4 * g + 2],
                        rows[4 * g + 3],
                    ])
                });
                let mut out = [_mm512_setzero_si512(); 16];
                for j in 0..4 {
                    let p0 = _mm512_shuffle_i32x4::<0x44>(s[0][j], s[1][j]);
                    let p1 = _mm512_shuffle_i32x4::<0xee>(s[0][j], s[1][j]);
                    let p2 = _mm512_shuffle_i32x4::<0x44>(s[2][j], s[3][j]);
                    let p3 = _mm512_shuffle_i32x4::<0xee>(s[2][j], s[3][j]);
                    out[j] = _mm512_shuffle_i32x4::<0x88>(p0, p2);
                    out[4 + j] = _mm512_shuffle_i32x4::<0xdd>(p0, p2);
                    out[8 + j] = _mm512_shuffle_i32x4::<0x88>(p1, p3);
                    out[12 + j] = _mm512_shuffle_i32x4::<0xdd>(p1, p3);
                }
                out
            }
        }

        #[inline(always)]
        unsafe fn load_states(states: &[&mut State; 16]) -> [Self; 8] {
            // As in `load_message`, with two chunks per state.
            let chunks: [&[[u32; 4]]; 16] = core::array::from_fn(|l| states[l].as_chunks::<4>().0);
            // SAFETY: the caller guarantees AVX-512 F.
            unsafe {
                let lo = core::array::from_fn(|r| {
                    load4x128(core::array::from_fn(|k| &chunks[r + 4 * k][0]))
                });
                let hi = core::array::from_fn(|r| {
                    load4x128(core::array::from_fn(|k| &chunks[r + 4 * k][1]))
                });
                let [w0, w1, w2, w3] = transpose4(lo);
                let [w4, w5, w6, w7] = transpose4(hi);
                [w0, w1, w2, w3, w4, w5, w6, w7]
            }
        }

        #[inline(always)]
        unsafe fn store_states(v: [Self; 8], states: &mut [&mut State; 16]) {
            // SAFETY: the caller guarantees AVX-512 F; every store writes
            // one 16-byte chunk of a state, through a `&mut` to it.
            unsafe {
                let lo = transpose4([v[0], v[1], v[2], v[3]]);
                let hi = transpose4([v[4], v[5], v[6], v[7]]);
                for r in 0..4 {
                    let parts = [
                        [
                            _mm512_extracti32x4_epi32::<0>(lo[r]),
                            _mm512_extracti32x4_epi32::<0>(hi[r]),
                        ],
                        [
                            _mm512_extracti32x4_epi32::<1>(lo[r]),
                            _mm512_extracti32x4_epi32::<1>(hi[r]),
                        ],
                        [
                            _mm512_extracti32x4_epi32::<2>(lo[r]),
                            _mm512_extracti32x4_epi32::<2>(hi[r]),
                        ],
                        [
                            _mm512_extracti32x4_epi32::<3>(lo[r]),
                            _mm512_extracti32x4_epi32::<3>(hi[r]),
                        ],
                    ];
                    for (k, [l, h]) in parts.into_iter().enumerate() {
                        let (c, _) = states[r + 4 * k].as_chunks_mut::<4>();
                        _mm_storeu_si128(c[0].as_mut_ptr().cast(), l);
                        _mm_storeu_si128(c[1].as_mut_ptr().cast(), h);
                    }
                }
            }
        }
    }

    /// `x`, unchanged, through an empty `asm!` that the optimiser cannot
    /// look through.
    ///
    /// # Safety
    ///
    /// The CPU must support AVX-512 F.
    #[target_feature(enable = "avx512f")]
    #[inline]
    unsafe fn opaque(mut x: __m512i) -> __m512i {
        // SAFETY: the template is empty: it leaves `x` as it is and touches
        // nothing else.
        unsafe {
            core::arch::asm!("/* {0} */", inout(zmm_reg) x, options(pure, nomem, nostack, preserves_flags));
        }
        x
    }

    /// `a ^ b ^ c`.
    ///
    /// # Safety
    ///
    /// The CPU must support AVX-512 F.
    #[inline(always)]
    unsafe fn xor3(a: __m512i, b: __m512i, c: __m512i) -> __m512i {
        // SAFETY: the caller guarantees AVX-512 F.
        unsafe { _mm512_ternarylogic_epi32::<0x96>(a, b, c) }
    }
}
