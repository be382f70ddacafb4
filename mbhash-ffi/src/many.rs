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

/// Up to this many messages, `mbh_hash_many` keeps its arrays on the
/// stack (at most 1 KiB of digests).
const STACK_MAX: usize = 16;

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
            None => A::configured_engine_static()
                .as_ref()
                .copied()
                .map_err(engine_error)?,
            Some(name) => A::engine_from_name(name).map_err(|e| engine_error(&e))?,
        };
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
        // SAFETY: each message is NULL or readable for its length during
        // this call (the caller's contract).
        let message = |(&p, &n): (&*const u8, &usize)| unsafe { bytes(p, n) };
        let write = |digests: &[<A as Algorithm>::Output]| {
            // SAFETY: writable for `out_len >= count * DIGEST_LEN` bytes, and
            // no message overlaps it (the caller's contract), so no `&[u8]`
            // above aliases this slice.
            let out = unsafe { core::slice::from_raw_parts_mut(out, need) };
            for (chunk, d) in out.chunks_exact_mut(A::DIGEST_LEN).zip(digests) {
                chunk.copy_from_slice(d.as_ref());
            }
        };
        // A few messages (what a caller hashing a handful of blocks
        // passes): the slices and digests on the stack, in arrays of the
        // count's tier (zeroing a kilobyte of digests for two messages
        // costs as much as the two heap allocations it replaces).
        macro_rules! on_stack {
            ($n:expr) => {{
                let mut messages: [&[u8]; $n] = [&[]; $n];
                for (m, pl) in messages.iter_mut().zip(ptrs.iter().zip(lens)) {
                    *m = message(pl)?;
                }
                let mut digests = [A::ZERO_OUTPUT; $n];
                hash_many_with::<A>(engine, &messages[..count], &mut digests[..count]);
                write(&digests[..count]);
            }};
        }
        if count <= 4 {
            on_stack!(4);
        } else if count <= STACK_MAX {
            on_stack!(STACK_MAX);
        } else {
            let messages = ptrs
                .iter()
                .zip(lens)
                .map(message)
                .collect::<Result<Vec<&[u8]>, mbh_result>>()?;
            let mut digests = vec![A::ZERO_OUTPUT; count];
            hash_many_with::<A>(engine, &messages, &mut digests);
            write(&digests);
        }
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::alg::{MBH_MD5, MBH_SHA256, MBH_SHA512};
    use mbhash_core::StreamHasher;
    use mbhash_core::alg::{Md5Alg, Sha256Alg, Sha512Alg};
    use mbhash_core::engine::HashAlgorithm;

    /// `mbh_hash_many` at every count around its stack tiers (0 to 20:
    /// arrays of 4, of 16, then the heap), equal and ragged lengths,
    /// against one hasher per message.
    #[test]
    fn every_count_on_and_off_the_stack() {
        fn check<A: HashAlgorithm>(alg: mbh_algorithm) {
            let data: Vec<u8> = (0..4000u32).map(|i| (i * 131 + 7) as u8).collect();
            for count in 0..=20usize {
                for ragged in [false, true] {
                    let lens: Vec<usize> = (0..count)
                        .map(|i| if ragged { (i * 37) % 200 } else { 64 })
                        .collect();
                    let msgs: Vec<*const u8> =
                        (0..count).map(|i| data[i * 11..].as_ptr()).collect();
                    let d = A::ZERO_OUTPUT.as_ref().len();
                    let mut out = vec![0xa5u8; count * d + 3];
                    // SAFETY: every message is readable for its length (all
                    // within `data`), and `out` is writable for its length.
                    let r = unsafe {
                        mbh_hash_many(
                            alg,
                            msgs.as_ptr(),
                            lens.as_ptr(),
                            count,
                            out.as_mut_ptr(),
                            out.len(),
                        )
                    };
                    assert_eq!(r, mbh_result::MBH_OK);
                    for i in 0..count {
                        let mut h = StreamHasher::<A>::new();
                        h.update(&data[i * 11..i * 11 + lens[i]]);
                        let want = h.finalize_reset_output();
                        assert_eq!(
                            &out[i * d..(i + 1) * d],
                            want.as_ref(),
                            "{} count {count} ragged {ragged} message {i}",
                            A::NAME
                        );
                    }
                    assert_eq!(out[count * d..], [0xa5; 3], "nothing past the digests");
                }
            }
        }
        check::<Sha256Alg>(MBH_SHA256);
        check::<Sha512Alg>(MBH_SHA512);
        check::<Md5Alg>(MBH_MD5);
    }
}
