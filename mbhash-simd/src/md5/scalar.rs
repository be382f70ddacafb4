//! The portable MD5 compression, one stream: no `unsafe`.
//!
//! It is the kernel for a single job and the oracle every SIMD kernel is
//! tested against (it is itself tested against the `md-5` crate and RFC
//! 1321's answers).

use super::{Block, Compress, K, S, State, message_index};

/// The portable kernel; always available.
#[derive(Clone, Copy, Debug, Default)]
pub struct Scalar;

impl Scalar {
    /// Lanes per call.
    pub const LANES: usize = 1;

    /// Always `Some`: the scalar kernel needs no CPU feature.
    pub fn new() -> Option<Self> {
        Some(Scalar)
    }
}

impl Compress<1> for Scalar {
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

/// Message word `k` of `block`, little-endian.
#[inline(always)]
fn word(block: &Block, k: usize) -> u32 {
    let [b0, b1, b2, b3] = [
        block[4 * k],
        block[4 * k + 1],
        block[4 * k + 2],
        block[4 * k + 3],
    ];
    u32::from_le_bytes([b0, b1, b2, b3])
}

/// One block: the 64 steps unrolled (RFC 1321, 3.4), the message index and
/// rotation of each a constant.
///
/// Each step is `a = b + ((a + F(b, c, d) + X[k] + T[i]) <<< s)`, and the
/// words turn; what bounds a block is the chain from one step's `b` to the
/// next, so every step adds first what does not wait for `b` (`a`, the
/// message word and the constant, and whatever part of `F` needs only `c`
/// and `d`) and the part of `F` that reads `b` last:
///
/// * round 1, `F = (b & c) | (!b & d)`, as `d ^ (b & (c ^ d))`: two
///   operations after `b`;
/// * round 2, `G = (b & d) | (c & !d)`: the two halves have no bit in
///   common, so `G` is their sum, and `c & !d` is added before `b` is known;
///   one AND after `b`, then an addition;
/// * round 3, `H = b ^ c ^ d`, as `b ^ (c ^ d)`;
/// * round 4, `I = c ^ (b | !d)`, with `!d` made before `b` is known.
///
/// The step constants are read from `K` through [`core::hint::black_box`]:
/// as literals, LLVM's reassociation moves them to the end of the sum,
/// after `F`, which puts one more addition on the chain from `b` (GCC keeps
/// them early, in one `lea` with the message word). Loads from the table
/// cost a load port each, not latency.
#[inline(always)]
fn compress_block(state: &mut State, block: &Block) {
    let [mut a, mut b, mut c, mut d] = *state;
    let t = core::hint::black_box(&K);

    macro_rules! step {
        (F, $a:ident, $b:ident, $c:ident, $d:ident, $i:literal) => {
            $a = $a
                .wrapping_add(word(block, const { message_index($i) }))
                .wrapping_add(t[$i])
                .wrapping_add($d ^ ($b & ($c ^ $d)));
            $a = $a
                .rotate_left(const { S[$i / 16][$i % 4] })
                .wrapping_add($b);
        };
        (G, $a:ident, $b:ident, $c:ident, $d:ident, $i:literal) => {
            $a = $a
                .wrapping_add(word(block, const { message_index($i) }))
                .wrapping_add(t[$i])
                .wrapping_add($c & !$d)
                .wrapping_add($b & $d);
            $a = $a
                .rotate_left(const { S[$i / 16][$i % 4] })
                .wrapping_add($b);
        };
        (H, $a:ident, $b:ident, $c:ident, $d:ident, $i:literal) => {
            $a = $a
                .wrapping_add(word(block, const { message_index($i) }))
                .wrapping_add(t[$i])
                .wrapping_add($b ^ ($c ^ $d));
            $a = $a
                .rotate_left(const { S[$i / 16][$i % 4] })
                .wrapping_add($b);
        };
        (I, $a:ident, $b:ident, $c:ident, $d:ident, $i:literal) => {
            $a = $a
                .wrapping_add(word(block, const { message_index($i) }))
                .wrapping_add(t[$i])
                .wrapping_add($c ^ ($b | !$d));
            $a = $a
                .rotate_left(const { S[$i / 16][$i % 4] })
                .wrapping_add($b);
        };
    }

    // RFC 1321, 3.4: [abcd k s i] with `k` and `s` from the step number.
    step!(F, a, b, c, d, 0);
    step!(F, d, a, b, c, 1);
    step!(F, c, d, a, b, 2);
    step!(F, b, c, d, a, 3);
    step!(F, a, b, c, d, 4);
    step!(F, d, a, b, c, 5);
    step!(F, c, d, a, b, 6);
    step!(F, b, c, d, a, 7);
    step!(F, a, b, c, d, 8);
    step!(F, d, a, b, c, 9);
    step!(F, c, d, a, b, 10);
    step!(F, b, c, d, a, 11);
    step!(F, a, b, c, d, 12);
    step!(F, d, a, b, c, 13);
    step!(F, c, d, a, b, 14);
    step!(F, b, c, d, a, 15);

    step!(G, a, b, c, d, 16);
    step!(G, d, a, b, c, 17);
    step!(G, c, d, a, b, 18);
    step!(G, b, c, d, a, 19);
    step!(G, a, b, c, d, 20);
    step!(G, d, a, b, c, 21);
    step!(G, c, d, a, b, 22);
    step!(G, b, c, d, a, 23);
    step!(G, a, b, c, d, 24);
    step!(G, d, a, b, c, 25);
    step!(G, c, d, a, b, 26);
    step!(G, b, c, d, a, 27);
    step!(G, a, b, c, d, 28);
    step!(G, d, a, b, c, 29);
    step!(G, c, d, a, b, 30);
    step!(G, b, c, d, a, 31);

    step!(H, a, b, c, d, 32);
    step!(H, d, a, b, c, 33);
    step!(H, c, d, a, b, 34);
    step!(H, b, c, d, a, 35);
    step!(H, a, b, c, d, 36);
    step!(H, d, a, b, c, 37);
    step!(H, c, d, a, b, 38);
    step!(H, b, c, d, a, 39);
    step!(H, a, b, c, d, 40);
    step!(H, d, a, b, c, 41);
    step!(H, c, d, a, b, 42);
    step!(H, b, c, d, a, 43);
    step!(H, a, b, c, d, 44);
    step!(H, d, a, b, c, 45);
    step!(H, c, d, a, b, 46);
    step!(H, b, c, d, a, 47);

    step!(I, a, b, c, d, 48);
    step!(I, d, a, b, c, 49);
    step!(I, c, d, a, b, 50);
    step!(I, b, c, d, a, 51);
    step!(I, a, b, c, d, 52);
    step!(I, d, a, b, c, 53);
    step!(I, c, d, a, b, 54);
    step!(I, b, c, d, a, 55);
    step!(I, a, b, c, d, 56);
    step!(I, d, a, b, c, 57);
    step!(I, c, d, a, b, 58);
    step!(I, b, c, d, a, 59);
    step!(I, a, b, c, d, 60);
    step!(I, d, a, b, c, 61);
    step!(I, c, d, a, b, 62);
    step!(I, b, c, d, a, 63);

    for (s, v) in state.iter_mut().zip([a, b, c, d]) {
        *s = s.wrapping_add(v);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// RFC 1321 appendix A.5, MD5("abc") = 900150983cd24fb0d6963f7d28e17f72:
    /// one padded block.
    #[test]
    fn abc() {
        let mut block = [0u8; 64];
        block[..3].copy_from_slice(b"abc");
        block[3] = 0x80;
        block[56] = 24;
        let mut state = super::super::IV;
        compress(&mut state, &[block]);
        let mut digest = [0u8; 16];
        for (d, w) in digest.chunks_exact_mut(4).zip(state) {
            d.copy_from_slice(&w.to_le_bytes());
        }
        assert_eq!(
            digest,
            [
                0x90, 0x01, 0x50, 0x98, 0x3c, 0xd2, 0x4f, 0xb0, 0xd6, 0x96, 0x3f, 0x7d, 0x28, 0xe1,
                0x7f, 0x72
            ]
        );
    }
}
