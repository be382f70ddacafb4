//! The SHA-512 block function written once, for any word-sliced vector of
//! `N` `u64` lanes (AVX2: 4 lanes, AVX-512: 8 lanes).
//!
//! A *word-sliced* vector holds the same word of `N` different messages:
//! lane `i` of every vector belongs to message lane `i`. The kernels
//! transpose the lane-major states once per call and each block as it is
//! loaded, then run the rounds exactly as the scalar reference does.

use super::{Block, K, State, common_len};

/// The operations the rounds need, on a vector of `N` `u64` lanes.
///
/// Every value of `Self` is a proof that the CPU supports the instructions
/// behind the methods: the only constructors, [`Vector::load_states`] and
/// [`Vector::load_block`], take the kernel's proof token, so the methods are
/// safe to call.
pub(super) trait Vector<const N: usize>: Copy {
    /// The proof token of the kernel that owns this vector type.
    type Token: Copy;
    /// Computes the round in the fewest additions (as FIPS 180-4 writes
    /// it: `T1` once, `e' = d + T1`, `a' = T1 + Σ0(a) + Maj`), the form for
    /// a kernel bound by vector issue; without it, `e'` is one addition
    /// after `Σ1(e)` (`(h + K + W + d + Ch) + Σ1(e)`) and `a'` is
    /// `((e' - d) + Maj) + Σ0(a)`: one addition more per round and shorter
    /// `e` and `a` chains, for a kernel bound by their latency. Each
    /// implementation picks what measures faster.
    const LEAN: bool;

    /// Loads the lane-major `states`, transposed: word `j` of every lane goes
    /// into vector `j`.
    fn load_states(token: Self::Token, states: &[&mut State; N]) -> [Self; 8];

    /// Transposes back and stores into the lane-major `states`.
    fn store_states(words: [Self; 8], states: &mut [&mut State; N]);

    /// Loads one block of every lane as 16 big-endian words, transposed and
    /// byte-swapped: vector `t` holds message word `W[t]` of every lane.
    fn load_block(token: Self::Token, blocks: [&Block; N]) -> [Self; 16];

    /// `self`, hidden from the optimiser (an empty `asm!`), so that the
    /// compiler cannot re-associate a chain of additions through it.
    fn opaque(self) -> Self;
    /// Lane-wise wrapping addition.
    fn add(self, other: Self) -> Self;
    /// Lane-wise wrapping subtraction.
    fn sub(self, other: Self) -> Self;
    /// Adds the constant `k` to every lane.
    fn add_const(self, k: u64) -> Self;
    /// `ROTR^28 ^ ROTR^34 ^ ROTR^39`.
    fn big_sigma0(self) -> Self;
    /// `ROTR^14 ^ ROTR^18 ^ ROTR^41`.
    fn big_sigma1(self) -> Self;
    /// `ROTR^1 ^ ROTR^8 ^ SHR^7`.
    fn small_sigma0(self) -> Self;
    /// `ROTR^19 ^ ROTR^61 ^ SHR^6`.
    fn small_sigma1(self) -> Self;
    /// `Ch(e, f, g) = (e & f) ^ (!e & g)`.
    fn ch(e: Self, f: Self, g: Self) -> Self;
    /// `Maj(a, b, c) = (a & b) ^ (a & c) ^ (b & c)`.
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
    // Seen through `black_box`, the round constants are loads rather than
    // immediates, so the compiler no longer moves `+ K[t]` to the end of each
    // round's sum (onto the critical path through `e`).
    let k: &[u64; 80] = core::hint::black_box(&K);
    let mut words = V::load_states(token, &states);
    #[allow(clippy::needless_range_loop, reason = "`i` indexes every lane")]
    for i in 0..n {
        let mut w = [&blocks[0][i]; N];
        for (lane, b) in w.iter_mut().zip(&blocks) {
            *lane = &b[i];
        }
        let w = V::load_block(token, w);
        words = compress_block(words, w, k);
    }
    V::store_states(words, &mut states);
}

/// One block: 80 rounds with the message schedule kept in a 16-word window.
#[inline(always)]
fn compress_block<V: Vector<N>, const N: usize>(
    state: [V; 8],
    mut w: [V; 16],
    k: &[u64; 80],
) -> [V; 8] {
    let [mut a, mut b, mut c, mut d, mut e, mut f, mut g, mut h] = state;

    // One round; the caller rotates the names instead of moving the values.
    macro_rules! round {
        ($a:ident, $b:ident, $c:ident, $d:ident, $e:ident, $f:ident, $g:ident, $h:ident,
         $k:expr, $i:expr) => {
            // h + K + W does not depend on the previous round: add it first.
            if V::LEAN {
                let t1 = $h
                    .add_const($k[$i])
                    .add(w[$i])
                    .add(V::ch($e, $f, $g))
                    .add($e.big_sigma1());
                let t2 = $a.big_sigma0().add(V::maj($a, $b, $c));
                $d = $d.add(t1);
                $h = t1.add(t2);
            } else {
                // `opaque` pins the order: the compiler would otherwise
                // re-associate the sums into one long chain.
                let hwd = $h.add_const($k[$i]).add(w[$i]).add($d).opaque();
                let new_e = hwd.add(V::ch($e, $f, $g)).opaque().add($e.big_sigma1());
                let t1 = new_e.sub($d).opaque();
                $h = t1.add(V::maj($a, $b, $c)).opaque().add($a.big_sigma0());
                $d = new_e;
            }
        };
    }
    // W[t] for t >= 16, written over W[t - 16] in the window.
    macro_rules! schedule {
        ($i:expr) => {
            w[$i] = w[$i]
                .add(w[($i + 1) % 16].small_sigma0())
                .add(w[($i + 9) % 16])
                .add(w[($i + 14) % 16].small_sigma1());
        };
    }
    // Sixteen rounds with the constants `$k[0..16]`; `$sched` says whether
    // the window holds the message or must be scheduled.
    macro_rules! sixteen {
        ($k:expr, $sched:tt) => {
            sixteen!(@one $sched, a, b, c, d, e, f, g, h, $k, 0);
            sixteen!(@one $sched, h, a, b, c, d, e, f, g, $k, 1);
            sixteen!(@one $sched, g, h, a, b, c, d, e, f, $k, 2);
            sixteen!(@one $sched, f, g, h, a, b, c, d, e, $k, 3);
            sixteen!(@one $sched, e, f, g, h, a, b, c, d, $k, 4);
            sixteen!(@one $sched, d, e, f, g, h, a, b, c, $k, 5);
            sixteen!(@one $sched, c, d, e, f, g, h, a, b, $k, 6);
            sixteen!(@one $sched, b, c, d, e, f, g, h, a, $k, 7);
            sixteen!(@one $sched, a, b, c, d, e, f, g, h, $k, 8);
            sixteen!(@one $sched, h, a, b, c, d, e, f, g, $k, 9);
            sixteen!(@one $sched, g, h, a, b, c, d, e, f, $k, 10);
            sixteen!(@one $sched, f, g, h, a, b, c, d, e, $k, 11);
            sixteen!(@one $sched, e, f, g, h, a, b, c, d, $k, 12);
            sixteen!(@one $sched, d, e, f, g, h, a, b, c, $k, 13);
            sixteen!(@one $sched, c, d, e, f, g, h, a, b, $k, 14);
            sixteen!(@one $sched, b, c, d, e, f, g, h, a, $k, 15);
        };
        (@one load, $a:ident, $b:ident, $c:ident, $d:ident, $e:ident, $f:ident, $g:ident,
         $h:ident, $k:expr, $i:expr) => {
            round!($a, $b, $c, $d, $e, $f, $g, $h, $k, $i);
        };
        (@one schedule, $a:ident, $b:ident, $c:ident, $d:ident, $e:ident, $f:ident, $g:ident,
         $h:ident, $k:expr, $i:expr) => {
            schedule!($i);
            round!($a, $b, $c, $d, $e, $f, $g, $h, $k, $i);
        };
    }

    let (k, _) = k.as_chunks::<16>();
    sixteen!(k[0], load);
    for k in &k[1..] {
        sixteen!(k, schedule);
    }

    let [sa, sb, sc, sd, se, sf, sg, sh] = state;
    [
        sa.add(a),
        sb.add(b),
        sc.add(c),
        sd.add(d),
        se.add(e),
        sf.add(f),
        sg.add(g),
        sh.add(h),
    ]
}
