//! SHA-256, AVX-512, sixteen lanes of `__m512i`.
//!
//! Placeholder: the kernel is not written yet, so [`Avx512x16::new`] never
//! returns a token.

use super::{Block, Compress, State};

/// Proof that the CPU supports this kernel (uninhabited until it exists).
#[derive(Clone, Copy, Debug)]
pub enum Avx512x16 {}

impl Avx512x16 {
    /// Lanes per call.
    pub const LANES: usize = 16;

    /// Detects the CPU features; `None` when they are missing or hidden.
    pub fn new() -> Option<Self> {
        let _ = crate::cpu::available(crate::cpu::Feature::Avx512);
        None
    }
}

impl Compress<16> for Avx512x16 {
    fn compress(self, _states: [&mut State; 16], _blocks: [&[Block]; 16]) {
        match self {}
    }
}
