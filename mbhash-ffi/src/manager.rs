//! Job managers: `mbh_manager`, submit and flush.

use core::ffi::c_char;
use core::mem::{align_of, size_of};
use core::ptr;

use mbhash_core::alg::MAX_LANES;
use mbhash_core::{Context, ErrorKind, Flags, JobManager};

use crate::alg::{Alg, AlgRaw, FfiAlg, engine_cstr, mbh_algorithm, mbh_flags, with_algo};
use crate::boundary::{boundary, bytes, mbh_result, name_str, non_null, write_out};
use crate::ctx::{CtxInner, check_ctx, mbh_ctx};
use crate::engine::engine_error;

/// Bytes of caller memory a manager needs: `sizeof(mbh_manager)`.
pub const MBH_MANAGER_SIZE: usize = 4096;
/// Alignment of a manager's memory: `_Alignof(mbh_manager)`.
pub const MBH_MANAGER_ALIGN: usize = 8;

/// A job manager: packs the chunks of up to 16 contexts of one algorithm
/// into SIMD lanes and hashes them together.
///
/// Opaque. Either on the heap (`mbh_manager_new` ... `mbh_manager_free`) or
/// in caller memory (`mbh_manager_init` ... `mbh_manager_fini`); it holds no
/// other resources.
///
/// Contract:
/// - One manager per thread: a manager, and the contexts in flight in it,
///   are used by one thread at a time (it may move between threads between
///   calls).
/// - A context and the buffer of its last chunk stay valid, unmoved and
///   unmodified from `mbh_submit` until the context comes back as the `done`
///   output of `mbh_submit` or `mbh_flush`. Contexts come back out of order,
///   each exactly once; a chunk that does not complete a block of a stream
///   that goes on comes back at once.
/// - The manager's memory stays in place while jobs are in flight, and is
///   never copied: use the pointer that `_new` gave or `_init` was given.
#[repr(C)]
pub struct mbh_manager {
    _opaque: [u64; 512],
}

const _: () = {
    assert!(size_of::<mbh_manager>() == MBH_MANAGER_SIZE);
    assert!(align_of::<mbh_manager>() == MBH_MANAGER_ALIGN);
    assert!(size_of::<MgrInner>() <= MBH_MANAGER_SIZE);
    assert!(align_of::<MgrInner>() <= MBH_MANAGER_ALIGN);
};

/// "mbhm": an initialised manager.
const MGR_MAGIC: u32 = 0x6d62_686d;
/// "mbhf": a manager from `mbh_manager_new` that `mbh_manager_fini` ended:
/// refused as uninitialised by everything but `mbh_manager_free`, which
/// frees its memory.
#[cfg_attr(not(feature = "std"), allow(dead_code))]
const MGR_FINISHED_HEAP: u32 = 0x6d62_6866;

/// The Rust manager of one algorithm. Its `'static` references are made
/// from the caller's pointers under the contract of [`mbh_manager`].
macro_rules! any_manager {
    ([] $($(#[$doc:meta])* $v:ident = $t:ident $info:tt;)*) => {
        // In the caller's `MBH_MANAGER_SIZE` bytes (boxing the largest, MD5's
        // 32 lanes, would allocate, which the kernel-style library cannot).
        #[allow(clippy::large_enum_variant)]
        pub(crate) enum AnyManager {
            $($v(JobManager<'static, mbhash_core::alg::$t>),)*
        }
    };
}
mbhash_core::for_each_algorithm!(any_manager);

/// What an `mbh_manager` holds.
#[repr(C)]
struct MgrInner {
    magic: u32,
    alg: Alg,
    /// Allocated by `mbh_manager_new`.
    #[cfg_attr(not(feature = "std"), allow(dead_code))]
    heap: bool,
    /// Set for the duration of a call into the Rust manager: still set after
    /// a panic escaped from it.
    poisoned: bool,
    /// The contexts in flight (NULL slots are free): how a finished Rust
    /// context is traced back to its `mbh_ctx` (with the provenance of the
    /// caller's pointer), and what `fini` releases.
    jobs: [*mut CtxInner; MAX_LANES],
    manager: AnyManager,
}

impl MgrInner {
    /// Writes a new manager of `A` to `this`, field by field: a manager is
    /// kilobytes, and one built on the stack and then copied would double
    /// the stack this needs (which kernel-style callers count).
    ///
    /// # Safety
    /// `this` is valid for writes of `MgrInner` and aligned.
    unsafe fn write_new<A: FfiAlg>(
        this: *mut MgrInner,
        engine: Option<&str>,
        heap: bool,
    ) -> Result<(), mbh_result> {
        let engine = match engine {
            None => A::configured_engine(),
            Some(name) => A::engine_from_name(name),
        }
        .map_err(|e| engine_error(&e))?;
        // SAFETY: valid for writes (the caller's contract); each field is
        // written through a raw pointer, the tag last.
        unsafe {
            (&raw mut (*this).alg).write(A::ALGO);
            (&raw mut (*this).heap).write(heap);
            (&raw mut (*this).poisoned).write(false);
            (&raw mut (*this).jobs).write([ptr::null_mut(); MAX_LANES]);
            (&raw mut (*this).manager).write(A::wrap(JobManager::with_engine(engine)));
            (&raw mut (*this).magic).write(MGR_MAGIC);
        }
        Ok(())
    }

    /// A free slot of `jobs`.
    fn free_slot(&self) -> usize {
        self.jobs
            .iter()
            .position(|j| j.is_null())
            .expect("a manager holds fewer jobs than lanes between calls")
    }

    fn unregister(&mut self, ctx: *mut CtxInner) {
        let slot = self
            .jobs
            .iter_mut()
            .find(|j| **j == ctx)
            .expect("a registered job");
        *slot = ptr::null_mut();
    }

    /// The context whose Rust context is at `rust_ctx`: unregisters it and
    /// clears its in-flight mark. The manager must have given up its
    /// reference.
    fn finish<A: FfiAlg>(&mut self, rust_ctx: *mut Context<A>) -> *mut mbh_ctx {
        // Addresses only: the other jobs' Rust contexts are borrowed by the
        // manager, so not even a place is formed from them here. The
        // registered pointer is the one whose Rust context is at
        // `rust_ctx` (a plain compare of addresses over the slots, which
        // the compiler vectorises).
        let want = (rust_ctx as usize).wrapping_sub(CtxInner::RUST_CTX_OFFSET);
        let i = self
            .jobs
            .iter()
            .position(|j| *j as usize == want)
            .expect("a finished job is registered");
        let ctx = core::mem::replace(&mut self.jobs[i], ptr::null_mut());
        // SAFETY: as above; the manager no longer refers to it.
        unsafe { CtxInner::release(ctx) };
        ctx.cast()
    }

    /// Runs `f` on the Rust manager of `A`, poisoning `self` if it panics.
    fn run_guarded<A: FfiAlg, R>(
        &mut self,
        f: impl FnOnce(&mut JobManager<'static, A>) -> R,
    ) -> Result<R, mbh_result> {
        if self.poisoned {
            return Err(mbh_result::MBH_POISONED);
        }
        let manager = A::manager(&mut self.manager).expect("the manager's algorithm is checked");
        self.poisoned = true;
        let r = f(manager);
        self.poisoned = false;
        Ok(r)
    }

    fn submit<A: FfiAlg>(
        &mut self,
        ctx: *mut CtxInner,
        data: &'static [u8],
        flags: Flags,
    ) -> Result<*mut mbh_ctx, mbh_result> {
        if self.poisoned {
            return Err(mbh_result::MBH_POISONED);
        }
        let slot = self.free_slot();
        // SAFETY: `ctx` is an initialised context (checked by the caller).
        if !unsafe { CtxInner::claim(ctx) } {
            return Err(mbh_result::MBH_ALREADY_PROCESSING);
        }
        self.jobs[slot] = ctx;
        // SAFETY: the context is of algorithm `A` (checked by the caller) and
        // stays valid until it comes back (the contract). It was not in
        // flight and no other thread uses it now (the context's contract),
        // and a `&mut` to a Rust context exists only while its in-flight
        // mark is set, so this reference is the only one.
        let rust_ctx: &'static mut Context<A> = unsafe { &mut *CtxInner::rust_ctx::<A>(ctx) };
        let r = self.run_guarded::<A, _>(|m| {
            m.submit(rust_ctx, data, flags)
                .map(|done| done.map(|d| d as *mut Context<A>))
                .map_err(|e| e.kind())
        });
        match r {
            Ok(Ok(None)) => Ok(ptr::null_mut()),
            Ok(Ok(Some(done))) => Ok(self.finish::<A>(done)),
            Err(poisoned) => {
                // Not run (checked above, so unreachable): the reference was
                // dropped unused.
                self.unregister(ctx);
                // SAFETY: initialised; no reference to it remains.
                unsafe { CtxInner::release(ctx) };
                Err(poisoned)
            }
            Ok(Err(kind)) => {
                // Refused: the manager gave the reference back in the error.
                self.unregister(ctx);
                // SAFETY: initialised; no reference to it remains.
                unsafe { CtxInner::release(ctx) };
                Err(match kind {
                    ErrorKind::InvalidFlags => mbh_result::MBH_INVALID_FLAGS,
                    ErrorKind::AlreadyProcessing => mbh_result::MBH_ALREADY_PROCESSING,
                    ErrorKind::AlreadyCompleted => mbh_result::MBH_ALREADY_COMPLETED,
                    ErrorKind::LengthOverflow => mbh_result::MBH_LENGTH_OVERFLOW,
                })
            }
        }
    }

    fn flush<A: FfiAlg>(&mut self) -> Result<*mut mbh_ctx, mbh_result> {
        let done = self.run_guarded::<A, _>(|m| m.flush().map(|d| d as *mut Context<A>))?;
        Ok(done.map_or(ptr::null_mut(), |d| self.finish::<A>(d)))
    }
}

/// Checks a manager argument: non-NULL, aligned, initialised.
///
/// # Safety
/// `mgr` is NULL or points to an `mbh_manager` (initialised, finished or
/// zeroed) that no other thread uses.
unsafe fn check_mgr<'m>(mgr: *const mbh_manager) -> Result<&'m mut MgrInner, mbh_result> {
    non_null(mgr)?;
    if !(mgr as usize).is_multiple_of(MBH_MANAGER_ALIGN) {
        return Err(mbh_result::MBH_MISALIGNED);
    }
    let inner = mgr.cast::<MgrInner>().cast_mut();
    // SAFETY: aligned and points to an `mbh_manager` (the caller's contract);
    // the tag is a plain integer read through a raw pointer.
    if unsafe { (*inner).magic } != MGR_MAGIC {
        return Err(mbh_result::MBH_UNINITIALIZED);
    }
    // SAFETY: initialised (tag checked), and used by this thread only (the
    // contract). The manager's memory is disjoint from every context.
    Ok(unsafe { &mut *inner })
}

/// Builds a manager into `mem`.
///
/// # Safety
/// `mem` is valid for writes of `MBH_MANAGER_SIZE` bytes and aligned.
unsafe fn write_manager(
    mem: *mut mbh_manager,
    alg: mbh_algorithm,
    engine: Option<&str>,
    heap: bool,
) -> Result<(), mbh_result> {
    let inner = mem.cast::<MgrInner>();
    // SAFETY: the caller's contract.
    with_algo!(Alg::from_raw(alg)?, A => unsafe {
        MgrInner::write_new::<A>(inner, engine, heap)
    })
}

/// An engine name argument.
///
/// # Safety
/// `engine` is NULL or a NUL-terminated string.
unsafe fn engine_arg<'a>(engine: *const c_char) -> Result<&'a str, mbh_result> {
    non_null(engine)?;
    // SAFETY: non-NULL and NUL-terminated (the caller's contract).
    unsafe { name_str(engine) }.ok_or(mbh_result::MBH_UNKNOWN_ENGINE)
}

/// Allocates a manager for `alg` on the configured engine (the one named by
/// `MBHASH_SHA256_ENGINE` / `MBHASH_SHA512_ENGINE`, else `auto`) and writes
/// it to `*mgr_out`. Free it with `mbh_manager_free`.
///
/// Allocates: not in the kernel-style library (built without the `std`
/// feature), whose callers use `mbh_manager_init`.
///
/// Errors: `MBH_NULL_ARGUMENT`, `MBH_INVALID_ALGORITHM`,
/// `MBH_UNKNOWN_ENGINE` / `MBH_UNSUPPORTED_ENGINE` (the engine environment
/// variable names a bad engine), `MBH_OUT_OF_MEMORY`.
///
/// # Safety
/// `mgr_out` is NULL or writable.
#[cfg(feature = "std")]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mbh_manager_new(
    alg: mbh_algorithm,
    mgr_out: *mut *mut mbh_manager,
) -> mbh_result {
    boundary(|| {
        non_null(mgr_out)?;
        // SAFETY: forwarded contract.
        unsafe { new_manager(alg, None, mgr_out) }
    })
}

/// Like `mbh_manager_new`, on the engine named `engine` (see
/// `mbh_engine_name`; `"auto"` always works). Not in the kernel-style
/// library.
///
/// # Safety
/// `engine` is NULL or a NUL-terminated string; `mgr_out` is NULL or
/// writable.
#[cfg(feature = "std")]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mbh_manager_new_with_engine(
    alg: mbh_algorithm,
    engine: *const c_char,
    mgr_out: *mut *mut mbh_manager,
) -> mbh_result {
    boundary(|| {
        non_null(mgr_out)?;
        // SAFETY: forwarded contract.
        let engine = unsafe { engine_arg(engine)? };
        // SAFETY: forwarded contract.
        unsafe { new_manager(alg, Some(engine), mgr_out) }
    })
}

/// # Safety
/// `mgr_out` is writable.
#[cfg(feature = "std")]
unsafe fn new_manager(
    alg: mbh_algorithm,
    engine: Option<&str>,
    mgr_out: *mut *mut mbh_manager,
) -> Result<(), mbh_result> {
    let mem = crate::boundary::try_alloc::<mbh_manager>()?;
    // SAFETY: a fresh allocation of the right size and alignment.
    if let Err(e) = unsafe { write_manager(mem, alg, engine, true) } {
        // SAFETY: allocated just above, never initialised or shared.
        unsafe { crate::boundary::dealloc(mem) };
        return Err(e);
    }
    // SAFETY: writable (the caller's contract).
    unsafe { write_out(mgr_out, mem) };
    Ok(())
}

/// Initialises a manager for `alg` in caller memory of `MBH_MANAGER_SIZE`
/// bytes aligned to `MBH_MANAGER_ALIGN`, on the configured engine (see
/// `mbh_manager_new`). End it with `mbh_manager_fini`.
///
/// Never reads the memory first: it may be uninitialised.
///
/// # Safety
/// `mem` is NULL or valid for writes of `MBH_MANAGER_SIZE` bytes, and not an
/// initialised manager with jobs in flight.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mbh_manager_init(mem: *mut mbh_manager, alg: mbh_algorithm) -> mbh_result {
    boundary(|| {
        // SAFETY: forwarded contract.
        unsafe { init_manager(mem, alg, None) }
    })
}

/// Like `mbh_manager_init`, on the engine named `engine`.
///
/// # Safety
/// As `mbh_manager_init`; `engine` is NULL or a NUL-terminated string.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mbh_manager_init_with_engine(
    mem: *mut mbh_manager,
    alg: mbh_algorithm,
    engine: *const c_char,
) -> mbh_result {
    boundary(|| {
        // SAFETY: forwarded contract.
        let engine = unsafe { engine_arg(engine)? };
        // SAFETY: forwarded contract.
        unsafe { init_manager(mem, alg, Some(engine)) }
    })
}

/// # Safety
/// As `mbh_manager_init`.
unsafe fn init_manager(
    mem: *mut mbh_manager,
    alg: mbh_algorithm,
    engine: Option<&str>,
) -> Result<(), mbh_result> {
    non_null(mem)?;
    if !(mem as usize).is_multiple_of(MBH_MANAGER_ALIGN) {
        return Err(mbh_result::MBH_MISALIGNED);
    }
    // SAFETY: non-NULL, aligned, writable (the caller's contract).
    unsafe { write_manager(mem, alg, engine, false) }
}

/// Ends a manager: the contexts still in flight in it are released (reset to
/// `MBH_STATUS_NEW`, their buffers no longer used), then the manager is
/// marked uninitialised. Returns `MBH_UNINITIALIZED` for memory that holds no
/// manager. A manager from `mbh_manager_new` is finished too (every other
/// call then refuses it as uninitialised) and must still be given to
/// `mbh_manager_free`, which frees its memory.
///
/// # Safety
/// `mgr` is NULL or points to an `mbh_manager` (initialised, finished or
/// zeroed), used by this thread; its contexts in flight are still valid.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mbh_manager_fini(mgr: *mut mbh_manager) -> mbh_result {
    boundary(|| {
        // SAFETY: forwarded contract.
        let inner = unsafe { check_mgr(mgr)? };
        // SAFETY: forwarded contract.
        unsafe { fini(inner) };
        Ok(())
    })
}

/// Releases the contexts in flight, drops the Rust manager, clears the tag.
///
/// # Safety
/// The registered contexts are still valid.
unsafe fn fini(inner: &mut MgrInner) {
    // The Rust manager holds references to the contexts in flight: end it
    // (and them) before touching the contexts.
    let jobs = core::mem::replace(&mut inner.jobs, [ptr::null_mut(); MAX_LANES]);
    inner.magic = if inner.heap { MGR_FINISHED_HEAP } else { 0 };
    // SAFETY: initialised; it is never used again (the tag is cleared), and
    // an `AnyManager` owns nothing, so dropping it is all there is.
    unsafe { ptr::drop_in_place(&raw mut inner.manager) };
    for ctx in jobs.into_iter().filter(|c| !c.is_null()) {
        // SAFETY: valid (the caller's contract), of the manager's algorithm,
        // and the manager that referred to it is gone.
        with_algo!(inner.alg, A => unsafe { CtxInner::abandon::<A>(ctx) });
    }
}

/// Frees a manager from `mbh_manager_new`, releasing its contexts in flight
/// as `mbh_manager_fini` does; one already ended by `mbh_manager_fini` is
/// freed too. NULL is a no-op. Given a manager from `mbh_manager_init`, it
/// only finishes it. Not in the kernel-style library (use
/// `mbh_manager_fini`).
///
/// # Safety
/// `mgr` is NULL or a manager from `mbh_manager_new` or `mbh_manager_init`,
/// not freed yet (a manager from `mbh_manager_new` freed once is no
/// memory of the caller's: freeing it again is undefined, as for
/// `free(3)`; one from `mbh_manager_init` may be given again: it holds no
/// manager then and is ignored); its contexts in flight are still valid.
#[cfg(feature = "std")]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mbh_manager_free(mgr: *mut mbh_manager) {
    if mgr.is_null() {
        return;
    }
    let _ = boundary(|| {
        if (mgr as usize).is_multiple_of(MBH_MANAGER_ALIGN) {
            // SAFETY: aligned and a manager from `_new` or `_init` (the
            // contract); the tag is a plain integer read through a raw
            // pointer.
            if unsafe { (*mgr.cast::<MgrInner>()).magic } == MGR_FINISHED_HEAP {
                // SAFETY: the tag is set only on a manager allocated by
                // `mbh_manager_new` and ended by `mbh_manager_fini`, which
                // dropped its Rust manager; it is freed only here.
                unsafe { free_heap(mgr) };
                return Ok(());
            }
        }
        // SAFETY: forwarded contract.
        let inner = unsafe { check_mgr(mgr)? };
        let heap = inner.heap;
        // SAFETY: forwarded contract.
        unsafe { fini(inner) };
        if heap {
            // SAFETY: allocated by `mbh_manager_new`, finished just now, and
            // freed only here.
            unsafe { free_heap(mgr) };
        }
        Ok(())
    });
}

/// Untags a finished manager from `mbh_manager_new` and frees its memory.
/// The store is volatile: one followed by the free would otherwise be
/// optimised away, leaving the finished tag in the freed memory.
///
/// # Safety
/// `mgr` came from `mbh_manager_new`, its Rust manager is dropped, and it
/// is freed only here.
#[cfg(feature = "std")]
unsafe fn free_heap(mgr: *mut mbh_manager) {
    // SAFETY: the caller's contract: our allocation, finished.
    unsafe {
        (&raw mut (*mgr.cast::<MgrInner>()).magic).write_volatile(0);
        crate::boundary::dealloc(mgr);
    }
}

/// Submits `len` bytes at `data` as the next chunk of `ctx`'s stream.
///
/// `flags`: `MBH_FIRST` starts (or restarts) the stream, `MBH_UPDATE` goes
/// on, `MBH_LAST` finishes it, `MBH_ENTIRE` is a whole message. Writes to
/// `*done_out` a context whose job finished (maybe another than `ctx`), or
/// NULL. A context comes back when its chunk has been consumed; after
/// `MBH_LAST` (or `MBH_ENTIRE`) its digest is ready (`mbh_ctx_digest`).
///
/// `ctx` and the `len` bytes at `data` must stay valid and unmodified until
/// `ctx` comes back from `mbh_submit` or `mbh_flush` (see `mbh_manager`).
/// A refused submit leaves the context and the manager as they were.
///
/// # Safety
/// `mgr` is NULL or an initialised manager used by this thread; `ctx` is
/// NULL or an initialised context; `data` is NULL or readable for `len`
/// bytes and overlaps neither `ctx` nor the manager; `done_out` is NULL or
/// writable; the contract above.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mbh_submit(
    mgr: *mut mbh_manager,
    ctx: *mut mbh_ctx,
    data: *const u8,
    len: usize,
    flags: mbh_flags,
    done_out: *mut *mut mbh_ctx,
) -> mbh_result {
    boundary(|| {
        non_null(done_out)?;
        // SAFETY: forwarded contract.
        let inner = unsafe { check_mgr(mgr)? };
        // SAFETY: forwarded contract.
        let (ctx, alg) = unsafe { check_ctx(ctx)? };
        // SAFETY: readable for `len` bytes until the context comes back (the
        // contract); the manager holds it no longer than that.
        let data: &'static [u8] = unsafe { bytes(data, len)? };
        let flags = Flags::from_bits(flags);
        if !flags.is_valid() {
            return Err(mbh_result::MBH_INVALID_FLAGS);
        }
        if alg != inner.alg {
            return Err(mbh_result::MBH_WRONG_ALGORITHM);
        }
        let done = with_algo!(alg, A => inner.submit::<A>(ctx, data, flags)?);
        // SAFETY: writable (the caller's contract).
        unsafe { write_out(done_out, done) };
        Ok(())
    })
}

/// Runs the partly filled lanes until one job finishes and writes its
/// context to `*done_out`; NULL when the manager holds no job. Call it until
/// it gives NULL to drain the manager.
///
/// # Safety
/// `mgr` is NULL or an initialised manager used by this thread; `done_out`
/// is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mbh_flush(
    mgr: *mut mbh_manager,
    done_out: *mut *mut mbh_ctx,
) -> mbh_result {
    boundary(|| {
        non_null(done_out)?;
        // SAFETY: forwarded contract.
        let inner = unsafe { check_mgr(mgr)? };
        let done = with_algo!(inner.alg, A => inner.flush::<A>()?);
        // SAFETY: writable (the caller's contract).
        unsafe { write_out(done_out, done) };
        Ok(())
    })
}

/// Writes the number of jobs the manager holds before a submit runs the
/// kernels (its engine's lane count) to `*lanes_out`.
///
/// # Safety
/// `mgr` is NULL or an initialised manager used by this thread; `lanes_out`
/// is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mbh_manager_lanes(
    mgr: *const mbh_manager,
    lanes_out: *mut usize,
) -> mbh_result {
    boundary(|| {
        non_null(lanes_out)?;
        // SAFETY: forwarded contract.
        let inner = unsafe { check_mgr(mgr)? };
        let lanes = with_algo!(inner.alg, A => {
            A::manager_ref(&inner.manager).expect("checked").lanes()
        });
        // SAFETY: writable (the caller's contract).
        unsafe { write_out(lanes_out, lanes) };
        Ok(())
    })
}

/// Writes the number of contexts in flight in the manager to
/// `*in_flight_out`.
///
/// # Safety
/// `mgr` is NULL or an initialised manager used by this thread;
/// `in_flight_out` is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mbh_manager_in_flight(
    mgr: *const mbh_manager,
    in_flight_out: *mut usize,
) -> mbh_result {
    boundary(|| {
        non_null(in_flight_out)?;
        // SAFETY: forwarded contract.
        let inner = unsafe { check_mgr(mgr)? };
        let n = inner.jobs.iter().filter(|j| !j.is_null()).count();
        // SAFETY: writable (the caller's contract).
        unsafe { write_out(in_flight_out, n) };
        Ok(())
    })
}

/// Writes the name of the manager's engine (a static string) to
/// `*name_out`.
///
/// # Safety
/// `mgr` is NULL or an initialised manager used by this thread; `name_out`
/// is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mbh_manager_engine(
    mgr: *const mbh_manager,
    name_out: *mut *const c_char,
) -> mbh_result {
    boundary(|| {
        non_null(name_out)?;
        // SAFETY: forwarded contract.
        let inner = unsafe { check_mgr(mgr)? };
        let name = with_algo!(inner.alg, A => {
            let m = A::manager_ref(&inner.manager).expect("checked");
            engine_cstr::<A>(m.engine().name()).as_ptr()
        });
        // SAFETY: writable (the caller's contract).
        unsafe { write_out(name_out, name) };
        Ok(())
    })
}

/// Test hook of debug builds (not in the header): panics inside the panic
/// boundary, within a manager operation when `mgr` is not NULL (which
/// poisons that manager), so the tests can check `MBH_PANIC` and
/// `MBH_POISONED`.
///
/// # Safety
/// `mgr` is NULL or an initialised manager used by this thread.
#[cfg(debug_assertions)]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mbh_debug_panic(mgr: *mut mbh_manager) -> mbh_result {
    boundary(|| {
        if mgr.is_null() {
            panic!("mbh_debug_panic");
        }
        // SAFETY: forwarded contract.
        let inner = unsafe { check_mgr(mgr)? };
        with_algo!(inner.alg, A => inner
            .run_guarded::<A, ()>(|_| panic!("mbh_debug_panic in a manager")))
    })
}
