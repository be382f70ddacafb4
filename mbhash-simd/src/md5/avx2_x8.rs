//! MD5, AVX2, eight lanes of `__m256i`.
//!
//! The steps are the generic word-sliced ones of `multilane`; this file
//! supplies the instructions (AVX2 has no vector rotate, so each rotation is
//! two shifts and an OR) and the transposes of the lane-major blocks and
//! states into word-sliced vectors.

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
pub(super) mod x86 {
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
    pub(in crate::md5) struct V8(__m256i);

    /// Within each 128-bit half, the 4x4 matrix of 32-bit words transposed:
    /// word `j` of half `h` of output `i` is word `i` of half `h` of input
    /// `j`. Its own inverse.
    ///
    /// # Safety
    ///
    /// The CPU must support AVX2.
    #[inline(always)]
    unsafe fn transpose_halves(r: [__m256i; 4]) -> [__m256i; 4] {
        // SAFETY: the caller guarantees AVX2.
        unsafe {
            let lo01 = _mm256_unpacklo_epi32(r[0], r[1]);
            let hi01 = _mm256_unpackhi_epi32(r[0], r[1]);
            let lo23 = _mm256_unpacklo_epi32(r[2], r[3]);
            let hi23 = _mm256_unpackhi_epi32(r[2], r[3]);
            [
                _mm256_unpacklo_epi64(lo01, lo23),
                _mm256_unpackhi_epi64(lo01, lo23),
                _mm256_unpacklo_epi64(hi01, hi23),
                _mm256_unpackhi_epi64(hi01, hi23),
            ]
        }
    }

    /// The 16 bytes at `p`, unaligned.
    ///
    /// # Safety
    ///
    /// `p` must point to 16 readable bytes (SSE2, which every x86-64 has,
    /// does the load).
    #[inline(always)]
    unsafe fn load16(p: *const u8) -> __m128i {
        // SAFETY: the caller guarantees 16 readable bytes; the load is
        // unaligned.
        unsafe { _mm_loadu_si128(p.cast()) }
    }

    /// The 16 bytes at `lo` in the low half, at `hi` in the high half.
    ///
    /// # Safety
    ///
    /// The CPU must support AVX2; `lo` and `hi` must each point to 16
    /// readable bytes.
    #[inline(always)]
    unsafe fn load_halves(lo: *const u8, hi: *const u8) -> __m256i {
        // SAFETY: the caller guarantees AVX2 and the readable bytes.
        unsafe { _mm256_inserti128_si256::<1>(_mm256_castsi128_si256(load16(lo)), load16(hi)) }
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

    /// Applies an AVX2 intrinsic to the registers of `V8` values.
    macro_rules! avx2 {
        ($f:ident($($x:expr),*)) => {
            // SAFETY: `V8` values exist only when AVX2 is available.
            V8(unsafe { $f($($x.0),*) })
        };
    }

    impl Vector<8> for V8 {
        type Token = Avx2x8;

        #[inline(always)]
        fn load_states(_token: Avx2x8, states: &[&mut State; 8]) -> [V8; 4] {
            // Row r: state r in the low half, state r + 4 in the high half
            // (a state is one 16-byte chunk); transposing the halves gives
            // word i of lanes 0..4 and 4..8 in vector i.
            // SAFETY: the token proves AVX2; each load reads one whole state
            // through a reference to it.
            unsafe {
                let mut rows = [_mm256_setzero_si256(); 4];
                for (r, row) in rows.iter_mut().enumerate() {
                    *row = load_halves(states[r].as_ptr().cast(), states[r + 4].as_ptr().cast());
                }
                let [w0, w1, w2, w3] = transpose_halves(rows);
                [V8(w0), V8(w1), V8(w2), V8(w3)]
            }
        }

        #[inline(always)]
        fn store_states(v: [V8; 4], states: &mut [&mut State; 8]) {
            let [V8(w0), V8(w1), V8(w2), V8(w3)] = v;
            // SAFETY: `V8` values exist only when AVX2 is available; each
            // store writes one whole state through a `&mut` to it.
            unsafe {
                let rows = transpose_halves([w0, w1, w2, w3]);
                for (r, row) in rows.into_iter().enumerate() {
                    _mm_storeu_si128(states[r].as_mut_ptr().cast(), _mm256_castsi256_si128(row));
                    _mm_storeu_si128(
                        states[r + 4].as_mut_ptr().cast(),
                        _mm256_extracti128_si256::<1>(row),
                    );
                }
            }
        }

        #[inline(always)]
        fn load_block(_token: Avx2x8, blocks: [&Block; 8]) -> [V8; 16] {
            // For each 16-byte chunk q (words 4q..4q+4), row r holds chunk q
            // of lanes r and r + 4; transposing the halves of the four rows
            // gives words 4q..4q+4 of lanes 0..8. The words are
            // little-endian, as x86 loads them.
            // SAFETY: the token proves AVX2; every load reads 16 bytes at
            // offset 16q < 64 of a whole block.
            unsafe {
                let mut out = [V8(_mm256_setzero_si256()); 16];
                for q in 0..4 {
                    let mut rows = [_mm256_setzero_si256(); 4];
                    for (r, row) in rows.iter_mut().enumerate() {
                        *row = load_halves(
                            blocks[r].as_ptr().add(16 * q),
                            blocks[r + 4].as_ptr().add(16 * q),
                        );
                    }
                    for (j, w) in transpose_halves(rows).into_iter().enumerate() {
                        out[4 * q + j] = V8(w);
                    }
                }
                out
            }
        }

        #[inline(always)]
        fn opaque(self) -> V8 {
            avx2!(opaque(self))
        }

        #[inline(always)]
        fn add(self, rhs: V8) -> V8 {
            avx2!(_mm256_add_epi32(self, rhs))
        }

        #[inline(always)]
        fn add_const(self, k: u32) -> V8 {
            // SAFETY: `V8` values exist only when AVX2 is available.
            V8(unsafe { _mm256_add_epi32(self.0, _mm256_set1_epi32(k as i32)) })
        }

        #[inline(always)]
        fn rotl<const L: i32, const R: i32>(self) -> V8 {
            const { assert!(L + R == 32) };
            // SAFETY: `V8` values exist only when AVX2 is available.
            V8(unsafe {
                _mm256_or_si256(
                    _mm256_slli_epi32::<L>(self.0),
                    _mm256_srli_epi32::<R>(self.0),
                )
            })
        }

        #[inline(always)]
        fn add_f(self, b: V8, c: V8, d: V8) -> V8 {
            // ((c ^ d) & b) ^ d picks c where b is set and d elsewhere; only
            // the AND and the last XOR wait for `b`.
            let c_d = avx2!(_mm256_xor_si256(c, d));
            let masked = avx2!(_mm256_and_si256(c_d, b));
            self.add(avx2!(_mm256_xor_si256(masked, d)))
        }

        #[inline(always)]
        fn add_g(self, b: V8, c: V8, d: V8) -> V8 {
            // The two terms `b & d` and `c & !d` have no bit in common, so
            // their OR is their sum: `c & !d` is added before `b` arrives,
            // and only `b & d` and one addition wait for it.
            let c_not_d = avx2!(_mm256_andnot_si256(d, c));
            let early = self.add(c_not_d).opaque();
            early.add(avx2!(_mm256_and_si256(b, d)))
        }

        #[inline(always)]
        fn add_h(self, b: V8, c: V8, d: V8) -> V8 {
            let c_d = avx2!(_mm256_xor_si256(c, d));
            self.add(avx2!(_mm256_xor_si256(b, c_d)))
        }

        #[inline(always)]
        fn add_i(self, b: V8, c: V8, d: V8) -> V8 {
            // !d = d ^ all-ones, before `b` arrives.
            // SAFETY: `V8` values exist only when AVX2 is available.
            let not_d = V8(unsafe { _mm256_xor_si256(d.0, _mm256_set1_epi32(-1)) });
            let b_or = avx2!(_mm256_or_si256(b, not_d));
            self.add(avx2!(_mm256_xor_si256(c, b_or)))
        }
    }
}
