//! MD5, AVX-512, 32 lanes: two independent sets of 16 lanes interleaved.
//!
//! MD5's steps form one serial chain per lane, so the 16-lane kernel
//! ([`super::Avx512x16`]) waits on that chain's latency with issue slots to
//! spare. This kernel runs the same word-sliced steps (`multilane`) on
//! `Pair`s of its vectors: every operation is issued for both sets, and
//! one set's instructions fill the other's waits.

use super::{Block, Compress, State};

/// Proof that the CPU supports this kernel: AVX-512 F + BW + VL. It holds the
/// 16-lane kernel's token, whose vectors it pairs.
#[cfg(target_arch = "x86_64")]
#[derive(Clone, Copy, Debug)]
pub struct Avx512x32 {
    inner: super::Avx512x16,
}

/// Proof that the CPU supports this kernel (never, on this target).
#[cfg(not(target_arch = "x86_64"))]
#[derive(Clone, Copy, Debug)]
pub enum Avx512x32 {}

impl Avx512x32 {
    /// Lanes per call.
    pub const LANES: usize = 32;

    /// Detects the CPU features; `None` when they are missing or hidden.
    pub fn new() -> Option<Self> {
        #[cfg(target_arch = "x86_64")]
        if let Some(inner) = super::Avx512x16::new() {
            return Some(Avx512x32 { inner });
        }
        None
    }
}

impl Compress<32> for Avx512x32 {
    #[cfg(target_arch = "x86_64")]
    fn compress(self, states: [&mut State; 32], blocks: [&[Block]; 32]) {
        // SAFETY: `self` exists, so `Avx512x16::new` found AVX-512 F + BW + VL, the
        // features `x86::compress` is compiled for.
        unsafe { x86::compress(self, states, blocks) }
    }

    #[cfg(not(target_arch = "x86_64"))]
    fn compress(self, _states: [&mut State; 32], _blocks: [&[Block]; 32]) {
        match self {}
    }
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use super::super::avx512_x16::x86::V16;
    use super::super::multilane::{self, Pair};
    use super::super::{Block, State};
    use super::Avx512x32;

    /// The kernel entry: the only function compiled for AVX-512 F + BW + VL.
    #[target_feature(enable = "avx512f,avx512bw,avx512vl")]
    pub(super) fn compress(token: Avx512x32, states: [&mut State; 32], blocks: [&[Block]; 32]) {
        multilane::compress::<Pair<V16>, 32>(token.inner, states, blocks);
    }
}
