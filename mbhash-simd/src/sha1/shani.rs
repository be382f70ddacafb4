//! SHA-1 with the SHA extensions (SHA-NI): one lane, or two or four
//! independent lanes interleaved.
//!
//! Each `sha1rnds4` (four rounds) depends on the one before, so one stream
//! is bound by that instruction's latency: 20 of them per block.
//! Interleaving independent streams overlaps their dependency chains until
//! the instruction's throughput is the limit instead.
//!
//! The state lives in the register layout `sha1rnds4` expects for the whole
//! call (`a..d` in one vector, `a` in the top lane; `e` in the top lane of
//! another); it is converted from and back to the FIPS word order once per
//! call, not once per block.

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

    use super::super::{Block, State, common_len};
    use super::ShaNi;

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

        // Reverses the 16 bytes of a chunk: the big-endian words
        // W[t..t + 4] become 32-bit lanes 3..0, `W[t]` in the top lane as
        // `sha1rnds4` and `sha1msg1` expect.
        let reverse = _mm_set_epi64x(0x0001_0203_0405_0607, 0x0809_0a0b_0c0d_0e0f);

        // `a..d` with `a` in the top lane, and `e` alone in the top lane.
        // (Plain loops over arrays, not closures, `map` or `from_fn`: with
        // many codegen units those may stay calls.)
        let mut abcd = [_mm_setzero_si128(); L];
        let mut e = [_mm_setzero_si128(); L];
        for l in 0..L {
            // SAFETY: a state is 20 bytes, so its first 16 are readable;
            // the load is unaligned.
            let dcba = unsafe { _mm_loadu_si128(states[l].as_ptr().cast()) };
            abcd[l] = _mm_shuffle_epi32::<0x1b>(dcba);
            e[l] = _mm_insert_epi32::<3>(_mm_setzero_si128(), states[l][4] as i32);
        }

        #[expect(
            clippy::needless_range_loop,
            reason = "block i of every lane, not one slice"
        )]
        for i in 0..n {
            let (abcd0, e0) = (abcd, e);
            // w[j][l]: four message words of lane l; W[4j..4j + 4] at first,
            // then a ring: the words of quad q (rounds 4q..4q + 4) go to
            // slot q % 4, over those of quad q - 4.
            let mut w = [[_mm_setzero_si128(); L]; 4];
            for (j, wj) in w.iter_mut().enumerate() {
                for (l, wjl) in wj.iter_mut().enumerate() {
                    let p = blocks[l][i].as_ptr().cast::<__m128i>();
                    // SAFETY: a block is 64 bytes, so the 16 bytes at
                    // `16 * j` (j < 4) are inside it; `loadu` needs no
                    // alignment.
                    *wjl = _mm_shuffle_epi8(unsafe { _mm_loadu_si128(p.add(j)) }, reverse);
                }
            }
            // prev[l]: lane l's `a..d` before the previous quad. Its `a`,
            // rotated left by 30, is the `e` of this quad (`sha1nexte`
            // rotates it and adds it to the top message word).
            let mut prev = abcd;
            macro_rules! quads {
                ($($q:literal)*) => {$(
                    for l in 0..L {
                        if $q >= 4 {
                            // W[4q..4q + 4] from the four quads before:
                            // msg1 XORs W[t - 16] with W[t - 14], then
                            // W[t - 8] comes in, and msg2 XORs W[t - 3]
                            // (one of which it has just made) and rotates.
                            let x = _mm_sha1msg1_epu32(w[$q % 4][l], w[($q + 1) % 4][l]);
                            let x = _mm_xor_si128(x, w[($q + 2) % 4][l]);
                            w[$q % 4][l] = _mm_sha1msg2_epu32(x, w[($q + 3) % 4][l]);
                        }
                        let ew = if $q == 0 {
                            _mm_add_epi32(e[l], w[0][l])
                        } else {
                            _mm_sha1nexte_epu32(prev[l], w[$q % 4][l])
                        };
                        prev[l] = abcd[l];
                        // Function and constant of rounds 20 * (q / 5)..
                        abcd[l] = _mm_sha1rnds4_epu32::<{ $q / 5 }>(abcd[l], ew);
                    }
                )*};
            }
            quads!(0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19);
            for l in 0..L {
                // e after round 79, plus the block's initial e.
                e[l] = _mm_sha1nexte_epu32(prev[l], e0[l]);
                abcd[l] = _mm_add_epi32(abcd[l], abcd0[l]);
            }
        }

        for (l, state) in states.into_iter().enumerate() {
            let dcba = _mm_shuffle_epi32::<0x1b>(abcd[l]);
            // SAFETY: a state is 20 bytes: an unaligned 16-byte store at 0
            // stays inside it.
            unsafe { _mm_storeu_si128(state.as_mut_ptr().cast(), dcba) };
            state[4] = _mm_extract_epi32::<3>(e[l]) as u32;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::{IV, scalar};
    use super::*;

    /// `compress1` against the scalar reference (the lane counts are covered
    /// by the shared harness in `tests/sha1_kernels.rs`).
    #[test]
    fn compress1_matches_scalar() {
        let Some(k) = ShaNi::new() else {
            use std::io::Write;
            let _ = writeln!(std::io::stderr(), "SKIPPED sha1 shani compress1: no token");
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
