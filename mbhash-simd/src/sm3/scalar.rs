//! The readable reference SM3 compression: no `unsafe`, no tricks, the
//! steps of GB/T 32905-2016 section 5.3 as the standard writes them.
//!
//! It is the oracle every SIMD kernel is tested against.

use super::{Block, Compress, State, T_ROTATED};

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

/// Permutation `P0` (4.4).
fn p0(x: u32) -> u32 {
    x ^ x.rotate_left(9) ^ x.rotate_left(17)
}

/// Permutation `P1` (4.4).
fn p1(x: u32) -> u32 {
    x ^ x.rotate_left(15) ^ x.rotate_left(23)
}

/// Boolean functions `FF_j` and `GG_j` (4.3) for `j < 16`.
fn ff0_gg0(x: u32, y: u32, z: u32) -> u32 {
    x ^ y ^ z
}

/// Boolean function `FF_j` (4.3) for `16 <= j < 64`.
fn ff1(x: u32, y: u32, z: u32) -> u32 {
    (x & y) | (x & z) | (y & z)
}

/// Boolean function `GG_j` (4.3) for `16 <= j < 64`.
fn gg1(x: u32, y: u32, z: u32) -> u32 {
    (x & y) | (!x & z)
}

/// One round `j` (5.3.3) of the compression with the boolean functions
/// `ff` and `gg` of that round, `w = W[j]` and `w1 = W'[j]`.
#[inline(always)]
fn round(
    v: &mut State,
    j: usize,
    ff: fn(u32, u32, u32) -> u32,
    gg: fn(u32, u32, u32) -> u32,
    w: u32,
    w1: u32,
) {
    let [a, b, c, d, e, f, g, h] = *v;
    let ss1 = a
        .rotate_left(12)
        .wrapping_add(e)
        .wrapping_add(T_ROTATED[j])
        .rotate_left(7);
    let ss2 = ss1 ^ a.rotate_left(12);
    let tt1 = ff(a, b, c)
        .wrapping_add(d)
        .wrapping_add(ss2)
        .wrapping_add(w1);
    let tt2 = gg(e, f, g)
        .wrapping_add(h)
        .wrapping_add(ss1)
        .wrapping_add(w);
    // D = C, C = B <<< 9, B = A, A = TT1, H = G, G = F <<< 19, F = E,
    // E = P0(TT2).
    *v = [
        tt1,
        a,
        b.rotate_left(9),
        c,
        p0(tt2),
        e,
        f.rotate_left(19),
        g,
    ];
}

fn compress_block(state: &mut State, block: &Block) {
    // Message expansion (5.3.2): W[0..68], then W'[0..64].
    let mut w = [0u32; 68];
    for (t, word) in block.chunks_exact(4).enumerate() {
        w[t] = u32::from_be_bytes([word[0], word[1], word[2], word[3]]);
    }
    for j in 16..68 {
        w[j] = p1(w[j - 16] ^ w[j - 9] ^ w[j - 3].rotate_left(15))
            ^ w[j - 13].rotate_left(7)
            ^ w[j - 6];
    }
    let mut w1 = [0u32; 64];
    for j in 0..64 {
        w1[j] = w[j] ^ w[j + 4];
    }

    // Compression (5.3.3): FF_j and GG_j change at round 16.
    let mut v = *state;
    for j in 0..16 {
        round(&mut v, j, ff0_gg0, ff0_gg0, w[j], w1[j]);
    }
    for j in 16..64 {
        round(&mut v, j, ff1, gg1, w[j], w1[j]);
    }
    // V(i+1) = ABCDEFGH ^ V(i).
    for (s, v) in state.iter_mut().zip(v) {
        *s ^= v;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// GB/T 32905-2016 appendix A, example 1: "abc", one padded block.
    #[test]
    fn abc() {
        let mut block = [0u8; 64];
        block[..3].copy_from_slice(b"abc");
        block[3] = 0x80;
        block[63] = 24;
        let mut state = super::super::IV;
        compress(&mut state, &[block]);
        assert_eq!(
            state,
            [
                0x66c7f0f4, 0x62eeedd9, 0xd1f2d46b, 0xdc10e4e2, 0x4167c487, 0x5cf2f7a2, 0x297da02b,
                0x8f4ba8e0
            ]
        );
    }
}
