//! SHA-1, AVX2, eight lanes of `__m256i`.
//!
//! The rounds are the generic word-sliced ones of `multilane`; this file
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

    /// Words `a..d` of a state (the first 16 of its 20 bytes).
    #[inline(always)]
    fn head(state: &State) -> &[u32; 4] {
        state.first_chunk().expect("a state has five words")
    }

    /// Rotates every lane of `$x` left by `$n` bits.
    macro_rules! rol {
        ($x:expr, $n:literal) => {
            // SAFETY: `V8` values exist only when AVX2 is available.
            V8(unsafe {
                _mm256_or_si256(
                    _mm256_slli_epi32::<$n>($x.0),
                    _mm256_srli_epi32::<{ 32 - $n }>($x.0),
                )
            })
        };
    }

    /// `a ^ b`.
    #[inline(always)]
    fn xor(a: V8, b: V8) -> V8 {
        // SAFETY: `V8` values exist only when AVX2 is available.
        V8(unsafe { _mm256_xor_si256(a.0, b.0) })
    }

    impl Vector<8> for V8 {
        type Token = Avx2x8;

        #[inline(always)]
        fn load_states(_token: Avx2x8, states: &[&mut State; 8]) -> [V8; 5] {
            // Words a..d as in `load_block`: row r holds them for lanes r
            // and r + 4, and a transpose within the halves slices them.
            // Word e is gathered from the eight states.
            // SAFETY: the token proves AVX2; `load128` reads within its
            // argument.
            unsafe {
                let mut rows = [_mm256_setzero_si256(); 4];
                for (r, row) in rows.iter_mut().enumerate() {
                    *row = load2x128(head(states[r]), head(states[r + 4]));
                }
                let [a, b, c, d] = transpose4(rows);
                let e = _mm256_setr_epi32(
                    states[0][4] as i32,
                    states[1][4] as i32,
                    states[2][4] as i32,
                    states[3][4] as i32,
                    states[4][4] as i32,
                    states[5][4] as i32,
                    states[6][4] as i32,
                    states[7][4] as i32,
                );
                [V8(a), V8(b), V8(c), V8(d), V8(e)]
            }
        }

        #[inline(always)]
        fn store_states(v: [V8; 5], states: &mut [&mut State; 8]) {
            let [V8(a), V8(b), V8(c), V8(d), V8(e)] = v;
            // SAFETY: `V8` values exist only when AVX2 is available; every
            // store writes words a..d of a state (its first 16 bytes)
            // through a `&mut` to it, or a local array.
            unsafe {
                let rows = transpose4([a, b, c, d]);
                for (r, row) in rows.into_iter().enumerate() {
                    let lo = states[r].as_mut_ptr();
                    _mm_storeu_si128(lo.cast(), _mm256_castsi256_si128(row));
                    let hi = states[r + 4].as_mut_ptr();
                    _mm_storeu_si128(hi.cast(), _mm256_extracti128_si256::<1>(row));
                }
                let mut es = [0u32; 8];
                _mm256_storeu_si256(es.as_mut_ptr().cast(), e);
                for (s, e) in states.iter_mut().zip(es) {
                    s[4] = e;
                }
            }
        }

        #[inline(always)]
        fn load_block(_token: Avx2x8, blocks: [&Block; 8]) -> [V8; 16] {
            // Row (q, r) holds chunk q (words 4q..4q+4) of lanes r and r + 4;
            // transposing each group of four rows within the 128-bit halves
            // gives words 4q..4q+4 of lanes 0..8.
            // SAFETY: the token proves AVX2; `load128` reads within its
            // argument.
            unsafe {
                let bswap = _mm256_broadcastsi128_si256(_mm_set_epi8(
                    12, 13, 14, 15, 8, 9, 10, 11, 4, 5, 6, 7, 0, 1, 2, 3,
                ));
                let mut out = [V8(_mm256_setzero_si256()); 16];
                for q in 0..4 {
                    let mut rows = [_mm256_setzero_si256(); 4];
                    for (r, row) in rows.iter_mut().enumerate() {
                        let (a, b) = (
                            blocks[r].as_chunks::<16>().0,
                            blocks[r + 4].as_chunks::<16>().0,
                        );
                        *row = load2x128(&a[q], &b[q]);
                    }
                    for (j, v) in transpose4(rows).into_iter().enumerate() {
                        out[4 * q + j] = V8(_mm256_shuffle_epi8(v, bswap));
                    }
                }
                out
            }
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
        fn rotl1(self) -> V8 {
            rol!(self, 1)
        }

        #[inline(always)]
        fn rotl5(self) -> V8 {
            rol!(self, 5)
        }

        #[inline(always)]
        fn rotl30(self) -> V8 {
            rol!(self, 30)
        }

        #[inline(always)]
        fn schedule(w3: V8, w8: V8, w14: V8, w16: V8) -> V8 {
            // `w8 ^ w14 ^ w16` does not wait for `w3`, the newest word.
            xor(w3, xor(w8, xor(w14, w16))).rotl1()
        }

        #[inline(always)]
        fn ch(x: V8, y: V8, z: V8) -> V8 {
            // ((y ^ z) & x) ^ z picks y where x is set and z elsewhere.
            // SAFETY: `V8` values exist only when AVX2 is available.
            V8(unsafe { _mm256_xor_si256(_mm256_and_si256(_mm256_xor_si256(y.0, z.0), x.0), z.0) })
        }

        #[inline(always)]
        fn parity(x: V8, y: V8, z: V8) -> V8 {
            xor(xor(x, y), z)
        }

        #[inline(always)]
        fn maj(x: V8, y: V8, z: V8) -> V8 {
            // ((x ^ y) & (y ^ z)) ^ y is y where x == y, else z.
            // SAFETY: `V8` values exist only when AVX2 is available.
            V8(unsafe {
                _mm256_xor_si256(
                    _mm256_and_si256(_mm256_xor_si256(x.0, y.0), _mm256_xor_si256(y.0, z.0)),
                    y.0,
                )
            })
        }
    }
}
