//! SHA-256 with the SHA extensions (SHA-NI): one lane, or two or four
//! independent lanes interleaved.
//!
//! Each `sha256rnds2` (two rounds) depends on the one before, so one stream
//! is bound by that instruction's latency: 32 of them per block. Interleaving
//! independent streams overlaps their dependency chains until the
//! instruction's throughput is the limit instead.
//!
//! Measured on a Zen 5 CPU (`sha256rnds2`: latency 4 cycles, one every
//! 2 cycles), per 64-byte block and lane, long inputs: one lane about 128
//! cycles (the latency bound, the same as the `sha2` crate), two lanes about
//! 83, four lanes about 70 (the throughput bound is 64). Two lanes stay above
//! that bound because their chains have no slack: any other instruction
//! scheduled on the SHA unit's port at the wrong cycle delays one of them.
//!
//! The state lives in the `ABEF`/`CDGH` register layout that `sha256rnds2`
//! expects for the whole call; it is converted from and back to the FIPS word
//! order once per call, not once per block.

use super::{Block, Compress, State};

/// Proof that the CPU supports this kernel: the SHA extensions with SSSE3 and
/// SSE4.1.
#[cfg(target_arch = "x86_64")]
#[derive(Clone, Copy, Debug)]
pub struct ShaNi {
    _private: (),
}

/// Proof that the CPU supports this kernel (never, on this target).
#[cfg(not(target_arch = "x86_64"))]
#[derive(Clone, Copy, Debug)]
pub enum ShaNi {}

impl ShaNi {
    /// Detects the CPU features; `None` when they are missing or hidden.
    pub fn new() -> Option<Self> {
        #[cfg(target_arch = "x86_64")]
        if crate::cpu::available(crate::cpu::Feature::ShaNi) {
            return Some(ShaNi { _private: () });
        }
        None
    }

    /// Compresses `blocks` into `state`: the one-lane kernel, for callers
    /// that have a single stream (the same code as `Compress<1>`).
    ///
    /// With no blocks the state is unchanged.
    pub fn compress1(self, state: &mut State, blocks: &[Block]) {
        self.lanes([state], [blocks]);
    }

    /// Runs the kernel on `N` interleaved lanes.
    #[inline(always)]
    fn lanes<const N: usize>(self, states: [&mut State; N], blocks: [&[Block]; N]) {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: `self` exists, so `ShaNi::new` found SHA, SSSE3 and
        // SSE4.1, the features `x86::compress` is compiled for.
        unsafe {
            x86::compress(self, states, blocks)
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
    use super::ShaNi;

    /// The round constants, four per vector (lane 0 holds the first).
    // SAFETY: `[u32; 64]` and `[__m128i; 16]` have the same size, and every
    // bit pattern is a valid `__m128i`.
    const KV: [__m128i; 16] = unsafe { core::mem::transmute::<[u32; 64], [__m128i; 16]>(K) };

    /// Compresses `L` independent lanes, their instructions interleaved.
    ///
    /// # Panics
    /// If the lanes do not all hold the same number of blocks.
    #[target_feature(enable = "sha,sse2,ssse3,sse4.1")]
    pub(super) fn compress<const L: usize>(
        _token: ShaNi,
        states: [&mut State; L],
        blocks: [&[Block]; L],
    ) {
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

        // Rounds 4q..4q + 4 of one lane, `w` holding W[4q..4q + 4]: each
        // `sha256rnds2` runs two rounds on the low two words of its third
        // operand.
        let quad = |abef: &mut __m128i, cdgh: &mut __m128i, w: __m128i, q: usize| {
            let wk = _mm_add_epi32(w, KV[q]);
            *cdgh = _mm_sha256rnds2_epu32(*cdgh, *abef, wk);
            *abef = _mm_sha256rnds2_epu32(*abef, *cdgh, _mm_shuffle_epi32(wk, 0x0e));
        };

        // The same for every lane, lane after lane.
        let quads =
            |abef: &mut [__m128i; L], cdgh: &mut [__m128i; L], w: &[__m128i; L], q: usize| {
                for l in 0..L {
                    quad(&mut abef[l], &mut cdgh[l], w[l], q);
                }
            };

        // W[t..t + 4] from w0..w3 = W[t - 16..t]: msg1 adds sigma0 of
        // W[t - 15..t - 11], alignr brings W[t - 7..t - 3], and msg2 adds
        // sigma1 of W[t - 2..t + 2] (two of which it has just made).
        let schedule = |w0: __m128i, w1: __m128i, w2: __m128i, w3: __m128i| {
            let t = _mm_sha256msg1_epu32(w0, w1);
            let t = _mm_add_epi32(t, _mm_alignr_epi8(w3, w2, 4));
            _mm_sha256msg2_epu32(t, w3)
        };

        // FIPS order `a..h` to the `(ABEF, CDGH)` pair (`A` in the top lane).
        let load_state = |state: &State| {
            let p = state.as_ptr().cast::<__m128i>();
            // SAFETY: the state is 32 bytes: unaligned 16-byte loads at 0 and
            // 16 stay inside it.
            let (dcba, hgfe) = unsafe { (_mm_loadu_si128(p), _mm_loadu_si128(p.add(1))) };
            let cdab = _mm_shuffle_epi32(dcba, 0xb1);
            let efgh = _mm_shuffle_epi32(hgfe, 0x1b);
            (
                _mm_alignr_epi8(cdab, efgh, 8),
                _mm_blend_epi16(efgh, cdab, 0xf0),
            )
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

        #[expect(
            clippy::needless_range_loop,
            reason = "block i of every lane, not one slice"
        )]
        for i in 0..n {
            let (abef0, cdgh0) = (abef, cdgh);
            // w[j][l]: four message words of lane l, W[4j..4j + 4] at first.
            let mut w: [[__m128i; L]; 4] = core::array::from_fn(|j| {
                core::array::from_fn(|l| {
                    let p = blocks[l][i].as_ptr().cast::<__m128i>();
                    // SAFETY: a block is 64 bytes, so the 16 bytes at `16 * j`
                    // (j < 4) are inside it; `loadu` needs no alignment.
                    _mm_shuffle_epi8(unsafe { _mm_loadu_si128(p.add(j)) }, bswap)
                })
            });
            if L <= 2 {
                // The window slides through registers: after the shift,
                // w[3] holds the newest four words.
                for (q, wq) in w.iter().enumerate() {
                    quads(&mut abef, &mut cdgh, wq, q);
                }
                for q in 4..16 {
                    let next =
                        core::array::from_fn(|l| schedule(w[0][l], w[1][l], w[2][l], w[3][l]));
                    w = [w[1], w[2], w[3], next];
                    quads(&mut abef, &mut cdgh, &w[3], q);
                }
            } else {
                // Four lanes need sixteen window vectors, more than the
                // registers left next to the eight state vectors. A ring
                // indexed modulo 4 stays in memory (only the newest vector is
                // in a register), which measured faster than letting the
                // register allocator spill a sliding window. Each lane
                // extends its schedule right before its rounds.
                for q in 0..16 {
                    for l in 0..L {
                        if q >= 4 {
                            // w[q % 4] holds W[4q - 16..]; the next slots
                            // hold the following words.
                            w[q % 4][l] = schedule(
                                w[q % 4][l],
                                w[(q + 1) % 4][l],
                                w[(q + 2) % 4][l],
                                w[(q + 3) % 4][l],
                            );
                        }
                        quad(&mut abef[l], &mut cdgh[l], w[q % 4][l], q);
                    }
                }
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

#[cfg(test)]
mod tests {
    use super::super::{IV, scalar};
    use super::*;

    /// `compress1` against the scalar reference (the lane counts are covered
    /// by the shared harness in `tests/sha256_kernels.rs`).
    #[test]
    fn compress1_matches_scalar() {
        let Some(k) = ShaNi::new() else {
            use std::io::Write;
            let _ = writeln!(std::io::stderr(), "SKIPPED shani compress1: no token");
            return;
        };
        let data: Vec<u8> = (0..5 * 64).map(|i| (i * 7 + 3) as u8).collect();
        let blocks = data.as_chunks::<64>().0;
        for n in 0..=blocks.len() {
            let (mut ours, mut theirs) = (IV, IV);
            k.compress1(&mut ours, &blocks[..n]);
            scalar::compress(&mut theirs, &blocks[..n]);
            assert_eq!(ours, theirs, "{n} blocks");
        }
    }
}
