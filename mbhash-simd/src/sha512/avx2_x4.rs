//! SHA-512, AVX2, four lanes of `__m256i`.
//!
//! Each vector holds one word of four messages (word-sliced). Per block the
//! four lanes' 128-byte blocks are loaded unaligned, transposed with four
//! 4x4 transposes of `u64` and byte-swapped. AVX2 has no 64-bit rotate, so
//! rotations are two shifts (or one byte shuffle for the rotation by 8). The
//! rounds themselves live in the shared `multilane` module.

use super::{Block, Compress, State};

/// Proof that the CPU supports this kernel: AVX2.
#[cfg(target_arch = "x86_64")]
#[derive(Clone, Copy, Debug)]
pub struct Avx2x4 {
    _private: (),
}

/// Proof that the CPU supports this kernel (never, on this target).
#[cfg(not(target_arch = "x86_64"))]
#[derive(Clone, Copy, Debug)]
pub enum Avx2x4 {}

impl Avx2x4 {
    /// Lanes per call.
    pub const LANES: usize = 4;

    /// Detects the CPU features; `None` when they are missing or hidden.
    pub fn new() -> Option<Self> {
        #[cfg(target_arch = "x86_64")]
        if crate::cpu::available(crate::cpu::Feature::Avx2) {
            return Some(Avx2x4 { _private: () });
        }
        None
    }
}

impl Compress<4> for Avx2x4 {
    #[cfg(target_arch = "x86_64")]
    fn compress(self, states: [&mut State; 4], blocks: [&[Block]; 4]) {
        // SAFETY: `self` exists, so `Avx2x4::new` found AVX2, the feature
        // `x86::compress` is compiled for.
        unsafe { x86::compress(self, states, blocks) }
    }

    #[cfg(not(target_arch = "x86_64"))]
    fn compress(self, _states: [&mut State; 4], _blocks: [&[Block]; 4]) {
        match self {}
    }
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use super::super::multilane::{self, Vector};
    use super::super::{Block, State};
    use super::Avx2x4;
    use core::arch::x86_64::*;

    /// The kernel entry: the only function compiled for AVX2.
    #[target_feature(enable = "avx2")]
    pub(super) fn compress(token: Avx2x4, states: [&mut State; 4], blocks: [&[Block]; 4]) {
        multilane::compress::<V4, 4>(token, states, blocks);
    }

    /// Four `u64` lanes. A value exists only after an [`Avx2x4`] token was
    /// presented (see the constructors in `Vector`), so every method may use
    /// AVX2 instructions.
    #[derive(Clone, Copy)]
    pub(super) struct V4(__m256i);

    /// Transposes a 4x4 matrix of `u64` (rows in, columns out).
    #[inline(always)]
    fn transpose(r: [V4; 4]) -> [V4; 4] {
        let r = [r[0].0, r[1].0, r[2].0, r[3].0];
        // SAFETY: `V4` values exist only when AVX2 is available.
        unsafe {
            let t0 = _mm256_unpacklo_epi64(r[0], r[1]);
            let t1 = _mm256_unpackhi_epi64(r[0], r[1]);
            let t2 = _mm256_unpacklo_epi64(r[2], r[3]);
            let t3 = _mm256_unpackhi_epi64(r[2], r[3]);
            [
                V4(_mm256_permute2x128_si256::<0x20>(t0, t2)),
                V4(_mm256_permute2x128_si256::<0x20>(t1, t3)),
                V4(_mm256_permute2x128_si256::<0x31>(t0, t2)),
                V4(_mm256_permute2x128_si256::<0x31>(t1, t3)),
            ]
        }
    }

    /// Loads 32 bytes from `ptr`.
    ///
    /// # Safety
    /// AVX2 must be available and `ptr` valid for reading 32 bytes.
    #[inline(always)]
    unsafe fn load(ptr: *const u8) -> V4 {
        // SAFETY: the caller's contract.
        V4(unsafe { _mm256_loadu_si256(ptr.cast()) })
    }

    /// Loads bytes `offset..offset + 32` of each of the four blocks (four
    /// big-endian words each), byte-swapped and transposed: vector `t` holds
    /// word `offset / 8 + t`.
    ///
    /// # Safety
    /// AVX2 must be available.
    #[inline(always)]
    unsafe fn load_quarter(b: &[&Block; 4], offset: usize) -> [V4; 4] {
        let rows: [&[u8; 32]; 4] = [
            b[0][offset..offset + 32].try_into().unwrap(),
            b[1][offset..offset + 32].try_into().unwrap(),
            b[2][offset..offset + 32].try_into().unwrap(),
            b[3][offset..offset + 32].try_into().unwrap(),
        ];
        // SAFETY: the caller's contract; each row is 32 readable bytes.
        unsafe {
            transpose([
                load(rows[0].as_ptr()).byte_swap(),
                load(rows[1].as_ptr()).byte_swap(),
                load(rows[2].as_ptr()).byte_swap(),
                load(rows[3].as_ptr()).byte_swap(),
            ])
        }
    }

    impl V4 {
        /// Reverses the bytes of every `u64` lane.
        #[inline(always)]
        fn byte_swap(self) -> V4 {
            // SAFETY: `V4` values exist only when AVX2 is available.
            unsafe {
                let mask = _mm256_set_epi64x(
                    0x08090a0b0c0d0e0f,
                    0x0001020304050607,
                    0x08090a0b0c0d0e0f,
                    0x0001020304050607,
                );
                V4(_mm256_shuffle_epi8(self.0, mask))
            }
        }

        /// Rotates every lane right by 8 bits with one byte shuffle.
        #[inline(always)]
        fn ror8(self) -> V4 {
            // SAFETY: `V4` values exist only when AVX2 is available.
            unsafe {
                let mask = _mm256_set_epi64x(
                    0x080f0e0d0c0b0a09,
                    0x0007060504030201,
                    0x080f0e0d0c0b0a09,
                    0x0007060504030201,
                );
                V4(_mm256_shuffle_epi8(self.0, mask))
            }
        }

        #[inline(always)]
        fn xor(self, other: V4) -> V4 {
            // SAFETY: `V4` values exist only when AVX2 is available.
            V4(unsafe { _mm256_xor_si256(self.0, other.0) })
        }

        #[inline(always)]
        fn and(self, other: V4) -> V4 {
            // SAFETY: `V4` values exist only when AVX2 is available.
            V4(unsafe { _mm256_and_si256(self.0, other.0) })
        }
    }

    /// Shifts every lane of `$x` right by `$n` bits.
    macro_rules! shr {
        ($x:expr, $n:literal) => {
            // SAFETY: `V4` values exist only when AVX2 is available.
            V4(unsafe { _mm256_srli_epi64::<$n>($x.0) })
        };
    }

    /// Shifts every lane of `$x` left by `$n` bits.
    macro_rules! shl {
        ($x:expr, $n:expr) => {
            // SAFETY: `V4` values exist only when AVX2 is available.
            V4(unsafe { _mm256_slli_epi64::<{ $n }>($x.0) })
        };
    }

    /// Rotates every lane of `$x` right by `$n` bits (two shifts; the halves
    /// do not overlap, so XOR joins them as well as OR would).
    macro_rules! ror {
        ($x:expr, $n:literal) => {
            shr!($x, $n).xor(shl!($x, 64 - $n))
        };
    }

    impl Vector<4> for V4 {
        type Token = Avx2x4;
        // The form this kernel had before the switch existed; the
        // latency-first form is not measured here yet.
        const LEAN: bool = true;

        #[inline(always)]
        fn load_states(_token: Avx2x4, states: &[&mut State; 4]) -> [V4; 8] {
            // SAFETY: the token proves AVX2; each `states[i]` is 64 readable
            // bytes, read as two halves of 32.
            let (lo, hi) = unsafe {
                (
                    transpose([
                        load(states[0].as_ptr().cast()),
                        load(states[1].as_ptr().cast()),
                        load(states[2].as_ptr().cast()),
                        load(states[3].as_ptr().cast()),
                    ]),
                    transpose([
                        load(states[0][4..].as_ptr().cast()),
                        load(states[1][4..].as_ptr().cast()),
                        load(states[2][4..].as_ptr().cast()),
                        load(states[3][4..].as_ptr().cast()),
                    ]),
                )
            };
            [lo[0], lo[1], lo[2], lo[3], hi[0], hi[1], hi[2], hi[3]]
        }

        #[inline(always)]
        fn store_states(words: [V4; 8], states: &mut [&mut State; 4]) {
            let lo = transpose([words[0], words[1], words[2], words[3]]);
            let hi = transpose([words[4], words[5], words[6], words[7]]);
            for lane in 0..4 {
                let s = &mut *states[lane];
                // SAFETY: `V4` values exist only when AVX2 is available; the
                // stores write the two halves of the 64 bytes of `*s`.
                unsafe {
                    _mm256_storeu_si256(s.as_mut_ptr().cast(), lo[lane].0);
                    _mm256_storeu_si256(s[4..].as_mut_ptr().cast(), hi[lane].0);
                }
            }
        }

        #[inline(always)]
        fn load_block(_token: Avx2x4, blocks: [&Block; 4]) -> [V4; 16] {
            // SAFETY: the token proves AVX2.
            let q = unsafe {
                [
                    load_quarter(&blocks, 0),
                    load_quarter(&blocks, 32),
                    load_quarter(&blocks, 64),
                    load_quarter(&blocks, 96),
                ]
            };
            [
                q[0][0], q[0][1], q[0][2], q[0][3], q[1][0], q[1][1], q[1][2], q[1][3], q[2][0],
                q[2][1], q[2][2], q[2][3], q[3][0], q[3][1], q[3][2], q[3][3],
            ]
        }

        #[inline(always)]
        fn opaque(self) -> V4 {
            // SAFETY: `V4` values exist only when AVX2 is available.
            V4(unsafe { opaque(self.0) })
        }

        #[inline(always)]
        fn sub(self, other: V4) -> V4 {
            // SAFETY: `V4` values exist only when AVX2 is available.
            V4(unsafe { _mm256_sub_epi64(self.0, other.0) })
        }

        #[inline(always)]
        fn add(self, other: V4) -> V4 {
            // SAFETY: `V4` values exist only when AVX2 is available.
            V4(unsafe { _mm256_add_epi64(self.0, other.0) })
        }

        #[inline(always)]
        fn add_const(self, k: u64) -> V4 {
            // SAFETY: `V4` values exist only when AVX2 is available.
            V4(unsafe { _mm256_add_epi64(self.0, _mm256_set1_epi64x(k as i64)) })
        }

        #[inline(always)]
        fn big_sigma0(self) -> V4 {
            ror!(self, 28).xor(ror!(self, 34)).xor(ror!(self, 39))
        }

        #[inline(always)]
        fn big_sigma1(self) -> V4 {
            ror!(self, 14).xor(ror!(self, 18)).xor(ror!(self, 41))
        }

        #[inline(always)]
        fn small_sigma0(self) -> V4 {
            ror!(self, 1).xor(self.ror8()).xor(shr!(self, 7))
        }

        #[inline(always)]
        fn small_sigma1(self) -> V4 {
            ror!(self, 19).xor(ror!(self, 61)).xor(shr!(self, 6))
        }

        #[inline(always)]
        fn ch(e: V4, f: V4, g: V4) -> V4 {
            // ((f ^ g) & e) ^ g: f where e is set, g elsewhere.
            f.xor(g).and(e).xor(g)
        }

        #[inline(always)]
        fn maj(a: V4, b: V4, c: V4) -> V4 {
            // ((a ^ b) & (b ^ c)) ^ b: b if a == b, else c. The `b ^ c` here
            // is the previous round's `a ^ b`, which the compiler reuses.
            a.xor(b).and(b.xor(c)).xor(b)
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
}
