//! The SHA-1 compression written once for word-sliced vectors.
//!
//! A *word-sliced* vector holds the same word of every lane: vector `t` of a
//! message holds message word `t` of lane 0, lane 1, ... lane `N - 1`. The
//! rounds below are then exactly the scalar rounds, one vector instruction
//! (or a few, where the ISA lacks one) per scalar instruction, and every lane
//! advances in step.
//!
//! What differs between vector widths (the instructions behind each
//! operation, and how lane-major blocks and states are transposed into
//! word-sliced vectors and back) is the [`Vector`] trait, implemented for a
//! wrapper of `__m256i` in `avx2_x8` and of `__m512i` in `avx512_x16`.

use super::{Block, K, State, common_len};

/// A vector of `N` 32-bit lanes, with the operations the SHA-1 rounds need.
///
/// Every value of `Self` is a proof that the CPU supports the instructions
/// behind the methods: the only constructors, [`Vector::load_states`] and
/// [`Vector::load_block`], take the kernel's proof token, so the methods are
/// safe to call.
pub(super) trait Vector<const N: usize>: Copy {
    /// The proof token of the kernel that owns this vector type.
    type Token: Copy;

    /// The states, word-sliced: vector `i` holds word `i` of every state.
    fn load_states(token: Self::Token, states: &[&mut State; N]) -> [Self; 5];
    /// The inverse of [`Vector::load_states`].
    fn store_states(v: [Self; 5], states: &mut [&mut State; N]);
    /// The 16 big-endian message words of one block per lane, word-sliced:
    /// vector `t` holds word `t` of `blocks[0]`, ..., `blocks[N - 1]`.
    fn load_block(token: Self::Token, blocks: [&Block; N]) -> [Self; 16];

    /// Lane-wise wrapping addition.
    fn add(self, rhs: Self) -> Self;
    /// Adds the constant `k` to every lane.
    fn add_const(self, k: u32) -> Self;
    /// `ROTL¹(x)` in every lane.
    fn rotl1(self) -> Self;
    /// `ROTL⁵(x)` in every lane.
    fn rotl5(self) -> Self;
    /// `ROTL³⁰(x)` in every lane.
    fn rotl30(self) -> Self;
    /// The next schedule word, `ROTL¹(w3 ^ w8 ^ w14 ^ w16)` in every lane
    /// (`W[t]` from `W[t - 3]`, `W[t - 8]`, `W[t - 14]`, `W[t - 16]`).
    fn schedule(w3: Self, w8: Self, w14: Self, w16: Self) -> Self;
    /// `Ch(x, y, z) = (x & y) ^ (!x & z)` in every lane (rounds 0..20).
    fn ch(x: Self, y: Self, z: Self) -> Self;
    /// `Parity(x, y, z) = x ^ y ^ z` in every lane (rounds 20..40, 60..80).
    fn parity(x: Self, y: Self, z: Self) -> Self;
    /// `Maj(x, y, z) = (x & y) ^ (x & z) ^ (y & z)` in every lane (rounds
    /// 40..60).
    fn maj(x: Self, y: Self, z: Self) -> Self;
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
    // The round constants as run-time values: LLVM's reassociation moves a
    // constant to the end of a sum, so with `K` as a literal it computed
    // `((W + e) + f) + K + ROTL⁵(a)`, which leaves the path from `b` to the
    // next `a` with no slack. Opaque, they rank with the message words and
    // the sum stays as `round` writes it: `(W + K) + e` early, then `f`,
    // then `ROTL⁵(a)`. The cost is one 16-byte load per call.
    let k = core::hint::black_box(K);
    let mut s = V::load_states(token, &states);
    #[allow(clippy::needless_range_loop, reason = "`i` indexes every lane")]
    for i in 0..n {
        let mut m = [&blocks[0][i]; N];
        for (lane, b) in m.iter_mut().zip(&blocks) {
            *lane = &b[i];
        }
        let m = V::load_block(token, m);
        s = compress_block(s, m, &k);
    }
    V::store_states(s, &mut states);
}

/// One block in every lane: 80 rounds, then the feed-forward addition.
///
/// The rounds are unrolled: the schedule window has 16 slots and the round
/// function changes every 20 rounds, so the pattern repeats only after 80.
/// `k` is [`K`], passed in as a run-time value (see [`compress`]).
#[inline(always)]
fn compress_block<V: Vector<N>, const N: usize>(
    state: [V; 5],
    mut w: [V; 16],
    k: &[u32; 4],
) -> [V; 5] {
    let mut s = state;
    // Round `t` uses slot `t % 16`, which holds `W[t]`; in rounds 0..64 the
    // slot is then overwritten with `W[t + 16]`.
    macro_rules! rounds {
        ($f:expr, $k:expr; $($t:literal)*) => {$(
            round::<V, N, $f>(&mut s, w[$t % 16].add_const($k));
            if $t < 64 {
                w[$t % 16] = V::schedule(
                    w[($t + 13) % 16],
                    w[($t + 8) % 16],
                    w[($t + 2) % 16],
                    w[$t % 16],
                );
            }
        )*};
    }
    rounds!(CH, k[0]; 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19);
    rounds!(PARITY, k[1]; 20 21 22 23 24 25 26 27 28 29 30 31 32 33 34 35 36 37 38 39);
    rounds!(MAJ, k[2]; 40 41 42 43 44 45 46 47 48 49 50 51 52 53 54 55 56 57 58 59);
    rounds!(PARITY, k[3]; 60 61 62 63 64 65 66 67 68 69 70 71 72 73 74 75 76 77 78 79);
    let mut out = state;
    for (o, x) in out.iter_mut().zip(s) {
        *o = o.add(x);
    }
    out
}

/// The round functions, by number: the const parameter `F` of [`round`].
const CH: u8 = 0;
const PARITY: u8 = 1;
const MAJ: u8 = 2;

/// One round with `wk = W[t] + K[t]` and the round function `F` ([`CH`],
/// [`PARITY`] or [`MAJ`]); `s` is `[a, b, c, d, e]`.
///
/// `e + wk + f(b, c, d)` does not wait for this round's `a`, which comes
/// last (through `ROTL⁵`), so the chain from one `a` to the next is two
/// operations.
#[inline(always)]
fn round<V: Vector<N>, const N: usize, const F: u8>(s: &mut [V; 5], wk: V) {
    let [a, b, c, d, e] = *s;
    let f = match F {
        CH => V::ch(b, c, d),
        PARITY => V::parity(b, c, d),
        _ => V::maj(b, c, d),
    };
    let t = e.add(wk).add(f).add(a.rotl5());
    *s = [t, a, b.rotl30(), c, d];
}
