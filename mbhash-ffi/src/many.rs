//! Many messages at once.

use core::ffi::c_char;

use mbhash_core::alg::Algorithm;
use mbhash_core::hash_many_with;

use crate::alg::{Alg, AlgRaw, FfiAlg, mbh_algorithm, with_algo};
use crate::boundary::{boundary, bytes, mbh_result, name_str, non_null};
use crate::engine::engine_error;

/// Hashes `count` messages (`msgs[i]`, `lens[i]` bytes each) with `alg` on
/// the configured engine (as `mbh_manager_new`) and writes the digests one
/// after the other, in order, to `out`: digest `i` at
/// `out + i * digest_len`. `out_len` must be at least `count * digest_len`.
///
/// `msgs[i]` may be NULL when `lens[i]` is 0; `msgs`, `lens` and `out` may be
/// NULL when `count` is 0.
///
/// Allocates, and keeps a manager and a context per lane on the stack: not
/// in the kernel-style library (see `MBH_KERNEL_STACK_MAX`), whose callers
/// run a manager in their own memory.
///
/// # Safety
/// `msgs` and `lens` are NULL or readable for `count` elements; each
/// `msgs[i]` is NULL or readable for `lens[i]` bytes; `out` is NULL or
/// writable for `out_len` bytes and overlaps no message.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mbh_hash_many(
    alg: mbh_algorithm,
    msgs: *const *const u8,
    lens: *const usize,
    count: usize,
    out: *mut u8,
    out_len: usize,
) -> mbh_result {
    boundary(|| {
        // SAFETY: forwarded contract.
        unsafe { hash_many(alg, None, msgs, lens, count, out, out_len) }
    })
}

/// Like `mbh_hash_many`, on the engine named `engine` (e.g. `"scalar"`
/// for a reference).
///
/// # Safety
/// As `mbh_hash_many`; `engine` is NULL or a NUL-terminated string.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mbh_hash_many_with_engine(
    alg: mbh_algorithm,
    engine: *const c_char,
    msgs: *const *const u8,
    lens: *const usize,
    count: usize,
    out: *mut u8,
    out_len: usize,
) -> mbh_result {
    boundary(|| {
        non_null(engine)?;
        // SAFETY: non-NULL and NUL-terminated (the caller's contract).
        let engine = unsafe { name_str(engine) }.ok_or(mbh_result::MBH_UNKNOWN_ENGINE)?;
        // SAFETY: forwarded contract.
        unsafe { hash_many(alg, Some(engine), msgs, lens, count, out, out_len) }
    })
}

/// # Safety
/// As `mbh_hash_many`.
unsafe fn hash_many(
    alg: mbh_algorithm,
    engine: Option<&str>,
    msgs: *const *const u8,
    lens: *const usize,
    count: usize,
    out: *mut u8,
    out_len: usize,
) -> Result<(), mbh_result> {
    let alg = Alg::from_raw(alg)?;
    with_algo!(alg, A => {
        let engine = match engine {
            None => A::configured_engine(),
            Some(name) => A::engine_from_name(name),
        }
        .map_err(|e| engine_error(&e))?;
        if count == 0 {
            return Ok(());
        }
        non_null(msgs)?;
        non_null(lens)?;
        non_null(out)?;
        if count > isize::MAX as usize / size_of::<*const u8>() {
            return Err(mbh_result::MBH_LENGTH_OVERFLOW);
        }
        let need = count
            .checked_mul(A::DIGEST_LEN)
            .ok_or(mbh_result::MBH_BUFFER_TOO_SMALL)?;
        if out_len < need {
            return Err(mbh_result::MBH_BUFFER_TOO_SMALL);
        }
        // SAFETY: non-NULL and readable for `count` elements, a size that
        // fits in isize (checked) (the caller's contract).
        let (ptrs, lens) = unsafe {
            (
                core::slice::from_raw_parts(msgs, count),
                core::slice::from_raw_parts(lens, count),
            )
        };
        let messages = ptrs
            .iter()
            .zip(lens)
            // SAFETY: each message is NULL or readable for its length during
            // this call (the caller's contract).
            .map(|(&p, &n)| unsafe { bytes(p, n) })
            .collect::<Result<Vec<&[u8]>, mbh_result>>()?;
        let mut digests = vec![A::ZERO_OUTPUT; count];
        hash_many_with::<A>(engine, &messages, &mut digests);
        // SAFETY: writable for `out_len >= count * DIGEST_LEN` bytes, and no
        // message overlaps it (the caller's contract), so no `&[u8]` above
        // aliases this slice.
        let out = unsafe { core::slice::from_raw_parts_mut(out, need) };
        for (chunk, d) in out.chunks_exact_mut(A::DIGEST_LEN).zip(&digests) {
            chunk.copy_from_slice(d.as_ref());
        }
        Ok(())
    })
}
