//! The SHA-256 compression written once for word-sliced vectors.
//!
//! A *word-sliced* vector holds the same word of every lane: vector `t` of a
//! message holds message word `t` of lane 0, lane 1, ... lane `N - 1`. The
//! rounds below are then exactly the scalar rounds, one vector instruction
//! per scalar instruction, and every lane advances in step.
//!
//! What differs between vector widths (the instructions behind each
//! operation, and how lane-major blocks and states are transposed into
//! word-sliced vectors and back) is the [`Vector`] trait, implemented for
//! `__m256i` in `avx2_x8` and for `__m512i` in `avx512_x16`.

use super::{Block, K, State, common_len};

/// A vector of `N` 32-bit lanes, with the operations the SHA-256 rounds need.
///
/// # Safety
///
/// Every method is `unsafe` for one reason only: it executes instructions of
/// the CPU features the implementation is written for (named on each
/// implementation). Calling it is sound if and only if the CPU supports them.
pub(super) trait Vector<const N: usize>: Copy {
    /// How [`round`] computes `a'`: from its own `T1` (one more addition,
    /// but `a'` does not wait for `e'`), or as `(e' - d) + T2`. The first
    /// suits a latency-bound kernel, the second a throughput-bound one;
    /// each implementation picks what measures faster.
    const SEPARATE_T1: bool;
    /// Computes the round in the fewest additions (seven, as FIPS 180-4
    /// writes it: `T1` once, `e' = d + T1`, `a' = T1 + Σ0(a) + Maj`), at the
    /// price of a longer `e` chain: the form for a kernel bound by vector
    /// issue ports rather than by latency. Overrides `SEPARATE_T1`.
    const LEAN: bool = false;
    /// `self`, hidden from the optimiser (an empty `asm!`), so that the
    /// compiler cannot re-associate a chain of additions through it.
    unsafe fn opaque(self) -> Self;
    /// `x` in every lane.
    unsafe fn splat(x: u32) -> Self;
    /// Lane-wise wrapping addition.
    unsafe fn add(self, rhs: Self) -> Self;
    /// Lane-wise wrapping subtraction.
    unsafe fn sub(self, rhs: Self) -> Self;
    /// `Σ0(x) = ROTR²(x) ^ ROTR¹³(x) ^ ROTR²²(x)` in every lane.
    unsafe fn big_sigma0(self) -> Self;
    /// `Σ1(x) = ROTR⁶(x) ^ ROTR¹¹(x) ^ ROTR²⁵(x)` in every lane.
    unsafe fn big_sigma1(self) -> Self;
    /// `σ0(x) = ROTR⁷(x) ^ ROTR¹⁸(x) ^ SHR³(x)` in every lane.
    unsafe fn small_sigma0(self) -> Self;
    /// `σ1(x) = ROTR¹⁷(x) ^ ROTR¹⁹(x) ^ SHR¹⁰(x)` in every lane.
    unsafe fn small_sigma1(self) -> Self;
    /// `Ch(e, f, g) = (e & f) ^ (!e & g)` in every lane.
    unsafe fn ch(e: Self, f: Self, g: Self) -> Self;
    /// `Maj(a, b, c) = (a & b) ^ (a & c) ^ (b & c)` in every lane.
    unsafe fn maj(a: Self, b: Self, c: Self) -> Self;
    /// The 16 big-endian message words of one block per lane, word-sliced:
    /// vector `t` holds word `t` of `blocks[0]`, ..., `blocks[N - 1]`.
    unsafe fn load_message(blocks: [&Block; N]) -> [Self; 16];
    /// The states, word-sliced: vector `i` holds word `i` of every state.
    unsafe fn load_states(states: &[&mut State; N]) -> [Self; 8];
    /// The inverse of [`Vector::load_states`].
    unsafe fn store_states(v: [Self; 8], states: &mut [&mut State; N]);
}

/// Runs every lane over all of its blocks (the [`super::Compress`] contract).
///
/// # Safety
///
/// The CPU must support the features `V`'s implementation is written for.
///
/// # Panics
///
/// If the lanes do not all hold the same number of blocks.
#[inline(always)]
pub(super) unsafe fn compress<const N: usize, V: Vector<N>>(
    mut states: [&mut State; N],
    blocks: [&[Block]; N],
) {
    let n = common_len(&blocks);
    if n == 0 {
        return;
    }
    // SAFETY: the caller guarantees the CPU features of `V`, the only
    // requirement of its methods and of `compress_block`.
    unsafe {
        // Every lane holds exactly `n` blocks, which lets the compiler drop
        // the bounds checks below.
        let blocks = blocks.map(|b| &b[..n]);
        let mut s = V::load_states(&states);
        #[allow(clippy::needless_range_loop, reason = "`i` indexes every lane")]
        for i in 0..n {
            let m = V::load_message(core::array::from_fn(|lane| &blocks[lane][i]));
            s = compress_block(s, m);
        }
        V::store_states(s, &mut states);
    }
}

/// One block in every lane: 64 rounds, then the feed-forward addition.
///
/// # Safety
///
/// The CPU must support the features of `V`.
#[inline(always)]
unsafe fn compress_block<const N: usize, V: Vector<N>>(state: [V; 8], mut w: [V; 16]) -> [V; 8] {
    // SAFETY: the caller guarantees the CPU features of `V`.
    unsafe {
        let mut s = state;
        // Rounds 0..48 also extend the schedule: once round `t` has used
        // `W[t]`, slot `t % 16` is overwritten with `W[t + 16]`. (One loop
        // over three copies of 16 rounds measured faster than unrolling
        // it.)
        for k in K[..48].chunks_exact(16) {
            rounds16::<N, V, true>(&mut s, &mut w, k);
        }
        rounds16::<N, V, false>(&mut s, &mut w, &K[48..]);
        core::array::from_fn(|i| state[i].add(s[i]))
    }
}

/// Sixteen rounds using the schedule window `w` (`W[t]` for `t` in the
/// window at slot `t % 16`) and the 16 round constants `k`; with `EXTEND`,
/// each slot is replaced by `W[t + 16]` after its round.
///
/// # Safety
///
/// The CPU must support the features of `V`.
#[inline(always)]
unsafe fn rounds16<const N: usize, V: Vector<N>, const EXTEND: bool>(
    s: &mut [V; 8],
    w: &mut [V; 16],
    k: &[u32],
) {
    let k: &[u32; 16] = k.try_into().expect("16 round constants");
    macro_rules! step {
        ($($j:literal)*) => {$(
            // SAFETY: the caller guarantees the CPU features of `V`.
            unsafe {
                round(s, w[$j].add(V::splat(k[$j])));
                if EXTEND {
                    w[$j] = w[$j]
                        .add(w[($j + 1) % 16].small_sigma0())
                        .add(w[($j + 9) % 16])
                        .add(w[($j + 14) % 16].small_sigma1());
                }
            }
        )*};
    }
    step!(0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15);
}

/// One round with `wk = W[t] + K[t]`; `s` is `[a, b, c, d, e, f, g, h]`.
///
/// Each round needs the previous round's `a` and `e`, so the additions are
/// ordered to keep those two chains short rather than to minimise their
/// number. Everything that does not depend on `e` (`h + wk + d`) is summed
/// before `Ch(e, f, g)` and `Σ1(e)` arrive, so `e'` is one addition after
/// `Σ1(e)` (`d + T1` would be three); `a'` is one addition after `Σ0(a)`.
/// [`Vector::opaque`] pins that order: without it the compiler re-associates
/// the sums into one long chain (to share `Ch + Σ1` between `e'` and `T1`).
///
/// # Safety
///
/// The CPU must support the features of `V`.
#[inline(always)]
unsafe fn round<const N: usize, V: Vector<N>>(s: &mut [V; 8], wk: V) {
    let [a, b, c, d, e, f, g, h] = *s;
    if V::LEAN {
        // SAFETY: the caller guarantees the CPU features of `V`.
        unsafe {
            let t1 = h.add(wk).add(V::ch(e, f, g)).add(e.big_sigma1()).opaque();
            let t2 = a.big_sigma0().add(V::maj(a, b, c));
            *s = [t1.add(t2), a, b, c, d.add(t1), e, f, g];
        }
        return;
    }
    // SAFETY: the caller guarantees the CPU features of `V`.
    unsafe {
        let hw = h.add(wk);
        let hwd = hw.add(d).opaque();
        let ch = V::ch(e, f, g);
        let s1 = e.big_sigma1();
        // e' = d + T1
        let new_e = hwd.add(ch).opaque().add(s1);
        // a' = T1 + T2, T2 = Σ0(a) + Maj(a, b, c)
        let t1 = if V::SEPARATE_T1 {
            // T1 = h + Σ1(e) + Ch(e, f, g) + K[t] + W[t]
            hw.add(ch).opaque().add(s1).opaque()
        } else {
            new_e.sub(d).opaque()
        };
        let new_a = t1.add(V::maj(a, b, c)).opaque().add(a.big_sigma0());
        *s = [new_a, a, b, c, new_e, e, f, g];
    }
}
