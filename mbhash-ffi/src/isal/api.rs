//! The exports: `isal_{sha256,sha512,md5,sha1,sm3}_ctx_mgr_{init,submit,flush}`
//! and the deprecated `{sha256,...}_ctx_mgr_{init,submit,flush}`.
//!
//! The `isal_` functions check their arguments in isa-l_crypto's order
//! (manager, then contexts, then the source buffer), and map a context
//! refused by the submit to an error code (the context is still written to
//! `*ctx_out`, as isa-l_crypto does). Beyond isa-l_crypto, a manager that
//! is misaligned or was never initialised is `ISAL_CRYPTO_ERR_NULL_MGR`, a
//! misaligned context `ISAL_CRYPTO_ERR_NULL_CTX`, and a NULL buffer with a
//! non-zero length `ISAL_CRYPTO_ERR_NULL_SRC` whatever the flags (isa-l_crypto
//! would read through it). The deprecated functions cannot report these:
//! they return NULL for a bad manager or context, and hand back a context
//! submitted with a NULL buffer and a non-zero length at once, with its
//! `error` set to `ISAL_HASH_CTX_ERROR_INVALID_FLAGS`.
//!
//! Every export is wrapped in a panic boundary. A panic (a bug in mbhash)
//! becomes [`ERR_PANIC`] or NULL, and poisons the manager it happened in:
//! later calls on it return `ERR_PANIC` or NULL until it is initialised
//! again. (Without `std`, in the kernel-style library, a panic traps.)

use core::ffi::c_int;
use core::ptr;

use mbhash_core::alg::{Md5Family, Sha1Family, Sha256Family, Sha512Family, Sm3Family};
use mbhash_core::engine::{EngineError, LaneEngine};

use super::ctx::{self, NullSource};
use super::lanes::{LaneMgr, MgrState};
use super::layout::{CTX_ALIGN, HashCtx, IsalFamily, MGR_ALIGN};
use super::layout::{Md5CtxMgr, Sha1CtxMgr, Sha256CtxMgr, Sha512CtxMgr, Sm3CtxMgr};
use super::{ERROR_ALREADY_COMPLETED, ERROR_ALREADY_PROCESSING, ERROR_INVALID_FLAGS};
use super::{ERROR_NONE, HASH_ENTIRE};
use crate::boundary::guard;

/// `ISAL_CRYPTO_ERR_NULL_SRC`.
const ERR_NULL_SRC: c_int = 2000;
/// `ISAL_CRYPTO_ERR_NULL_CTX`.
const ERR_NULL_CTX: c_int = 2002;
/// `ISAL_CRYPTO_ERR_NULL_MGR`.
const ERR_NULL_MGR: c_int = 2003;
/// `ISAL_CRYPTO_ERR_INVALID_FLAGS`.
const ERR_INVALID_FLAGS: c_int = 2011;
/// `ISAL_CRYPTO_ERR_ALREADY_PROCESSING`.
const ERR_ALREADY_PROCESSING: c_int = 2012;
/// `ISAL_CRYPTO_ERR_ALREADY_COMPLETED`.
const ERR_ALREADY_COMPLETED: c_int = 2013;
/// `MBH_ISAL_ERR_ENGINE` (an mbhash extension): the engine named by the
/// family's `MBHASH_<FAMILY>_ENGINE` (`MBHASH_SHA256_ENGINE`, ...,
/// `MBHASH_SM3_ENGINE`) is unknown or unsupported on this CPU.
const ERR_ENGINE: c_int = 2900;
/// `MBH_ISAL_ERR_PANIC` (an mbhash extension): a Rust panic was caught (a
/// bug in mbhash), or the manager was poisoned by one.
pub(crate) const ERR_PANIC: c_int = 2901;

/// The family's engine now: with `std`, the process's default (what
/// `mbh_set_engine` sets, else the environment variable's engine, else
/// `auto`), read at every call, so a new default reaches every manager's
/// next kernel call, as it reaches the pool's and the service's; without
/// `std` (no environment, no run-time default), looked up once.
pub(crate) fn engine<F: IsalFamily>() -> &'static Result<F::Engine, EngineError> {
    #[cfg(feature = "std")]
    {
        <F::Engine as LaneEngine<F>>::configured_static()
    }
    #[cfg(not(feature = "std"))]
    {
        F::engine_cell().get_or_init(<F::Engine as LaneEngine<F>>::try_configured)
    }
}

/// Checks a manager pointer: non-NULL, aligned, initialised, not poisoned.
///
/// # Safety
/// `mgr` is NULL or valid for reads of `F::MGR_SIZE` bytes.
unsafe fn check_mgr<F: IsalFamily>(mgr: *mut F::Mgr) -> Result<*mut LaneMgr<F>, c_int> {
    if mgr.is_null() || !(mgr as usize).is_multiple_of(MGR_ALIGN) {
        return Err(ERR_NULL_MGR);
    }
    let lanes = mgr.cast::<LaneMgr<F>>();
    // SAFETY: non-NULL, aligned and readable (the caller's contract).
    match unsafe { LaneMgr::state(lanes) } {
        MgrState::Ready => Ok(lanes),
        MgrState::Poisoned => Err(ERR_PANIC),
        MgrState::Uninitialised => Err(ERR_NULL_MGR),
    }
}

/// Checks a context pointer: non-NULL and aligned.
fn check_ctx<F: IsalFamily>(ctx: *mut HashCtx<F>) -> Result<(), c_int> {
    if ctx.is_null() || !(ctx as usize).is_multiple_of(CTX_ALIGN) {
        Err(ERR_NULL_CTX)
    } else {
        Ok(())
    }
}

/// Runs `f` on a checked manager, marked busy for the duration (so a panic
/// leaves it poisoned).
///
/// # Safety
/// `mgr` was returned by [`check_mgr`] and no reference to it exists.
unsafe fn with_mgr<F: IsalFamily, T>(
    mgr: *mut LaneMgr<F>,
    f: impl FnOnce(&mut LaneMgr<F>) -> T,
) -> Result<T, c_int> {
    // The engine a manager runs on is the family's, found when it was
    // initialised (in this process or the one it was forked from): never
    // missing here but for memory initialised by another process.
    if engine::<F>().is_err() {
        return Err(ERR_ENGINE);
    }
    // SAFETY: checked (non-NULL, aligned, initialised; our layout fits in
    // the C type) and unreferenced elsewhere (the caller's contract).
    let m = unsafe { &mut *mgr };
    m.enter();
    let out = f(m);
    m.leave();
    Ok(out)
}

/// A panic boundary returning an error code.
fn boundary(f: impl FnOnce() -> Result<(), c_int>) -> c_int {
    match guard(Err(ERR_PANIC), f) {
        Ok(()) => 0,
        Err(code) => code,
    }
}

/// A panic boundary returning a context pointer (NULL on a panic).
fn boundary_ptr<T>(f: impl FnOnce() -> *mut T) -> *mut T {
    guard(ptr::null_mut(), f)
}

/// `isal_*_ctx_mgr_init`.
///
/// # Safety
/// `mgr` is NULL or valid for writes of `F::MGR_SIZE` bytes, with no job in
/// flight that is still wanted.
unsafe fn isal_init<F: IsalFamily>(mgr: *mut F::Mgr) -> c_int {
    boundary(|| {
        if mgr.is_null() || !(mgr as usize).is_multiple_of(MGR_ALIGN) {
            return Err(ERR_NULL_MGR);
        }
        let lanes = mgr.cast::<LaneMgr<F>>();
        match engine::<F>() {
            // SAFETY: non-NULL, aligned and writable for `F::MGR_SIZE` bytes
            // (the caller's contract); written without being read.
            Ok(_) => unsafe { LaneMgr::init(lanes) },
            Err(_) => {
                // SAFETY: as above; an uninitialised manager is refused by
                // every later call.
                unsafe { (lanes.cast::<u8>()).write_bytes(0, F::MGR_SIZE) };
                return Err(ERR_ENGINE);
            }
        }
        Ok(())
    })
}

/// `isal_*_ctx_mgr_submit`.
///
/// # Safety
/// As the C function: `mgr` is NULL or an initialised manager; `ctx_in` is
/// NULL or a valid context that stays valid and untouched until it comes
/// back; `ctx_out` is NULL or writable; `buffer` is readable for `len`
/// bytes until the context comes back.
unsafe fn isal_submit<F: IsalFamily>(
    mgr: *mut F::Mgr,
    ctx_in: *mut HashCtx<F>,
    ctx_out: *mut *mut HashCtx<F>,
    buffer: *const u8,
    len: u32,
    flags: u32,
) -> c_int {
    boundary(|| {
        // SAFETY: forwarded contract.
        let lanes = unsafe { check_mgr::<F>(mgr)? };
        check_ctx(ctx_in)?;
        if ctx_out.is_null() || !(ctx_out as usize).is_multiple_of(align_of::<*mut u8>()) {
            return Err(ERR_NULL_CTX);
        }
        // isa-l_crypto's check of the source (for SM3 by length, else by
        // flags); a NULL buffer with a length is refused below in any case.
        let null_src = if F::NULL_SRC_BY_LENGTH {
            buffer.is_null() && len != 0
        } else {
            buffer.is_null() && (flags == 0 || flags == HASH_ENTIRE)
        };
        if null_src {
            return Err(ERR_NULL_SRC);
        }
        // SAFETY: a checked manager; the context and buffer contracts are
        // the caller's.
        let out = unsafe { with_mgr(lanes, |m| ctx::submit(m, ctx_in, buffer, len, flags))? };
        let out = out.map_err(|NullSource| ERR_NULL_SRC)?;
        // SAFETY: writable (checked non-NULL and aligned; the caller's
        // contract); the context that came back is the caller's again.
        let error = unsafe {
            ctx_out.write(out);
            if out.is_null() {
                ERROR_NONE
            } else {
                (&raw const (*out).error).read()
            }
        };
        match error {
            ERROR_INVALID_FLAGS => Err(ERR_INVALID_FLAGS),
            ERROR_ALREADY_PROCESSING => Err(ERR_ALREADY_PROCESSING),
            ERROR_ALREADY_COMPLETED => Err(ERR_ALREADY_COMPLETED),
            _ => Ok(()),
        }
    })
}

/// `isal_*_ctx_mgr_flush`.
///
/// # Safety
/// `mgr` is NULL or an initialised manager; `ctx_out` is NULL or writable.
unsafe fn isal_flush<F: IsalFamily>(mgr: *mut F::Mgr, ctx_out: *mut *mut HashCtx<F>) -> c_int {
    boundary(|| {
        // SAFETY: forwarded contract.
        let lanes = unsafe { check_mgr::<F>(mgr)? };
        if ctx_out.is_null() || !(ctx_out as usize).is_multiple_of(align_of::<*mut u8>()) {
            return Err(ERR_NULL_CTX);
        }
        // SAFETY: a checked manager; its contexts are valid (the contract of
        // submit).
        let out = unsafe { with_mgr(lanes, |m| ctx::flush(m))? };
        // SAFETY: writable (checked; the caller's contract).
        unsafe { ctx_out.write(out) };
        Ok(())
    })
}

/// The deprecated `*_ctx_mgr_init`: no way to report a misconfigured
/// engine, so it aborts with a message (as a Rust `JobManager::new` panics).
///
/// # Safety
/// As [`isal_init`].
unsafe fn old_init<F: IsalFamily>(mgr: *mut F::Mgr) {
    // SAFETY: forwarded contract.
    if unsafe { isal_init::<F>(mgr) } == ERR_ENGINE {
        // Only with `std`: without it the configured engine is always `auto`.
        #[cfg(feature = "std")]
        {
            if let Err(e) = engine::<F>() {
                std::eprintln!("mbhash: {e}");
            }
            std::process::abort();
        }
        #[cfg(not(feature = "std"))]
        mbhash_simd::trap();
    }
}

/// The deprecated `*_ctx_mgr_submit`.
///
/// # Safety
/// As [`isal_submit`].
unsafe fn old_submit<F: IsalFamily>(
    mgr: *mut F::Mgr,
    ctx: *mut HashCtx<F>,
    buffer: *const u8,
    len: u32,
    flags: u32,
) -> *mut HashCtx<F> {
    boundary_ptr(|| {
        // SAFETY: forwarded contract.
        let Ok(lanes) = (unsafe { check_mgr::<F>(mgr) }) else {
            return ptr::null_mut();
        };
        if check_ctx(ctx).is_err() {
            return ptr::null_mut();
        }
        // SAFETY: a checked manager; the rest is the caller's contract.
        match unsafe { with_mgr(lanes, |m| ctx::submit(m, ctx, buffer, len, flags)) } {
            Ok(Ok(out)) => out,
            Ok(Err(NullSource)) => {
                // SAFETY: checked, and refused before anything referred to
                // it: only its error field is written.
                unsafe { (&raw mut (*ctx).error).write(ERROR_INVALID_FLAGS) };
                ctx
            }
            Err(_) => ptr::null_mut(),
        }
    })
}

/// The deprecated `*_ctx_mgr_flush`.
///
/// # Safety
/// As [`isal_flush`].
unsafe fn old_flush<F: IsalFamily>(mgr: *mut F::Mgr) -> *mut HashCtx<F> {
    boundary_ptr(|| {
        // SAFETY: forwarded contract.
        let Ok(lanes) = (unsafe { check_mgr::<F>(mgr) }) else {
            return ptr::null_mut();
        };
        // SAFETY: a checked manager; its contexts are valid.
        unsafe { with_mgr(lanes, |m| ctx::flush(m)) }.unwrap_or(ptr::null_mut())
    })
}

/// `ISAL_SHA256_HASH_CTX`.
type Sha256Ctx = HashCtx<Sha256Family>;
/// `ISAL_SHA512_HASH_CTX`.
type Sha512Ctx = HashCtx<Sha512Family>;

/// Initialises a SHA-256 manager in caller memory (848 bytes) on the
/// configured engine. Returns 0, `ISAL_CRYPTO_ERR_NULL_MGR`, or
/// `MBH_ISAL_ERR_ENGINE` when `MBHASH_SHA256_ENGINE` names an engine that
/// cannot run.
///
/// # Safety
/// `mgr` is NULL or writable for `sizeof(ISAL_SHA256_HASH_CTX_MGR)` bytes;
/// the jobs in flight in it, if any, are forgotten.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn isal_sha256_ctx_mgr_init(mgr: *mut Sha256CtxMgr) -> c_int {
    // SAFETY: forwarded contract.
    unsafe { isal_init::<Sha256Family>(mgr) }
}

/// Submits `len` bytes at `buffer` as the next chunk of `ctx_in`'s SHA-256
/// stream; writes the context that comes back (or NULL) to `*ctx_out`.
/// Returns 0 or an `ISAL_CRYPTO_ERR_*` code.
///
/// # Safety
/// `mgr` is NULL or an initialised manager used by one thread at a time;
/// `ctx_in` is NULL or a context (set up by `isal_hash_ctx_init`) that
/// stays valid and untouched until it comes back; `buffer` stays readable
/// for `len` bytes until then; `ctx_out` is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn isal_sha256_ctx_mgr_submit(
    mgr: *mut Sha256CtxMgr,
    ctx_in: *mut Sha256Ctx,
    ctx_out: *mut *mut Sha256Ctx,
    buffer: *const u8,
    len: u32,
    flags: u32,
) -> c_int {
    // SAFETY: forwarded contract.
    unsafe { isal_submit::<Sha256Family>(mgr, ctx_in, ctx_out, buffer, len, flags) }
}

/// Runs the SHA-256 manager until a context comes back and writes it (or
/// NULL if the manager is empty) to `*ctx_out`. Returns 0 or an
/// `ISAL_CRYPTO_ERR_*` code.
///
/// # Safety
/// `mgr` is NULL or an initialised manager; `ctx_out` is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn isal_sha256_ctx_mgr_flush(
    mgr: *mut Sha256CtxMgr,
    ctx_out: *mut *mut Sha256Ctx,
) -> c_int {
    // SAFETY: forwarded contract.
    unsafe { isal_flush::<Sha256Family>(mgr, ctx_out) }
}

/// Deprecated form of `isal_sha256_ctx_mgr_init`; aborts with a message
/// if the configured engine cannot run.
///
/// # Safety
/// As `isal_sha256_ctx_mgr_init`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn sha256_ctx_mgr_init(mgr: *mut Sha256CtxMgr) {
    // SAFETY: forwarded contract.
    unsafe { old_init::<Sha256Family>(mgr) }
}

/// Deprecated form of `isal_sha256_ctx_mgr_submit`: returns the context
/// that comes back, or NULL.
///
/// # Safety
/// As `isal_sha256_ctx_mgr_submit`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn sha256_ctx_mgr_submit(
    mgr: *mut Sha256CtxMgr,
    ctx: *mut Sha256Ctx,
    buffer: *const u8,
    len: u32,
    flags: u32,
) -> *mut Sha256Ctx {
    // SAFETY: forwarded contract.
    unsafe { old_submit::<Sha256Family>(mgr, ctx, buffer, len, flags) }
}

/// Deprecated form of `isal_sha256_ctx_mgr_flush`: returns the context that
/// comes back, or NULL.
///
/// # Safety
/// As `isal_sha256_ctx_mgr_flush`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn sha256_ctx_mgr_flush(mgr: *mut Sha256CtxMgr) -> *mut Sha256Ctx {
    // SAFETY: forwarded contract.
    unsafe { old_flush::<Sha256Family>(mgr) }
}

/// Initialises a SHA-512 manager in caller memory (720 bytes); as
/// `isal_sha256_ctx_mgr_init` (`MBHASH_SHA512_ENGINE`).
///
/// # Safety
/// `mgr` is NULL or writable for `sizeof(ISAL_SHA512_HASH_CTX_MGR)` bytes;
/// the jobs in flight in it, if any, are forgotten.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn isal_sha512_ctx_mgr_init(mgr: *mut Sha512CtxMgr) -> c_int {
    // SAFETY: forwarded contract.
    unsafe { isal_init::<Sha512Family>(mgr) }
}

/// As `isal_sha256_ctx_mgr_submit`, for SHA-512.
///
/// # Safety
/// As `isal_sha256_ctx_mgr_submit`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn isal_sha512_ctx_mgr_submit(
    mgr: *mut Sha512CtxMgr,
    ctx_in: *mut Sha512Ctx,
    ctx_out: *mut *mut Sha512Ctx,
    buffer: *const u8,
    len: u32,
    flags: u32,
) -> c_int {
    // SAFETY: forwarded contract.
    unsafe { isal_submit::<Sha512Family>(mgr, ctx_in, ctx_out, buffer, len, flags) }
}

/// As `isal_sha256_ctx_mgr_flush`, for SHA-512.
///
/// # Safety
/// As `isal_sha256_ctx_mgr_flush`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn isal_sha512_ctx_mgr_flush(
    mgr: *mut Sha512CtxMgr,
    ctx_out: *mut *mut Sha512Ctx,
) -> c_int {
    // SAFETY: forwarded contract.
    unsafe { isal_flush::<Sha512Family>(mgr, ctx_out) }
}

/// Deprecated form of `isal_sha512_ctx_mgr_init`; aborts with a message
/// if the configured engine cannot run.
///
/// # Safety
/// As `isal_sha512_ctx_mgr_init`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn sha512_ctx_mgr_init(mgr: *mut Sha512CtxMgr) {
    // SAFETY: forwarded contract.
    unsafe { old_init::<Sha512Family>(mgr) }
}

/// Deprecated form of `isal_sha512_ctx_mgr_submit`.
///
/// # Safety
/// As `isal_sha512_ctx_mgr_submit`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn sha512_ctx_mgr_submit(
    mgr: *mut Sha512CtxMgr,
    ctx: *mut Sha512Ctx,
    buffer: *const u8,
    len: u32,
    flags: u32,
) -> *mut Sha512Ctx {
    // SAFETY: forwarded contract.
    unsafe { old_submit::<Sha512Family>(mgr, ctx, buffer, len, flags) }
}

/// Deprecated form of `isal_sha512_ctx_mgr_flush`.
///
/// # Safety
/// As `isal_sha512_ctx_mgr_flush`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn sha512_ctx_mgr_flush(mgr: *mut Sha512CtxMgr) -> *mut Sha512Ctx {
    // SAFETY: forwarded contract.
    unsafe { old_flush::<Sha512Family>(mgr) }
}

/// The six exports of one more family, as SHA-512's (whose documentation
/// they point to): `$init`, `$submit`, `$flush` and the deprecated
/// `$old_init`, `$old_submit`, `$old_flush`.
macro_rules! family_exports {
    ($fam:ty, $mgr:ty, $name:literal, $size:literal, $var:literal,
     $init:ident, $submit:ident, $flush:ident,
     $old_init:ident, $old_submit:ident, $old_flush:ident) => {
        #[doc = concat!("Initialises ", $name, " manager in caller memory (", $size, " bytes); as")]
        #[doc = concat!("`isal_sha256_ctx_mgr_init` (`", $var, "`).")]
        ///
        /// # Safety
        /// `mgr` is NULL or writable for the C manager's size; the jobs in
        /// flight in it, if any, are forgotten.
        #[unsafe(no_mangle)]
        pub unsafe extern "C" fn $init(mgr: *mut $mgr) -> c_int {
            // SAFETY: forwarded contract.
            unsafe { isal_init::<$fam>(mgr) }
        }

        #[doc = concat!("As `isal_sha256_ctx_mgr_submit`, for ", $name, " manager.")]
        ///
        /// # Safety
        /// As `isal_sha256_ctx_mgr_submit`.
        #[unsafe(no_mangle)]
        pub unsafe extern "C" fn $submit(
            mgr: *mut $mgr,
            ctx_in: *mut HashCtx<$fam>,
            ctx_out: *mut *mut HashCtx<$fam>,
            buffer: *const u8,
            len: u32,
            flags: u32,
        ) -> c_int {
            // SAFETY: forwarded contract.
            unsafe { isal_submit::<$fam>(mgr, ctx_in, ctx_out, buffer, len, flags) }
        }

        #[doc = concat!("As `isal_sha256_ctx_mgr_flush`, for ", $name, " manager.")]
        ///
        /// # Safety
        /// As `isal_sha256_ctx_mgr_flush`.
        #[unsafe(no_mangle)]
        pub unsafe extern "C" fn $flush(mgr: *mut $mgr, ctx_out: *mut *mut HashCtx<$fam>) -> c_int {
            // SAFETY: forwarded contract.
            unsafe { isal_flush::<$fam>(mgr, ctx_out) }
        }

        #[doc = concat!("Deprecated form of `", stringify!($init), "`; aborts with a message")]
        /// if the configured engine cannot run.
        ///
        /// # Safety
        #[doc = concat!("As `", stringify!($init), "`.")]
        #[unsafe(no_mangle)]
        pub unsafe extern "C" fn $old_init(mgr: *mut $mgr) {
            // SAFETY: forwarded contract.
            unsafe { old_init::<$fam>(mgr) }
        }

        #[doc = concat!("Deprecated form of `", stringify!($submit), "`: returns the")]
        /// context that comes back, or NULL.
        ///
        /// # Safety
        #[doc = concat!("As `", stringify!($submit), "`.")]
        #[unsafe(no_mangle)]
        pub unsafe extern "C" fn $old_submit(
            mgr: *mut $mgr,
            ctx: *mut HashCtx<$fam>,
            buffer: *const u8,
            len: u32,
            flags: u32,
        ) -> *mut HashCtx<$fam> {
            // SAFETY: forwarded contract.
            unsafe { old_submit::<$fam>(mgr, ctx, buffer, len, flags) }
        }

        #[doc = concat!("Deprecated form of `", stringify!($flush), "`: returns the")]
        /// context that comes back, or NULL.
        ///
        /// # Safety
        #[doc = concat!("As `", stringify!($flush), "`.")]
        #[unsafe(no_mangle)]
        pub unsafe extern "C" fn $old_flush(mgr: *mut $mgr) -> *mut HashCtx<$fam> {
            // SAFETY: forwarded contract.
            unsafe { old_flush::<$fam>(mgr) }
        }
    };
}

family_exports!(
    Md5Family,
    Md5CtxMgr,
    "an MD5",
    1192,
    "MBHASH_MD5_ENGINE",
    isal_md5_ctx_mgr_init,
    isal_md5_ctx_mgr_submit,
    isal_md5_ctx_mgr_flush,
    md5_ctx_mgr_init,
    md5_ctx_mgr_submit,
    md5_ctx_mgr_flush
);
family_exports!(
    Sha1Family,
    Sha1CtxMgr,
    "a SHA-1",
    656,
    "MBHASH_SHA1_ENGINE",
    isal_sha1_ctx_mgr_init,
    isal_sha1_ctx_mgr_submit,
    isal_sha1_ctx_mgr_flush,
    sha1_ctx_mgr_init,
    sha1_ctx_mgr_submit,
    sha1_ctx_mgr_flush
);
family_exports!(
    Sm3Family,
    Sm3CtxMgr,
    "an SM3",
    848,
    "MBHASH_SM3_ENGINE",
    isal_sm3_ctx_mgr_init,
    isal_sm3_ctx_mgr_submit,
    isal_sm3_ctx_mgr_flush,
    sm3_ctx_mgr_init,
    sm3_ctx_mgr_submit,
    sm3_ctx_mgr_flush
);
