//! SHA-256 with the SHA extensions (SHA-NI): one lane, or several
//! independent lanes interleaved.
//!
//! `sha256rnds2` runs two rounds, and each call depends on the one before, so
//! one stream is bound by that instruction's latency. Interleaving the
//! instructions of two (or four) independent streams lets their dependency
//! chains overlap and fills the execution unit.
//!
//! The state lives in the `ABEF`/`CDGH` register layout that `sha256rnds2`
//! expects for the whole call; it is converted from and back to the FIPS word
//! order once per call, not once per block.

use super::{Block, Compress, State};

/// Proof that the CPU supports the SHA extensions with SSSE3 and SSE4.1.
#[cfg(target_arch = "x86_64")]
#[derive(Clone, Copy, Debug)]
pub struct ShaNi {
    _private: (),
}

/// Proof that the CPU supports the SHA extensions (never, on this target).
#[cfg(not(target_arch = "x86_64"))]
#[derive(Clone, Copy, Debug)]
pub enum ShaNi {}

impl ShaNi {
    /// Detects the CPU features; `None` when they are missing or hidden.
    #[cfg(target_arch = "x86_64")]
    pub fn new() -> Option<Self> {
        crate::cpu::available(crate::cpu::Feature::ShaNi).then_some(ShaNi { _private: () })
    }

    /// Detects the CPU features; `None` when they are missing or hidden.
    #[cfg(not(target_arch = "x86_64"))]
    pub fn new() -> Option<Self> {
        None
    }

    /// Compresses `blocks` into `state`: the one-lane kernel, for callers
    /// that have a single stream (the same code as `Compress<1>`).
    pub fn compress1(self, state: &mut State, blocks: &[Block]) {
        self.lanes([state], [blocks]);
    }

    /// Runs the kernel on `N` interleaved lanes.
    #[inline(always)]
    fn lanes<const N: usize>(self, states: [&mut State; N], blocks: [&[Block]; N]) {
        #[cfg(target_arch = "x86_64")]
        {
            let ShaNi { _private: () } = self;
            // SAFETY: the token exists only if `ShaNi::new` found every
            // feature the kernel enables (sha, sse2, ssse3, sse4.1).
            unsafe { x86::compress(states, blocks) }
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            let _ = (states, blocks);
            match self {}
        }
    }
}

impl Compress<1> for ShaNi {
    fn compress(self, states: [&mut State; 1], blocks: [&[Block]; 1]) {
        self.lanes(states, blocks);
    }
}

impl Compress<2> for ShaNi {
    fn compress(self, states: [&mut State; 2], blocks: [&[Block]; 2]) {
        self.lanes(states, blocks);
    }
}

impl Compress<4> for ShaNi {
    fn compress(self, states: [&mut State; 4], blocks: [&[Block]; 4]) {
        self.lanes(states, blocks);
    }
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use core::arch::x86_64::*;

    use super::super::{Block, K, State, common_len};

    /// The round constants, four per vector (lane 0 holds the first).
    // SAFETY: `[u32; 64]` and `[__m128i; 16]` have the same size, and every
    // bit pattern is a valid `__m128i`.
    const KV: [__m128i; 16] = unsafe { core::mem::transmute::<[u32; 64], [__m128i; 16]>(K) };

    /// Compresses `L` independent lanes, their instructions interleaved.
    ///
    /// # Panics
    /// If the lanes do not all hold the same number of blocks.
    #[target_feature(enable = "sha,sse2,ssse3,sse4.1")]
    pub(super) fn compress<const L: usize>(states: [&mut State; L], blocks: [&[Block]; L]) {
        let n = common_len(&blocks);
        if n == 0 {
            return;
        }
        // Re-slice so that the optimiser knows every lane has `n` blocks.
        let mut blocks = blocks;
        for b in &mut blocks {
            *b = &b[..n];
        }

        // Big-endian words to little-endian 32-bit lanes.
        let bswap = _mm_set_epi64x(0x0c0d_0e0f_0809_0a0b, 0x0405_0607_0001_0203);

        // Two rounds per `sha256rnds2`, four per quad: the first consumes the
        // low two words of `wk`, the second the high two.
        let quad = |abef: &mut [__m128i; L], cdgh: &mut [__m128i; L], w: &[__m128i; L], q: usize| {
            let wk: [__m128i; L] = core::array::from_fn(|l| _mm_add_epi32(w[l], KV[q]));
            for l in 0..L {
                cdgh[l] = _mm_sha256rnds2_epu32(cdgh[l], abef[l], wk[l]);
            }
            for l in 0..L {
                abef[l] = _mm_sha256rnds2_epu32(abef[l], cdgh[l], _mm_shuffle_epi32(wk[l], 0x0e));
            }
        };

        // W[t..t+4] from W[t-16..t]: msg1 adds sigma0, alignr fetches
        // W[t-7..t-3], msg2 adds sigma1 (which needs the words just made).
        let schedule = |w: &[[__m128i; L]; 4]| -> [__m128i; L] {
            core::array::from_fn(|l| {
                let t = _mm_sha256msg1_epu32(w[0][l], w[1][l]);
                let t = _mm_add_epi32(t, _mm_alignr_epi8(w[3][l], w[2][l], 4));
                _mm_sha256msg2_epu32(t, w[3][l])
            })
        };

        // FIPS order `a..h` to the `(ABEF, CDGH)` pair (`A` in the top lane).
        let load_state = |state: &State| {
            let p = state.as_ptr().cast::<__m128i>();
            // SAFETY: the state is 32 bytes: unaligned 16-byte loads at 0 and
            // 16 stay inside it.
            let (dcba, hgfe) = unsafe { (_mm_loadu_si128(p), _mm_loadu_si128(p.add(1))) };
            let cdab = _mm_shuffle_epi32(dcba, 0xb1);
            let efgh = _mm_shuffle_epi32(hgfe, 0x1b);
            (_mm_alignr_epi8(cdab, efgh, 8), _mm_blend_epi16(efgh, cdab, 0xf0))
        };

        // And back.
        let store_state = |state: &mut State, abef: __m128i, cdgh: __m128i| {
            let feba = _mm_shuffle_epi32(abef, 0x1b);
            let dchg = _mm_shuffle_epi32(cdgh, 0xb1);
            let dcba = _mm_blend_epi16(feba, dchg, 0xf0);
            let hgfe = _mm_alignr_epi8(dchg, feba, 8);
            let p = state.as_mut_ptr().cast::<__m128i>();
            // SAFETY: the state is 32 bytes: unaligned 16-byte stores at 0
            // and 16 stay inside it.
            unsafe {
                _mm_storeu_si128(p, dcba);
                _mm_storeu_si128(p.add(1), hgfe);
            }
        };

        let mut abef = [_mm_setzero_si128(); L];
        let mut cdgh = [_mm_setzero_si128(); L];
        for l in 0..L {
            (abef[l], cdgh[l]) = load_state(states[l]);
        }

        for i in 0..n {
            let (abef0, cdgh0) = (abef, cdgh);
            // w[j][l]: message words 4j..4j+4 of lane l (a sliding window).
            let mut w: [[__m128i; L]; 4] = core::array::from_fn(|j| {
                core::array::from_fn(|l| {
                    let p = blocks[l][i].as_ptr().cast::<__m128i>();
                    // SAFETY: a block is 64 bytes, so the 16 bytes at `16 * j`
                    // (j < 4) are inside it; `loadu` needs no alignment.
                    _mm_shuffle_epi8(unsafe { _mm_loadu_si128(p.add(j)) }, bswap)
                })
            });
            for (q, wq) in w.iter().enumerate() {
                quad(&mut abef, &mut cdgh, wq, q);
            }
            for q in 4..16 {
                let next = schedule(&w);
                w = [w[1], w[2], w[3], next];
                quad(&mut abef, &mut cdgh, &w[3], q);
            }
            for l in 0..L {
                abef[l] = _mm_add_epi32(abef[l], abef0[l]);
                cdgh[l] = _mm_add_epi32(cdgh[l], cdgh0[l]);
            }
        }

        for (l, state) in states.into_iter().enumerate() {
            store_state(state, abef[l], cdgh[l]);
        }
    }
}
