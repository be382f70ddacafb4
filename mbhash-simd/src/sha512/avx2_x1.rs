//! SHA-512, one stream: vector message schedule, scalar rounds.
//!
//! The layout follows Intel's AVX2 SHA-512 code and the `sha2` crate's
//! backend: blocks go in pairs, and one `__m256i` holds two consecutive
//! message words of the first block in its low half and the same two words
//! of the second block in its high half, so one vector step schedules four
//! words. `W + K` for both blocks goes to a stack buffer; the first block's
//! 80 rounds run interleaved with the vector schedule (the two use different
//! execution units), the second block's rounds then only read the buffer. An
//! odd last block is loaded into both halves and only its first copy is
//! compressed.
//!
//! The rounds are plain `u64` code, unrolled so that the eight working
//! variables change roles instead of moving. BMI2 is enabled so that the
//! rotations become `rorx`, which leaves its source intact and saves the
//! register copies `ror` would need (without it the kernel measured about a
//! third slower). One stream is bound by the chain from `e` to the next `e`:
//! the round sums everything that does not depend on `e` first, so that
//! `e'` is one addition after `Σ1(e)` (four operations after `e`, where
//! `d + T1` would be five), and takes `T1` back as `e' - d` for `a'`.
//!
//! Where AVX-512 is available the schedule uses it: `vprorq` is one
//! instruction where AVX2 needs two shifts and an OR, and `vpternlogq` joins
//! three terms at once, which halves the vector work that competes with the
//! scalar rounds for the execution ports (measured 3% faster on Intel Xeon).
//! The token carries that choice; [`Avx2x1::avx2_schedule`] forces the AVX2
//! one, for tests and measurements.

use super::{Block, Compress, State};

/// Proof that the CPU supports this kernel: AVX2 and BMI2; it also records
/// whether the schedule may use AVX-512 F + VL.
#[cfg(target_arch = "x86_64")]
#[derive(Clone, Copy, Debug)]
pub struct Avx2x1 {
    avx512: bool,
}

/// Proof that the CPU supports this kernel (never, on this target).
#[cfg(not(target_arch = "x86_64"))]
#[derive(Clone, Copy, Debug)]
pub enum Avx2x1 {}

impl Avx2x1 {
    /// Lanes per call.
    pub const LANES: usize = 1;

    /// Detects the CPU features; `None` when they are missing or hidden.
    ///
    /// Needs [`Feature::Avx2`](crate::cpu::Feature::Avx2), which includes
    /// BMI2 (`rorx`).
    pub fn new() -> Option<Self> {
        #[cfg(target_arch = "x86_64")]
        if crate::cpu::available(crate::cpu::Feature::Avx2) {
            return Some(Avx2x1 {
                avx512: crate::cpu::available(crate::cpu::Feature::Avx512),
            });
        }
        None
    }

    /// The same kernel with the AVX2 message schedule, even where AVX-512
    /// is available.
    pub fn avx2_schedule(self) -> Self {
        #[cfg(target_arch = "x86_64")]
        return Avx2x1 { avx512: false };
        #[cfg(not(target_arch = "x86_64"))]
        match self {}
    }

    /// True if the message schedule uses AVX-512.
    pub fn uses_avx512(self) -> bool {
        #[cfg(target_arch = "x86_64")]
        return self.avx512;
        #[cfg(not(target_arch = "x86_64"))]
        match self {}
    }
}

impl Compress<1> for Avx2x1 {
    #[cfg(target_arch = "x86_64")]
    fn compress(self, [state]: [&mut State; 1], [blocks]: [&[Block]; 1]) {
        if self.avx512 {
            // SAFETY: `self` exists, so `Avx2x1::new` found AVX2 and BMI2,
            // and, `self.avx512` being set, AVX-512 F + BW + VL: the features
            // `x86::compress_avx512` is compiled for.
            unsafe { x86::compress_avx512(self, state, blocks) }
        } else {
            // SAFETY: `self` exists, so `Avx2x1::new` found AVX2 and BMI2,
            // the features `x86::compress` is compiled for.
            unsafe { x86::compress(self, state, blocks) }
        }
    }

    #[cfg(not(target_arch = "x86_64"))]
    fn compress(self, _states: [&mut State; 1], _blocks: [&[Block]; 1]) {
        match self {}
    }
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use super::super::{Block, K, State};
    use super::Avx2x1;
    use core::arch::x86_64::*;

    /// `W[t] + K[t]` for the 80 rounds of the first (`[0]`) and second
    /// (`[1]`) block of a pair.
    type Wk = [[u64; 80]; 2];

    /// Sixteen message words of two blocks: vector `i` holds words `2i` and
    /// `2i + 1` of the first block in its low half, of the second block in
    /// its high half.
    type Window = [__m256i; 8];

    /// The kernel entry with the AVX2 schedule, compiled for AVX2 and BMI2.
    #[target_feature(enable = "avx2,bmi2")]
    pub(super) fn compress(token: Avx2x1, state: &mut State, blocks: &[Block]) {
        pairs::<false>(token, state, blocks);
    }

    /// The kernel entry with the AVX-512 schedule, compiled for AVX2, BMI2
    /// and AVX-512 F + VL.
    #[target_feature(enable = "avx2,bmi2,avx512f,avx512vl")]
    pub(super) fn compress_avx512(token: Avx2x1, state: &mut State, blocks: &[Block]) {
        pairs::<true>(token, state, blocks);
    }

    /// The body of both entries: `AVX512` picks the schedule.
    #[inline(always)]
    fn pairs<const AVX512: bool>(token: Avx2x1, state: &mut State, blocks: &[Block]) {
        let mut wk: Wk = [[0; 80]; 2];
        // Two blocks a turn; a lone last block fills both halves of the
        // vectors and only its first copy is compressed. One copy of each
        // round sequence keeps the code small.
        for pair in blocks.chunks(2) {
            let first = &pair[0];
            let second = pair.get(1);
            let x = load(token, first, second.unwrap_or(first));
            *state = first_block::<AVX512>(token, *state, x, &mut wk);
            if second.is_some() {
                *state = second_block(*state, &wk[1]);
            }
        }
    }

    /// Loads and byte-swaps the words of `first` (low halves) and `second`
    /// (high halves).
    #[inline(always)]
    fn load(_token: Avx2x1, first: &Block, second: &Block) -> Window {
        // A plain loop, not `array::from_fn`: with many codegen units that
        // may stay a call (and its closure one per word).
        // SAFETY: the token proves AVX2.
        let mut w: Window = [unsafe { _mm256_setzero_si256() }; 8];
        for (i, w) in w.iter_mut().enumerate() {
            let lo: &[u8; 16] = first[16 * i..16 * i + 16].try_into().unwrap();
            let hi: &[u8; 16] = second[16 * i..16 * i + 16].try_into().unwrap();
            // SAFETY: the token proves AVX2; `lo` and `hi` are 16 readable
            // bytes each.
            *w = unsafe {
                let v = _mm256_inserti128_si256::<1>(
                    _mm256_castsi128_si256(_mm_loadu_si128(lo.as_ptr().cast())),
                    _mm_loadu_si128(hi.as_ptr().cast()),
                );
                let swap = _mm256_set_epi64x(
                    0x08090a0b0c0d0e0f,
                    0x0001020304050607,
                    0x08090a0b0c0d0e0f,
                    0x0001020304050607,
                );
                _mm256_shuffle_epi8(v, swap)
            };
        }
        w
    }

    /// Adds `K[t..t + 2]` to both halves of `w` (words `t`, `t + 1` of the
    /// two blocks) and stores the sums into `wk`.
    #[inline(always)]
    fn store_wk(_token: Avx2x1, wk: &mut Wk, t: usize, w: __m256i) {
        let k: &[u64; 2] = K[t..t + 2].try_into().unwrap();
        let [first, second] = wk;
        let first: &mut [u64; 2] = (&mut first[t..t + 2]).try_into().unwrap();
        let second: &mut [u64; 2] = (&mut second[t..t + 2]).try_into().unwrap();
        // SAFETY: the token proves AVX2; `k` is 16 readable bytes, `first`
        // and `second` 16 writable bytes each.
        unsafe {
            let v = _mm256_add_epi64(
                w,
                _mm256_broadcastsi128_si256(_mm_loadu_si128(k.as_ptr().cast())),
            );
            _mm_storeu_si128(first.as_mut_ptr().cast(), _mm256_castsi256_si128(v));
            _mm_storeu_si128(second.as_mut_ptr().cast(), _mm256_extracti128_si256::<1>(v));
        }
    }

    /// Rotates both lanes of each half right by `$n` bits (two shifts; the
    /// halves do not overlap, so XOR joins them as well as OR would).
    macro_rules! ror {
        ($x:expr, $n:literal) => {
            _mm256_xor_si256(
                _mm256_srli_epi64::<$n>($x),
                _mm256_slli_epi64::<{ 64 - $n }>($x),
            )
        };
    }

    /// Schedules the next two words of both blocks: with `x` holding words
    /// `t..t + 16`, returns words `t + 16`, `t + 17` and slides the window.
    #[inline(always)]
    fn schedule(_token: Avx2x1, x: &mut Window) -> __m256i {
        // SAFETY: the token proves AVX2.
        let next = unsafe {
            // Words t+1, t+2 and t+9, t+10 (within each 128-bit half).
            let w1 = _mm256_alignr_epi8::<8>(x[1], x[0]);
            let w9 = _mm256_alignr_epi8::<8>(x[5], x[4]);
            // sigma0 = ROTR^1 ^ ROTR^8 ^ SHR^7, the rotation by 8 as one
            // byte shuffle.
            let ror8 = _mm256_set_epi64x(
                0x080f0e0d0c0b0a09,
                0x0007060504030201,
                0x080f0e0d0c0b0a09,
                0x0007060504030201,
            );
            let s0 = _mm256_xor_si256(
                _mm256_xor_si256(ror!(w1, 1), _mm256_shuffle_epi8(w1, ror8)),
                _mm256_srli_epi64::<7>(w1),
            );
            // sigma1 = ROTR^19 ^ ROTR^61 ^ SHR^6 of words t+14, t+15.
            let w14 = x[7];
            let s1 = _mm256_xor_si256(
                _mm256_xor_si256(ror!(w14, 19), ror!(w14, 61)),
                _mm256_srli_epi64::<6>(w14),
            );
            _mm256_add_epi64(_mm256_add_epi64(x[0], w9), _mm256_add_epi64(s0, s1))
        };
        *x = [x[1], x[2], x[3], x[4], x[5], x[6], x[7], next];
        next
    }

    /// The AVX-512 form of [`schedule`]: the same words, in fewer
    /// instructions. Called only from `compress_avx512`, which is compiled
    /// for AVX-512 F + VL.
    #[inline(always)]
    fn schedule_avx512(_token: Avx2x1, x: &mut Window) -> __m256i {
        // SAFETY: the token proves AVX2; this function is inlined only into
        // `compress_avx512`, reached only when the token also records
        // AVX-512 F + VL (`vprorq`, `vpternlogq` on 256-bit vectors).
        let next = unsafe {
            let w1 = _mm256_alignr_epi8::<8>(x[1], x[0]);
            let w9 = _mm256_alignr_epi8::<8>(x[5], x[4]);
            // 0x96: a ^ b ^ c.
            let s0 = _mm256_ternarylogic_epi64::<0x96>(
                _mm256_ror_epi64::<1>(w1),
                _mm256_ror_epi64::<8>(w1),
                _mm256_srli_epi64::<7>(w1),
            );
            let w14 = x[7];
            let s1 = _mm256_ternarylogic_epi64::<0x96>(
                _mm256_ror_epi64::<19>(w14),
                _mm256_ror_epi64::<61>(w14),
                _mm256_srli_epi64::<6>(w14),
            );
            _mm256_add_epi64(_mm256_add_epi64(x[0], w9), _mm256_add_epi64(s0, s1))
        };
        *x = [x[1], x[2], x[3], x[4], x[5], x[6], x[7], next];
        next
    }

    /// `x`, hidden from the optimiser (an empty `asm!`), so that it cannot
    /// re-associate a sum through it.
    #[inline(always)]
    fn opaque(mut x: u64) -> u64 {
        // SAFETY: the template is empty: it leaves `x` as it is and touches
        // nothing else.
        unsafe {
            core::arch::asm!("/* {0} */", inout(reg) x, options(pure, nomem, nostack, preserves_flags));
        }
        x
    }

    /// One round; returns the new `a..h`.
    ///
    /// `h + W + K + d` does not depend on this round's `e`, so it is summed
    /// first; `e' = (that + Ch) + Σ1(e)` is then one addition after `Σ1`,
    /// and `T1 = e' - d`. [`opaque`] pins that order: without it the
    /// compiler sums `T1` first and adds `d` last, one more operation on the
    /// chain from `e` to `e'`, the bound of a one-stream kernel.
    #[inline(always)]
    fn round([a, b, c, d, e, f, g, h]: State, wk: u64) -> State {
        let big_s1 = e.rotate_right(14) ^ e.rotate_right(18) ^ e.rotate_right(41);
        // f where e is set, g elsewhere; `f ^ g` does not wait for `e`.
        let ch = ((f ^ g) & e) ^ g;
        let hwd = opaque(h.wrapping_add(wk).wrapping_add(d));
        let new_e = opaque(hwd.wrapping_add(ch)).wrapping_add(big_s1);
        let big_s0 = a.rotate_right(28) ^ a.rotate_right(34) ^ a.rotate_right(39);
        // b if a == b, else c. `b ^ c` is the previous round's `a ^ b`.
        let maj = ((a ^ b) & (b ^ c)) ^ b;
        let t1 = opaque(new_e.wrapping_sub(d));
        let new_a = opaque(t1.wrapping_add(maj)).wrapping_add(big_s0);
        [new_a, a, b, c, new_e, e, f, g]
    }

    /// Adds the working variables into the chaining state.
    #[inline(always)]
    fn add_state(mut state: State, s: State) -> State {
        for (a, b) in state.iter_mut().zip(s) {
            *a = a.wrapping_add(b);
        }
        state
    }

    /// Expands `$body` once for every value of `$j` in the list, so that the
    /// rounds are unrolled whatever the compiler's unrolling heuristics say
    /// (a loop over `round` would copy the eight variables every round).
    macro_rules! unroll {
        ($j:ident in [$($n:literal),*] $body:block) => {
            $({
                let $j: usize = $n;
                $body
            })*
        };
    }

    /// The first block of a pair, scheduling both: stores `W + K` of the
    /// two blocks into `wk` while running the first block's rounds.
    #[inline(always)]
    fn first_block<const AVX512: bool>(
        token: Avx2x1,
        state: State,
        mut x: Window,
        wk: &mut Wk,
    ) -> State {
        for (i, &w) in x.iter().enumerate() {
            store_wk(token, wk, 2 * i, w);
        }
        // The rounds must read the sums back from memory (one `add` with a
        // memory operand each); seeing the stores, the compiler would rather
        // extract them from the vectors, which costs far more. An opaque use
        // of `wk` after each sixteen rounds' stores hides them.
        core::hint::black_box(&mut *wk);
        let mut s = state;
        unroll!(t in [0, 16, 32, 48] {
            unroll!(j in [0, 2, 4, 6, 8, 10, 12, 14] {
                let w = if AVX512 {
                    schedule_avx512(token, &mut x)
                } else {
                    schedule(token, &mut x)
                };
                store_wk(token, wk, t + 16 + j, w);
                s = round(s, wk[0][t + j]);
                s = round(s, wk[0][t + j + 1]);
            });
            core::hint::black_box(&mut *wk);
        });
        unroll!(t in [64, 65, 66, 67, 68, 69, 70, 71, 72, 73, 74, 75, 76, 77, 78, 79] {
            s = round(s, wk[0][t]);
        });
        add_state(state, s)
    }

    /// The second block of a pair: rounds only, from the stored `W + K`.
    #[inline(always)]
    fn second_block(state: State, wk: &[u64; 80]) -> State {
        let mut s = state;
        unroll!(t in [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15,
                      16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31,
                      32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47,
                      48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59, 60, 61, 62, 63,
                      64, 65, 66, 67, 68, 69, 70, 71, 72, 73, 74, 75, 76, 77, 78, 79] {
            s = round(s, wk[t]);
        });
        add_state(state, s)
    }
}
