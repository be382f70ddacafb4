//! Contexts in caller memory: `mbh_ctx` and its functions.

use core::ffi::c_void;
use core::mem::{ManuallyDrop, align_of, size_of};
use core::sync::atomic::{AtomicU32, Ordering};

use mbhash_core::{Context, Status};

use crate::alg::{Alg, AlgRaw, FfiAlg, mbh_algorithm, mbh_status, with_algo};
use crate::boundary::{boundary, mbh_result, non_null, write_out};

/// Bytes of caller memory a context needs: `sizeof(mbh_ctx)`.
pub const MBH_CTX_SIZE: usize = 512;
/// Alignment of a context's memory: `_Alignof(mbh_ctx)`.
pub const MBH_CTX_ALIGN: usize = 8;

/// One message stream: chaining state, a partial block, the length, the
/// caller's `user_data` and the algorithm.
///
/// Opaque: it lives in caller memory (on the stack, in a struct, in an I/O
/// descriptor) and is set up by `mbh_ctx_init`; it holds no resources, so it
/// needs no "free". A context that is not in flight may be copied with
/// `memcpy` (this forks its stream). While in flight (from `mbh_submit`
/// until it comes back from `mbh_submit` or `mbh_flush`) it must stay where
/// it is, and only the manager's thread may touch it.
///
/// Like a manager, a context is used by one thread at a time: it may move
/// between threads with the synchronisation that hands over any memory (a
/// lock, a queue). A submit of a context in flight, to its own manager or
/// to another, is refused with `MBH_ALREADY_PROCESSING` whenever the calls
/// are ordered that way (one thread, or threads that hand the context
/// over); two threads calling into one context at the same moment is a
/// data race on the caller's memory, which no call detects.
#[repr(C)]
pub struct mbh_ctx {
    _opaque: [u64; 64],
}

const _: () = {
    assert!(size_of::<mbh_ctx>() == MBH_CTX_SIZE);
    assert!(align_of::<mbh_ctx>() == MBH_CTX_ALIGN);
    assert!(size_of::<CtxInner>() <= MBH_CTX_SIZE);
    assert!(align_of::<CtxInner>() <= MBH_CTX_ALIGN);
};

/// "mbhc": an initialised context.
const CTX_MAGIC: u32 = 0x6362_686d;

/// What an `mbh_ctx` holds.
///
/// The Rust context (`ctx`) is reached only through raw pointers: the
/// manager holds a `&'static mut` to it while in flight, so nothing else may
/// make a reference to it then. The other fields are separate memory.
#[repr(C)]
pub(crate) struct CtxInner {
    magic: u32,
    /// The `mbh_algorithm` number.
    alg: u32,
    /// 1 while in flight: set before the manager gets its reference,
    /// cleared after the reference is given back. A plain load and store
    /// (the contract orders every call on a context), not a locked
    /// compare-exchange: telling two simultaneous submits apart would take
    /// a store-to-load fence on every submit (a locked instruction, about
    /// 5 ns), while one thread's double submit, and one across threads that
    /// hand the context over, is seen by a plain load.
    in_flight: AtomicU32,
    user_data: *mut c_void,
    ctx: AnyContext,
}

/// Room for the Rust context of any algorithm of the catalogue
/// ([`mbhash_core::for_each_algorithm!`]).
macro_rules! any_context {
    ([] $($(#[$doc:meta])* $v:ident = $t:ident $info:tt;)*) => {
        #[repr(C)]
        #[allow(non_snake_case)]
        union AnyContext {
            $($v: ManuallyDrop<Context<mbhash_core::alg::$t>>,)*
        }
    };
}

mbhash_core::for_each_algorithm!(any_context);

impl CtxInner {
    /// The Rust context, as algorithm `A` (a raw pointer: see the type's
    /// documentation).
    ///
    /// # Safety
    /// `this` points to an initialised context of algorithm `A`.
    pub(crate) unsafe fn rust_ctx<A: FfiAlg>(this: *mut CtxInner) -> *mut Context<A> {
        // SAFETY: in bounds of the caller's context (the caller's contract);
        // no reference is made.
        unsafe { (&raw mut (*this).ctx).cast() }
    }

    /// Where the Rust context is in a context: its address, less this, is
    /// the context's (arithmetic only).
    pub(crate) const RUST_CTX_OFFSET: usize = core::mem::offset_of!(CtxInner, ctx);

    /// Marks the context in flight; false if it already was.
    ///
    /// # Safety
    /// `this` points to an initialised context that no other thread uses
    /// now (the context's contract).
    pub(crate) unsafe fn claim(this: *mut CtxInner) -> bool {
        // SAFETY: a shared reference to the atomic field only.
        let flag = unsafe { &(*this).in_flight };
        if flag.load(Ordering::Relaxed) != 0 {
            return false;
        }
        flag.store(1, Ordering::Relaxed);
        true
    }

    /// Clears the in-flight mark; the manager must hold no reference to the
    /// Rust context any more.
    ///
    /// # Safety
    /// `this` points to an initialised context.
    pub(crate) unsafe fn release(this: *mut CtxInner) {
        // SAFETY: a shared reference to the atomic field only.
        unsafe { &(*this).in_flight }.store(0, Ordering::Release);
    }

    /// True while in flight.
    ///
    /// # Safety
    /// `this` points to an initialised context.
    unsafe fn is_in_flight(this: *const CtxInner) -> bool {
        // SAFETY: a shared reference to the atomic field only.
        unsafe { &(*this).in_flight }.load(Ordering::Acquire) != 0
    }

    /// Writes a fresh context of `A` (no stream), not in flight, without
    /// reading the old contents.
    ///
    /// # Safety
    /// `this` is valid for writes of `CtxInner` and aligned; no reference to
    /// its Rust context exists.
    pub(crate) unsafe fn write_new<A: FfiAlg>(this: *mut CtxInner, user_data: *mut c_void) {
        // SAFETY: valid for writes (the caller's contract); each field is
        // written through a raw pointer, the Rust context as `A`'s.
        unsafe {
            (&raw mut (*this).magic).write(CTX_MAGIC);
            (&raw mut (*this).alg).write(A::RAW);
            (&raw mut (*this).in_flight).write(AtomicU32::new(0));
            (&raw mut (*this).user_data).write(user_data);
            Self::rust_ctx::<A>(this).write(Context::new());
        }
    }

    /// Resets the Rust context of a context that no manager holds any more
    /// and clears its in-flight mark.
    ///
    /// # Safety
    /// `this` points to an initialised context of algorithm `A` to whose
    /// Rust context no reference exists.
    pub(crate) unsafe fn abandon<A: FfiAlg>(this: *mut CtxInner) {
        // SAFETY: the caller's contract: nobody else refers to it.
        unsafe {
            Self::rust_ctx::<A>(this).write(Context::new());
            Self::release(this);
        }
    }
}

/// Checks a context argument: non-NULL, aligned, initialised. Returns the
/// inner pointer and the algorithm.
///
/// # Safety
/// `ctx` is NULL or points to an `mbh_ctx` (initialised or zeroed).
pub(crate) unsafe fn check_ctx(ctx: *const mbh_ctx) -> Result<(*mut CtxInner, Alg), mbh_result> {
    non_null(ctx)?;
    if !(ctx as usize).is_multiple_of(MBH_CTX_ALIGN) {
        return Err(mbh_result::MBH_MISALIGNED);
    }
    let inner = ctx.cast::<CtxInner>().cast_mut();
    // SAFETY: aligned and points to an `mbh_ctx` (the caller's contract);
    // the header fields are plain integers read through a raw pointer.
    let (magic, alg) = unsafe { ((*inner).magic, (*inner).alg) };
    if magic != CTX_MAGIC {
        return Err(mbh_result::MBH_UNINITIALIZED);
    }
    let alg = Alg::from_raw(alg).map_err(|_| mbh_result::MBH_UNINITIALIZED)?;
    Ok((inner, alg))
}

/// Like [`check_ctx`], and refuses a context in flight.
///
/// # Safety
/// As [`check_ctx`].
unsafe fn check_idle_ctx(ctx: *const mbh_ctx) -> Result<(*mut CtxInner, Alg), mbh_result> {
    // SAFETY: forwarded contract.
    let (inner, alg) = unsafe { check_ctx(ctx)? };
    // SAFETY: initialised (checked above).
    if unsafe { CtxInner::is_in_flight(inner) } {
        return Err(mbh_result::MBH_ALREADY_PROCESSING);
    }
    Ok((inner, alg))
}

/// Initialises a context in caller memory for algorithm `alg`, with no
/// stream open, carrying `user_data` (any value, NULL included).
///
/// Never reads the memory first: it may be uninitialised.
///
/// # Safety
/// `ctx` is NULL or valid for writes of `MBH_CTX_SIZE` bytes. It must not be
/// a context in flight (use `mbh_ctx_reset` to restart an initialised one).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mbh_ctx_init(
    ctx: *mut mbh_ctx,
    alg: mbh_algorithm,
    user_data: *mut c_void,
) -> mbh_result {
    boundary(|| {
        non_null(ctx)?;
        if !(ctx as usize).is_multiple_of(MBH_CTX_ALIGN) {
            return Err(mbh_result::MBH_MISALIGNED);
        }
        let alg = Alg::from_raw(alg)?;
        // SAFETY: non-NULL, aligned and writable (the caller's contract); not
        // in flight, so no reference to it exists.
        with_algo!(alg, A => unsafe {
            CtxInner::write_new::<A>(ctx.cast(), user_data)
        });
        Ok(())
    })
}

/// Forgets the context's stream (status `MBH_STATUS_NEW`); keeps its
/// algorithm and user data. Not needed between streams: `MBH_FIRST` restarts
/// one.
///
/// # Safety
/// `ctx` is NULL or points to an initialised context.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mbh_ctx_reset(ctx: *mut mbh_ctx) -> mbh_result {
    boundary(|| {
        // SAFETY: forwarded contract.
        let (inner, alg) = unsafe { check_idle_ctx(ctx)? };
        // SAFETY: initialised with `alg`, not in flight: no reference to its
        // Rust context exists.
        with_algo!(alg, A => unsafe { CtxInner::abandon::<A>(inner) });
        Ok(())
    })
}

/// Sets the caller's pointer carried by the context (allowed in flight).
///
/// # Safety
/// `ctx` is NULL or points to an initialised context used by this thread.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mbh_ctx_set_user_data(
    ctx: *mut mbh_ctx,
    user_data: *mut c_void,
) -> mbh_result {
    boundary(|| {
        // SAFETY: forwarded contract.
        let (inner, _) = unsafe { check_ctx(ctx)? };
        // SAFETY: the user-data field is outside the Rust context; this thread
        // owns the context (the caller's contract).
        unsafe { (&raw mut (*inner).user_data).write(user_data) };
        Ok(())
    })
}

/// Writes the caller's pointer carried by the context to `*user_data_out`
/// (allowed in flight).
///
/// # Safety
/// `ctx` is NULL or points to an initialised context used by this thread;
/// `user_data_out` is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mbh_ctx_get_user_data(
    ctx: *const mbh_ctx,
    user_data_out: *mut *mut c_void,
) -> mbh_result {
    boundary(|| {
        non_null(user_data_out)?;
        // SAFETY: forwarded contract.
        let (inner, _) = unsafe { check_ctx(ctx)? };
        // SAFETY: the user-data field is outside the Rust context; the output
        // is writable (the caller's contract).
        unsafe { write_out(user_data_out, (*inner).user_data) };
        Ok(())
    })
}

/// Writes the context's algorithm to `*alg_out`.
///
/// # Safety
/// `ctx` is NULL or points to an initialised context; `alg_out` is NULL or
/// writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mbh_ctx_algorithm(
    ctx: *const mbh_ctx,
    alg_out: *mut mbh_algorithm,
) -> mbh_result {
    boundary(|| {
        non_null(alg_out)?;
        // SAFETY: forwarded contract.
        let (_, alg) = unsafe { check_ctx(ctx)? };
        // SAFETY: writable (the caller's contract).
        unsafe { write_out(alg_out, alg.raw()) };
        Ok(())
    })
}

/// Writes where the context is in its life to `*status_out`.
///
/// # Safety
/// `ctx` is NULL or points to an initialised context used by this thread;
/// `status_out` is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mbh_ctx_status(
    ctx: *const mbh_ctx,
    status_out: *mut mbh_status,
) -> mbh_result {
    boundary(|| {
        non_null(status_out)?;
        // SAFETY: forwarded contract.
        let status = match unsafe { check_idle_ctx(ctx) } {
            Err(mbh_result::MBH_ALREADY_PROCESSING) => mbh_status::MBH_STATUS_PROCESSING,
            Err(e) => return Err(e),
            // SAFETY: initialised with `alg` and not in flight: no `&mut` to
            // the Rust context exists.
            Ok((inner, alg)) => match with_algo!(alg, A => unsafe {
                (*CtxInner::rust_ctx::<A>(inner)).status()
            }) {
                Status::New => mbh_status::MBH_STATUS_NEW,
                Status::Idle => mbh_status::MBH_STATUS_IDLE,
                Status::Processing => mbh_status::MBH_STATUS_PROCESSING,
                Status::Complete => mbh_status::MBH_STATUS_COMPLETE,
            },
        };
        // SAFETY: writable (the caller's contract).
        unsafe { write_out(status_out, status) };
        Ok(())
    })
}

/// Copies the digest of a completed stream, in standard (big-endian) byte
/// order, to `out` and its length to `*written_out`.
///
/// `out_len` must be at least the algorithm's digest length
/// (`mbh_digest_len`, `MBH_MAX_DIGEST_LEN` always suffices).
///
/// Errors (then `out` and `*written_out` are untouched):
/// `MBH_NULL_ARGUMENT` (`ctx`, `out` or `written_out`), `MBH_MISALIGNED`,
/// `MBH_UNINITIALIZED` (not an initialised context), `MBH_ALREADY_PROCESSING`
/// (in flight), `MBH_NOT_COMPLETE` (the stream's last chunk has not come
/// back: no digest yet), `MBH_BUFFER_TOO_SMALL`.
///
/// # Safety
/// `ctx` is NULL or points to an initialised context used by this thread;
/// `out` is NULL or writable for `out_len` bytes; `written_out` is NULL or
/// writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mbh_ctx_digest(
    ctx: *const mbh_ctx,
    out: *mut u8,
    out_len: usize,
    written_out: *mut usize,
) -> mbh_result {
    boundary(|| {
        non_null(out)?;
        non_null(written_out)?;
        // SAFETY: forwarded contract.
        let (inner, alg) = unsafe { check_idle_ctx(ctx)? };
        with_algo!(alg, A => {
            // SAFETY: initialised with `alg` and not in flight: no `&mut` to
            // the Rust context exists.
            let rust_ctx = unsafe { &*CtxInner::rust_ctx::<A>(inner) };
            if rust_ctx.status() != Status::Complete {
                return Err(mbh_result::MBH_NOT_COMPLETE);
            }
            let len = A::DIGEST_LEN;
            if out_len < len {
                return Err(mbh_result::MBH_BUFFER_TOO_SMALL);
            }
            // SAFETY: `out` is writable for `out_len >= len` bytes and
            // overlaps no context (the caller's contract).
            let out = unsafe { core::slice::from_raw_parts_mut(out, len) };
            // Written in place: a digest built first and then copied made
            // the compiler split it into pieces of odd sizes.
            let complete = rust_ctx.digest_into(out);
            debug_assert!(complete, "checked above");
            // SAFETY: writable (the caller's contract).
            unsafe { write_out(written_out, len) };
            Ok(())
        })
    })
}
