//! SHA-256 with the SHA extensions (SHA-NI): one lane, and two interleaved.
//!
//! Placeholder: the kernel is not written yet, so [`ShaNi::new`] never
//! returns a token.

use super::{Block, Compress, State};

/// Proof that the CPU supports this kernel (uninhabited until it exists).
#[derive(Clone, Copy, Debug)]
pub enum ShaNi {}

impl ShaNi {
    /// Detects the CPU features; `None` when they are missing or hidden.
    pub fn new() -> Option<Self> {
        let _ = crate::cpu::available(crate::cpu::Feature::ShaNi);
        None
    }
}

impl Compress<1> for ShaNi {
    fn compress(self, _states: [&mut State; 1], _blocks: [&[Block]; 1]) {
        match self {}
    }
}

impl Compress<2> for ShaNi {
    fn compress(self, _states: [&mut State; 2], _blocks: [&[Block]; 2]) {
        match self {}
    }
}
