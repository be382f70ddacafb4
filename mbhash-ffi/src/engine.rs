//! Engines: listing and support queries, per algorithm family.

use core::ffi::c_char;

use mbhash_core::engine::{EngineError, EngineErrorKind};

use core::ffi::CStr;

use mbhash_core::engine::EngineFamily;

use crate::alg::{Alg, AlgRaw, FfiAlg, mbh_algorithm, with_algo};
use crate::boundary::{boundary, mbh_result, name_str, non_null, write_out};

/// CRC32C, for the engine functions: `mbh_engine_count`, `mbh_engine_name`,
/// `mbh_engine_supported`, `mbh_set_engine` and `mbh_get_engine` take it
/// beside the `MBH_SHA*` numbers, for the engines of `mbh_crc32c*`. It is
/// no hash algorithm: every other function refuses it
/// (`MBH_INVALID_ALGORITHM`).
pub const MBH_CRC32C: mbh_algorithm = 7;

/// The CRC engines, for the engine functions beside the `MBH_SHA*`
/// numbers and `MBH_CRC32C`: the engines of every `mbh_crc*` function and
/// of the ISA-L CRC drop-in, but for CRC-32/ISCSI (which runs the
/// `MBH_CRC32C` engines): `auto`, `table`, `pclmul`, `vpclmul256`,
/// `vpclmul512` (`MBHASH_CRC_ENGINE`). No hash algorithm: every other
/// function refuses it (`MBH_INVALID_ALGORITHM`). 256: clear of the hash
/// numbers, which may grow.
pub const MBH_CRC: mbh_algorithm = 256;

/// The engine family an algorithm number names (`MBH_CRC32C` and `MBH_CRC`
/// included).
fn family(alg: mbh_algorithm) -> Result<EngineFamily, mbh_result> {
    if alg == MBH_CRC32C {
        return Ok(EngineFamily::Crc32c);
    }
    if alg == MBH_CRC {
        return Ok(EngineFamily::Crc);
    }
    Alg::from_raw(alg).map(EngineFamily::of)
}

/// The engine names of a family, as C strings, `auto` first.
fn names(family: EngineFamily) -> &'static [&'static CStr] {
    crate::alg::family_engine_names(family)
}

/// The CRC engines' names (checked against `CrcEngine::ALL` by a test).
pub(crate) static CRC_NAMES: [&CStr; 5] =
    [c"auto", c"table", c"pclmul", c"vpclmul256", c"vpclmul512"];

/// The CRC32C engines' names (checked against `Crc32cEngine::ALL` by a
/// test).
pub(crate) static CRC32C_NAMES: [&CStr; 5] =
    [c"auto", c"table", c"sse42", c"vpclmul", c"vpclmul-fold"];

/// True if this CPU runs the family's engine with this (known) name.
fn supported(family: EngineFamily, name: &str) -> bool {
    match family {
        EngineFamily::Crc32c => {
            mbhash_core::crc32c::Crc32cEngine::from_name(name).is_some_and(|e| e.is_supported())
        }
        EngineFamily::Crc => {
            mbhash_core::crc::CrcEngine::from_name(name).is_some_and(|e| e.is_supported())
        }
        // A hash family: ask any of its algorithms (every family has one).
        f => Alg::ALL
            .into_iter()
            .find(|a| EngineFamily::of(*a) == f)
            .is_some_and(|alg| with_algo!(alg, A => A::engine_is_supported(name))),
    }
}

/// The static C string of a family's engine name.
fn name_cstr(family: EngineFamily, name: &str) -> &'static CStr {
    names(family)
        .iter()
        .find(|n| n.to_bytes() == name.as_bytes())
        .copied()
        .unwrap_or(c"auto")
}

/// The result code of a refused engine name.
pub(crate) fn engine_error(e: &EngineError) -> mbh_result {
    match e.kind {
        EngineErrorKind::Unknown => mbh_result::MBH_UNKNOWN_ENGINE,
        EngineErrorKind::Unsupported => mbh_result::MBH_UNSUPPORTED_ENGINE,
    }
}

/// Writes the number of engines of `alg`'s family to `*count_out`.
///
/// Engines belong to a family: SHA-256 and SHA-224 share one list, the
/// SHA-512 variants another, `MBH_CRC32C` has its own. Names are listed
/// whether or not this CPU runs them (see `mbh_engine_supported`).
///
/// # Safety
/// `count_out` is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mbh_engine_count(alg: mbh_algorithm, count_out: *mut usize) -> mbh_result {
    boundary(|| {
        non_null(count_out)?;
        let n = names(family(alg)?).len();
        // SAFETY: writable (the caller's contract).
        unsafe { write_out(count_out, n) };
        Ok(())
    })
}

/// Writes the name of engine number `index` of `alg`'s family (a static
/// string; `"auto"` is number 0) to `*name_out`; `MBH_OUT_OF_RANGE` past the
/// last one.
///
/// # Safety
/// `name_out` is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mbh_engine_name(
    alg: mbh_algorithm,
    index: usize,
    name_out: *mut *const c_char,
) -> mbh_result {
    boundary(|| {
        non_null(name_out)?;
        let name = names(family(alg)?)
            .get(index)
            .ok_or(mbh_result::MBH_OUT_OF_RANGE)?;
        // SAFETY: writable (the caller's contract).
        unsafe { write_out(name_out, name.as_ptr()) };
        Ok(())
    })
}

/// Writes whether this CPU runs the engine named `name` of `alg`'s family
/// to `*supported_out` (after `MBHASH_DISABLE`); `MBH_UNKNOWN_ENGINE` if the
/// family has no such engine.
///
/// # Safety
/// `name` is NULL or a NUL-terminated string; `supported_out` is NULL or
/// writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mbh_engine_supported(
    alg: mbh_algorithm,
    name: *const c_char,
    supported_out: *mut bool,
) -> mbh_result {
    boundary(|| {
        non_null(name)?;
        non_null(supported_out)?;
        let family = family(alg)?;
        // SAFETY: non-NULL and NUL-terminated (the caller's contract).
        let name = unsafe { name_str(name) }.ok_or(mbh_result::MBH_UNKNOWN_ENGINE)?;
        if !names(family)
            .iter()
            .any(|n| n.to_bytes() == name.as_bytes())
        {
            return Err(mbh_result::MBH_UNKNOWN_ENGINE);
        }
        let supported = supported(family, name);
        // SAFETY: writable (the caller's contract).
        unsafe { write_out(supported_out, supported) };
        Ok(())
    })
}

/// Makes `name` the default engine of `alg`'s family for the whole process
/// from now on (SHA-224 shares SHA-256's, the SHA-512 variants SHA-512's;
/// `MBH_CRC32C` names the engine of `mbh_crc32c*` and of CRC-32/ISCSI,
/// `MBH_CRC` that of every other CRC), as OpenZFS's writable
/// `zfs_sha256_impl` parameter: the next kernel call of every pool and
/// service and of every isa-l_crypto drop-in manager, every new manager and
/// the next `mbh_crc32c*` call run on it;
/// work under way finishes on the engine it started with. Safe while other
/// threads hash. It overrides `MBHASH_SHA256_ENGINE` /
/// `MBHASH_SHA512_ENGINE` / `MBHASH_CRC32C_ENGINE` / `MBHASH_CRC_ENGINE`.
///
/// Errors: `MBH_NULL_ARGUMENT`, `MBH_INVALID_ALGORITHM`,
/// `MBH_UNKNOWN_ENGINE`, `MBH_UNSUPPORTED_ENGINE`; the default is then
/// unchanged.
///
/// # Safety
/// `name` is NULL or a NUL-terminated string.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mbh_set_engine(alg: mbh_algorithm, name: *const c_char) -> mbh_result {
    boundary(|| {
        let family = family(alg)?;
        non_null(name)?;
        // SAFETY: non-NULL and NUL-terminated (the caller's contract).
        let Some(name) = (unsafe { name_str(name) }) else {
            return Err(mbh_result::MBH_UNKNOWN_ENGINE);
        };
        mbhash_core::engine::set_default(family, name).map_err(|e| engine_error(&e))
    })
}

/// Writes the name of the default engine of `alg`'s family now (a static
/// string, e.g. `"auto"`) to `*name_out`.
///
/// # Safety
/// `name_out` is NULL or valid for writing a pointer.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mbh_get_engine(
    alg: mbh_algorithm,
    name_out: *mut *const c_char,
) -> mbh_result {
    boundary(|| {
        non_null(name_out)?;
        let family = family(alg)?;
        let name = name_cstr(family, mbhash_core::engine::default_name(family));
        // SAFETY: writable (the caller's contract).
        unsafe { write_out(name_out, name.as_ptr()) };
        Ok(())
    })
}

#[cfg(all(test, feature = "std"))]
mod tests {
    use super::*;
    use mbhash_core::crc32c::Crc32cEngine;

    #[test]
    fn crc_names_match_the_engines() {
        let c: Vec<&str> = CRC_NAMES.iter().map(|n| n.to_str().unwrap()).collect();
        let rust: Vec<&str> = mbhash_core::crc::CrcEngine::ALL
            .iter()
            .map(|e| e.name())
            .collect();
        assert_eq!(c, rust);
        assert!(
            Alg::from_raw(MBH_CRC).is_err(),
            "MBH_CRC is no hash algorithm"
        );
    }

    #[test]
    fn crc32c_names_match_the_engines() {
        let c: Vec<&str> = CRC32C_NAMES.iter().map(|n| n.to_str().unwrap()).collect();
        let rust: Vec<&str> = Crc32cEngine::ALL.iter().map(|e| e.name()).collect();
        assert_eq!(c, rust);
        assert!(
            Alg::from_raw(MBH_CRC32C).is_err(),
            "MBH_CRC32C is no hash algorithm"
        );
    }
}
