//! The SHA-256 compression written once for word-sliced vectors.
//!
//! A *word-sliced* vector holds the same word of every lane: vector `t` of a
//! message holds message word `t` of lane 0, lane 1, ... lane `N - 1`. The
//! rounds below are then exactly the scalar rounds, one vector instruction
//! per scalar instruction, and every lane advances in step.
//!
//! What differs between vector widths (the instructions behind each
//! operation, and how lane-major blocks and states are transposed into
//! word-sliced vectors and back) is the [`Vector`] trait, implemented for a
//! wrapper of `__m256i` in `avx2_x8` and of `__m512i` in `avx512_x16`.

use super::{Block, K, State, common_len};

/// A vector of `N` 32-bit lanes, with the operations the SHA-256 rounds need.
///
/// Every value of `Self` is a proof that the CPU supports the instructions
/// behind the methods: the only constructors, [`Vector::load_states`] and
/// [`Vector::load_row`], take the kernel's proof token, so the methods are
/// safe to call.
pub(super) trait Vector<const N: usize>: Copy {
    /// The proof token of the kernel that owns this vector type.
    type Token: Copy;
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

    /// The states, word-sliced: vector `i` holds word `i` of every state.
    fn load_states(token: Self::Token, states: &[&mut State; N]) -> [Self; 8];
    /// The inverse of [`Vector::load_states`].
    fn store_states(v: [Self; 8], states: &mut [&mut State; N]);
    /// Row `j` (`0..16`) of one block per lane, as loaded: 64 bytes of the
    /// blocks in whatever arrangement [`Vector::transpose`] expects. Only
    /// loads, so that the rows of the next blocks can be read while the
    /// last rounds of the current ones run.
    fn load_row(token: Self::Token, blocks: &[&Block; N], j: usize) -> Self;
    /// The 16 big-endian message words from the 16 rows of
    /// [`Vector::load_row`], word-sliced: vector `t` holds word `t` of
    /// `blocks[0]`, ..., `blocks[N - 1]`.
    fn transpose(rows: [Self; 16]) -> [Self; 16];

    /// `self`, hidden from the optimiser (an empty `asm!`), so that the
    /// compiler cannot re-associate a chain of additions through it.
    fn opaque(self) -> Self;
    /// Lane-wise wrapping addition.
    fn add(self, rhs: Self) -> Self;
    /// Adds the constant `k` to every lane.
    fn add_const(self, k: u32) -> Self;
    /// Lane-wise wrapping subtraction.
    fn sub(self, rhs: Self) -> Self;
    /// `Σ0(x) = ROTR²(x) ^ ROTR¹³(x) ^ ROTR²²(x)` in every lane.
    fn big_sigma0(self) -> Self;
    /// `Σ1(x) = ROTR⁶(x) ^ ROTR¹¹(x) ^ ROTR²⁵(x)` in every lane.
    fn big_sigma1(self) -> Self;
    /// `σ0(x) = ROTR⁷(x) ^ ROTR¹⁸(x) ^ SHR³(x)` in every lane.
    fn small_sigma0(self) -> Self;
    /// `σ1(x) = ROTR¹⁷(x) ^ ROTR¹⁹(x) ^ SHR¹⁰(x)` in every lane.
    fn small_sigma1(self) -> Self;
    /// `Ch(e, f, g) = (e & f) ^ (!e & g)` in every lane.
    fn ch(e: Self, f: Self, g: Self) -> Self;
    /// `Maj(a, b, c) = (a & b) ^ (a & c) ^ (b & c)` in every lane.
    fn maj(a: Self, b: Self, c: Self) -> Self;
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
    // The rows of block `i + 1` are loaded during the last 16 rounds of
    // block `i` (software pipelining), each into the slot of the message
    // word its round has just used, so that the loads are in flight long
    // before the transpose needs them. The last block reloads itself: 16
    // loads from the first level of cache, instead of a second copy of
    // the last 16 rounds.
    let mut rows = load_rows::<V, N>(token, &lanes_at(&blocks, 0));
    for i in 0..n {
        let next = lanes_at(&blocks, if i + 1 < n { i + 1 } else { i });
        (s, rows) = compress_block(token, s, V::transpose(rows), &next);
    }
    V::store_states(s, &mut states);
}

/// Block `i` of every lane.
#[inline(always)]
fn lanes_at<'a, const N: usize>(blocks: &[&'a [Block]; N], i: usize) -> [&'a Block; N] {
    let mut m = [&blocks[0][i]; N];
    for (lane, b) in m.iter_mut().zip(blocks) {
        *lane = &b[i];
    }
    m
}

/// The 16 rows of one block per lane.
#[inline(always)]
fn load_rows<V: Vector<N>, const N: usize>(token: V::Token, blocks: &[&Block; N]) -> [V; 16] {
    macro_rules! rows {
        ($($j:literal)*) => {[$(V::load_row(token, blocks, $j)),*]};
    }
    rows!(0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15)
}

/// One block in every lane: 64 rounds, then the feed-forward addition.
/// Returns the new state and the rows of `next`, loaded during the last
/// 16 rounds.
#[inline(always)]
fn compress_block<V: Vector<N>, const N: usize>(
    token: V::Token,
    state: [V; 8],
    mut w: [V; 16],
    next: &[&Block; N],
) -> ([V; 8], [V; 16]) {
    let mut s = state;
    // Rounds 0..48 also extend the schedule: once round `t` has used
    // `W[t]`, slot `t % 16` is overwritten with `W[t + 16]`. (One loop
    // over three copies of 16 rounds measured faster than unrolling
    // it.) Rounds 48..64 overwrite it with row `t % 16` of `next`.
    for k in K[..48].chunks_exact(16) {
        rounds16::<V, N, true>(token, &mut s, &mut w, k, next);
    }
    rounds16::<V, N, false>(token, &mut s, &mut w, &K[48..], next);
    let mut out = state;
    for (o, x) in out.iter_mut().zip(s) {
        *o = o.add(x);
    }
    (out, w)
}

/// Sixteen rounds using the schedule window `w` (`W[t]` for `t` in the
/// window at slot `t % 16`) and the 16 round constants `k`; after its
/// round each slot is replaced by `W[t + 16]` with `EXTEND`, by row
/// `t % 16` of `next` without.
#[inline(always)]
fn rounds16<V: Vector<N>, const N: usize, const EXTEND: bool>(
    token: V::Token,
    s: &mut [V; 8],
    w: &mut [V; 16],
    k: &[u32],
    next: &[&Block; N],
) {
    let k: &[u32; 16] = k.try_into().expect("16 round constants");
    macro_rules! step {
        ($($j:literal)*) => {$(
            round(s, w[$j].add_const(k[$j]));
            w[$j] = if EXTEND {
                w[$j]
                    .add(w[($j + 1) % 16].small_sigma0())
                    .add(w[($j + 9) % 16])
                    .add(w[($j + 14) % 16].small_sigma1())
            } else {
                V::load_row(token, next, $j)
            };
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
#[inline(always)]
fn round<V: Vector<N>, const N: usize>(s: &mut [V; 8], wk: V) {
    let [a, b, c, d, e, f, g, h] = *s;
    if V::LEAN {
        let t1 = h.add(wk).add(V::ch(e, f, g)).add(e.big_sigma1()).opaque();
        let t2 = a.big_sigma0().add(V::maj(a, b, c));
        *s = [t1.add(t2), a, b, c, d.add(t1), e, f, g];
        return;
    }
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
