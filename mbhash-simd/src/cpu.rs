//! Run-time CPU feature detection, with a switch to hide features.
//!
//! Detection goes through `std::is_x86_feature_detected!`, which also checks
//! that the OS saves the wider register state (XGETBV). Without the `std`
//! feature nothing is detected and every SIMD token constructor returns
//! `None`.
//!
//! The environment variable `MBHASH_DISABLE` (a comma-separated list of
//! [`Feature`] names, e.g. `avx512,shani`) hides features from every token
//! constructor, so that fallback paths can be tested on a CPU that has
//! everything. It is read once, on first use.

/// A group of CPU features that one family of kernels needs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Feature {
    /// AVX2 (256-bit integer vectors).
    Avx2,
    /// AVX-512 F + BW + VL (512-bit vectors, byte shuffles, ternary logic).
    Avx512,
    /// SHA extensions (`sha256rnds2`, ...) with SSSE3 and SSE4.1.
    ShaNi,
    /// SSE4.2 `crc32` instruction.
    Sse42,
    /// Carry-less multiply on 128-bit vectors (PCLMULQDQ).
    Pclmul,
    /// Carry-less multiply on 512-bit vectors (VPCLMULQDQ with AVX-512 F + BW + VL).
    Vpclmul,
}

impl Feature {
    /// Every feature group, in a stable order.
    pub const ALL: [Feature; 6] = [
        Feature::Avx2,
        Feature::Avx512,
        Feature::ShaNi,
        Feature::Sse42,
        Feature::Pclmul,
        Feature::Vpclmul,
    ];

    /// The lower-case name used in `MBHASH_DISABLE` and `MBHASH_REQUIRE`.
    pub const fn name(self) -> &'static str {
        match self {
            Feature::Avx2 => "avx2",
            Feature::Avx512 => "avx512",
            Feature::ShaNi => "shani",
            Feature::Sse42 => "sse42",
            Feature::Pclmul => "pclmul",
            Feature::Vpclmul => "vpclmul",
        }
    }

    /// Parses a name as printed by [`Feature::name`].
    pub fn from_name(name: &str) -> Option<Feature> {
        Feature::ALL.into_iter().find(|f| f.name() == name)
    }

    const fn bit(self) -> u32 {
        1 << self as u32
    }
}

/// True if the CPU (and OS) support `feature`, whatever `MBHASH_DISABLE` says.
pub fn detected(feature: Feature) -> bool {
    detect_bits() & feature.bit() != 0
}

/// True if `feature` is hidden by the `MBHASH_DISABLE` environment variable.
pub fn disabled(feature: Feature) -> bool {
    disabled_bits() & feature.bit() != 0
}

/// True if kernels needing `feature` may run: detected and not disabled.
pub fn available(feature: Feature) -> bool {
    detected(feature) && !disabled(feature)
}

#[cfg(all(feature = "std", target_arch = "x86_64"))]
fn detect_bits() -> u32 {
    use std::sync::atomic::{AtomicU32, Ordering};
    // Bit 31 marks "already computed".
    static CACHE: AtomicU32 = AtomicU32::new(0);
    let cached = CACHE.load(Ordering::Relaxed);
    if cached != 0 {
        return cached;
    }
    let avx512 = std::is_x86_feature_detected!("avx512f")
        && std::is_x86_feature_detected!("avx512bw")
        && std::is_x86_feature_detected!("avx512vl");
    let mut bits = 1 << 31;
    let mut set = |f: Feature, on: bool| {
        if on {
            bits |= f.bit();
        }
    };
    set(Feature::Avx2, std::is_x86_feature_detected!("avx2"));
    set(Feature::Avx512, avx512);
    set(
        Feature::ShaNi,
        std::is_x86_feature_detected!("sha")
            && std::is_x86_feature_detected!("ssse3")
            && std::is_x86_feature_detected!("sse4.1"),
    );
    set(Feature::Sse42, std::is_x86_feature_detected!("sse4.2"));
    set(Feature::Pclmul, std::is_x86_feature_detected!("pclmulqdq"));
    set(
        Feature::Vpclmul,
        avx512 && std::is_x86_feature_detected!("vpclmulqdq"),
    );
    CACHE.store(bits, Ordering::Relaxed);
    bits
}

#[cfg(not(all(feature = "std", target_arch = "x86_64")))]
fn detect_bits() -> u32 {
    0
}

#[cfg(feature = "std")]
fn disabled_bits() -> u32 {
    use std::sync::OnceLock;
    static CACHE: OnceLock<u32> = OnceLock::new();
    *CACHE.get_or_init(|| match std::env::var("MBHASH_DISABLE") {
        Ok(list) => parse_list(&list),
        Err(_) => 0,
    })
}

#[cfg(not(feature = "std"))]
fn disabled_bits() -> u32 {
    0
}

/// Parses a comma-separated list of feature names; unknown names are ignored
/// here (the command-line tool reports them).
#[cfg(feature = "std")]
fn parse_list(list: &str) -> u32 {
    list.split(',')
        .map(str::trim)
        .filter_map(Feature::from_name)
        .fold(0, |acc, f| acc | f.bit())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for f in Feature::ALL {
            assert_eq!(Feature::from_name(f.name()), Some(f));
        }
        assert_eq!(Feature::from_name("avx3"), None);
    }

    #[test]
    fn available_implies_detected() {
        for f in Feature::ALL {
            assert!(!available(f) || detected(f));
        }
    }
}
