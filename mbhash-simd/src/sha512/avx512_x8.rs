//! SHA-512, AVX-512, eight lanes of `__m512i`.
//!
//! Each vector holds one word of eight messages (word-sliced). Per block the
//! eight lanes' 128-byte blocks are loaded unaligned, transposed with two 8x8
//! transposes of `u64` and byte-swapped; `Ch`, `Maj` and the three-way XORs
//! of the sigma functions are single `vpternlogq` instructions, rotations are
//! native `vprorq`. The rounds themselves live in the shared `multilane`
//! module, in either of its two forms: the latency-first one (shorter `e`
//! and `a` chains, one addition more per round: 16% faster on AMD Zen 5 at
//! 128 KiB x 16) or the lean one (fewer instructions: 2% faster on an Intel
//! Xeon of the Sapphire Rapids class). The token carries the form; the
//! engine measures both on the running CPU and keeps the faster
//! ([`Avx512x8::with_lean_rounds`]).

use super::{Block, Compress, State};

/// Proof that the CPU supports this kernel: AVX-512 F + BW + VL; it also
/// records the form of the rounds.
#[cfg(target_arch = "x86_64")]
#[derive(Clone, Copy, Debug)]
pub struct Avx512x8 {
    lean: bool,
}

/// Proof that the CPU supports this kernel (never, on this target).
#[cfg(not(target_arch = "x86_64"))]
#[derive(Clone, Copy, Debug)]
pub enum Avx512x8 {}

impl Avx512x8 {
    /// Lanes per call.
    pub const LANES: usize = 8;

    /// Detects the CPU features; `None` when they are missing or hidden.
    /// The rounds are in the latency-first form.
    pub fn new() -> Option<Self> {
        #[cfg(target_arch = "x86_64")]
        if crate::cpu::available(crate::cpu::Feature::Avx512) {
            return Some(Avx512x8 { lean: false });
        }
        None
    }

    /// The same kernel with its rounds in the lean form (`true`) or the
    /// latency-first one (`false`).
    pub fn with_lean_rounds(self, lean: bool) -> Self {
        #[cfg(target_arch = "x86_64")]
        return Avx512x8 { lean };
        #[cfg(not(target_arch = "x86_64"))]
        match (self, lean) {}
    }

    /// True if the rounds are in the lean form.
    pub fn uses_lean_rounds(self) -> bool {
        #[cfg(target_arch = "x86_64")]
        return self.lean;
        #[cfg(not(target_arch = "x86_64"))]
        match self {}
    }
}

impl Compress<8> for Avx512x8 {
    #[cfg(target_arch = "x86_64")]
    fn compress(self, states: [&mut State; 8], blocks: [&[Block]; 8]) {
        // SAFETY: `self` exists, so `Avx512x8::new` found AVX-512 F + BW + VL,
        // the features `x86::compress` is compiled for.
        unsafe {
            if self.lean {
                x86::compress::<true>(self, states, blocks)
            } else {
                x86::compress::<false>(self, states, blocks)
            }
        }
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

    /// The kernel entry, its rounds in the lean form if `LEAN`: the only
    /// function compiled for AVX-512.
    #[target_feature(enable = "avx512f,avx512bw,avx512vl")]
    pub(super) fn compress<const LEAN: bool>(
        token: Avx512x8,
        states: [&mut State; 8],
        blocks: [&[Block]; 8],
    ) {
        multilane::compress::<V8<LEAN>, 8>(token, states, blocks);
    }

    /// Eight `u64` lanes; `LEAN` picks the form of the rounds. A value
    /// exists only after an [`Avx512x8`] token was presented (see the
    /// constructors in `Vector`), so every method may use AVX-512 F + BW +
    /// VL instructions.
    #[derive(Clone, Copy)]
    pub(super) struct V8<const LEAN: bool>(__m512i);

    /// Transposes an 8x8 matrix of `u64` (rows in, columns out).
    #[inline(always)]
    fn transpose<const L: bool>(r: [V8<L>; 8]) -> [V8<L>; 8] {
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
    unsafe fn load<const L: bool>(ptr: *const u8) -> V8<L> {
        // SAFETY: the caller's contract; `loadu` has no alignment requirement.
        V8(unsafe { _mm512_loadu_si512(ptr.cast()) })
    }

    /// Loads bytes `offset..offset + 64` of `block` (eight big-endian words),
    /// byte-swapped.
    ///
    /// # Safety
    /// AVX-512 F + BW must be available.
    #[inline(always)]
    unsafe fn load_row<const L: bool>(block: &Block, offset: usize) -> V8<L> {
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
    unsafe fn load_half<const L: bool>(b: &[&Block; 8], offset: usize) -> [V8<L>; 8] {
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

    impl<const L: bool> V8<L> {
        /// Reverses the bytes of every `u64` lane.
        #[inline(always)]
        fn byte_swap(self) -> V8<L> {
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
        fn xor3(a: V8<L>, b: V8<L>, c: V8<L>) -> V8<L> {
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

    impl<const L: bool> Vector<8> for V8<L> {
        type Token = Avx512x8;
        const LEAN: bool = L;

        #[inline(always)]
        fn load_states(_token: Avx512x8, states: &[&mut State; 8]) -> [V8<L>; 8] {
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
        fn store_states(words: [V8<L>; 8], states: &mut [&mut State; 8]) {
            let rows = transpose(words);
            for lane in 0..8 {
                // SAFETY: `V8` values exist only when AVX-512 F is available;
                // the store writes the 64 bytes of `*states[lane]` (unaligned
                // is fine).
                unsafe { _mm512_storeu_si512(states[lane].as_mut_ptr().cast(), rows[lane].0) }
            }
        }

        #[inline(always)]
        fn load_block(_token: Avx512x8, blocks: [&Block; 8]) -> [V8<L>; 16] {
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
        fn opaque(self) -> V8<L> {
            // SAFETY: `V8` values exist only when AVX-512 F is available.
            V8(unsafe { opaque(self.0) })
        }

        #[inline(always)]
        fn sub(self, other: V8<L>) -> V8<L> {
            // SAFETY: `V8` values exist only when AVX-512 F is available.
            V8(unsafe { _mm512_sub_epi64(self.0, other.0) })
        }

        #[inline(always)]
        fn add(self, other: V8<L>) -> V8<L> {
            // SAFETY: `V8` values exist only when AVX-512 F is available.
            V8(unsafe { _mm512_add_epi64(self.0, other.0) })
        }

        #[inline(always)]
        fn add_const(self, k: u64) -> V8<L> {
            // SAFETY: `V8` values exist only when AVX-512 F is available.
            V8(unsafe { _mm512_add_epi64(self.0, _mm512_set1_epi64(k as i64)) })
        }

        #[inline(always)]
        fn big_sigma0(self) -> V8<L> {
            V8::xor3(ror!(self, 28), ror!(self, 34), ror!(self, 39))
        }

        #[inline(always)]
        fn big_sigma1(self) -> V8<L> {
            V8::xor3(ror!(self, 14), ror!(self, 18), ror!(self, 41))
        }

        #[inline(always)]
        fn small_sigma0(self) -> V8<L> {
            V8::xor3(ror!(self, 1), ror!(self, 8), shr!(self, 7))
        }

        #[inline(always)]
        fn small_sigma1(self) -> V8<L> {
            V8::xor3(ror!(self, 19), ror!(self, 61), shr!(self, 6))
        }

        #[inline(always)]
        fn ch(e: V8<L>, f: V8<L>, g: V8<L>) -> V8<L> {
            // 0xca: e ? f : g.
            // SAFETY: `V8` values exist only when AVX-512 F is available.
            V8(unsafe { _mm512_ternarylogic_epi64::<0xca>(e.0, f.0, g.0) })
        }

        #[inline(always)]
        fn maj(a: V8<L>, b: V8<L>, c: V8<L>) -> V8<L> {
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
