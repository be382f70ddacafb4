//! The fast portable one-stream SM3 compression: no `core::arch`, no
//! `unsafe`; the same function as [`scalar`](super::scalar), written for
//! speed rather than to be read beside the standard.
//!
//! Three things make it faster than the reference:
//!
//! * **A rolling message window.** Instead of `W[0..68]` and `W'[0..64]`
//!   arrays filled before the rounds, sixteen words `x[j mod 16]` hold the
//!   last sixteen expanded words; round `j` expands `W[j + 4]` in place
//!   (over `W[j - 12]`, the oldest word, no longer read) and takes
//!   `W'[j] = W[j] ^ W[j + 4]` from the window. The expansion then runs
//!   interleaved with the rounds, filling the execution slots the rounds'
//!   dependency chain leaves idle.
//! * **Renamed variables instead of shifted ones.** A round changes only
//!   four of the eight words in place: `D` becomes the new `A` (`TT1`), `H`
//!   the new `E` (`P0(TT2)`), `B` and `F` are rotated by 9 and 19; the next
//!   round is then called with the names moved one place (`d, a, b, c, h,
//!   e, f, g`), which after four rounds is the start order again. The 64
//!   rounds are unrolled by a macro, so no word is ever copied.
//! * **Constants folded.** Every round's `T_j <<< j` is a literal of the
//!   unrolled code, and its boolean functions are chosen at compile time.
//!
//! [`Portable`] is the token; [`compress`] the function. On an AMD EPYC
//! Zen 5 it measured about 121 ns per block on a 4 KiB digest, level with
//! the RustCrypto `sm3` 0.5 crate (0.99x-1.06x from one block to 1 MiB
//! digests), against 190 ns for the reference. What it cannot do without
//! `core::arch` is fix the order of a round's additions: the compiler adds
//! the round constant to `SS1` after `E`, one operation more on the chain
//! from `E` to the next `E` than [`Avx2x1`](super::Avx2x1) needs.

use super::{Block, Compress, State, T_ROTATED};

/// The fast portable kernel; always available.
#[derive(Clone, Copy, Debug, Default)]
pub struct Portable;

impl Portable {
    /// Lanes per call.
    pub const LANES: usize = 1;

    /// Always `Some`: the portable kernel needs no CPU feature.
    pub fn new() -> Option<Self> {
        Some(Portable)
    }
}

impl Compress<1> for Portable {
    fn compress(self, [state]: [&mut State; 1], [blocks]: [&[Block]; 1]) {
        compress(state, blocks);
    }
}

/// Compresses `blocks` into `state`, one block after the other.
pub fn compress(state: &mut State, blocks: &[Block]) {
    for block in blocks {
        compress_block(state, block);
    }
}

/// `P0(x) = x ^ (x <<< 9) ^ (x <<< 17)`.
#[inline(always)]
fn p0(x: u32) -> u32 {
    x ^ x.rotate_left(9) ^ x.rotate_left(17)
}

/// `P1(x) = x ^ (x <<< 15) ^ (x <<< 23)`.
#[inline(always)]
fn p1(x: u32) -> u32 {
    x ^ x.rotate_left(15) ^ x.rotate_left(23)
}

/// Expands `W[j]` (`16 <= j < 68`) into the window, where it replaces
/// `W[j - 16]`, and returns it.
#[inline(always)]
fn expand(x: &mut [u32; 16], j: usize) -> u32 {
    let w = p1(x[j % 16] ^ x[(j - 9) % 16] ^ x[(j - 3) % 16].rotate_left(15))
        ^ x[(j - 13) % 16].rotate_left(7)
        ^ x[(j - 6) % 16];
    x[j % 16] = w;
    w
}

/// `W[j + 4]`: read from the window for the first twelve rounds (the block's
/// own words), expanded from round 12 on.
#[inline(always)]
fn ahead(x: &mut [u32; 16], j: usize) -> u32 {
    if j + 4 < 16 {
        x[j + 4]
    } else {
        expand(x, j + 4)
    }
}

/// Round `j`: `a..h` are the names the round sees as `A..H`. Writes the new
/// `A` into `d` and the new `E` into `h`, rotates `b` and `f`; `a`, `c`,
/// `e` and `g` are unchanged (they become `B`, `D`, `F` and `H`).
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn round(
    j: usize,
    x: &mut [u32; 16],
    a: u32,
    b: &mut u32,
    c: u32,
    d: &mut u32,
    e: u32,
    f: &mut u32,
    g: u32,
    h: &mut u32,
) {
    let w4 = ahead(x, j);
    let w = x[j % 16];
    let a12 = a.rotate_left(12);
    let ss1 = a12
        .wrapping_add(e.wrapping_add(T_ROTATED[j]))
        .rotate_left(7);
    let ss2 = ss1 ^ a12;
    let (ff, gg) = if j < 16 {
        (a ^ *b ^ c, e ^ *f ^ g)
    } else {
        // Majority of a, b, c; and f where e is set, g elsewhere.
        ((a & (*b | c)) | (*b & c), ((*f ^ g) & e) ^ g)
    };
    let tt1 = ff.wrapping_add(d.wrapping_add(w ^ w4)).wrapping_add(ss2);
    let tt2 = gg.wrapping_add(h.wrapping_add(w)).wrapping_add(ss1);
    *d = tt1;
    *h = p0(tt2);
    *b = b.rotate_left(9);
    *f = f.rotate_left(19);
}

/// Four rounds from `$j`, the names moving one place a round and back to
/// where they began after the fourth.
macro_rules! four_rounds {
    ($x:ident, $j:expr, $a:ident, $b:ident, $c:ident, $d:ident,
     $e:ident, $f:ident, $g:ident, $h:ident) => {
        round(
            $j, &mut $x, $a, &mut $b, $c, &mut $d, $e, &mut $f, $g, &mut $h,
        );
        round(
            $j + 1,
            &mut $x,
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
            &mut $x,
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
            &mut $x,
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

#[inline(always)]
fn compress_block(state: &mut State, block: &Block) {
    let mut x = [0u32; 16];
    for (w, bytes) in x.iter_mut().zip(block.as_chunks::<4>().0) {
        *w = u32::from_be_bytes(*bytes);
    }
    let [mut a, mut b, mut c, mut d, mut e, mut f, mut g, mut h] = *state;
    four_rounds!(x, 0, a, b, c, d, e, f, g, h);
    four_rounds!(x, 4, a, b, c, d, e, f, g, h);
    four_rounds!(x, 8, a, b, c, d, e, f, g, h);
    four_rounds!(x, 12, a, b, c, d, e, f, g, h);
    four_rounds!(x, 16, a, b, c, d, e, f, g, h);
    four_rounds!(x, 20, a, b, c, d, e, f, g, h);
    four_rounds!(x, 24, a, b, c, d, e, f, g, h);
    four_rounds!(x, 28, a, b, c, d, e, f, g, h);
    four_rounds!(x, 32, a, b, c, d, e, f, g, h);
    four_rounds!(x, 36, a, b, c, d, e, f, g, h);
    four_rounds!(x, 40, a, b, c, d, e, f, g, h);
    four_rounds!(x, 44, a, b, c, d, e, f, g, h);
    four_rounds!(x, 48, a, b, c, d, e, f, g, h);
    four_rounds!(x, 52, a, b, c, d, e, f, g, h);
    four_rounds!(x, 56, a, b, c, d, e, f, g, h);
    four_rounds!(x, 60, a, b, c, d, e, f, g, h);
    // V(i+1) = ABCDEFGH ^ V(i).
    for (s, v) in state.iter_mut().zip([a, b, c, d, e, f, g, h]) {
        *s ^= v;
    }
}
