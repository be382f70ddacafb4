//! The readable reference MD5 compression: no `unsafe`, no tricks.
//!
//! It is the oracle every SIMD kernel is tested against.

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

fn compress_block(state: &mut State, block: &Block) {
    let mut x = [0u32; 16];
    for (w, bytes) in x.iter_mut().zip(block.chunks_exact(4)) {
        *w = u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]);
    }

    // The four rounds (RFC 1321, 3.4), each with its auxiliary function of
    // B, C and D.
    let rounds: [fn(u32, u32, u32) -> u32; 4] = [
        |b, c, d| (b & c) | (!b & d),
        |b, c, d| (b & d) | (c & !d),
        |b, c, d| b ^ c ^ d,
        |b, c, d| c ^ (b | !d),
    ];
    let [mut a, mut b, mut c, mut d] = *state;
    for (r, f) in rounds.into_iter().enumerate() {
        for j in 0..16 {
            let i = 16 * r + j;
            // [abcd k s i]: a = b + ((a + F(b, c, d) + X[k] + T[i]) <<< s),
            // then the words turn: the new word is the next step's b. (The
            // terms that do not wait for the previous step's b come first.)
            let sum = a
                .wrapping_add(x[message_index(i)])
                .wrapping_add(K[i])
                .wrapping_add(f(b, c, d));
            let new_b = b.wrapping_add(sum.rotate_left(S[r][j % 4]));
            a = d;
            d = c;
            c = b;
            b = new_b;
        }
    }
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
