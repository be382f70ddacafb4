//! The made-ready kernels: one token of a CRC32C kernel ([`One`]) and an
//! engine's entry per size class ([`Selected`]).

use super::Crc32cEngine;
#[cfg(feature = "std")]
use crate::crc::classes::{CLASSES, class, class_max};
#[cfg(feature = "std")]
use mbhash_simd::crc32c::Entry;
use mbhash_simd::crc32c::{Kernel, Sse42, Table, Vpclmul, VpclmulFold};

/// One kernel token, ready to run.
#[derive(Clone, Copy, Debug)]
pub(super) enum One {
    Table(Table),
    Sse42(Sse42),
    Vpclmul(Vpclmul),
    VpclmulFold(VpclmulFold),
}

impl One {
    /// The token of a kernel engine (`None` for `auto`, or unsupported).
    pub(super) fn new(engine: Crc32cEngine) -> Option<One> {
        Some(match engine {
            Crc32cEngine::Auto => return None,
            Crc32cEngine::Table => One::Table(Table),
            Crc32cEngine::Sse42 => One::Sse42(Sse42::new()?),
            Crc32cEngine::Vpclmul => One::Vpclmul(Vpclmul::new()?),
            Crc32cEngine::VpclmulFold => One::VpclmulFold(VpclmulFold::new()?),
        })
    }

    #[cfg(feature = "std")]
    pub(super) fn engine(self) -> Crc32cEngine {
        match self {
            One::Table(_) => Crc32cEngine::Table,
            One::Sse42(_) => Crc32cEngine::Sse42,
            One::Vpclmul(_) => Crc32cEngine::Vpclmul,
            One::VpclmulFold(_) => Crc32cEngine::VpclmulFold,
        }
    }

    /// Advances the raw register.
    #[inline]
    pub(super) fn update(self, crc: u32, data: &[u8]) -> u32 {
        match self {
            One::Table(k) => k.update(crc, data),
            One::Sse42(k) => k.update(crc, data),
            One::Vpclmul(k) => k.update(crc, data),
            One::VpclmulFold(k) => k.update(crc, data),
        }
    }

    /// The kernel's entry for inputs of at most `max_len` bytes.
    #[cfg(feature = "std")]
    pub(super) fn entry(self, max_len: usize) -> Entry {
        match self {
            One::Table(k) => k.entry(max_len),
            One::Sse42(k) => k.entry(max_len),
            One::Vpclmul(k) => k.entry(max_len),
            One::VpclmulFold(k) => k.entry(max_len),
        }
    }

    /// `crc * x^(8*len) mod P`.
    #[inline]
    pub(super) fn shift(self, crc: u32, len: u64) -> u32 {
        match self {
            One::Table(k) => k.shift(crc, len),
            One::Sse42(k) => k.shift(crc, len),
            One::Vpclmul(k) => k.shift(crc, len),
            One::VpclmulFold(k) => k.shift(crc, len),
        }
    }
}

/// An engine made ready: a kernel entry for every size class (the same
/// kernel unless the engine is `auto`), so that a call is one indirect call
/// with no dispatch of its own.
#[cfg(feature = "std")]
#[derive(Clone, Copy, Debug)]
pub(super) struct Selected {
    engine: Crc32cEngine,
    by_class: [Entry; CLASSES],
    /// For `shift` (the SIMD kernels share the PCLMULQDQ one).
    shift: One,
}

#[cfg(feature = "std")]
impl Selected {
    pub(super) fn only(k: One) -> Selected {
        Selected::new(k.engine(), [k; CLASSES], k)
    }

    pub(super) fn new(engine: Crc32cEngine, kernels: [One; CLASSES], shift: One) -> Selected {
        Selected {
            engine,
            by_class: core::array::from_fn(|b| kernels[b].entry(class_max(b))),
            shift,
        }
    }

    pub(super) fn engine(&self) -> Crc32cEngine {
        self.engine
    }

    /// Advances the raw register.
    #[inline]
    pub(super) fn update(&self, crc: u32, data: &[u8]) -> u32 {
        self.by_class[class(data.len())].update(crc, data)
    }

    /// `crc * x^(8*len) mod P`.
    #[inline]
    pub(super) fn shift(&self, crc: u32, len: u64) -> u32 {
        self.shift.shift(crc, len)
    }
}

/// Without `std`: an engine's kernel and the engine's name (`auto` runs
/// the widest kernel but is still `auto`).
#[cfg(not(feature = "std"))]
#[derive(Clone, Copy, Debug)]
pub(super) struct Picked {
    pub(super) engine: Crc32cEngine,
    pub(super) kernel: One,
}

#[cfg(not(feature = "std"))]
impl Picked {
    pub(super) fn engine(&self) -> Crc32cEngine {
        self.engine
    }

    /// Advances the raw register.
    #[inline]
    pub(super) fn update(&self, crc: u32, data: &[u8]) -> u32 {
        self.kernel.update(crc, data)
    }

    /// `crc * x^(8*len) mod P`.
    #[inline]
    pub(super) fn shift(&self, crc: u32, len: u64) -> u32 {
        self.kernel.shift(crc, len)
    }
}
