//! SHA-256, AVX2, eight lanes of `__m256i`.
//!
//! The rounds are the generic word-sliced ones of `multilane`; this file
//! supplies the instructions (AVX2 has no vector rotate, so each rotation is
//! two shifts) and the transposes of the lane-major blocks and states into
//! word-sliced vectors.

use super::{Block, Compress, State};

/// Proof that the CPU supports this kernel: AVX2.
#[cfg(target_arch = "x86_64")]
#[derive(Clone, Copy, Debug)]
pub struct Avx2x8 {
    _private: (),
}

/// Proof that the CPU supports this kernel (never, on this target).
#[cfg(not(target_arch = "x86_64"))]
#[derive(Clone, Copy, Debug)]
pub enum Avx2x8 {}

impl Avx2x8 {
    /// Lanes per call.
    pub const LANES: usize = 8;

    /// Detects the CPU features; `None` when they are missing or hidden.
    pub fn new() -> Option<Self> {
        #[cfg(target_arch = "x86_64")]
        if crate::cpu::available(crate::cpu::Feature::Avx2) {
            return Some(Avx2x8 { _private: () });
        }
        None
    }
}

impl Compress<8> for Avx2x8 {
    #[cfg(target_arch = "x86_64")]
    fn compress(self, states: [&mut State; 8], blocks: [&[Block]; 8]) {
        // SAFETY: `self` exists, so `Avx2x8::new` found AVX2, the feature
        // `x86::compress` is compiled for.
        unsafe { x86::compress(self, states, blocks) }
    }

    #[cfg(not(target_arch = "x86_64"))]
    fn compress(self, _states: [&mut State; 8], _blocks: [&[Block]; 8]) {
        match self {}
    }
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use core::arch::x86_64::*;

    use super::super::multilane::{self, Vector};
    use super::super::{Block, State};
    use super::Avx2x8;

    /// The kernel entry: the only function compiled for AVX2.
    #[target_feature(enable = "avx2")]
    pub(super) fn compress(token: Avx2x8, states: [&mut State; 8], blocks: [&[Block]; 8]) {
        multilane::compress::<V8, 8>(token, states, blocks);
    }

    /// Eight `u32` lanes. A value exists only after an [`Avx2x8`] token was
    /// presented (see the constructors in `Vector`), so every method may use
    /// AVX2 instructions.
    #[derive(Clone, Copy)]
    pub(super) struct V8(__m256i);

    /// Transposes the 4x4 matrix of 32-bit words in each 128-bit half:
    /// word `j` of half `c` of output `i` is word `i` of half `c` of input
    /// `j`.
    ///
    /// # Safety
    ///
    /// The CPU must support AVX2.
    #[inline(always)]
    unsafe fn transpose4([r0, r1, r2, r3]: [__m256i; 4]) -> [__m256i; 4] {
        // SAFETY: the caller guarantees AVX2.
        unsafe {
            let t0 = _mm256_unpacklo_epi32(r0, r1);
            let t1 = _mm256_unpackhi_epi32(r0, r1);
            let t2 = _mm256_unpacklo_epi32(r2, r3);
            let t3 = _mm256_unpackhi_epi32(r2, r3);
            [
                _mm256_unpacklo_epi64(t0, t2),
                _mm256_unpackhi_epi64(t0, t2),
                _mm256_unpacklo_epi64(t1, t3),
                _mm256_unpackhi_epi64(t1, t3),
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

    /// Builds a vector from two 16-byte chunks, `lo` in the low half.
    ///
    /// # Safety
    ///
    /// The CPU must support AVX2.
    #[inline(always)]
    unsafe fn load2x128<T>(lo: &T, hi: &T) -> __m256i {
        // SAFETY: the caller guarantees AVX2; `load128` reads within its
        // argument.
        unsafe { _mm256_inserti128_si256::<1>(_mm256_castsi128_si256(load128(lo)), load128(hi)) }
    }

    /// `x` rotated right by `R` bits; `L` must be `32 - R`.
    ///
    /// # Safety
    ///
    /// The CPU must support AVX2.
    #[inline(always)]
    unsafe fn rotr<const R: i32, const L: i32>(x: __m256i) -> __m256i {
        const { assert!(R + L == 32) };
        // SAFETY: the caller guarantees AVX2.
        unsafe { _mm256_or_si256(_mm256_srli_epi32::<R>(x), _mm256_slli_epi32::<L>(x)) }
    }

    /// `x`, unchanged, through an empty `asm!` that the optimiser cannot
    /// look through.
    ///
    /// # Safety
    ///
    /// The CPU must support AVX.
    #[target_feature(enable = "avx")]
    #[inline]
    unsafe fn opaque(mut x: __m256i) -> __m256i {
        // SAFETY: the template is empty: it leaves `x` as it is and touches
        // nothing else.
        unsafe {
            core::arch::asm!("/* {0} */", inout(ymm_reg) x, options(pure, nomem, nostack, preserves_flags));
        }
        x
    }

    /// `a ^ b ^ c`.
    #[inline(always)]
    fn xor3(a: V8, b: V8, c: V8) -> V8 {
        // SAFETY: `V8` values exist only when AVX2 is available.
        V8(unsafe { _mm256_xor_si256(_mm256_xor_si256(a.0, b.0), c.0) })
    }

    /// Rotates every lane of `$x` right by `$n` bits.
    macro_rules! ror {
        ($x:expr, $n:literal) => {
            // SAFETY: `V8` values exist only when AVX2 is available.
            V8(unsafe { rotr::<$n, { 32 - $n }>($x.0) })
        };
    }

    /// Shifts every lane of `$x` right by `$n` bits.
    macro_rules! shr {
        ($x:expr, $n:literal) => {
            // SAFETY: `V8` values exist only when AVX2 is available.
            V8(unsafe { _mm256_srli_epi32::<$n>($x.0) })
        };
    }

    impl Vector<8> for V8 {
        type Token = Avx2x8;
        // Measured faster; the kernel is throughput-bound: each rotate is three instructions.
        const SEPARATE_T1: bool = false;

        #[inline(always)]
        fn load_states(_token: Avx2x8, states: &[&mut State; 8]) -> [V8; 8] {
            // As `load_row` and `transpose` do with a block, with two chunks
            // per state. (Plain loops, not `map` or `array::from_fn`: with
            // many codegen units those may stay calls, as in the AVX-512
            // kernel.)
            // SAFETY: the token proves AVX2; `load128` reads within its
            // argument.
            unsafe {
                let mut lo = [_mm256_setzero_si256(); 4];
                let mut hi = [_mm256_setzero_si256(); 4];
                for r in 0..4 {
                    let (a, b) = (
                        states[r].as_chunks::<4>().0,
                        states[r + 4].as_chunks::<4>().0,
                    );
                    lo[r] = load2x128(&a[0], &b[0]);
                    hi[r] = load2x128(&a[1], &b[1]);
                }
                let [w0, w1, w2, w3] = transpose4(lo);
                let [w4, w5, w6, w7] = transpose4(hi);
                [
                    V8(w0),
                    V8(w1),
                    V8(w2),
                    V8(w3),
                    V8(w4),
                    V8(w5),
                    V8(w6),
                    V8(w7),
                ]
            }
        }

        #[inline(always)]
        fn store_states(v: [V8; 8], states: &mut [&mut State; 8]) {
            let [
                V8(v0),
                V8(v1),
                V8(v2),
                V8(v3),
                V8(v4),
                V8(v5),
                V8(v6),
                V8(v7),
            ] = v;
            // SAFETY: `V8` values exist only when AVX2 is available; every
            // store writes one 16-byte chunk of a state, through a `&mut` to
            // it.
            unsafe {
                let lo = transpose4([v0, v1, v2, v3]);
                let hi = transpose4([v4, v5, v6, v7]);
                for r in 0..4 {
                    let parts = [
                        [_mm256_castsi256_si128(lo[r]), _mm256_castsi256_si128(hi[r])],
                        [
                            _mm256_extracti128_si256::<1>(lo[r]),
                            _mm256_extracti128_si256::<1>(hi[r]),
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
        fn load_row(_token: Avx2x8, blocks: &[&Block; 8], j: usize) -> V8 {
            // Row 4q + r holds chunk q (words 4q..4q+4) of lanes r and r + 4.
            // Plain loads, which the compiler may move next to the transpose
            // (unlike the AVX-512 kernel's; this kernel measured the same
            // with the loads at the transpose and in the rounds).
            let (q, r) = (j / 4, j % 4);
            let (a, b) = (
                blocks[r].as_chunks::<16>().0,
                blocks[r + 4].as_chunks::<16>().0,
            );
            // SAFETY: the token proves AVX2; `load2x128` reads within its
            // arguments.
            V8(unsafe { load2x128(&a[q], &b[q]) })
        }

        #[inline(always)]
        fn transpose(rows: [V8; 16]) -> [V8; 16] {
            // Transposing each group of four rows within the 128-bit halves
            // gives words 4q..4q+4 of lanes 0..8.
            // SAFETY: `V8` values exist only when AVX2 is available.
            unsafe {
                let bswap = _mm256_broadcastsi128_si256(_mm_set_epi8(
                    12, 13, 14, 15, 8, 9, 10, 11, 4, 5, 6, 7, 0, 1, 2, 3,
                ));
                let mut out = [V8(_mm256_setzero_si256()); 16];
                for q in 0..4 {
                    let group = [
                        rows[4 * q].0,
                        rows[4 * q + 1].0,
                        rows[4 * q + 2].0,
                        rows[4 * q + 3].0,
                    ];
                    for (j, v) in transpose4(group).into_iter().enumerate() {
                        out[4 * q + j] = V8(_mm256_shuffle_epi8(v, bswap));
                    }
                }
                out
            }
        }

        #[inline(always)]
        fn opaque(self) -> V8 {
            // SAFETY: `V8` values exist only when AVX2 is available.
            V8(unsafe { opaque(self.0) })
        }

        #[inline(always)]
        fn add(self, rhs: V8) -> V8 {
            // SAFETY: `V8` values exist only when AVX2 is available.
            V8(unsafe { _mm256_add_epi32(self.0, rhs.0) })
        }

        #[inline(always)]
        fn add_const(self, k: u32) -> V8 {
            // SAFETY: `V8` values exist only when AVX2 is available.
            V8(unsafe { _mm256_add_epi32(self.0, _mm256_set1_epi32(k as i32)) })
        }

        #[inline(always)]
        fn sub(self, rhs: V8) -> V8 {
            // SAFETY: `V8` values exist only when AVX2 is available.
            V8(unsafe { _mm256_sub_epi32(self.0, rhs.0) })
        }

        #[inline(always)]
        fn big_sigma0(self) -> V8 {
            xor3(ror!(self, 2), ror!(self, 13), ror!(self, 22))
        }

        #[inline(always)]
        fn big_sigma1(self) -> V8 {
            xor3(ror!(self, 6), ror!(self, 11), ror!(self, 25))
        }

        #[inline(always)]
        fn small_sigma0(self) -> V8 {
            xor3(ror!(self, 7), ror!(self, 18), shr!(self, 3))
        }

        #[inline(always)]
        fn small_sigma1(self) -> V8 {
            xor3(ror!(self, 17), ror!(self, 19), shr!(self, 10))
        }

        #[inline(always)]
        fn ch(e: V8, f: V8, g: V8) -> V8 {
            // ((f ^ g) & e) ^ g picks f where e is set and g elsewhere.
            // SAFETY: `V8` values exist only when AVX2 is available.
            V8(unsafe { _mm256_xor_si256(_mm256_and_si256(_mm256_xor_si256(f.0, g.0), e.0), g.0) })
        }

        #[inline(always)]
        fn maj(a: V8, b: V8, c: V8) -> V8 {
            // ((a ^ b) & (b ^ c)) ^ b is b where a == b, else c. Next
            // round's `b ^ c` is this round's `a ^ b`, which the compiler
            // reuses.
            // SAFETY: `V8` values exist only when AVX2 is available.
            V8(unsafe {
                _mm256_xor_si256(
                    _mm256_and_si256(_mm256_xor_si256(a.0, b.0), _mm256_xor_si256(b.0, c.0)),
                    b.0,
                )
            })
        }
    }
}
