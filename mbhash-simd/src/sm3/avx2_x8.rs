//! SM3, AVX2, eight lanes of `__m256i`.
//!
//! The rounds are the generic word-sliced ones of `multilane`; this file
//! supplies the instructions (AVX2 has no vector rotate, so each rotation is
//! two shifts and an or) and the transposes of the lane-major blocks and
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

    /// Transposes the 4x4 matrices of 32-bit words held in the two 128-bit
    /// halves of `r`: in each half, word `j` of output `i` is word `i` of
    /// input `j`.
    ///
    /// # Safety
    ///
    /// The CPU must support AVX2.
    #[inline(always)]
    unsafe fn transpose4x4(r: [__m256i; 4]) -> [__m256i; 4] {
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

    /// A vector of two 16-byte chunks, `lo` in the low half (`T` is
    /// `[u8; 16]` or `[u32; 4]`).
    ///
    /// # Safety
    ///
    /// The CPU must support AVX2.
    #[inline(always)]
    unsafe fn load_halves<T>(lo: &T, hi: &T) -> __m256i {
        const { assert!(size_of::<T>() == 16) };
        // SAFETY: the caller guarantees AVX2; each reference is 16 readable
        // bytes (checked above), loaded unaligned.
        unsafe {
            let lo = _mm_loadu_si128((lo as *const T).cast());
            let hi = _mm_loadu_si128((hi as *const T).cast());
            _mm256_inserti128_si256::<1>(_mm256_castsi128_si256(lo), hi)
        }
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

    impl Vector<8> for V8 {
        type Token = Avx2x8;

        #[inline(always)]
        fn load_states(_token: Avx2x8, states: &[&mut State; 8]) -> [V8; 8] {
            // Row r of `lo` holds words 0..4 of states r and r + 4, row r
            // of `hi` words 4..8; a 4x4 transpose in each half makes vector
            // i word i of states 0..4 (low half) and 4..8 (high half).
            // SAFETY: the token proves AVX2; `load_halves` reads within its
            // arguments.
            unsafe {
                let mut lo = [_mm256_setzero_si256(); 4];
                let mut hi = [_mm256_setzero_si256(); 4];
                for r in 0..4 {
                    let (p, q) = (
                        states[r].as_chunks::<4>().0,
                        states[r + 4].as_chunks::<4>().0,
                    );
                    lo[r] = load_halves(&p[0], &q[0]);
                    hi[r] = load_halves(&p[1], &q[1]);
                }
                let lo = transpose4x4(lo);
                let hi = transpose4x4(hi);
                [
                    V8(lo[0]),
                    V8(lo[1]),
                    V8(lo[2]),
                    V8(lo[3]),
                    V8(hi[0]),
                    V8(hi[1]),
                    V8(hi[2]),
                    V8(hi[3]),
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
                // The transpose is its own inverse: row r of `lo` is words
                // 0..4 of states r (low half) and r + 4 (high half).
                let lo = transpose4x4([v0, v1, v2, v3]);
                let hi = transpose4x4([v4, v5, v6, v7]);
                for r in 0..4 {
                    let (p, _) = states[r].as_chunks_mut::<4>();
                    _mm_storeu_si128(p[0].as_mut_ptr().cast(), _mm256_castsi256_si128(lo[r]));
                    _mm_storeu_si128(p[1].as_mut_ptr().cast(), _mm256_castsi256_si128(hi[r]));
                    let (q, _) = states[r + 4].as_chunks_mut::<4>();
                    _mm_storeu_si128(
                        q[0].as_mut_ptr().cast(),
                        _mm256_extracti128_si256::<1>(lo[r]),
                    );
                    _mm_storeu_si128(
                        q[1].as_mut_ptr().cast(),
                        _mm256_extracti128_si256::<1>(hi[r]),
                    );
                }
            }
        }

        #[inline(always)]
        fn load_block(_token: Avx2x8, blocks: [&Block; 8]) -> [V8; 16] {
            // For each 16-byte chunk q of the blocks: row r holds chunk q of
            // lanes r and r + 4; a 4x4 transpose in each half gives words
            // 4q..4q+4 of lanes 0..8, which a byte shuffle turns big-endian.
            // SAFETY: the token proves AVX2; `load_halves` reads within its
            // arguments.
            unsafe {
                let bswap = _mm256_broadcastsi128_si256(_mm_set_epi8(
                    12, 13, 14, 15, 8, 9, 10, 11, 4, 5, 6, 7, 0, 1, 2, 3,
                ));
                let mut out = [V8(_mm256_setzero_si256()); 16];
                for q in 0..4 {
                    let mut rows = [_mm256_setzero_si256(); 4];
                    for (r, row) in rows.iter_mut().enumerate() {
                        let (p, s) = (
                            blocks[r].as_chunks::<16>().0,
                            blocks[r + 4].as_chunks::<16>().0,
                        );
                        *row = load_halves(&p[q], &s[q]);
                    }
                    let t = transpose4x4(rows);
                    for j in 0..4 {
                        out[4 * q + j] = V8(_mm256_shuffle_epi8(t[j], bswap));
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
        fn xor(self, rhs: V8) -> V8 {
            // SAFETY: `V8` values exist only when AVX2 is available.
            V8(unsafe { _mm256_xor_si256(self.0, rhs.0) })
        }

        #[inline(always)]
        fn rotl<const L: i32, const R: i32>(self) -> V8 {
            const { assert!(L > 0 && L < 32 && L + R == 32) };
            // SAFETY: `V8` values exist only when AVX2 is available.
            V8(unsafe {
                _mm256_or_si256(
                    _mm256_slli_epi32::<L>(self.0),
                    _mm256_srli_epi32::<R>(self.0),
                )
            })
        }

        #[inline(always)]
        fn xor3(a: V8, b: V8, c: V8) -> V8 {
            a.xor(b).xor(c)
        }

        #[inline(always)]
        fn maj(x: V8, y: V8, z: V8) -> V8 {
            // ((x ^ y) & (y ^ z)) ^ y: y where x == y, else z (the
            // majority). (SHA-256 shares `y ^ z` with the next round's
            // `x ^ y`; SM3 cannot, since its C is B rotated.)
            // SAFETY: `V8` values exist only when AVX2 is available.
            V8(unsafe {
                _mm256_xor_si256(
                    _mm256_and_si256(_mm256_xor_si256(x.0, y.0), _mm256_xor_si256(y.0, z.0)),
                    y.0,
                )
            })
        }

        #[inline(always)]
        fn ch(x: V8, y: V8, z: V8) -> V8 {
            // ((y ^ z) & x) ^ z: y where x is set, z elsewhere.
            // SAFETY: `V8` values exist only when AVX2 is available.
            V8(unsafe { _mm256_xor_si256(_mm256_and_si256(_mm256_xor_si256(y.0, z.0), x.0), z.0) })
        }
    }
}
