//! Run-time CPU feature detection, with a switch to hide features.
//!
//! With the `std` feature, detection goes through
//! `std::is_x86_feature_detected!`, which also checks that the OS saves the
//! wider register state (XGETBV). Without it (kernel-style builds), through
//! the `cpufeatures` crate: CPUID and XGETBV, cached in atomics, no
//! thread-local storage and no allocation.
//!
//! The environment variable `MBHASH_DISABLE` (a comma-separated list of
//! [`Feature`] names, e.g. `avx512,shani`) hides features from every token
//! constructor, so that fallback paths can be tested on a CPU that has
//! everything. It is read once, on first use.

/// A group of CPU features that one family of kernels needs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Feature {
    /// AVX2 (256-bit integer vectors) with BMI1 and BMI2 (every AVX2 CPU
    /// has them).
    Avx2,
    /// AVX-512 F + BW + VL (512-bit vectors, byte shuffles, ternary logic).
    Avx512,
    /// SHA extensions (`sha1rnds4`, `sha256rnds2`, ...) with SSSE3 and SSE4.1.
    ShaNi,
    /// SSE4.2 `crc32` instruction.
    Sse42,
    /// Carry-less multiply on 128-bit vectors (PCLMULQDQ), with the SSSE3
    /// byte shuffle and SSE4.1 lane extracts that its kernels use (every
    /// CPU with PCLMULQDQ has them).
    Pclmul,
    /// Carry-less multiply on 512-bit vectors (VPCLMULQDQ with AVX-512 F + BW + VL).
    Vpclmul,
    /// Carry-less multiply on 256-bit vectors (VPCLMULQDQ with AVX2; AMD
    /// Zen 3, Intel Alder Lake, without AVX-512).
    Vpclmul256,
}

impl Feature {
    /// Every feature group, in a stable order.
    pub const ALL: [Feature; 7] = [
        Feature::Avx2,
        Feature::Avx512,
        Feature::ShaNi,
        Feature::Sse42,
        Feature::Pclmul,
        Feature::Vpclmul,
        Feature::Vpclmul256,
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
            Feature::Vpclmul256 => "vpclmul256",
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

/// Why kernels needing `feature` may not run, in words for a skip message:
/// the CPU lacks it, `MBHASH_DISABLE` hides it, or (when it is available)
/// the kernel is not built for this target.
pub fn unavailable_reason(feature: Feature) -> &'static str {
    if !detected(feature) {
        "the CPU lacks it"
    } else if disabled(feature) {
        "MBHASH_DISABLE hides it"
    } else {
        "the kernel is not built for this target"
    }
}

/// Feature bits from a detector answering for `std::arch` feature names.
#[cfg(target_arch = "x86_64")]
fn bits_from(has: impl Fn(&str) -> bool) -> u32 {
    let avx512 = has("avx512f") && has("avx512bw") && has("avx512vl");
    let mut bits = 1 << 31; // "computed"
    for (f, on) in [
        (Feature::Avx2, has("avx2") && has("bmi1") && has("bmi2")),
        (Feature::Avx512, avx512),
        (Feature::ShaNi, has("sha") && has("ssse3") && has("sse4.1")),
        (Feature::Sse42, has("sse4.2")),
        (
            Feature::Pclmul,
            has("pclmulqdq") && has("ssse3") && has("sse4.1"),
        ),
        (Feature::Vpclmul, avx512 && has("vpclmulqdq")),
        (
            Feature::Vpclmul256,
            has("avx2") && has("vpclmulqdq") && has("pclmulqdq"),
        ),
    ] {
        if on {
            bits |= f.bit();
        }
    }
    bits
}

#[cfg(target_arch = "x86_64")]
fn detect_bits() -> u32 {
    use core::sync::atomic::{AtomicU32, Ordering};
    // Bit 31 marks "already computed".
    static CACHE: AtomicU32 = AtomicU32::new(0);
    let cached = CACHE.load(Ordering::Relaxed);
    if cached != 0 {
        return cached;
    }
    let bits = bits_from(detect_one);
    CACHE.store(bits, Ordering::Relaxed);
    bits
}

#[cfg(all(feature = "std", target_arch = "x86_64"))]
fn detect_one(name: &str) -> bool {
    match name {
        "avx2" => std::is_x86_feature_detected!("avx2"),
        "bmi1" => std::is_x86_feature_detected!("bmi1"),
        "bmi2" => std::is_x86_feature_detected!("bmi2"),
        "avx512f" => std::is_x86_feature_detected!("avx512f"),
        "avx512bw" => std::is_x86_feature_detected!("avx512bw"),
        "avx512vl" => std::is_x86_feature_detected!("avx512vl"),
        "sha" => std::is_x86_feature_detected!("sha"),
        "ssse3" => std::is_x86_feature_detected!("ssse3"),
        "sse4.1" => std::is_x86_feature_detected!("sse4.1"),
        "sse4.2" => std::is_x86_feature_detected!("sse4.2"),
        "pclmulqdq" => std::is_x86_feature_detected!("pclmulqdq"),
        "vpclmulqdq" => std::is_x86_feature_detected!("vpclmulqdq"),
        _ => false,
    }
}

#[cfg(all(not(feature = "std"), target_arch = "x86_64"))]
fn detect_one(name: &str) -> bool {
    // One cached detector per feature; each checks CPUID and, for AVX2 and
    // AVX-512 state, XGETBV.
    cpufeatures::new!(has_avx2, "avx2");
    cpufeatures::new!(has_bmi1, "bmi1");
    cpufeatures::new!(has_bmi2, "bmi2");
    cpufeatures::new!(has_avx512f, "avx512f");
    cpufeatures::new!(has_avx512bw, "avx512bw");
    cpufeatures::new!(has_avx512vl, "avx512vl");
    cpufeatures::new!(has_sha, "sha");
    cpufeatures::new!(has_ssse3, "ssse3");
    cpufeatures::new!(has_sse41, "sse4.1");
    cpufeatures::new!(has_sse42, "sse4.2");
    cpufeatures::new!(has_pclmulqdq, "pclmulqdq");
    match name {
        "avx2" => has_avx2::get(),
        "bmi1" => has_bmi1::get(),
        "bmi2" => has_bmi2::get(),
        "avx512f" => has_avx512f::get(),
        "avx512bw" => has_avx512bw::get(),
        "avx512vl" => has_avx512vl::get(),
        "sha" => has_sha::get(),
        "ssse3" => has_ssse3::get(),
        "sse4.1" => has_sse41::get(),
        "sse4.2" => has_sse42::get(),
        "pclmulqdq" => has_pclmulqdq::get(),
        "vpclmulqdq" => vpclmulqdq_cpuid(),
        _ => false,
    }
}

/// The VPCLMULQDQ bit of CPUID (leaf 7, ECX bit 10) alone. `cpufeatures`
/// reports it only with the AVX-512 register state enabled, which hides it
/// on CPUs that have it with AVX2 alone (AMD Zen 3); the register state its
/// kernels need is checked with the group's other members (`avx2` for
/// [`Feature::Vpclmul256`], `avx512f` for [`Feature::Vpclmul`]).
#[cfg(all(not(feature = "std"), target_arch = "x86_64"))]
fn vpclmulqdq_cpuid() -> bool {
    use core::arch::x86_64::{__cpuid, __cpuid_count};
    // SAFETY: CPUID exists on every x86_64 CPU; leaf 7 is read only when
    // leaf 0 reports it. (The intrinsics are safe functions on newer
    // compilers than the minimum supported one.)
    #[allow(unused_unsafe)]
    let (max_leaf, leaf7_ecx) = unsafe {
        let max = __cpuid(0).eax;
        (max, if max >= 7 { __cpuid_count(7, 0).ecx } else { 0 })
    };
    max_leaf >= 7 && leaf7_ecx & (1 << 10) != 0
}

#[cfg(not(target_arch = "x86_64"))]
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
