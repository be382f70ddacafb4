//! The SM3 compression written once for word-sliced vectors.
//!
//! A *word-sliced* vector holds the same word of every lane: vector `t` of a
//! message holds message word `t` of lane 0, lane 1, ... lane `N - 1`. The
//! rounds below are then the scalar rounds, one vector instruction per
//! scalar instruction, and every lane advances in step.
//!
//! What differs between vector widths (the instructions behind each
//! operation, and the transposes of lane-major blocks and states into
//! word-sliced vectors and back) is the [`Vector`] trait, implemented for a
//! wrapper of `__m256i` in `avx2_x8` and of `__m512i` in `avx512_x16`.
//!
//! The message expansion runs inside the rounds on a window of sixteen
//! vectors: before round `j` (from 12 on) the slot of `W[j - 12]`, which no
//! later round reads, receives `W[j + 4]`, so round `j` finds `W[j]` and
//! `W[j + 4]` (for `W'[j] = W[j] ^ W[j + 4]`) in the window, at slots
//! `j % 16` and `(j + 4) % 16`.

use super::{Block, State, T_ROTATED, common_len};

/// A vector of `N` 32-bit lanes, with the operations the SM3 rounds need.
///
/// Every value of `Self` is a proof that the CPU supports the instructions
/// behind the methods: the only constructors, [`Vector::load_states`] and
/// [`Vector::load_block`], take the kernel's proof token, so the methods are
/// safe to call.
pub(super) trait Vector<const N: usize>: Copy {
    /// The proof token of the kernel that owns this vector type.
    type Token: Copy;

    /// The states, word-sliced: vector `i` holds word `i` of every state.
    fn load_states(token: Self::Token, states: &[&mut State; N]) -> [Self; 8];
    /// The inverse of [`Vector::load_states`].
    fn store_states(v: [Self; 8], states: &mut [&mut State; N]);
    /// The 16 big-endian message words of one block per lane, word-sliced:
    /// vector `t` holds word `t` of `blocks[0]`, ..., `blocks[N - 1]`.
    fn load_block(token: Self::Token, blocks: [&Block; N]) -> [Self; 16];

    /// `self`, hidden from the optimiser (an empty `asm!`), so that the
    /// compiler cannot re-associate a chain of additions through it.
    fn opaque(self) -> Self;
    /// Lane-wise wrapping addition.
    fn add(self, rhs: Self) -> Self;
    /// Adds the constant `k` to every lane.
    fn add_const(self, k: u32) -> Self;
    /// Lane-wise exclusive or.
    fn xor(self, rhs: Self) -> Self;
    /// Every lane rotated left by `L` bits; `R` must be `32 - L` (for the
    /// kernels that rotate with two shifts).
    fn rotl<const L: i32, const R: i32>(self) -> Self;
    /// `a ^ b ^ c` in every lane: `FF_j` and `GG_j` for `j < 16`, and the
    /// outer step of `P0`, `P1` and the expansion.
    fn xor3(a: Self, b: Self, c: Self) -> Self;
    /// `(x & y) | (x & z) | (y & z)` in every lane: `FF_j` for `j >= 16`.
    fn maj(x: Self, y: Self, z: Self) -> Self;
    /// `(x & y) | (!x & z)` in every lane: `GG_j` for `j >= 16`.
    fn ch(x: Self, y: Self, z: Self) -> Self;
}

/// Runs every lane over all of its blocks (the [`super::Compress`] contract):
/// the body of each SIMD kernel, inlined into its `#[target_feature]` entry.
///
/// # Panics
///
/// If the lanes do not all hold the same number of blocks.
#[inline(always)]
pub(super) fn compress<V: Vector<N>, const N: usize>(
    token: V::Token,
    mut states: [&mut State; N],
    blocks: [&[Block]; N],
) {
    let n = common_len(&blocks);
    if n == 0 {
        return;
    }
    // Every lane holds exactly `n` blocks, which lets the compiler drop the
    // bounds checks below. (Plain loops here and below, not `map` or
    // `array::from_fn`: with many codegen units those may stay calls.)
    let mut blocks = blocks;
    for b in &mut blocks {
        *b = &b[..n];
    }
    let mut s = V::load_states(token, &states);
    #[allow(clippy::needless_range_loop, reason = "`i` indexes every lane")]
    for i in 0..n {
        let mut m = [&blocks[0][i]; N];
        for (lane, b) in m.iter_mut().zip(&blocks) {
            *lane = &b[i];
        }
        let m = V::load_block(token, m);
        s = compress_block(s, m);
    }
    V::store_states(s, &mut states);
}

/// One block in every lane: 64 rounds, then the feed-forward exclusive or.
#[inline(always)]
fn compress_block<V: Vector<N>, const N: usize>(state: [V; 8], mut w: [V; 16]) -> [V; 8] {
    let mut s = state;
    let (first, rest) = T_ROTATED.split_at(16);
    rounds16::<V, N, true>(&mut s, &mut w, first);
    for t in rest.chunks_exact(16) {
        rounds16::<V, N, false>(&mut s, &mut w, t);
    }
    let mut out = state;
    for (o, x) in out.iter_mut().zip(s) {
        *o = o.xor(x);
    }
    out
}

/// `P0(x) = x ^ (x <<< 9) ^ (x <<< 17)`.
#[inline(always)]
fn p0<V: Vector<N>, const N: usize>(x: V) -> V {
    V::xor3(x, x.rotl::<9, 23>(), x.rotl::<17, 15>())
}

/// `P1(x) = x ^ (x <<< 15) ^ (x <<< 23)`.
#[inline(always)]
fn p1<V: Vector<N>, const N: usize>(x: V) -> V {
    V::xor3(x, x.rotl::<15, 17>(), x.rotl::<23, 9>())
}

/// Sixteen rounds `j0..j0 + 16` (`FIRST`: `j0 == 0`, the rounds with the
/// XOR forms of `FF` and `GG`) with the rotated constants `t` of those
/// rounds, on the schedule window `w` (see the module documentation).
#[inline(always)]
fn rounds16<V: Vector<N>, const N: usize, const FIRST: bool>(
    s: &mut [V; 8],
    w: &mut [V; 16],
    t: &[u32],
) {
    let t: &[u32; 16] = t.try_into().expect("16 round constants");
    macro_rules! step {
        ($($j:literal)*) => {$(
            // W[j + 4] into the slot of W[j - 12], from round 12 on:
            // W[n] = P1(W[n-16] ^ W[n-9] ^ (W[n-3] <<< 15))
            //        ^ (W[n-13] <<< 7) ^ W[n-6], with n = j + 4.
            if !FIRST || $j >= 12 {
                let x = V::xor3(
                    w[($j + 4) % 16],
                    w[($j + 11) % 16],
                    w[($j + 1) % 16].rotl::<15, 17>(),
                );
                w[($j + 4) % 16] = V::xor3(
                    p1(x),
                    w[($j + 7) % 16].rotl::<7, 25>(),
                    w[($j + 14) % 16],
                );
            }
            round::<V, N, FIRST>(s, t[$j], w[$j], w[($j + 4) % 16]);
        )*};
    }
    step!(0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15);
}

/// One round with the rotated constant `t`, `wj = W[j]` and `wj4 = W[j + 4]`;
/// `s` is `[A, B, C, D, E, F, G, H]`.
#[inline(always)]
fn round<V: Vector<N>, const N: usize, const FIRST: bool>(s: &mut [V; 8], t: u32, wj: V, wj4: V) {
    let [a, b, c, d, e, f, g, h] = *s;
    let a12 = a.rotl::<12, 20>();
    // Each round needs the previous round's A and E, and E comes last (P0
    // follows TT2), so everything else is summed before E arrives:
    // SS1 = ((A <<< 12) + T'_j + E) <<< 7 is one addition and a rotation
    // after E, and TT1 and TT2 are one addition after SS1. `opaque` pins
    // that order: without it the compiler re-associates the sums and puts
    // them on the E chain.
    let ss1 = a12.add_const(t).opaque().add(e).rotl::<7, 25>();
    let ss2 = ss1.xor(a12);
    let (ff, gg) = if FIRST {
        (V::xor3(a, b, c), V::xor3(e, f, g))
    } else {
        (V::maj(a, b, c), V::ch(e, f, g))
    };
    // TT1 = FF + D + SS2 + W'[j], TT2 = GG + H + SS1 + W[j].
    let tt1 = d.add(wj.xor(wj4)).add(ff).opaque().add(ss2);
    let tt2 = h.add(wj).add(gg).opaque().add(ss1);
    *s = [
        tt1,
        a,
        b.rotl::<9, 23>(),
        c,
        p0(tt2),
        e,
        f.rotl::<19, 13>(),
        g,
    ];
}
