//! The readable reference SHA-1 compression: no `unsafe`, no tricks.
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
    let mut w = [0u32; 80];
    for (t, word) in block.chunks_exact(4).enumerate() {
        w[t] = u32::from_be_bytes([word[0], word[1], word[2], word[3]]);
    }
    for t in 16..80 {
        w[t] = (w[t - 3] ^ w[t - 8] ^ w[t - 14] ^ w[t - 16]).rotate_left(1);
    }

    let [mut a, mut b, mut c, mut d, mut e] = *state;
    for (t, &wt) in w.iter().enumerate() {
        // f_t and K_t of FIPS 180-4, 4.1.1 and 4.2.1.
        let (f, k) = match t {
            0..20 => ((b & c) ^ (!b & d), K[0]),
            20..40 => (b ^ c ^ d, K[1]),
            40..60 => ((b & c) ^ (b & d) ^ (c & d), K[2]),
            _ => (b ^ c ^ d, K[3]),
        };
        let temp = a
            .rotate_left(5)
            .wrapping_add(f)
            .wrapping_add(e)
            .wrapping_add(k)
            .wrapping_add(wt);
        e = d;
        d = c;
        c = b.rotate_left(30);
        b = a;
        a = temp;
    }
    for (s, v) in state.iter_mut().zip([a, b, c, d, e]) {
        *s = s.wrapping_add(v);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// FIPS 180-2 appendix A.1, "abc": one padded block.
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
            [0xa9993e36, 0x4706816a, 0xba3e2571, 0x7850c26c, 0x9cd0d89d]
        );
    }
}
