//! The MD5 compression written once for word-sliced vectors.
//!
//! A *word-sliced* vector holds the same word of every lane: vector `t` of a
//! message holds message word `t` of lane 0, lane 1, ... lane `N - 1`. The
//! steps below are then exactly the scalar steps, one vector instruction
//! per scalar instruction, and every lane advances in step.
//!
//! What differs between vector widths (the instructions behind each
//! operation, and how lane-major blocks and states are transposed into
//! word-sliced vectors and back) is the [`Vector`] trait, implemented for a
//! wrapper of `__m256i` in `avx2_x8` and of `__m512i` in `avx512_x16`.
//! [`Pair`] runs two sets of lanes of such a vector side by side: its every
//! operation is the same operation on both sets, so the one round loop
//! interleaves two independent dependency chains.

use super::{Block, K, S, State, common_len, message_index};

/// A vector of `N` 32-bit lanes, with the operations the MD5 steps need.
///
/// Every value of `Self` is a proof that the CPU supports the instructions
/// behind the methods: the only constructors, [`Vector::load_states`] and
/// [`Vector::load_block`], take the kernel's proof token, so the methods are
/// safe to call.
pub(super) trait Vector<const N: usize>: Copy {
    /// The proof token of the kernel that owns this vector type.
    type Token: Copy;

    /// The states, word-sliced: vector `i` holds word `i` of every state.
    fn load_states(token: Self::Token, states: &[&mut State; N]) -> [Self; 4];
    /// The inverse of [`Vector::load_states`].
    fn store_states(v: [Self; 4], states: &mut [&mut State; N]);
    /// The 16 little-endian message words of one block per lane,
    /// word-sliced: vector `t` holds word `t` of `blocks[0]`, ...,
    /// `blocks[N - 1]`.
    fn load_block(token: Self::Token, blocks: [&Block; N]) -> [Self; 16];

    /// `self`, hidden from the optimiser (an empty `asm!`), so that the
    /// compiler cannot re-associate a chain of additions through it.
    fn opaque(self) -> Self;
    /// Lane-wise wrapping addition.
    fn add(self, rhs: Self) -> Self;
    /// Adds the constant `k` to every lane.
    fn add_const(self, k: u32) -> Self;
    /// Rotates every lane left by `L` bits; `R` must be `32 - L`.
    fn rotl<const L: i32, const R: i32>(self) -> Self;
    /// `self + F(b, c, d)`, `F = (b & c) | (!b & d)`, in every lane.
    fn add_f(self, b: Self, c: Self, d: Self) -> Self;
    /// `self + G(b, c, d)`, `G = (b & d) | (c & !d)`, in every lane.
    fn add_g(self, b: Self, c: Self, d: Self) -> Self;
    /// `self + H(b, c, d)`, `H = b ^ c ^ d`, in every lane.
    fn add_h(self, b: Self, c: Self, d: Self) -> Self;
    /// `self + I(b, c, d)`, `I = c ^ (b | !d)`, in every lane.
    fn add_i(self, b: Self, c: Self, d: Self) -> Self;
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
        s = compress_block(s, &m);
    }
    V::store_states(s, &mut states);
}

/// One block in every lane: 64 steps, then the feed-forward addition.
#[inline(always)]
fn compress_block<V: Vector<N>, const N: usize>(state: [V; 4], m: &[V; 16]) -> [V; 4] {
    let [mut a, mut b, mut c, mut d] = state;
    // Step `$i` as RFC 1321 writes it, `[abcd k s i]`:
    // `a = b + ((a + F(b, c, d) + X[k] + T[i]) <<< s)`. Only `b` (the word
    // the step before produced) is on the chain; `a + X[k] + T[i]` is
    // summed before it arrives, and `opaque` keeps the compiler from moving
    // the constant's addition after `F` (onto the chain) to merge constants.
    macro_rules! step {
        ($fun:ident, $i:expr, $a:ident, $b:ident, $c:ident, $d:ident) => {
            let x = $a
                .add(m[const { message_index($i) }])
                .add_const(K[$i])
                .opaque();
            $a = $b.add(
                x.$fun($b, $c, $d)
                    .rotl::<{ S[$i / 16][$i % 4] as i32 }, { 32 - S[$i / 16][$i % 4] as i32 }>(),
            );
        };
    }
    // Four steps from `$i`, each producing the next step's `b`.
    macro_rules! round {
        ($fun:ident, $($i:literal)*) => {$(
            step!($fun, $i, a, b, c, d);
            step!($fun, $i + 1, d, a, b, c);
            step!($fun, $i + 2, c, d, a, b);
            step!($fun, $i + 3, b, c, d, a);
        )*};
    }
    round!(add_f, 0 4 8 12);
    round!(add_g, 16 20 24 28);
    round!(add_h, 32 36 40 44);
    round!(add_i, 48 52 56 60);
    let [a0, b0, c0, d0] = state;
    [a0.add(a), b0.add(b), c0.add(c), d0.add(d)]
}

/// Two sets of `N` lanes as one vector of `2N`: lanes `0..N` in `.0`,
/// `N..2N` in `.1`. Every operation is the same one on both halves, so the
/// two sets' chains interleave in one instruction stream.
#[derive(Clone, Copy)]
pub(super) struct Pair<V>(V, V);

/// Implements `Vector<$two>` for `Pair<V>` with `V: Vector<$one>`.
macro_rules! pair {
    ($one:literal, $two:literal) => {
        impl<V: Vector<$one>> Vector<$two> for Pair<V> {
            type Token = V::Token;

            #[inline(always)]
            fn load_states(token: V::Token, states: &[&mut State; $two]) -> [Self; 4] {
                let (lo, hi) = states.split_at($one);
                let lo = V::load_states(token, lo.try_into().expect("half"));
                let hi = V::load_states(token, hi.try_into().expect("half"));
                [
                    Pair(lo[0], hi[0]),
                    Pair(lo[1], hi[1]),
                    Pair(lo[2], hi[2]),
                    Pair(lo[3], hi[3]),
                ]
            }

            #[inline(always)]
            fn store_states(v: [Self; 4], states: &mut [&mut State; $two]) {
                let (lo, hi) = states.split_at_mut($one);
                let [p0, p1, p2, p3] = v;
                V::store_states([p0.0, p1.0, p2.0, p3.0], lo.try_into().expect("half"));
                V::store_states([p0.1, p1.1, p2.1, p3.1], hi.try_into().expect("half"));
            }

            #[inline(always)]
            fn load_block(token: V::Token, blocks: [&Block; $two]) -> [Self; 16] {
                let (lo, hi) = blocks.split_at($one);
                let lo = V::load_block(token, lo.try_into().expect("half"));
                let hi = V::load_block(token, hi.try_into().expect("half"));
                let mut out = [Pair(lo[0], hi[0]); 16];
                for (o, (l, h)) in out.iter_mut().zip(lo.into_iter().zip(hi)) {
                    *o = Pair(l, h);
                }
                out
            }

            #[inline(always)]
            fn opaque(self) -> Self {
                Pair(self.0.opaque(), self.1.opaque())
            }

            #[inline(always)]
            fn add(self, rhs: Self) -> Self {
                Pair(self.0.add(rhs.0), self.1.add(rhs.1))
            }

            #[inline(always)]
            fn add_const(self, k: u32) -> Self {
                Pair(self.0.add_const(k), self.1.add_const(k))
            }

            #[inline(always)]
            fn rotl<const L: i32, const R: i32>(self) -> Self {
                Pair(self.0.rotl::<L, R>(), self.1.rotl::<L, R>())
            }

            #[inline(always)]
            fn add_f(self, b: Self, c: Self, d: Self) -> Self {
                Pair(self.0.add_f(b.0, c.0, d.0), self.1.add_f(b.1, c.1, d.1))
            }

            #[inline(always)]
            fn add_g(self, b: Self, c: Self, d: Self) -> Self {
                Pair(self.0.add_g(b.0, c.0, d.0), self.1.add_g(b.1, c.1, d.1))
            }

            #[inline(always)]
            fn add_h(self, b: Self, c: Self, d: Self) -> Self {
                Pair(self.0.add_h(b.0, c.0, d.0), self.1.add_h(b.1, c.1, d.1))
            }

            #[inline(always)]
            fn add_i(self, b: Self, c: Self, d: Self) -> Self {
                Pair(self.0.add_i(b.0, c.0, d.0), self.1.add_i(b.1, c.1, d.1))
            }
        }
    };
}

pair!(8, 16);
pair!(16, 32);
