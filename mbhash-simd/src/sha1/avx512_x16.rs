//! SHA-1, AVX-512, sixteen lanes of `__m512i`.
//!
//! The rounds are the generic word-sliced ones of `multilane`; this file
//! supplies the instructions: native rotates (`vprold`), `vpternlogd` for
//! the three-input functions (`Ch`, `Parity`, `Maj`, and the schedule's
//! XOR of four words in two), and transposes of the lane-major blocks and
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

    /// Words `a..d` of a state (its first 16 bytes), loaded unaligned.
    ///
    /// # Safety
    ///
    /// The CPU must support SSE2 (every x86-64 does).
    #[inline(always)]
    unsafe fn load_head(state: &State) -> __m128i {
        // SAFETY: a state is 20 bytes, so its first 16 are readable; the
        // load is unaligned.
        unsafe { _mm_loadu_si128(state.as_ptr().cast()) }
    }

    /// Builds a vector from words `a..d` of four states, `s[0]`'s in the
    /// lowest chunk.
    ///
    /// # Safety
    ///
    /// The CPU must support AVX-512 F.
    #[inline(always)]
    unsafe fn load4_heads(s: [&State; 4]) -> __m512i {
        // SAFETY: the caller guarantees AVX-512 F; `load_head` reads within
        // its argument.
        unsafe {
            let v = _mm512_castsi128_si512(load_head(s[0]));
            let v = _mm512_inserti32x4::<1>(v, load_head(s[1]));
            let v = _mm512_inserti32x4::<2>(v, load_head(s[2]));
            _mm512_inserti32x4::<3>(v, load_head(s[3]))
        }
    }

    /// Rotates every lane of `$x` left by `$n` bits.
    macro_rules! rol {
        ($x:expr, $n:literal) => {
            // SAFETY: `V16` values exist only when AVX-512 F is available.
            V16(unsafe { _mm512_rol_epi32::<$n>($x.0) })
        };
    }

    /// `vpternlogd` with the truth table `$imm` (inputs A, B, C).
    macro_rules! ternlog {
        ($imm:literal, $a:expr, $b:expr, $c:expr) => {
            // SAFETY: `V16` values exist only when AVX-512 F is available.
            V16(unsafe { _mm512_ternarylogic_epi32::<$imm>($a.0, $b.0, $c.0) })
        };
    }

    impl Vector<16> for V16 {
        type Token = Avx512x16;

        #[inline(always)]
        fn load_states(_token: Avx512x16, states: &[&mut State; 16]) -> [V16; 5] {
            // Words a..d: row r holds them for lanes r, r + 4, r + 8 and
            // r + 12, and a transpose within the 128-bit chunks slices
            // them. Word e is gathered from the sixteen states. (Plain
            // loops, not `array::from_fn` or `map`: with many codegen units
            // those may stay calls.)
            // SAFETY: the token proves AVX-512 F; `load_head` reads within
            // its argument.
            unsafe {
                let mut rows = [_mm512_setzero_si512(); 4];
                for (r, row) in rows.iter_mut().enumerate() {
                    *row = load4_heads([states[r], states[r + 4], states[r + 8], states[r + 12]]);
                }
                let [a, b, c, d] = transpose4(rows);
                let mut es = [0u32; 16];
                for (e, s) in es.iter_mut().zip(states) {
                    *e = s[4];
                }
                let e = _mm512_loadu_si512(es.as_ptr().cast());
                [V16(a), V16(b), V16(c), V16(d), V16(e)]
            }
        }

        #[inline(always)]
        fn store_states(v: [V16; 5], states: &mut [&mut State; 16]) {
            let [V16(a), V16(b), V16(c), V16(d), V16(e)] = v;
            // SAFETY: `V16` values exist only when AVX-512 F is available;
            // every store writes words a..d of a state (its first 16 bytes)
            // through a `&mut` to it, or a local array.
            unsafe {
                let rows = transpose4([a, b, c, d]);
                for (r, row) in rows.into_iter().enumerate() {
                    let chunks = [
                        _mm512_extracti32x4_epi32::<0>(row),
                        _mm512_extracti32x4_epi32::<1>(row),
                        _mm512_extracti32x4_epi32::<2>(row),
                        _mm512_extracti32x4_epi32::<3>(row),
                    ];
                    for (k, chunk) in chunks.into_iter().enumerate() {
                        _mm_storeu_si128(states[r + 4 * k].as_mut_ptr().cast(), chunk);
                    }
                }
                let mut es = [0u32; 16];
                _mm512_storeu_si512(es.as_mut_ptr().cast(), e);
                for (s, e) in states.iter_mut().zip(es) {
                    s[4] = e;
                }
            }
        }

        #[inline(always)]
        fn load_block(_token: Avx512x16, blocks: [&Block; 16]) -> [V16; 16] {
            // A 16x16 transpose of 32-bit words: one whole block per row,
            // 4x4 transposes within the 128-bit chunks of each group of four
            // rows, then a 4x4 transpose of the chunks themselves.
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
                // s[g][j], chunk c: word 4c + j of lanes 4g..4g+4.
                let mut s = [[_mm512_setzero_si512(); 4]; 4];
                for (g, sg) in s.iter_mut().enumerate() {
                    *sg = transpose4([
                        rows[4 * g],
                        rows[4 * g + 1],
                        rows[4 * g + 2],
                        rows[4 * g + 3],
                    ]);
                }
                let mut out = [V16(_mm512_setzero_si512()); 16];
                for j in 0..4 {
                    let p0 = _mm512_shuffle_i32x4::<0x44>(s[0][j], s[1][j]);
                    let p1 = _mm512_shuffle_i32x4::<0xee>(s[0][j], s[1][j]);
                    let p2 = _mm512_shuffle_i32x4::<0x44>(s[2][j], s[3][j]);
                    let p3 = _mm512_shuffle_i32x4::<0xee>(s[2][j], s[3][j]);
                    out[j] = V16(_mm512_shuffle_i32x4::<0x88>(p0, p2));
                    out[4 + j] = V16(_mm512_shuffle_i32x4::<0xdd>(p0, p2));
                    out[8 + j] = V16(_mm512_shuffle_i32x4::<0x88>(p1, p3));
                    out[12 + j] = V16(_mm512_shuffle_i32x4::<0xdd>(p1, p3));
                }
                out
            }
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
        fn rotl1(self) -> V16 {
            rol!(self, 1)
        }

        #[inline(always)]
        fn rotl5(self) -> V16 {
            rol!(self, 5)
        }

        #[inline(always)]
        fn rotl30(self) -> V16 {
            rol!(self, 30)
        }

        #[inline(always)]
        fn schedule(w3: V16, w8: V16, w14: V16, w16: V16) -> V16 {
            // 0x96 is the truth table of A ^ B ^ C; the older three words
            // first, so that only the last XOR waits for `w3`.
            let old = ternlog!(0x96, w8, w14, w16);
            // SAFETY: `V16` values exist only when AVX-512 F is available.
            V16(unsafe { _mm512_xor_si512(old.0, w3.0) }).rotl1()
        }

        #[inline(always)]
        fn ch(x: V16, y: V16, z: V16) -> V16 {
            // Truth table of `x ? y : z` with (x, y, z) as (A, B, C).
            ternlog!(0xca, x, y, z)
        }

        #[inline(always)]
        fn parity(x: V16, y: V16, z: V16) -> V16 {
            ternlog!(0x96, x, y, z)
        }

        #[inline(always)]
        fn maj(x: V16, y: V16, z: V16) -> V16 {
            // Truth table of "at least two of A, B, C".
            ternlog!(0xe8, x, y, z)
        }
    }
}
