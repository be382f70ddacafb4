//! SHA-256, AVX-512, sixteen lanes of `__m512i`.
//!
//! The rounds are the generic word-sliced ones of `multilane`; this file
//! supplies the instructions: native rotates (`vprord`), `vpternlogd` for
//! the three-input functions (`Ch`, `Maj`, three-way XOR), and transposes of
//! the lane-major blocks and states into word-sliced vectors.

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

    /// Rotates every lane of `$x` right by `$n` bits.
    macro_rules! ror {
        ($x:expr, $n:literal) => {
            // SAFETY: `V16` values exist only when AVX-512 F is available.
            V16(unsafe { _mm512_ror_epi32::<$n>($x.0) })
        };
    }

    /// Shifts every lane of `$x` right by `$n` bits.
    macro_rules! shr {
        ($x:expr, $n:literal) => {
            // SAFETY: `V16` values exist only when AVX-512 F is available.
            V16(unsafe { _mm512_srli_epi32::<$n>($x.0) })
        };
    }

    impl Vector<16> for V16 {
        type Token = Avx512x16;
        // `a' = (e' - d) + ...`: one addition fewer per round than a
        // separate `T1`, and the same chains (measured alike on Zen 5).
        const SEPARATE_T1: bool = false;
        // Not the lean form: on AMD Zen 5 (EPYC) the rounds are bound by
        // the `e` chain, not by issue, and the latency-first form (one
        // addition more per round, `e'` one addition after `Σ1(e)` instead
        // of two) measured 17-20% faster at 128 KiB x 16 and x 64. (On
        // Intel Xeon, two 512-bit ports, the lean form had measured 5%
        // faster.)
        const LEAN: bool = false;

        #[inline(always)]
        fn load_states(_token: Avx512x16, states: &[&mut State; 16]) -> [V16; 8] {
            // Rows of one 16-byte chunk from each of four states, transposed
            // within the 128-bit chunks; two chunks per state. Plain loops,
            // not `array::from_fn` or `map`: with many codegen units those
            // generic helpers may stay calls, with the vectors passed
            // through memory (the kernel measured over twice as slow).
            // SAFETY: the token proves AVX-512 F; `load128` reads within its
            // argument.
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
                    lo[r] = load4x128([&c[0][0], &c[1][0], &c[2][0], &c[3][0]]);
                    hi[r] = load4x128([&c[0][1], &c[1][1], &c[2][1], &c[3][1]]);
                }
                let [w0, w1, w2, w3] = transpose4(lo);
                let [w4, w5, w6, w7] = transpose4(hi);
                [
                    V16(w0),
                    V16(w1),
                    V16(w2),
                    V16(w3),
                    V16(w4),
                    V16(w5),
                    V16(w6),
                    V16(w7),
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
                let lo = transpose4([v0, v1, v2, v3]);
                let hi = transpose4([v4, v5, v6, v7]);
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

        #[inline(always)]
        fn load_row(_token: Avx512x16, blocks: &[&Block; 16], j: usize) -> V16 {
            // Row `j` is the whole block of lane `j`.
            // SAFETY: the token proves AVX-512 F; `blocks[j]` is 64 readable
            // bytes.
            V16(unsafe { load_in_place(blocks[j]) })
        }

        #[inline(always)]
        fn transpose(rows: [V16; 16]) -> [V16; 16] {
            // A 16x16 transpose of 32-bit words (one whole block per row):
            // 4x4 transposes within the 128-bit chunks of each group of four
            // rows, then a 4x4 transpose of the chunks themselves; the byte
            // swap last. (Building rows from 16-byte chunks of four lanes
            // instead, as `load_states` does, measured slower.)
            // SAFETY: `V16` values exist only when AVX-512 F and BW are
            // available.
            unsafe {
                let bswap = _mm512_broadcast_i32x4(_mm_set_epi8(
                    12, 13, 14, 15, 8, 9, 10, 11, 4, 5, 6, 7, 0, 1, 2, 3,
                ));
                // s[g][j], chunk c: word 4c + j of lanes 4g..4g+4.
                let mut s = [[_mm512_setzero_si512(); 4]; 4];
                for (g, sg) in s.iter_mut().enumerate() {
                    *sg = transpose4([
                        rows[4 * g].0,
                        rows[4 * g + 1].0,
                        rows[4 * g + 2].0,
                        rows[4 * g + 3].0,
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
                for v in &mut out {
                    v.0 = _mm512_shuffle_epi8(v.0, bswap);
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
        fn sub(self, rhs: V16) -> V16 {
            // SAFETY: `V16` values exist only when AVX-512 F is available.
            V16(unsafe { _mm512_sub_epi32(self.0, rhs.0) })
        }

        #[inline(always)]
        fn big_sigma0(self) -> V16 {
            xor3(ror!(self, 2), ror!(self, 13), ror!(self, 22))
        }

        #[inline(always)]
        fn big_sigma1(self) -> V16 {
            xor3(ror!(self, 6), ror!(self, 11), ror!(self, 25))
        }

        #[inline(always)]
        fn small_sigma0(self) -> V16 {
            xor3(ror!(self, 7), ror!(self, 18), shr!(self, 3))
        }

        #[inline(always)]
        fn small_sigma1(self) -> V16 {
            xor3(ror!(self, 17), ror!(self, 19), shr!(self, 10))
        }

        #[inline(always)]
        fn ch(e: V16, f: V16, g: V16) -> V16 {
            // Truth table of `e ? f : g` with (e, f, g) as (A, B, C).
            // SAFETY: `V16` values exist only when AVX-512 F is available.
            V16(unsafe { _mm512_ternarylogic_epi32::<0xca>(e.0, f.0, g.0) })
        }

        #[inline(always)]
        fn maj(a: V16, b: V16, c: V16) -> V16 {
            // Truth table of "at least two of A, B, C".
            // SAFETY: `V16` values exist only when AVX-512 F is available.
            V16(unsafe { _mm512_ternarylogic_epi32::<0xe8>(a.0, b.0, c.0) })
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

    /// The 64 bytes of `block`, loaded where the caller's code puts the
    /// call: an `asm!` load, which the compiler keeps in order (a plain
    /// load of a row of the next blocks was moved to the transpose that
    /// uses it, after the rounds it was meant to overlap).
    ///
    /// # Safety
    ///
    /// The CPU must support AVX-512 F.
    #[target_feature(enable = "avx512f")]
    #[inline]
    unsafe fn load_in_place(block: &Block) -> __m512i {
        let v: __m512i;
        // SAFETY: the template reads the 64 bytes of `*block` (unaligned
        // is fine) into `v` and touches nothing else.
        unsafe {
            core::arch::asm!(
                "vmovdqu64 {v}, zmmword ptr [{p}]",
                v = out(zmm_reg) v,
                p = in(reg) block.as_ptr(),
                options(readonly, nostack, preserves_flags),
            );
        }
        v
    }

    /// `a ^ b ^ c`.
    #[inline(always)]
    fn xor3(a: V16, b: V16, c: V16) -> V16 {
        // SAFETY: `V16` values exist only when AVX-512 F is available.
        V16(unsafe { _mm512_ternarylogic_epi32::<0x96>(a.0, b.0, c.0) })
    }
}
