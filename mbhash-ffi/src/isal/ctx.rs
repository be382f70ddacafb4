//! The context layer: isa-l_crypto's `ctx_mgr_submit` / `ctx_mgr_flush`
//! over the lane manager.
//!
//! The order of the checks, the status and error values, the partial-block
//! buffering and the padding follow isa-l_crypto: a chunk first completes a
//! buffered partial block (a one-block job from `partial_block_buffer`),
//! then its whole blocks go as one job straight from the caller's buffer,
//! its tail is kept in `partial_block_buffer`, and a `LAST` chunk ends with
//! a job of one or two padded blocks there. A context comes back when it has
//! no job to run: at once if its chunk only filled the partial block.

use core::ptr;

use mbhash_core::alg::Algorithm;

use super::lanes::{LaneMgr, partial_blocks};
use super::layout::{HashCtx, IsalFamily};
use super::{
    ERROR_ALREADY_COMPLETED, ERROR_ALREADY_PROCESSING, ERROR_INVALID_FLAGS, ERROR_NONE,
    HASH_ENTIRE, HASH_FIRST, HASH_LAST, STS_COMPLETE, STS_IDLE, STS_LAST, STS_PROCESSING,
};

/// A submit refused before the context was touched: a NULL buffer with a
/// non-zero length (isa-l_crypto would read through it).
#[derive(Debug)]
pub(crate) struct NullSource;

/// Submits `len` bytes at `buffer` as the next chunk of `ctx`'s stream.
///
/// Returns the context that comes back (`ctx` itself when it is refused,
/// with its `error` set, or when the chunk only filled its partial block;
/// maybe another one that finished), or NULL.
///
/// # Safety
/// `ctx` points to a valid context (aligned to 8), to which no reference
/// exists, that is in no other manager's lanes; if the submit is accepted it
/// stays valid and untouched until it comes back from this manager, and
/// `buffer` (NULL only if `len` is 0) stays readable for `len` bytes until
/// then. Neither overlaps the other, another context or the manager.
pub(crate) unsafe fn submit<F: IsalFamily>(
    mgr: &mut LaneMgr<F>,
    ctx: *mut HashCtx<F>,
    buffer: *const u8,
    len: u32,
    flags: u32,
) -> Result<*mut HashCtx<F>, NullSource> {
    let block_len = F::BLOCK_LEN;
    let in_lane = mgr.holds(ctx);
    // SAFETY: valid, aligned, not referenced elsewhere, and not in a lane
    // (checked before anything but `error` is touched), so no lane reads it.
    let c = unsafe { &mut *ctx };
    if flags & !HASH_ENTIRE != 0 {
        c.error = ERROR_INVALID_FLAGS;
        return Ok(ctx);
    }
    if c.status & STS_PROCESSING != 0 || in_lane {
        c.error = ERROR_ALREADY_PROCESSING;
        return Ok(ctx);
    }
    let first = flags & HASH_FIRST != 0;
    if c.status & STS_COMPLETE != 0 && !first {
        c.error = ERROR_ALREADY_COMPLETED;
        return Ok(ctx);
    }
    if !first && c.partial.len() >= block_len {
        // Not a stream isa-l_crypto leaves between calls (its partial block
        // is always shorter than a block): a context never started.
        c.error = ERROR_ALREADY_COMPLETED;
        return Ok(ctx);
    }
    if buffer.is_null() && len != 0 {
        return Err(NullSource);
    }
    let data: &[u8] = if len == 0 {
        &[]
    } else {
        // SAFETY: non-NULL and readable for `len` bytes (the caller's
        // contract; a `u32` length fits in `isize`); it overlaps no context.
        unsafe { core::slice::from_raw_parts(buffer, len as usize) }
    };

    if first {
        c.job.result_digest = <F::Alg as Algorithm>::IV;
        c.total_length = 0;
        c.partial.clear();
    }
    c.error = ERROR_NONE;
    c.incoming_buffer = buffer;
    c.incoming_buffer_length = len;
    c.status = if flags & HASH_LAST != 0 {
        STS_PROCESSING | STS_LAST
    } else {
        STS_PROCESSING
    };
    c.total_length = c.total_length.wrapping_add(u64::from(len));

    // Complete a buffered partial block first, or buffer a short chunk.
    if !c.partial.is_empty() || data.len() < block_len {
        let rest = if c.partial.is_empty() {
            c.partial.keep(data);
            &data[data.len()..]
        } else {
            c.partial.fill(data)
        };
        if rest.len() != data.len() {
            c.incoming_buffer = rest.as_ptr();
            c.incoming_buffer_length = rest.len() as u32;
        }
        if c.partial.take_block().is_some() {
            let block = partial_blocks(ctx);
            c.job.buffer = block.cast_mut().cast();
            c.job.set_blocks(1);
            // SAFETY: `ctx` is in no lane and `c` is not used again; its
            // partial block stays valid until the context comes back (the
            // caller's contract).
            let next = unsafe { mgr.submit(ctx) };
            // SAFETY: forwarded contract.
            return Ok(unsafe { resubmit(mgr, next) });
        }
    }
    // SAFETY: `c` is not used again; forwarded contract.
    Ok(unsafe { resubmit(mgr, ctx) })
}

/// Runs the manager until a context comes back; NULL when it holds none.
///
/// # Safety
/// The contexts in the manager's lanes are valid and unreferenced (the
/// contract of [`submit`]).
pub(crate) unsafe fn flush<F: IsalFamily>(mgr: &mut LaneMgr<F>) -> *mut HashCtx<F> {
    loop {
        let ctx = mgr.flush();
        if ctx.is_null() {
            return ptr::null_mut();
        }
        // SAFETY: forwarded contract; `ctx` has just left its lane.
        let ctx = unsafe { resubmit(mgr, ctx) };
        if !ctx.is_null() {
            return ctx;
        }
    }
}

/// Moves a context that has no job in a lane to its next step: its next
/// job (and then whichever context the manager gives back), or back to the
/// caller, complete or idle. Returns the context for the caller, or NULL.
///
/// # Safety
/// `ctx` is NULL or a context in no lane, valid and unreferenced, whose
/// `incoming_buffer` is readable for `incoming_buffer_length` bytes until
/// it comes back; the contract of [`submit`] holds for the manager's lanes.
unsafe fn resubmit<F: IsalFamily>(
    mgr: &mut LaneMgr<F>,
    mut ctx: *mut HashCtx<F>,
) -> *mut HashCtx<F> {
    while !ctx.is_null() {
        // SAFETY: valid, and in no lane (it came out of one or was never
        // in), so nothing else refers to it.
        let c = unsafe { &mut *ctx };
        if c.status & STS_COMPLETE != 0 {
            // The padded blocks are done: the state is the digest, stored
            // as isa-l_crypto stores it (byte-swapped for SM3).
            F::finish(&mut c.job.result_digest);
            c.status = STS_COMPLETE;
            return ctx;
        }
        if c.partial.is_empty() && c.incoming_buffer_length != 0 {
            // SAFETY: `submit` set these from the caller's buffer, readable
            // until the context comes back (the caller's contract).
            let data = unsafe {
                core::slice::from_raw_parts(c.incoming_buffer, c.incoming_buffer_length as usize)
            };
            let (blocks, tail) = F::split_blocks(data);
            c.partial.keep(tail);
            c.incoming_buffer_length = 0;
            if !blocks.is_empty() {
                c.job.buffer = blocks.as_ptr().cast::<u8>().cast_mut();
                c.job.set_blocks(blocks.len() as u64);
                // SAFETY: in no lane, `c` not used again; the caller's buffer
                // stays readable until the context comes back.
                ctx = unsafe { mgr.submit(ctx) };
                continue;
            }
        }
        if c.status & STS_LAST != 0 {
            // The buffer holds `total_length % BLOCK_LEN` bytes (fewer than
            // a block: `submit` refuses any other length).
            let blocks = c.partial.pad(c.total_length).len();
            c.status = STS_PROCESSING | STS_COMPLETE;
            let data = partial_blocks(ctx);
            c.job.buffer = data.cast_mut().cast();
            c.job.set_blocks(blocks as u64);
            // SAFETY: in no lane, `c` not used again; its partial block stays
            // valid until it comes back.
            ctx = unsafe { mgr.submit(ctx) };
            continue;
        }
        c.status = STS_IDLE;
        return ctx;
    }
    ptr::null_mut()
}
