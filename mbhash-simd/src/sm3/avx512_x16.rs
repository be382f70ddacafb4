//! SM3, AVX-512, sixteen lanes of `__m512i`.
//!
//! The rounds are the generic word-sliced ones of `multilane`; this file
//! supplies the instructions: native rotates (`vprold`), `vpternlogd` for
//! the three-input functions (`FF`, `GG` and the three-way XORs of `P0`,
//! `P1` and the expansion), and the transposes of the lane-major blocks and
//! states into word-sliced vectors.

use super::{Block, Compress, State};

/// Proof that the CPU supports this kernel: AVX-512 F + BW + VL.
#[cfg(target_arch = "x86_64")]
#[derive(Clone, Copy, Debug)]
pub struct Avx512x16 {
    _private: (),
}

/// Proof that the CPU supports this kernel (never, on this target).
#[cfg(not(target_arch = "x86_64"))]
#[derive(Clone, Copy, Debug)]
pub enum Avx512x16 {}

impl Avx512x16 {
    /// Lanes per call.
    pub const LANES: usize = 16;

    /// Detects the CPU features; `None` when they are missing or hidden.
    pub fn new() -> Option<Self> {
        #[cfg(target_arch = "x86_64")]
        if crate::cpu::available(crate::cpu::Feature::Avx512) {
            return Some(Avx512x16 { _private: () });
        }
        None
    }
}

impl Compress<16> for Avx512x16 {
    #[cfg(target_arch = "x86_64")]
    fn compress(self, states: [&mut State; 16], blocks: [&[Block]; 16]) {
        // SAFETY: `self` exists, so `Avx512x16::new` found AVX-512 F + BW +
        // VL, the features `x86::compress` is compiled for.
        unsafe { x86::compress(self, states, blocks) }
    }

    #[cfg(not(target_arch = "x86_64"))]
    fn compress(self, _states: [&mut State; 16], _blocks: [&[Block]; 16]) {
        match self {}
    }
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use core::arch::x86_64::*;

    use super::super::multilane::{self, Vector};
    use super::super::{Block, State};
    use super::Avx512x16;

    /// The kernel entry: the only function compiled for AVX-512.
    #[target_feature(enable = "avx512f,avx512bw,avx512vl")]
    pub(super) fn compress(token: Avx512x16, states: [&mut State; 16], blocks: [&[Block]; 16]) {
        multilane::compress::<V16, 16>(token, states, blocks);
    }

    /// Sixteen `u32` lanes. A value exists only after an [`Avx512x16`]
    /// token was presented (see the constructors in `Vector`), so every
    /// method may use AVX-512 F + BW instructions.
    #[derive(Clone, Copy)]
    pub(super) struct V16(__m512i);

    /// Transposes the 4x4 matrices of 32-bit words held in the four 128-bit
    /// chunks of `r`: in each chunk, word `j` of output `i` is word `i` of
    /// input `j`.
    ///
    /// # Safety
    ///
    /// The CPU must support AVX-512 F.
    #[inline(always)]
    unsafe fn transpose4x4(r: [__m512i; 4]) -> [__m512i; 4] {
        // SAFETY: the caller guarantees AVX-512 F.
        unsafe {
            let lo01 = _mm512_unpacklo_epi32(r[0], r[1]);
            let hi01 = _mm512_unpackhi_epi32(r[0], r[1]);
            let lo23 = _mm512_unpacklo_epi32(r[2], r[3]);
            let hi23 = _mm512_unpackhi_epi32(r[2], r[3]);
            [
                _mm512_unpacklo_epi64(lo01, lo23),
                _mm512_unpackhi_epi64(lo01, lo23),
                _mm512_unpacklo_epi64(hi01, hi23),
                _mm512_unpackhi_epi64(hi01, hi23),
            ]
        }
    }

    /// A vector of four 16-byte chunks, `c[0]` in the lowest (`T` is
    /// `[u32; 4]`).
    ///
    /// # Safety
    ///
    /// The CPU must support AVX-512 F.
    #[inline(always)]
    unsafe fn load_quarters<T>(c: [&T; 4]) -> __m512i {
        const { assert!(size_of::<T>() == 16) };
        // SAFETY: the caller guarantees AVX-512 F; each reference is 16
        // readable bytes (checked above), loaded unaligned.
        unsafe {
            let v = _mm512_castsi128_si512(_mm_loadu_si128((c[0] as *const T).cast()));
            let v = _mm512_inserti32x4::<1>(v, _mm_loadu_si128((c[1] as *const T).cast()));
            let v = _mm512_inserti32x4::<2>(v, _mm_loadu_si128((c[2] as *const T).cast()));
            _mm512_inserti32x4::<3>(v, _mm_loadu_si128((c[3] as *const T).cast()))
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

    impl Vector<16> for V16 {
        type Token = Avx512x16;

        #[inline(always)]
        fn load_states(_token: Avx512x16, states: &[&mut State; 16]) -> [V16; 8] {
            // Row r of `lo` holds words 0..4 of states r, r + 4, r + 8 and
            // r + 12 (one per chunk), row r of `hi` words 4..8; a 4x4
            // transpose in each chunk makes vector i word i of every state.
            // SAFETY: the token proves AVX-512 F; `load_quarters` reads
            // within its arguments.
            unsafe {
                let mut lo = [_mm512_setzero_si512(); 4];
                let mut hi = [_mm512_setzero_si512(); 4];
                for r in 0..4 {
                    let c = [
                        states[r].as_chunks::<4>().0,
                        states[r + 4].as_chunks::<4>().0,
                        states[r + 8].as_chunks::<4>().0,
                        states[r + 12].as_chunks::<4>().0,
                    ];
                    lo[r] = load_quarters([&c[0][0], &c[1][0], &c[2][0], &c[3][0]]);
                    hi[r] = load_quarters([&c[0][1], &c[1][1], &c[2][1], &c[3][1]]);
                }
                let lo = transpose4x4(lo);
                let hi = transpose4x4(hi);
                [
                    V16(lo[0]),
                    V16(lo[1]),
                    V16(lo[2]),
                    V16(lo[3]),
                    V16(hi[0]),
                    V16(hi[1]),
                    V16(hi[2]),
                    V16(hi[3]),
                ]
            }
        }

        #[inline(always)]
        fn store_states(v: [V16; 8], states: &mut [&mut State; 16]) {
            let [
                V16(v0),
                V16(v1),
                V16(v2),
                V16(v3),
                V16(v4),
                V16(v5),
                V16(v6),
                V16(v7),
            ] = v;
            // SAFETY: `V16` values exist only when AVX-512 F is available;
            // every store writes one 16-byte chunk of a state, through a
            // `&mut` to it.
            unsafe {
                // The transpose is its own inverse: chunk k of row r of
                // `lo` is words 0..4 of state r + 4k.
                let lo = transpose4x4([v0, v1, v2, v3]);
                let hi = transpose4x4([v4, v5, v6, v7]);
                macro_rules! put {
                    ($r:expr, $k:literal) => {{
                        let (c, _) = states[$r + 4 * $k].as_chunks_mut::<4>();
                        _mm_storeu_si128(
                            c[0].as_mut_ptr().cast(),
                            _mm512_extracti32x4_epi32::<$k>(lo[$r]),
                        );
                        _mm_storeu_si128(
                            c[1].as_mut_ptr().cast(),
                            _mm512_extracti32x4_epi32::<$k>(hi[$r]),
                        );
                    }};
                }
                for r in 0..4 {
                    put!(r, 0);
                    put!(r, 1);
                    put!(r, 2);
                    put!(r, 3);
                }
            }
        }

        #[inline(always)]
        fn load_block(_token: Avx512x16, blocks: [&Block; 16]) -> [V16; 16] {
            // A 16x16 transpose of 32-bit words: one whole block per row
            // (byte-swapped to big-endian words), a 4x4 transpose within the
            // 128-bit chunks of each group of four rows, then a 4x4
            // transpose of the chunks across the groups.
            // SAFETY: the token proves AVX-512 F and BW; each load reads one
            // whole block through a reference to it.
            unsafe {
                let bswap = _mm512_broadcast_i32x4(_mm_set_epi8(
                    12, 13, 14, 15, 8, 9, 10, 11, 4, 5, 6, 7, 0, 1, 2, 3,
                ));
                let mut rows = [_mm512_setzero_si512(); 16];
                for (row, block) in rows.iter_mut().zip(blocks) {
                    *row = _mm512_shuffle_epi8(_mm512_loadu_si512(block.as_ptr().cast()), bswap);
                }
                // g[k][j], chunk c: word 4c + j of lanes 4k..4k+4.
                let mut g = [[_mm512_setzero_si512(); 4]; 4];
                for (k, gk) in g.iter_mut().enumerate() {
                    *gk = transpose4x4([
                        rows[4 * k],
                        rows[4 * k + 1],
                        rows[4 * k + 2],
                        rows[4 * k + 3],
                    ]);
                }
                let mut out = [V16(_mm512_setzero_si512()); 16];
                for j in 0..4 {
                    // Chunks 0, 1 of groups 0, 1 and of groups 2, 3; then
                    // chunks 2, 3 of the same.
                    let a = _mm512_shuffle_i32x4::<0x44>(g[0][j], g[1][j]);
                    let b = _mm512_shuffle_i32x4::<0x44>(g[2][j], g[3][j]);
                    let c = _mm512_shuffle_i32x4::<0xee>(g[0][j], g[1][j]);
                    let d = _mm512_shuffle_i32x4::<0xee>(g[2][j], g[3][j]);
                    out[j] = V16(_mm512_shuffle_i32x4::<0x88>(a, b));
                    out[4 + j] = V16(_mm512_shuffle_i32x4::<0xdd>(a, b));
                    out[8 + j] = V16(_mm512_shuffle_i32x4::<0x88>(c, d));
                    out[12 + j] = V16(_mm512_shuffle_i32x4::<0xdd>(c, d));
                }
                out
            }
        }

        #[inline(always)]
        fn opaque(self) -> V16 {
            // SAFETY: `V16` values exist only when AVX-512 F is available.
            V16(unsafe { opaque(self.0) })
        }

        #[inline(always)]
        fn add(self, rhs: V16) -> V16 {
            // SAFETY: `V16` values exist only when AVX-512 F is available.
            V16(unsafe { _mm512_add_epi32(self.0, rhs.0) })
        }

        #[inline(always)]
        fn add_const(self, k: u32) -> V16 {
            // SAFETY: `V16` values exist only when AVX-512 F is available.
            V16(unsafe { _mm512_add_epi32(self.0, _mm512_set1_epi32(k as i32)) })
        }

        #[inline(always)]
        fn xor(self, rhs: V16) -> V16 {
            // SAFETY: `V16` values exist only when AVX-512 F is available.
            V16(unsafe { _mm512_xor_si512(self.0, rhs.0) })
        }

        #[inline(always)]
        fn rotl<const L: i32, const R: i32>(self) -> V16 {
            const { assert!(L > 0 && L < 32 && L + R == 32) };
            // SAFETY: `V16` values exist only when AVX-512 F is available.
            V16(unsafe { _mm512_rol_epi32::<L>(self.0) })
        }

        #[inline(always)]
        fn xor3(a: V16, b: V16, c: V16) -> V16 {
            // Truth table of A ^ B ^ C.
            // SAFETY: `V16` values exist only when AVX-512 F is available.
            V16(unsafe { _mm512_ternarylogic_epi32::<0x96>(a.0, b.0, c.0) })
        }

        #[inline(always)]
        fn maj(x: V16, y: V16, z: V16) -> V16 {
            // Truth table of "at least two of A, B, C".
            // SAFETY: `V16` values exist only when AVX-512 F is available.
            V16(unsafe { _mm512_ternarylogic_epi32::<0xe8>(x.0, y.0, z.0) })
        }

        #[inline(always)]
        fn ch(x: V16, y: V16, z: V16) -> V16 {
            // Truth table of `A ? B : C`.
            // SAFETY: `V16` values exist only when AVX-512 F is available.
            V16(unsafe { _mm512_ternarylogic_epi32::<0xca>(x.0, y.0, z.0) })
        }
    }
}
