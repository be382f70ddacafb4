//! CRC32C (Castagnoli) for C callers.

use mbhash_core::crc32c::{self, Crc32cKernel};

use crate::boundary::{boundary, bytes, mbh_result, non_null, write_out};
use crate::engine::engine_error;

/// The kernel `crc32c()` runs now (switched by `mbh_set_engine(MBH_CRC32C,
/// ...)`), or the error of `MBHASH_CRC32C_ENGINE` (`MBH_UNKNOWN_ENGINE` /
/// `MBH_UNSUPPORTED_ENGINE`) while no engine was set, as every `mbh_*`
/// function that chooses an engine reports it.
fn kernel() -> Result<Crc32cKernel, mbh_result> {
    Crc32cKernel::try_default().map_err(|e| engine_error(&e))
}

/// The CRC32C of `len` bytes at `data`, written to `*crc_out`.
///
/// `data` may be NULL when `len` is 0. `MBH_UNKNOWN_ENGINE` or
/// `MBH_UNSUPPORTED_ENGINE` if `MBHASH_CRC32C_ENGINE` names an engine that
/// cannot run (as for every `mbh_*` function that chooses an engine).
///
/// ```c
/// uint32_t crc;
/// mbh_crc32c("123456789", 9, &crc);   /* crc == 0xE3069283 */
/// ```
///
/// # Safety
/// `data` is NULL or readable for `len` bytes; `crc_out` is NULL or
/// writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mbh_crc32c(data: *const u8, len: usize, crc_out: *mut u32) -> mbh_result {
    // SAFETY: forwarded contract.
    unsafe { append(0, data, len, crc_out) }
}

/// Continues a CRC: from the finished CRC32C `crc` of some message `A`,
/// writes the finished CRC32C of `A` followed by the `len` bytes at `data`.
/// `mbh_crc32c_append(0, ...)` is `mbh_crc32c(...)`.
///
/// # Safety
/// `data` is NULL or readable for `len` bytes; `crc_out` is NULL or
/// writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mbh_crc32c_append(
    crc: u32,
    data: *const u8,
    len: usize,
    crc_out: *mut u32,
) -> mbh_result {
    // SAFETY: forwarded contract.
    unsafe { append(crc, data, len, crc_out) }
}

/// The body of `mbh_crc32c` and `mbh_crc32c_append`, inlined into each:
/// the engine in one load and the argument checks in one branch, anything
/// else (the first call, an engine error, refused arguments) in one cold
/// call; then the kernel, called straight from the export, inside the
/// panic boundary. Nothing but the output pointer is kept across the
/// kernel call.
///
/// # Safety
/// As for [`mbh_crc32c_append`].
#[inline(always)]
unsafe fn append(crc: u32, data: *const u8, len: usize, crc_out: *mut u32) -> mbh_result {
    let k = match Crc32cKernel::ready_default() {
        Some(k)
            if !crc_out.is_null()
                && (!data.is_null() || len == 0)
                && len <= isize::MAX as usize =>
        {
            k
        }
        // SAFETY: forwarded contract.
        _ => return unsafe { append_slow(crc, data, len, crc_out) },
    };
    let data = if len == 0 {
        &[][..]
    } else {
        // SAFETY: non-NULL, `len <= isize::MAX` (checked above) and
        // readable for `len` bytes (the caller's contract).
        unsafe { core::slice::from_raw_parts(data, len) }
    };
    boundary(|| {
        let value = k.append(crc, data);
        // SAFETY: non-NULL (checked above) and writable (the caller's
        // contract).
        unsafe { write_out(crc_out, value) };
        Ok(())
    })
}

/// [`append`] off the hot path: the arguments checked first, then the
/// engine (the first call chooses it), then the CRC.
///
/// # Safety
/// As for [`mbh_crc32c_append`].
#[cold]
#[inline(never)]
unsafe fn append_slow(crc: u32, data: *const u8, len: usize, crc_out: *mut u32) -> mbh_result {
    boundary(|| {
        non_null(crc_out)?;
        // SAFETY: the caller's contract, checked (non-NULL unless empty, at
        // most isize::MAX bytes).
        let data = unsafe { bytes(data, len) }?;
        let value = kernel()?.append(crc, data);
        // SAFETY: non-NULL (checked above) and writable (the caller's
        // contract).
        unsafe { write_out(crc_out, value) };
        Ok(())
    })
}

/// The CRC32C of `A` followed by `B`, written to `*crc_out`, from `crc_a` =
/// CRC32C(A), `crc_b` = CRC32C(B) and the length of `B` alone: O(log
/// `len_b`), without the data, well under a microsecond at any length.
/// Engine errors as for `mbh_crc32c`.
///
/// # Safety
/// `crc_out` is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mbh_crc32c_combine(
    crc_a: u32,
    crc_b: u32,
    len_b: u64,
    crc_out: *mut u32,
) -> mbh_result {
    boundary(|| {
        non_null(crc_out)?;
        kernel()?;
        let value = crc32c::crc32c_combine(crc_a, crc_b, len_b);
        // SAFETY: non-NULL and writable (the caller's contract).
        unsafe { write_out(crc_out, value) };
        Ok(())
    })
}
