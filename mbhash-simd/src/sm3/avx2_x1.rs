//! SM3, one stream: vector message expansion, scalar rounds.
//!
//! One stream is bound by the rounds' dependency chain from `E` to the
//! next `E`: `SS1` is `((A <<< 12) + T) + E` rotated by 7, `TT2` is
//! `(GG(E, F, G) + (H + W)) + SS1` and `E' = P0(TT2)`: seven operations a
//! round at best, six in rounds 0..16 where `GG` is one XOR after `E` (`A'`
//! is ready two operations before `E'`, so `A`'s part of `SS1` is summed
//! with the round's constant before `E` arrives). Everything else runs
//! beside that chain:
//!
//! * **The message expansion in 128-bit vectors**, four words at a time,
//!   on the vector units instead of the integer ones the rounds use. Word
//!   `W[j + 3]` depends on `W[j]` of the same step (its `W[j - 3]` term), so
//!   a step computes its last word without that term and adds it afterwards:
//!   `P1` is linear over XOR, so the missing part is `P1(W[j] <<< 15)`, one
//!   correction of the last lane. `W` and `W' = W ^ W[+4]` go to stack
//!   buffers three groups of four rounds ahead of the rounds that read them,
//!   one memory operand of an addition each.
//! * **The rounds as plain `u32` code**, unrolled so that the eight words
//!   change roles instead of moving (as in [`portable`](super::portable)),
//!   with BMI2 enabled so that rotations are `rorx` (the source stays
//!   intact, no register copy). The additions are ordered as above and
//!   pinned there: an empty `asm!` hides each partial sum from the
//!   optimiser, which sums the terms in an order of its own (in the portable
//!   kernel it adds the round constant after `E`, one more operation on the
//!   chain).
//!
//! Where AVX-512 F + VL is available the expansion uses it (`vprold` is one
//! instruction where AVX2 needs two shifts and an OR, `vpternlogd` joins
//! three terms). The token carries that choice; [`Avx2x1::avx2_schedule`]
//! forces the AVX2 one, for tests and measurements.
//!
//! Measured on an AMD EPYC Zen 5 (family 26, about 4 GHz), one core,
//! against the RustCrypto `sm3` 0.5 crate in the same run: with the AVX-512
//! expansion about 112 ns per block on a 4 KiB digest (the crate 122, the
//! [`portable`](super::portable) kernel 121, the reference 190): 1.05x the
//! crate on single blocks, 1.10x-1.17x on whole digests of 64 bytes, 1 KiB
//! and 4 KiB, 1.07x at 1 MiB.
//! The AVX2 expansion (measured there with AVX-512 unused) is less steady:
//! from 0.96x to 1.12x the crate by input length and between builds of the
//! same code, at times behind the portable kernel on one or two blocks; a
//! caller that has both should choose between them by measurement. The
//! bound of the dependency chain above is 432 cycles a block (108 ns at
//! 4 GHz).

use super::{Block, Compress, State};

/// Proof that the CPU supports this kernel: AVX2 with BMI1 and BMI2; it
/// also records whether the expansion may use AVX-512 F + VL.
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
    /// BMI1 and BMI2.
    pub fn new() -> Option<Self> {
        #[cfg(target_arch = "x86_64")]
        if crate::cpu::available(crate::cpu::Feature::Avx2) {
            return Some(Avx2x1 {
                avx512: crate::cpu::available(crate::cpu::Feature::Avx512),
            });
        }
        None
    }

    /// The same kernel with the AVX2 message expansion, even where AVX-512
    /// is available.
    pub fn avx2_schedule(self) -> Self {
        #[cfg(target_arch = "x86_64")]
        return Avx2x1 { avx512: false };
        #[cfg(not(target_arch = "x86_64"))]
        match self {}
    }

    /// True if the message expansion uses AVX-512.
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
            // SAFETY: `self` exists, so `Avx2x1::new` found AVX2, BMI1 and
            // BMI2, and, `self.avx512` being set, AVX-512 F + BW + VL: the
            // features `x86::compress_avx512` is compiled for.
            unsafe { x86::compress_avx512(self, state, blocks) }
        } else {
            // SAFETY: `self` exists, so `Avx2x1::new` found AVX2, BMI1 and
            // BMI2, the features `x86::compress` is compiled for.
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
    use super::super::{Block, State, T_ROTATED};
    use super::Avx2x1;
    use core::arch::x86_64::*;

    /// The expanded words of one block: `w[j] = W[j]` for the 64 rounds
    /// (the expansion's `W[64..68]` only feed `W'`), `wp[j] = W'[j]`.
    struct Words {
        w: [u32; 64],
        wp: [u32; 64],
    }

    /// The kernel entry with the AVX2 expansion, compiled for AVX2, BMI1
    /// and BMI2.
    #[target_feature(enable = "avx2,bmi1,bmi2")]
    pub(super) fn compress(token: Avx2x1, state: &mut State, blocks: &[Block]) {
        let mut words = Words {
            w: [0; 64],
            wp: [0; 64],
        };
        let mut v = *state;
        for block in blocks {
            v = compress_block::<false>(token, v, block, &mut words);
        }
        *state = v;
    }

    /// The kernel entry with the AVX-512 expansion, compiled for AVX2,
    /// BMI1, BMI2 and AVX-512 F + VL.
    #[target_feature(enable = "avx2,bmi1,bmi2,avx512f,avx512vl")]
    pub(super) fn compress_avx512(token: Avx2x1, state: &mut State, blocks: &[Block]) {
        let mut words = Words {
            w: [0; 64],
            wp: [0; 64],
        };
        let mut v = *state;
        for block in blocks {
            v = compress_block::<true>(token, v, block, &mut words);
        }
        *state = v;
    }

    /// Four message words `W[j..j + 4]`, lane `i` holding `W[j + i]`.
    type Four = __m128i;

    /// Loads and byte-swaps four words.
    #[inline(always)]
    fn load4(_token: Avx2x1, bytes: &[u8; 16]) -> Four {
        // SAFETY: the token proves AVX2 (SSSE3's `pshufb` included);
        // `bytes` is 16 readable bytes.
        unsafe {
            let swap = _mm_set_epi8(12, 13, 14, 15, 8, 9, 10, 11, 4, 5, 6, 7, 0, 1, 2, 3);
            _mm_shuffle_epi8(_mm_loadu_si128(bytes.as_ptr().cast()), swap)
        }
    }

    /// Loads and byte-swaps the block's sixteen words.
    #[inline(always)]
    fn load(token: Avx2x1, block: &Block) -> [Four; 4] {
        let chunks = block.as_chunks::<16>().0;
        [
            load4(token, &chunks[0]),
            load4(token, &chunks[1]),
            load4(token, &chunks[2]),
            load4(token, &chunks[3]),
        ]
    }

    /// Stores four words at `out[j..j + 4]`.
    #[inline(always)]
    fn store(_token: Avx2x1, out: &mut [u32; 64], j: usize, v: Four) {
        let out: &mut [u32; 4] = (&mut out[j..j + 4]).try_into().unwrap();
        // SAFETY: the token proves AVX2; `out` is 16 writable bytes.
        unsafe { _mm_storeu_si128(out.as_mut_ptr().cast(), v) }
    }

    /// Each lane rotated left by `$n` bits, AVX-512 (`vprold`) or AVX2 (two
    /// shifts and an OR).
    macro_rules! rol {
        ($avx512:expr, $x:expr, $n:literal) => {
            if $avx512 {
                _mm_rol_epi32::<$n>($x)
            } else {
                _mm_or_si128(_mm_slli_epi32::<$n>($x), _mm_srli_epi32::<{ 32 - $n }>($x))
            }
        };
    }

    /// `a ^ b ^ c`, one `vpternlogd` with AVX-512.
    macro_rules! xor3 {
        ($avx512:expr, $a:expr, $b:expr, $c:expr) => {
            if $avx512 {
                _mm_ternarylogic_epi32::<0x96>($a, $b, $c)
            } else {
                _mm_xor_si128(_mm_xor_si128($a, $b), $c)
            }
        };
    }

    /// Expands the next four words: with `x` holding `W[j - 16..j]`
    /// (`j` a multiple of 4, at least 16), returns `W[j..j + 4]` and slides
    /// the window.
    ///
    /// `AVX512` is true only when inlined into `compress_avx512`.
    #[inline(always)]
    fn expand<const AVX512: bool>(_token: Avx2x1, x: &mut [Four; 4]) -> Four {
        let [x0, x1, x2, x3] = *x;
        // SAFETY: the token proves AVX2; the AVX-512 forms (`vprold`,
        // `vpternlogd` on 128-bit vectors) are chosen only when `AVX512`
        // is set, in `compress_avx512`, which is compiled for AVX-512 F + VL
        // and reached only when the token recorded them.
        let next = unsafe {
            // W[j-13..j-9], W[j-9..j-5], W[j-6..j-2], and W[j-3..j] with a
            // zero where W[j] would be.
            let w13 = _mm_alignr_epi8::<12>(x1, x0);
            let w9 = _mm_alignr_epi8::<12>(x2, x1);
            let w6 = _mm_alignr_epi8::<8>(x3, x2);
            let w3 = _mm_srli_si128::<4>(x3);
            // P1(t) = t ^ (t <<< 15) ^ (t <<< 23).
            let t = xor3!(AVX512, x0, w9, rol!(AVX512, w3, 15));
            let p1 = xor3!(AVX512, t, rol!(AVX512, t, 15), rol!(AVX512, t, 23));
            let y = xor3!(AVX512, p1, rol!(AVX512, w13, 7), w6);
            // Lane 3 lacks P1(W[j] <<< 15) = (W[j] <<< 15) ^ (W[j] <<< 30)
            // ^ (W[j] <<< 6), W[j] being lane 0 of `y`.
            let z = _mm_slli_si128::<12>(y);
            xor3!(
                AVX512,
                y,
                rol!(AVX512, z, 15),
                _mm_xor_si128(rol!(AVX512, z, 30), rol!(AVX512, z, 6))
            )
        };
        *x = [x1, x2, x3, next];
        next
    }

    /// `a ^ b`, for the `W'` words.
    #[inline(always)]
    fn xor(_token: Avx2x1, a: Four, b: Four) -> Four {
        // SAFETY: the token proves AVX2.
        unsafe { _mm_xor_si128(a, b) }
    }

    /// `x`, hidden from the optimiser (an empty `asm!`), so that it cannot
    /// re-associate a sum through it.
    #[inline(always)]
    fn opaque(mut x: u32) -> u32 {
        // SAFETY: the template is empty: it leaves `x` as it is and touches
        // nothing else.
        unsafe {
            core::arch::asm!("/* {0:e} */", inout(reg) x, options(pure, nomem, nostack, preserves_flags));
        }
        x
    }

    /// `P0(x) = x ^ (x <<< 9) ^ (x <<< 17)`.
    #[inline(always)]
    fn p0(x: u32) -> u32 {
        x ^ x.rotate_left(9) ^ x.rotate_left(17)
    }

    /// Round `j` with `a..h` the names the round sees as `A..H`: writes
    /// the new `A` into `d` and the new `E` into `h`, rotates `b` and `f`.
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    fn round(
        j: usize,
        words: &Words,
        a: u32,
        b: &mut u32,
        c: u32,
        d: &mut u32,
        e: u32,
        f: &mut u32,
        g: u32,
        h: &mut u32,
    ) {
        let a12 = a.rotate_left(12);
        // `E` last: it arrives after `A`.
        let ss1 = opaque(a12.wrapping_add(T_ROTATED[j]))
            .wrapping_add(e)
            .rotate_left(7);
        let ss2 = ss1 ^ a12;
        let (ff, gg) = if j < 16 {
            (a ^ (*b ^ c), e ^ (*f ^ g))
        } else {
            // Majority of a, b, c; and f where e is set, g elsewhere.
            ((a & (*b | c)) | (*b & c), ((*f ^ g) & e) ^ g)
        };
        // The words first, then the boolean function, `SS1`/`SS2` last.
        let hw = opaque(h.wrapping_add(words.w[j]));
        let tt2 = opaque(hw.wrapping_add(gg)).wrapping_add(ss1);
        let dw = opaque(d.wrapping_add(words.wp[j]));
        let tt1 = opaque(dw.wrapping_add(ff)).wrapping_add(ss2);
        *d = tt1;
        *h = p0(tt2);
        *b = b.rotate_left(9);
        *f = f.rotate_left(19);
    }

    /// Four rounds from `$j`, the names moving one place a round and back
    /// to where they began after the fourth.
    macro_rules! four_rounds {
        ($words:expr, $j:expr, $a:ident, $b:ident, $c:ident, $d:ident,
         $e:ident, $f:ident, $g:ident, $h:ident) => {
            round(
                $j, $words, $a, &mut $b, $c, &mut $d, $e, &mut $f, $g, &mut $h,
            );
            round(
                $j + 1,
                $words,
                $d,
                &mut $a,
                $b,
                &mut $c,
                $h,
                &mut $e,
                $f,
                &mut $g,
            );
            round(
                $j + 2,
                $words,
                $c,
                &mut $d,
                $a,
                &mut $b,
                $g,
                &mut $h,
                $e,
                &mut $f,
            );
            round(
                $j + 3,
                $words,
                $b,
                &mut $c,
                $d,
                &mut $a,
                $f,
                &mut $g,
                $h,
                &mut $e,
            );
        };
    }

    /// Expands `$body` once for every value of `$i` in the list.
    macro_rules! unroll {
        ($i:ident in [$($n:literal),*] $body:block) => {
            $({
                let $i: usize = $n;
                $body
            })*
        };
    }

    /// One block: the expansion runs three groups of four rounds ahead of
    /// the rounds that read its words.
    #[inline(always)]
    fn compress_block<const AVX512: bool>(
        token: Avx2x1,
        state: State,
        block: &Block,
        words: &mut Words,
    ) -> State {
        let mut x = load(token, block);
        // The block's own words, and W'[0..12].
        for (i, &v) in x.iter().enumerate() {
            store(token, &mut words.w, 4 * i, v);
        }
        for i in 0..3 {
            store(token, &mut words.wp, 4 * i, xor(token, x[i], x[i + 1]));
        }
        // The rounds must read the words back from memory (one memory
        // operand each); seeing the stores, the compiler would rather
        // extract them from the vectors, which costs far more. An opaque
        // use of the buffers after each group's stores hides them.
        core::hint::black_box(&mut *words);
        let [mut a, mut b, mut c, mut d, mut e, mut f, mut g, mut h] = state;
        unroll!(i in [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15] {
            // Group i expands W[16 + 4i..20 + 4i] (up to W[68]) and with it
            // W'[12 + 4i..16 + 4i] (up to W'[64]).
            if i < 13 {
                let prev = x[3];
                let next = expand::<AVX512>(token, &mut x);
                if i < 12 {
                    store(token, &mut words.w, 16 + 4 * i, next);
                }
                store(token, &mut words.wp, 12 + 4 * i, xor(token, prev, next));
            }
            four_rounds!(&*words, 4 * i, a, b, c, d, e, f, g, h);
            core::hint::black_box(&mut *words);
        });
        // The next block's rounds start from these words: they stay in
        // general registers (opaque), where the compiler would gather four
        // of them into a vector for one XOR and take them out again, a
        // dozen cycles more on the chain between blocks.
        let [sa, sb, sc, sd, se, sf, sg, sh] = state;
        [
            opaque(sa ^ a),
            opaque(sb ^ b),
            opaque(sc ^ c),
            opaque(sd ^ d),
            opaque(se ^ e),
            opaque(sf ^ f),
            opaque(sg ^ g),
            opaque(sh ^ h),
        ]
    }
}
