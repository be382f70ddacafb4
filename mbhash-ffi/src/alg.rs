//! Algorithms, flags and statuses as C integers, and the generic glue from an
//! algorithm number to the Rust types.

use core::ffi::CStr;
use core::mem::size_of;

use mbhash_core::alg::{self as a, Algorithm};
use mbhash_core::engine::{EngineError, EngineFamily, Kernels, LaneEngine, Step};
use mbhash_core::{Flags, JobManager};

use crate::boundary::{mbh_result, non_null, write_out};
use crate::manager::AnyManager;
use mbhash_core::engine::{FamilyEngine, HashAlgorithm};

/// An algorithm: one of the `MBH_SHA*` constants. Taken as an integer, so
/// any value may be passed; an unknown one is `MBH_INVALID_ALGORITHM`.
pub type mbh_algorithm = u32;
/// SHA-256 (FIPS 180-4), 32-byte digest.
pub const MBH_SHA256: mbh_algorithm = 1;
/// SHA-224, 28-byte digest (SHA-256 family).
pub const MBH_SHA224: mbh_algorithm = 2;
/// SHA-512, 64-byte digest.
pub const MBH_SHA512: mbh_algorithm = 3;
/// SHA-384, 48-byte digest (SHA-512 family).
pub const MBH_SHA384: mbh_algorithm = 4;
/// SHA-512/256, 32-byte digest (SHA-512 family; ZFS's "sha512").
pub const MBH_SHA512_256: mbh_algorithm = 5;
/// SHA-512/224, 28-byte digest (SHA-512 family).
pub const MBH_SHA512_224: mbh_algorithm = 6;

/// MD5 (RFC 1321), 16-byte digest.
pub const MBH_MD5: mbh_algorithm = 8;
/// SHA-1 (FIPS 180-4), 20-byte digest.
pub const MBH_SHA1: mbh_algorithm = 9;
/// SM3 (GB/T 32905-2016), 32-byte digest.
pub const MBH_SM3: mbh_algorithm = 10;

/// Digest length of `MBH_SHA256`, in bytes.
pub const MBH_SHA256_DIGEST_LEN: usize = 32;
/// Digest length of `MBH_SHA224`, in bytes.
pub const MBH_SHA224_DIGEST_LEN: usize = 28;
/// Digest length of `MBH_SHA512`, in bytes.
pub const MBH_SHA512_DIGEST_LEN: usize = 64;
/// Digest length of `MBH_SHA384`, in bytes.
pub const MBH_SHA384_DIGEST_LEN: usize = 48;
/// Digest length of `MBH_SHA512_256`, in bytes.
pub const MBH_SHA512_256_DIGEST_LEN: usize = 32;
/// Digest length of `MBH_SHA512_224`, in bytes.
pub const MBH_SHA512_224_DIGEST_LEN: usize = 28;
/// Digest length of `MBH_MD5`, in bytes.
pub const MBH_MD5_DIGEST_LEN: usize = 16;
/// Digest length of `MBH_SHA1`, in bytes.
pub const MBH_SHA1_DIGEST_LEN: usize = 20;
/// Digest length of `MBH_SM3`, in bytes.
pub const MBH_SM3_DIGEST_LEN: usize = 32;
/// The longest digest of any algorithm, in bytes.
pub const MBH_MAX_DIGEST_LEN: usize = 64;

/// How a chunk relates to its stream: one of `MBH_UPDATE`, `MBH_FIRST`,
/// `MBH_LAST`, `MBH_ENTIRE` (the values of ISA-L crypto's `HASH_*` flags).
pub type mbh_flags = u32;
/// A middle chunk of a stream that has begun.
pub const MBH_UPDATE: mbh_flags = 0;
/// The first chunk: (re)starts the stream.
pub const MBH_FIRST: mbh_flags = 1;
/// The last chunk: pads and finishes the digest.
pub const MBH_LAST: mbh_flags = 2;
/// A whole message in one chunk: `MBH_FIRST | MBH_LAST`.
pub const MBH_ENTIRE: mbh_flags = 3;

const _: () = {
    assert!(MBH_UPDATE == Flags::UPDATE.bits());
    assert!(MBH_FIRST == Flags::FIRST.bits());
    assert!(MBH_LAST == Flags::LAST.bits());
    assert!(MBH_ENTIRE == Flags::ENTIRE.bits());
};

/// Where a context is in its life (`mbh_ctx_status`).
// `repr(C)`, not `repr(u32)`: cbindgen then writes `typedef enum mbh_status
// {...} mbh_status;`, one type under both names, where a sized enum gets a tag
// and a `uint32_t` typedef of the same name (invalid C++, which
// `-Wc++-compat` reports). A C enum of these values is 32 bits, as before.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum mbh_status {
    /// Initialised or reset: no stream open.
    MBH_STATUS_NEW = 0,
    /// A stream is open and waits for its next chunk (`MBH_UPDATE` or
    /// `MBH_LAST`).
    MBH_STATUS_IDLE = 1,
    /// In flight: submitted and not yet back from `mbh_submit` / `mbh_flush`.
    MBH_STATUS_PROCESSING = 2,
    /// The stream is finished; `mbh_ctx_digest` has its digest.
    MBH_STATUS_COMPLETE = 3,
}

const _: () = assert!(core::mem::size_of::<mbh_status>() == 4);

/// An algorithm number, checked: the run-time algorithm of `mbhash-core`.
pub(crate) use mbhash_core::Algo as Alg;
pub(crate) use mbhash_core::with_algo;

/// The C numbers of [`Alg`].
pub(crate) trait AlgRaw: Sized {
    /// The algorithm with this number.
    fn from_raw(raw: mbh_algorithm) -> Result<Self, mbh_result>;
    /// The number C sees.
    fn raw(self) -> mbh_algorithm;
}

impl AlgRaw for Alg {
    fn from_raw(raw: mbh_algorithm) -> Result<Alg, mbh_result> {
        Alg::ALL
            .into_iter()
            .find(|a| a.raw() == raw)
            .ok_or(mbh_result::MBH_INVALID_ALGORITHM)
    }

    #[inline]
    fn raw(self) -> mbh_algorithm {
        with_algo!(self, A => A::RAW)
    }
}

/// The engine type of an algorithm's family.
pub(crate) type EngineOf<A> = <<A as Algorithm>::Family as FamilyEngine>::Engine;

/// What the C layer needs per algorithm beyond [`Algorithm`].
pub(crate) trait FfiAlg: HashAlgorithm {
    /// The C number.
    const RAW: mbh_algorithm;
    /// The digest length.
    const DIGEST_LEN: usize;
    /// The manager of this algorithm, if `m` is one.
    fn manager(m: &mut AnyManager) -> Option<&mut JobManager<'static, Self>>;
    /// Like [`FfiAlg::manager`], shared.
    fn manager_ref(m: &AnyManager) -> Option<&JobManager<'static, Self>>;
    /// Wraps a manager of this algorithm.
    fn wrap(m: JobManager<'static, Self>) -> AnyManager;
    /// The family's engine with this name.
    fn engine_from_name(name: &str) -> Result<EngineOf<Self>, EngineError> {
        <EngineOf<Self> as LaneEngine<<Self as Algorithm>::Family>>::from_name(name)
    }
    /// The configured engine: named by the family's environment variable,
    /// else `auto`.
    fn configured_engine() -> Result<EngineOf<Self>, EngineError> {
        <EngineOf<Self> as LaneEngine<<Self as Algorithm>::Family>>::try_configured()
    }
    /// [`FfiAlg::configured_engine`], kept for the process (per run-time
    /// default): a few loads, where building it takes copies of the engine.
    #[cfg(feature = "std")]
    fn configured_engine_static() -> &'static Result<EngineOf<Self>, EngineError> {
        <EngineOf<Self> as LaneEngine<<Self as Algorithm>::Family>>::configured_static()
    }
    /// True if the family's engine with this (known) name runs here.
    fn engine_is_supported(name: &str) -> bool {
        <EngineOf<Self> as LaneEngine<<Self as Algorithm>::Family>>::is_supported(name)
    }
    /// The family's engine names as C strings, `auto` first.
    fn engine_names() -> &'static [&'static CStr] {
        family_engine_names(<Self::Family as FamilyEngine>::ENGINE_FAMILY)
    }
}

/// Room for an engine name and its NUL.
const NAME_CAP: usize = 16;

/// `auto` and the names of `kinds` (a family's `Kernels::KINDS`), each
/// NUL-terminated in `NAME_CAP` bytes. Built at compile time: no allocation.
const fn name_bytes<const N: usize>(kinds: &[(&str, &[Step])]) -> [[u8; NAME_CAP]; N] {
    assert!(N == kinds.len() + 1);
    let mut out = [[0; NAME_CAP]; N];
    let mut i = 0;
    while i < N {
        let name = if i == 0 { "auto" } else { kinds[i - 1].0 }.as_bytes();
        assert!(name.len() < NAME_CAP, "an engine name is too long");
        let mut j = 0;
        while j < name.len() {
            assert!(name[j] != 0, "an engine name holds a NUL");
            out[i][j] = name[j];
            j += 1;
        }
        i += 1;
    }
    out
}

/// The C strings of a table made by [`name_bytes`].
const fn c_names<const N: usize>(bytes: &'static [[u8; NAME_CAP]; N]) -> [&'static CStr; N] {
    let mut out = [c""; N];
    let mut i = 0;
    while i < N {
        out[i] = match CStr::from_bytes_until_nul(&bytes[i]) {
            Ok(name) => name,
            Err(_) => panic!("every name is NUL-terminated"),
        };
        i += 1;
    }
    out
}

/// The engine names of a family (the hash families' generated from the family catalogue,
/// [`mbhash_core::for_each_family!`]), as C strings, `auto` first.
macro_rules! family_names {
    ($($v:ident $ty:ident $engine:ident $kernels:ident $name:literal;)*) => {
        /// The engine names of a family as C strings, `auto` first.
        pub(crate) fn family_engine_names(family: EngineFamily) -> &'static [&'static CStr] {
            match family {
                $(EngineFamily::$v => {
                    type K = mbhash_core::engine::$kernels;
                    const COUNT: usize = K::KINDS.len() + 1;
                    static BYTES: [[u8; NAME_CAP]; COUNT] = name_bytes(K::KINDS);
                    static NAMES: [&CStr; COUNT] = c_names(&BYTES);
                    &NAMES
                })*
                EngineFamily::Crc32c => &crate::engine::CRC32C_NAMES,
                EngineFamily::Crc => &crate::engine::CRC_NAMES,
            }
        }
    };
}

mbhash_core::for_each_family!(@names family_names);

/// The C side of every algorithm of the catalogue
/// ([`mbhash_core::for_each_algorithm!`]): its number and its manager in
/// [`AnyManager`].
macro_rules! ffi_algs {
    ([] $($(#[$doc:meta])* $v:ident = $t:ident $info:tt;)*) => {$(
        impl FfiAlg for a::$t {
            const RAW: mbh_algorithm = <a::$t as Algorithm>::C_ID;
            const DIGEST_LEN: usize = size_of::<<a::$t as Algorithm>::Output>();
            fn manager(m: &mut AnyManager) -> Option<&mut JobManager<'static, Self>> {
                match m {
                    AnyManager::$v(m) => Some(m),
                    #[allow(unreachable_patterns)]
                    _ => None,
                }
            }
            fn manager_ref(m: &AnyManager) -> Option<&JobManager<'static, Self>> {
                match m {
                    AnyManager::$v(m) => Some(m),
                    #[allow(unreachable_patterns)]
                    _ => None,
                }
            }
            fn wrap(m: JobManager<'static, Self>) -> AnyManager {
                AnyManager::$v(m)
            }
        }
    )*};
}

mbhash_core::for_each_algorithm!(ffi_algs);

// The C constants (written out for cbindgen) are the catalogue's numbers and
// lengths.
const _: () = {
    let c = [
        (MBH_SHA256, MBH_SHA256_DIGEST_LEN, Alg::Sha256),
        (MBH_SHA224, MBH_SHA224_DIGEST_LEN, Alg::Sha224),
        (MBH_SHA512, MBH_SHA512_DIGEST_LEN, Alg::Sha512),
        (MBH_SHA384, MBH_SHA384_DIGEST_LEN, Alg::Sha384),
        (MBH_SHA512_256, MBH_SHA512_256_DIGEST_LEN, Alg::Sha512_256),
        (MBH_SHA512_224, MBH_SHA512_224_DIGEST_LEN, Alg::Sha512_224),
        (MBH_MD5, MBH_MD5_DIGEST_LEN, Alg::Md5),
        (MBH_SHA1, MBH_SHA1_DIGEST_LEN, Alg::Sha1),
        (MBH_SM3, MBH_SM3_DIGEST_LEN, Alg::Sm3),
    ];
    assert!(c.len() == Alg::ALL.len());
    let mut i = 0;
    while i < c.len() {
        assert!(c[i].0 == c[i].2.c_id() && c[i].1 == c[i].2.output_len());
        i += 1;
    }
};

const _: () = assert!(MBH_MAX_DIGEST_LEN == mbhash_core::algo::MAX_OUTPUT_LEN);

/// The static C string of an engine name of `A`'s family.
pub(crate) fn engine_cstr<A: FfiAlg>(name: &str) -> &'static CStr {
    A::engine_names()
        .iter()
        .find(|n| n.to_bytes() == name.as_bytes())
        .copied()
        .expect("an engine's name is in its family's list")
}

/// Writes the digest length of `alg` to `*len_out`.
///
/// # Safety
/// `len_out` is NULL or valid for writing a `size_t`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mbh_digest_len(alg: mbh_algorithm, len_out: *mut usize) -> mbh_result {
    crate::boundary::boundary(|| {
        non_null(len_out)?;
        let len = with_algo!(Alg::from_raw(alg)?, A => A::DIGEST_LEN);
        // SAFETY: non-NULL and writable (the caller's contract).
        unsafe { write_out(len_out, len) };
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The compile-time C names are the engines' names, in order, for
    /// every algorithm.
    #[test]
    fn engine_names_match_the_engines() {
        fn check<A: FfiAlg>() {
            let c: Vec<&str> = A::engine_names()
                .iter()
                .map(|n| n.to_str().expect("ASCII"))
                .collect();
            let err = A::engine_from_name("no such engine").unwrap_err();
            assert_eq!(c, err.valid().collect::<Vec<_>>(), "{}", A::NAME);
        }
        for algo in Alg::ALL {
            with_algo!(algo, A => check::<A>());
        }
    }
}
