//! MD5, AVX2, 16 lanes: two independent sets of 8 lanes interleaved.
//!
//! MD5's steps form one serial chain per lane, so the 8-lane kernel
//! ([`super::Avx2x8`]) waits on that chain's latency with issue slots to
//! spare. This kernel runs the same word-sliced steps (`multilane`) on
//! `Pair`s of its vectors: every operation is issued for both sets, and
//! one set's instructions fill the other's waits.

use super::{Block, Compress, State};

/// Proof that the CPU supports this kernel: AVX2. It holds the
/// 8-lane kernel's token, whose vectors it pairs.
#[cfg(target_arch = "x86_64")]
#[derive(Clone, Copy, Debug)]
pub struct Avx2x16 {
    inner: super::Avx2x8,
}

/// Proof that the CPU supports this kernel (never, on this target).
#[cfg(not(target_arch = "x86_64"))]
#[derive(Clone, Copy, Debug)]
pub enum Avx2x16 {}

impl Avx2x16 {
    /// Lanes per call.
    pub const LANES: usize = 16;

    /// Detects the CPU features; `None` when they are missing or hidden.
    pub fn new() -> Option<Self> {
        #[cfg(target_arch = "x86_64")]
        if let Some(inner) = super::Avx2x8::new() {
            return Some(Avx2x16 { inner });
        }
        None
    }
}

impl Compress<16> for Avx2x16 {
    #[cfg(target_arch = "x86_64")]
    fn compress(self, states: [&mut State; 16], blocks: [&[Block]; 16]) {
        // SAFETY: `self` exists, so `Avx2x8::new` found AVX2, the
        // feature `x86::compress` is compiled for.
        unsafe { x86::compress(self, states, blocks) }
    }

    #[cfg(not(target_arch = "x86_64"))]
    fn compress(self, _states: [&mut State; 16], _blocks: [&[Block]; 16]) {
        match self {}
    }
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use super::super::avx2_x8::x86::V8;
    use super::super::multilane::{self, Pair};
    use super::super::{Block, State};
    use super::Avx2x16;

    /// The kernel entry: the only function compiled for AVX2.
    #[target_feature(enable = "avx2")]
    pub(super) fn compress(token: Avx2x16, states: [&mut State; 16], blocks: [&[Block]; 16]) {
        multilane::compress::<Pair<V8>, 16>(token.inner, states, blocks);
    }
}
