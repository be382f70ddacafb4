//! Engines: listing and support queries, per algorithm family.

use core::ffi::c_char;

use mbhash_core::engine::{EngineError, EngineErrorKind};

use crate::alg::{Alg, AlgRaw, FfiAlg, mbh_algorithm, with_algo};
use crate::boundary::{boundary, mbh_result, name_str, non_null, write_out};

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
/// SHA-512 variants another. Names are listed whether or not this CPU runs
/// them (see `mbh_engine_supported`).
///
/// # Safety
/// `count_out` is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mbh_engine_count(alg: mbh_algorithm, count_out: *mut usize) -> mbh_result {
    boundary(|| {
        non_null(count_out)?;
        let n = with_algo!(Alg::from_raw(alg)?, A => A::engine_names().len());
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
        let names = with_algo!(Alg::from_raw(alg)?, A => A::engine_names());
        let name = names.get(index).ok_or(mbh_result::MBH_OUT_OF_RANGE)?;
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
        let alg = Alg::from_raw(alg)?;
        // SAFETY: non-NULL and NUL-terminated (the caller's contract).
        let name = unsafe { name_str(name) }.ok_or(mbh_result::MBH_UNKNOWN_ENGINE)?;
        let supported = with_algo!(alg, A => {
            if !A::engine_names()
                .iter()
                .any(|n| n.to_bytes() == name.as_bytes())
            {
                return Err(mbh_result::MBH_UNKNOWN_ENGINE);
            }
            A::engine_is_supported(name)
        });
        // SAFETY: writable (the caller's contract).
        unsafe { write_out(supported_out, supported) };
        Ok(())
    })
}

/// Makes `name` the default engine of `alg`'s family for the whole process
/// from now on (SHA-224 shares SHA-256's, the SHA-512 variants SHA-512's),
/// as OpenZFS's writable `zfs_sha256_impl` parameter: the next kernel call
/// of every pool and service, and every new manager, runs on it; work under
/// way finishes on the engine it started with. Safe while other threads
/// hash. It overrides `MBHASH_SHA256_ENGINE` / `MBHASH_SHA512_ENGINE`.
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
        let algo = Alg::from_raw(alg)?;
        non_null(name)?;
        // SAFETY: non-NULL and NUL-terminated (the caller's contract).
        let Some(name) = (unsafe { name_str(name) }) else {
            return Err(mbh_result::MBH_UNKNOWN_ENGINE);
        };
        mbhash_core::engine::set_default(algo, name).map_err(|e| engine_error(&e))
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
        let algo = Alg::from_raw(alg)?;
        let name = with_algo!(algo, A => crate::alg::engine_cstr::<A>(
            mbhash_core::engine::default_name(algo)
        ));
        // SAFETY: writable (the caller's contract).
        unsafe { write_out(name_out, name.as_ptr()) };
        Ok(())
    })
}
