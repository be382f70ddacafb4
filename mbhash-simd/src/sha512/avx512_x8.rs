//! SHA-512, AVX-512, eight lanes of `__m512i`.
//!
//! Each vector holds one word of eight messages (word-sliced). Per block the
//! eight lanes' 128-byte blocks are loaded unaligned, transposed with two 8x8
//! transposes of `u64` and byte-swapped; `Ch`, `Maj` and the three-way XORs
//! of the sigma functions are single `vpternlogq` instructions, rotations are
//! native `vprorq`. The rounds themselves live in the shared `multilane`
//! module.

use super::{Block, Compress, State};

/// Proof that the CPU supports this kernel: AVX-512 F + BW + VL.
#[cfg(target_arch = "x86_64")]
#[derive(Clone, Copy, Debug)]
pub struct Avx512x8 {
    _private: (),
}

/// Proof that the CPU supports this kernel (never, on this target).
#[cfg(not(target_arch = "x86_64"))]
#[derive(Clone, Copy, Debug)]
pub enum Avx512x8 {}

impl Avx512x8 {
    /// Lanes per call.
    pub const LANES: usize = 8;

    /// Detects the CPU features; `None` when they are missing or hidden.
    pub fn new() -> Option<Self> {
        #[cfg(target_arch = "x86_64")]
        if crate::cpu::available(crate::cpu::Feature::Avx512) {
            return Some(Avx512x8 { _private: () });
        }
        None
    }
}

impl Compress<8> for Avx512x8 {
    #[cfg(target_arch = "x86_64")]
    fn compress(self, states: [&mut State; 8], blocks: [&[Block]; 8]) {
        // SAFETY: `self` exists, so `Avx512x8::new` found AVX-512 F + BW + VL,
        // the features `x86::compress` is compiled for.
        unsafe { x86::compress(self, states, blocks) }
    }

    #[cfg(not(target_arch = "x86_64"))]
    fn compress(self, _states: [&mut State; 8], _blocks: [&[Block]; 8]) {
        match self {}
    }
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use super::super::multilane::{self, Vector};
    use super::super::{Block, State};
    use super::Avx512x8;
    use core::arch::x86_64::*;

    /// The kernel entry: the only function compiled for AVX-512.
    #[target_feature(enable = "avx512f,avx512bw,avx512vl")]
    pub(super) fn compress(token: Avx512x8, states: [&mut State; 8], blocks: [&[Block]; 8]) {
        multilane::compress::<V8, 8>(token, states, blocks);
    }

    /// Eight `u64` lanes. A value exists only after an [`Avx512x8`] token
    /// was presented (see the constructors in `Vector`), so every method may
    /// use AVX-512 F + BW + VL instructions.
    #[derive(Clone, Copy)]
    pub(super) struct V8(__m512i);

    /// Transposes an 8x8 matrix of `u64` (rows in, columns out).
    #[inline(always)]
    fn transpose(r: [V8; 8]) -> [V8; 8] {
        let r = [
            r[0].0, r[1].0, r[2].0, r[3].0, r[4].0, r[5].0, r[6].0, r[7].0,
        ];
        // SAFETY: `V8` values exist only when AVX-512 F is available.
        unsafe {
            let t = [
                _mm512_unpacklo_epi64(r[0], r[1]),
                _mm512_unpackhi_epi64(r[0], r[1]),
                _mm512_unpacklo_epi64(r[2], r[3]),
                _mm512_unpackhi_epi64(r[2], r[3]),
                _mm512_unpacklo_epi64(r[4], r[5]),
                _mm512_unpackhi_epi64(r[4], r[5]),
                _mm512_unpacklo_epi64(r[6], r[7]),
                _mm512_unpackhi_epi64(r[6], r[7]),
            ];
            // 0x88 picks 128-bit chunks [a0, a2, b0, b2]; 0xdd [a1, a3, b1, b3].
            let u = [
                _mm512_shuffle_i64x2::<0x88>(t[0], t[2]),
                _mm512_shuffle_i64x2::<0xdd>(t[0], t[2]),
                _mm512_shuffle_i64x2::<0x88>(t[1], t[3]),
                _mm512_shuffle_i64x2::<0xdd>(t[1], t[3]),
                _mm512_shuffle_i64x2::<0x88>(t[4], t[6]),
                _mm512_shuffle_i64x2::<0xdd>(t[4], t[6]),
                _mm512_shuffle_i64x2::<0x88>(t[5], t[7]),
                _mm512_shuffle_i64x2::<0xdd>(t[5], t[7]),
            ];
            [
                V8(_mm512_shuffle_i64x2::<0x88>(u[0], u[4])),
                V8(_mm512_shuffle_i64x2::<0x88>(u[2], u[6])),
                V8(_mm512_shuffle_i64x2::<0x88>(u[1], u[5])),
                V8(_mm512_shuffle_i64x2::<0x88>(u[3], u[7])),
                V8(_mm512_shuffle_i64x2::<0xdd>(u[0], u[4])),
                V8(_mm512_shuffle_i64x2::<0xdd>(u[2], u[6])),
                V8(_mm512_shuffle_i64x2::<0xdd>(u[1], u[5])),
                V8(_mm512_shuffle_i64x2::<0xdd>(u[3], u[7])),
            ]
        }
    }

    /// Loads 64 bytes from `ptr`.
    ///
    /// # Safety
    /// AVX-512 F must be available and `ptr` valid for reading 64 bytes.
    #[inline(always)]
    unsafe fn load(ptr: *const u8) -> V8 {
        // SAFETY: the caller's contract; `loadu` has no alignment requirement.
        V8(unsafe { _mm512_loadu_si512(ptr.cast()) })
    }

    /// Loads bytes `offset..offset + 64` of `block` (eight big-endian words),
    /// byte-swapped.
    ///
    /// # Safety
    /// AVX-512 F + BW must be available.
    #[inline(always)]
    unsafe fn load_row(block: &Block, offset: usize) -> V8 {
        let bytes: &[u8; 64] = block[offset..offset + 64].try_into().unwrap();
        // SAFETY: the caller's contract; `bytes` is 64 readable bytes.
        unsafe { load(bytes.as_ptr()) }.byte_swap()
    }

    /// Loads bytes `offset..offset + 64` of each of the eight blocks,
    /// byte-swapped and transposed: vector `t` holds word `offset / 8 + t`.
    ///
    /// # Safety
    /// AVX-512 F + BW must be available.
    #[inline(always)]
    unsafe fn load_half(b: &[&Block; 8], offset: usize) -> [V8; 8] {
        // SAFETY: the caller's contract.
        unsafe {
            transpose([
                load_row(b[0], offset),
                load_row(b[1], offset),
                load_row(b[2], offset),
                load_row(b[3], offset),
                load_row(b[4], offset),
                load_row(b[5], offset),
                load_row(b[6], offset),
                load_row(b[7], offset),
            ])
        }
    }

    impl V8 {
        /// Reverses the bytes of every `u64` lane.
        #[inline(always)]
        fn byte_swap(self) -> V8 {
            // SAFETY: `V8` values exist only when AVX-512 F + BW are available.
            unsafe {
                let mask = _mm512_set_epi64(
                    0x08090a0b0c0d0e0f,
                    0x0001020304050607,
                    0x08090a0b0c0d0e0f,
                    0x0001020304050607,
                    0x08090a0b0c0d0e0f,
                    0x0001020304050607,
                    0x08090a0b0c0d0e0f,
                    0x0001020304050607,
                );
                V8(_mm512_shuffle_epi8(self.0, mask))
            }
        }

        /// `a ^ b ^ c`.
        #[inline(always)]
        fn xor3(a: V8, b: V8, c: V8) -> V8 {
            // SAFETY: `V8` values exist only when AVX-512 F is available.
            V8(unsafe { _mm512_ternarylogic_epi64::<0x96>(a.0, b.0, c.0) })
        }
    }

    /// Rotates every lane of `$x` right by `$n` bits.
    macro_rules! ror {
        ($x:expr, $n:literal) => {
            // SAFETY: `V8` values exist only when AVX-512 F is available.
            V8(unsafe { _mm512_ror_epi64::<$n>($x.0) })
        };
    }

    /// Shifts every lane of `$x` right by `$n` bits.
    macro_rules! shr {
        ($x:expr, $n:literal) => {
            // SAFETY: `V8` values exist only when AVX-512 F is available.
            V8(unsafe { _mm512_srli_epi64::<$n>($x.0) })
        };
    }

    impl Vector<8> for V8 {
        type Token = Avx512x8;
        // On AMD Zen 5 (EPYC) the rounds are bound by the `e` chain: the
        // latency-first form measured 16% faster than the lean one at
        // 128 KiB x 16 and 6-8% at x 64.
        const LEAN: bool = false;

        #[inline(always)]
        fn load_states(_token: Avx512x8, states: &[&mut State; 8]) -> [V8; 8] {
            // SAFETY: the token proves AVX-512 F; each `states[i]` is 64
            // readable bytes.
            unsafe {
                transpose([
                    load(states[0].as_ptr().cast()),
                    load(states[1].as_ptr().cast()),
                    load(states[2].as_ptr().cast()),
                    load(states[3].as_ptr().cast()),
                    load(states[4].as_ptr().cast()),
                    load(states[5].as_ptr().cast()),
                    load(states[6].as_ptr().cast()),
                    load(states[7].as_ptr().cast()),
                ])
            }
        }

        #[inline(always)]
        fn store_states(words: [V8; 8], states: &mut [&mut State; 8]) {
            let rows = transpose(words);
            for lane in 0..8 {
                // SAFETY: `V8` values exist only when AVX-512 F is available;
                // the store writes the 64 bytes of `*states[lane]` (unaligned
                // is fine).
                unsafe { _mm512_storeu_si512(states[lane].as_mut_ptr().cast(), rows[lane].0) }
            }
        }

        #[inline(always)]
        fn load_block(_token: Avx512x8, blocks: [&Block; 8]) -> [V8; 16] {
            // SAFETY: the token proves AVX-512 F + BW; every pointer is to a
            // whole 128-byte block.
            let lo = unsafe { load_half(&blocks, 0) };
            // SAFETY: as above.
            let hi = unsafe { load_half(&blocks, 64) };
            [
                lo[0], lo[1], lo[2], lo[3], lo[4], lo[5], lo[6], lo[7], hi[0], hi[1], hi[2], hi[3],
                hi[4], hi[5], hi[6], hi[7],
            ]
        }

        #[inline(always)]
        fn opaque(self) -> V8 {
            // SAFETY: `V8` values exist only when AVX-512 F is available.
            V8(unsafe { opaque(self.0) })
        }

        #[inline(always)]
        fn sub(self, other: V8) -> V8 {
            // SAFETY: `V8` values exist only when AVX-512 F is available.
            V8(unsafe { _mm512_sub_epi64(self.0, other.0) })
        }

        #[inline(always)]
        fn add(self, other: V8) -> V8 {
            // SAFETY: `V8` values exist only when AVX-512 F is available.
            V8(unsafe { _mm512_add_epi64(self.0, other.0) })
        }

        #[inline(always)]
        fn add_const(self, k: u64) -> V8 {
            // SAFETY: `V8` values exist only when AVX-512 F is available.
            V8(unsafe { _mm512_add_epi64(self.0, _mm512_set1_epi64(k as i64)) })
        }

        #[inline(always)]
        fn big_sigma0(self) -> V8 {
            V8::xor3(ror!(self, 28), ror!(self, 34), ror!(self, 39))
        }

        #[inline(always)]
        fn big_sigma1(self) -> V8 {
            V8::xor3(ror!(self, 14), ror!(self, 18), ror!(self, 41))
        }

        #[inline(always)]
        fn small_sigma0(self) -> V8 {
            V8::xor3(ror!(self, 1), ror!(self, 8), shr!(self, 7))
        }

        #[inline(always)]
        fn small_sigma1(self) -> V8 {
            V8::xor3(ror!(self, 19), ror!(self, 61), shr!(self, 6))
        }

        #[inline(always)]
        fn ch(e: V8, f: V8, g: V8) -> V8 {
            // 0xca: e ? f : g.
            // SAFETY: `V8` values exist only when AVX-512 F is available.
            V8(unsafe { _mm512_ternarylogic_epi64::<0xca>(e.0, f.0, g.0) })
        }

        #[inline(always)]
        fn maj(a: V8, b: V8, c: V8) -> V8 {
            // 0xe8: at least two of a, b, c.
            // SAFETY: `V8` values exist only when AVX-512 F is available.
            V8(unsafe { _mm512_ternarylogic_epi64::<0xe8>(a.0, b.0, c.0) })
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
}
