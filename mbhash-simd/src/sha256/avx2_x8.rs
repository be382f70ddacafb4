//! SHA-256, AVX2, eight lanes of `__m256i`.
//!
//! Placeholder: the kernel is not written yet, so [`Avx2x8::new`] never
//! returns a token.

use super::{Block, Compress, State};

/// Proof that the CPU supports this kernel (uninhabited until it exists).
#[derive(Clone, Copy, Debug)]
pub enum Avx2x8 {}

impl Avx2x8 {
    /// Lanes per call.
    pub const LANES: usize = 8;

    /// Detects the CPU features; `None` when they are missing or hidden.
    pub fn new() -> Option<Self> {
        let _ = crate::cpu::available(crate::cpu::Feature::Avx2);
        None
    }
}

impl Compress<8> for Avx2x8 {
    fn compress(self, _states: [&mut State; 8], _blocks: [&[Block]; 8]) {
        match self {}
    }
}
