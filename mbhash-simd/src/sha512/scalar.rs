//! The readable reference SHA-512 compression: no `unsafe`, no tricks.
//!
//! It is the oracle every SIMD kernel is tested against.

use super::{Block, Compress, K, State};

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
    // Message schedule W[0..80].
    let mut w = [0u64; 80];
    for (t, word) in block.chunks_exact(8).enumerate() {
        w[t] = u64::from_be_bytes(word.try_into().unwrap());
    }
    for t in 16..80 {
        let s0 = w[t - 15].rotate_right(1) ^ w[t - 15].rotate_right(8) ^ (w[t - 15] >> 7);
        let s1 = w[t - 2].rotate_right(19) ^ w[t - 2].rotate_right(61) ^ (w[t - 2] >> 6);
        w[t] = w[t - 16]
            .wrapping_add(s0)
            .wrapping_add(w[t - 7])
            .wrapping_add(s1);
    }

    let [mut a, mut b, mut c, mut d, mut e, mut f, mut g, mut h] = *state;
    for t in 0..80 {
        let big_s1 = e.rotate_right(14) ^ e.rotate_right(18) ^ e.rotate_right(41);
        let ch = (e & f) ^ (!e & g);
        let t1 = h
            .wrapping_add(big_s1)
            .wrapping_add(ch)
            .wrapping_add(K[t])
            .wrapping_add(w[t]);
        let big_s0 = a.rotate_right(28) ^ a.rotate_right(34) ^ a.rotate_right(39);
        let maj = (a & b) ^ (a & c) ^ (b & c);
        let t2 = big_s0.wrapping_add(maj);
        h = g;
        g = f;
        f = e;
        e = d.wrapping_add(t1);
        d = c;
        c = b;
        b = a;
        a = t1.wrapping_add(t2);
    }
    for (s, v) in state.iter_mut().zip([a, b, c, d, e, f, g, h]) {
        *s = s.wrapping_add(v);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// FIPS 180-4 example "abc" (SHA-512): one padded block.
    #[test]
    fn abc() {
        let mut block = [0u8; 128];
        block[..3].copy_from_slice(b"abc");
        block[3] = 0x80;
        block[127] = 24;
        let mut state = super::super::IV;
        compress(&mut state, &[block]);
        assert_eq!(
            state,
            [
                0xddaf35a193617aba,
                0xcc417349ae204131,
                0x12e6fa4e89a97ea2,
                0x0a9eeee64b55d39a,
                0x2192992a274fc1a8,
                0x36ba3c23a3feebbd,
                0x454d4423643ce80e,
                0x2a9ac94fa54ca49f,
            ]
        );
    }
}
