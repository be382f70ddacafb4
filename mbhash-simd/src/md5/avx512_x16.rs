//! MD5, AVX-512, sixteen lanes of `__m512i`.
//!
//! The steps are the generic word-sliced ones of `multilane`; this file
//! supplies the instructions: native rotates (`vprold`), `vpternlogd` for
//! the four auxiliary functions `F`, `G`, `H` and `I` (one instruction
//! each), and transposes of the lane-major blocks and states into
//! word-sliced vectors.

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
pub(super) mod x86 {
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
    /// method may use AVX-512 F instructions.
    #[derive(Clone, Copy)]
    pub(in crate::md5) struct V16(__m512i);

    /// Within each 128-bit chunk, the 4x4 matrix of 32-bit words
    /// transposed: word `j` of chunk `c` of output `i` is word `i` of chunk
    /// `c` of input `j`. Its own inverse.
    ///
    /// # Safety
    ///
    /// The CPU must support AVX-512 F.
    #[inline(always)]
    unsafe fn transpose_chunks(r: [__m512i; 4]) -> [__m512i; 4] {
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

    /// The four 16-byte chunks at `p[0]` (lowest) to `p[3]`, unaligned.
    ///
    /// # Safety
    ///
    /// The CPU must support AVX-512 F; each `p[k]` must point to 16
    /// readable bytes.
    #[inline(always)]
    unsafe fn load_chunks(p: [*const u8; 4]) -> __m512i {
        // SAFETY: the caller guarantees AVX-512 F and the readable bytes;
        // the loads are unaligned.
        unsafe {
            let v = _mm512_castsi128_si512(_mm_loadu_si128(p[0].cast()));
            let v = _mm512_inserti32x4::<1>(v, _mm_loadu_si128(p[1].cast()));
            let v = _mm512_inserti32x4::<2>(v, _mm_loadu_si128(p[2].cast()));
            _mm512_inserti32x4::<3>(v, _mm_loadu_si128(p[3].cast()))
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

    /// `x + f(b, c, d)` for the three-input function `f` whose truth table
    /// (inputs `b, c, d` as `vpternlogd`'s A, B, C) is `TABLE`.
    #[inline(always)]
    fn add_ternary<const TABLE: i32>(x: V16, b: V16, c: V16, d: V16) -> V16 {
        // SAFETY: `V16` values exist only when AVX-512 F is available.
        V16(unsafe { _mm512_add_epi32(x.0, _mm512_ternarylogic_epi32::<TABLE>(b.0, c.0, d.0)) })
    }

    impl Vector<16> for V16 {
        type Token = Avx512x16;

        #[inline(always)]
        fn load_states(_token: Avx512x16, states: &[&mut State; 16]) -> [V16; 4] {
            // Row r: states r, r + 4, r + 8, r + 12 in its four chunks (a
            // state is one 16-byte chunk); transposing the chunks gives word
            // i of lanes 4c..4c+4 in chunk c of vector i.
            // SAFETY: the token proves AVX-512 F; each load reads one whole
            // state through a reference to it.
            unsafe {
                let mut rows = [_mm512_setzero_si512(); 4];
                for (r, row) in rows.iter_mut().enumerate() {
                    *row = load_chunks([
                        states[r].as_ptr().cast(),
                        states[r + 4].as_ptr().cast(),
                        states[r + 8].as_ptr().cast(),
                        states[r + 12].as_ptr().cast(),
                    ]);
                }
                let [w0, w1, w2, w3] = transpose_chunks(rows);
                [V16(w0), V16(w1), V16(w2), V16(w3)]
            }
        }

        #[inline(always)]
        fn store_states(v: [V16; 4], states: &mut [&mut State; 16]) {
            let [V16(w0), V16(w1), V16(w2), V16(w3)] = v;
            // SAFETY: `V16` values exist only when AVX-512 F is available;
            // each store writes one whole state through a `&mut` to it.
            unsafe {
                let rows = transpose_chunks([w0, w1, w2, w3]);
                for (r, row) in rows.into_iter().enumerate() {
                    let chunks = [
                        _mm512_extracti32x4_epi32::<0>(row),
                        _mm512_extracti32x4_epi32::<1>(row),
                        _mm512_extracti32x4_epi32::<2>(row),
                        _mm512_extracti32x4_epi32::<3>(row),
                    ];
                    for (c, chunk) in chunks.into_iter().enumerate() {
                        _mm_storeu_si128(states[r + 4 * c].as_mut_ptr().cast(), chunk);
                    }
                }
            }
        }

        #[inline(always)]
        fn load_block(_token: Avx512x16, blocks: [&Block; 16]) -> [V16; 16] {
            // A 16x16 transpose of 32-bit words: one whole block per row;
            // 4x4 transposes within the 128-bit chunks of each group of four
            // rows; then a 4x4 transpose of the chunks themselves, in two
            // rounds of chunk shuffles. The words are little-endian, as x86
            // loads them.
            // SAFETY: the token proves AVX-512 F; each load reads one whole
            // block through a reference to it.
            unsafe {
                let mut rows = [_mm512_setzero_si512(); 16];
                for (row, block) in rows.iter_mut().zip(blocks) {
                    *row = _mm512_loadu_si512(block.as_ptr().cast());
                }
                // t[g][j], chunk c: word 4c + j of lanes 4g..4g+4.
                let mut t = [[_mm512_setzero_si512(); 4]; 4];
                for (g, tg) in t.iter_mut().enumerate() {
                    *tg = transpose_chunks([
                        rows[4 * g],
                        rows[4 * g + 1],
                        rows[4 * g + 2],
                        rows[4 * g + 3],
                    ]);
                }
                let mut out = [V16(_mm512_setzero_si512()); 16];
                for j in 0..4 {
                    // Chunks 0, 1 | 0, 1 and 2, 3 | 2, 3 of groups (0, 1)
                    // and (2, 3); then the even and the odd chunks of those.
                    let lo01 = _mm512_shuffle_i32x4::<0x44>(t[0][j], t[1][j]);
                    let hi01 = _mm512_shuffle_i32x4::<0xee>(t[0][j], t[1][j]);
                    let lo23 = _mm512_shuffle_i32x4::<0x44>(t[2][j], t[3][j]);
                    let hi23 = _mm512_shuffle_i32x4::<0xee>(t[2][j], t[3][j]);
                    out[j] = V16(_mm512_shuffle_i32x4::<0x88>(lo01, lo23));
                    out[4 + j] = V16(_mm512_shuffle_i32x4::<0xdd>(lo01, lo23));
                    out[8 + j] = V16(_mm512_shuffle_i32x4::<0x88>(hi01, hi23));
                    out[12 + j] = V16(_mm512_shuffle_i32x4::<0xdd>(hi01, hi23));
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
        fn rotl<const L: i32, const R: i32>(self) -> V16 {
            const { assert!(L + R == 32) };
            // SAFETY: `V16` values exist only when AVX-512 F is available.
            V16(unsafe { _mm512_rol_epi32::<L>(self.0) })
        }

        #[inline(always)]
        fn add_f(self, b: V16, c: V16, d: V16) -> V16 {
            // `b ? c : d`.
            add_ternary::<0xca>(self, b, c, d)
        }

        #[inline(always)]
        fn add_g(self, b: V16, c: V16, d: V16) -> V16 {
            // `d ? b : c`.
            add_ternary::<0xe4>(self, b, c, d)
        }

        #[inline(always)]
        fn add_h(self, b: V16, c: V16, d: V16) -> V16 {
            // `b ^ c ^ d`.
            add_ternary::<0x96>(self, b, c, d)
        }

        #[inline(always)]
        fn add_i(self, b: V16, c: V16, d: V16) -> V16 {
            // `c ^ (b | !d)`.
            add_ternary::<0x39>(self, b, c, d)
        }
    }
}
