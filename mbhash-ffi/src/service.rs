//! The hashing service over C: `mbh_service`, worker threads that hash
//! buffers submitted from any thread and call back with the digest.

use core::ffi::c_void;
use core::mem::ManuallyDrop;
use core::sync::atomic::{AtomicPtr, AtomicU32, Ordering};

use mbhash_core::service::{HashService, Outcome, Rejected, Shutdown, on_worker_thread};

use crate::alg::{Alg, AlgRaw, mbh_algorithm};
use crate::boundary::{boundary, bytes, mbh_result, non_null, write_out};

/// A hashing service: worker threads that each pack the jobs they take
/// into SIMD lanes. Opaque; `mbh_service_new` ... `mbh_service_free`. Every
/// function but `mbh_service_free` may be called from any thread at once.
pub struct mbh_service {
    /// Written atomically, so that the store clearing it in
    /// `mbh_service_free` is not optimised away.
    magic: AtomicU32,
    /// The process the service was made in: in a forked child (another
    /// pid) the workers do not exist, and the service is refused.
    pid: u32,
    /// Dropped (shut down, workers joined) only in the process that made it.
    service: ManuallyDrop<HashService>,
    /// The next handle of [`ORPHANS`].
    next_orphan: *mut mbh_service,
}

/// Handles freed in a forked child: their services belong to the parent's
/// threads, so they are kept, reachable from here (a lock-free list: a
/// child may fork again at any point), and never dropped.
static ORPHANS: AtomicPtr<mbh_service> = AtomicPtr::new(core::ptr::null_mut());

/// The most worker threads `mbh_service_new` starts.
pub const MBH_SERVICE_MAX_WORKERS: usize = 1024;

/// "mbhs": a live service handle.
const SERVICE_MAGIC: u32 = 0x6d62_6873;

/// Called on a worker thread once per accepted job, exactly once: `status`
/// is `MBH_OK` with the digest (`digest_len` bytes, valid during the call),
/// or `MBH_CANCELLED` with `digest` NULL and `digest_len` 0 (the job was
/// cancelled by `mbh_service_shutdown(svc, MBH_SHUTDOWN_CANCEL)`). `arg` is
/// the submitter's. The job's buffer is no longer used once this runs.
///
/// A callback should be short: it runs on a worker. It may submit to a
/// service only with `mbh_service_try_submit` (`mbh_service_submit`, which
/// would wait, is `MBH_WOULD_DEADLOCK` there), and must not call
/// `mbh_service_free`.
pub type mbh_service_callback = Option<
    unsafe extern "C" fn(
        arg: *mut c_void,
        status: mbh_result,
        digest: *const u8,
        digest_len: usize,
    ),
>;

/// What `mbh_service_shutdown` does with accepted jobs not yet started: one
/// of `MBH_SHUTDOWN_FINISH`, `MBH_SHUTDOWN_CANCEL`.
pub type mbh_shutdown = u32;
/// Hash every accepted job, then stop.
pub const MBH_SHUTDOWN_FINISH: mbh_shutdown = 0;
/// Call back every job not yet started with `MBH_CANCELLED`, then stop
/// (jobs being hashed still finish).
pub const MBH_SHUTDOWN_CANCEL: mbh_shutdown = 1;

/// The caller's buffer, valid until its callback runs (the contract).
struct CBuf(&'static [u8]);

// SAFETY: the buffer is only read, by the worker that hashes it, and stays
// valid and unmodified until the callback (the contract of
// `mbh_service_submit`).
unsafe impl Send for CBuf {}

impl AsRef<[u8]> for CBuf {
    fn as_ref(&self) -> &[u8] {
        self.0
    }
}

/// The callback and its argument.
struct Callback {
    f: unsafe extern "C" fn(*mut c_void, mbh_result, *const u8, usize),
    arg: *mut c_void,
}

// SAFETY: the submitter's contract: its callback may run on a worker
// thread with `arg`.
unsafe impl Send for Callback {}

impl Callback {
    fn call(self, outcome: Outcome<CBuf>) {
        // SAFETY: the caller's callback, with the arguments documented on
        // `mbh_service_callback`; the digest lives on this stack for the call.
        unsafe {
            match outcome {
                Ok(done) => {
                    let d = done.digest.as_bytes();
                    (self.f)(self.arg, mbh_result::MBH_OK, d.as_ptr(), d.len());
                }
                Err(_) => (self.f)(self.arg, mbh_result::MBH_CANCELLED, core::ptr::null(), 0),
            }
        }
    }
}

/// The service at `svc`, checked.
///
/// # Safety
/// `svc` is NULL or came from `mbh_service_new` and was not freed.
unsafe fn check_service<'s>(svc: *const mbh_service) -> Result<&'s mbh_service, mbh_result> {
    non_null(svc)?;
    if !(svc as usize).is_multiple_of(align_of::<mbh_service>()) {
        return Err(mbh_result::MBH_MISALIGNED);
    }
    // SAFETY: a live handle (the contract); the tag is an atomic, written
    // only by new and free.
    if unsafe { (*svc).magic.load(Ordering::Relaxed) } != SERVICE_MAGIC {
        return Err(mbh_result::MBH_UNINITIALIZED);
    }
    // SAFETY: live; the service is `Sync`.
    Ok(unsafe { &*svc })
}

impl mbh_service {
    /// True in a child forked from the process that made the service: its
    /// workers are not there, nor is any thread that held its locks.
    fn forked(&self) -> bool {
        std::process::id() != self.pid
    }
}

/// Starts a service with at most `workers` worker threads (0: one per
/// core; at most `MBH_SERVICE_MAX_WORKERS`): fewer if the system will not
/// start that many; with none, the jobs are hashed on the threads that
/// submit them.
///
/// Errors: `MBH_NULL_ARGUMENT`, `MBH_INVALID_ARGUMENT` (`workers` above
/// `MBH_SERVICE_MAX_WORKERS`), `MBH_UNKNOWN_ENGINE` /
/// `MBH_UNSUPPORTED_ENGINE` (the engine environment variables name a bad
/// engine), `MBH_OUT_OF_MEMORY`.
///
/// # Safety
/// `svc_out` is NULL or valid for writing a pointer.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mbh_service_new(
    workers: usize,
    svc_out: *mut *mut mbh_service,
) -> mbh_result {
    boundary(|| {
        non_null(svc_out)?;
        if workers > MBH_SERVICE_MAX_WORKERS {
            return Err(mbh_result::MBH_INVALID_ARGUMENT);
        }
        // The handle's memory first: nothing to undo if it is not there.
        let mem = crate::boundary::try_alloc::<mbh_service>()?;
        let mut builder = HashService::builder();
        if workers > 0 {
            builder = builder.workers(workers);
        }
        let service = match builder.build() {
            Ok(service) => service,
            Err(e) => {
                // SAFETY: allocated above, never written or shared.
                unsafe { crate::boundary::dealloc(mem) };
                return Err(match e {
                    mbhash_core::service::BuildError::Engine(e) => crate::engine::engine_error(&e),
                });
            }
        };
        // SAFETY: fresh memory for one `mbh_service`; then handed to the
        // caller (checked non-NULL, writable: the contract).
        unsafe {
            mem.write(mbh_service {
                magic: AtomicU32::new(SERVICE_MAGIC),
                pid: std::process::id(),
                service: ManuallyDrop::new(service),
                next_orphan: core::ptr::null_mut(),
            });
            write_out(svc_out, mem);
        }
        Ok(())
    })
}

/// # Safety
/// As `mbh_service_submit`.
unsafe fn submit(
    svc: *const mbh_service,
    alg: mbh_algorithm,
    data: *const u8,
    len: usize,
    callback: mbh_service_callback,
    arg: *mut c_void,
    wait: bool,
) -> mbh_result {
    boundary(|| {
        // SAFETY: forwarded contract.
        let svc = unsafe { check_service(svc)? };
        let algo = Alg::from_raw(alg)?;
        let Some(f) = callback else {
            return Err(mbh_result::MBH_NULL_ARGUMENT);
        };
        if svc.forked() {
            return Err(mbh_result::MBH_SHUT_DOWN);
        }
        if wait && on_worker_thread() {
            // Waiting for room from a worker could wait for this very
            // worker (or one that waits for this one) to take a job.
            return Err(mbh_result::MBH_WOULD_DEADLOCK);
        }
        // SAFETY: forwarded contract: valid and unmodified until the
        // callback runs (for `'static` as far as the service can tell).
        let buf = CBuf(unsafe { bytes(data, len)? });
        let cb = Callback { f, arg };
        let reply = move |o: Outcome<CBuf>| cb.call(o);
        let r = if wait {
            svc.service.submit_to(algo, buf, reply)
        } else {
            svc.service.try_submit_to(algo, buf, reply)
        };
        r.map_err(|e| match e {
            Rejected::Full(_) => mbh_result::MBH_QUEUE_FULL,
            Rejected::ShutDown(_) => mbh_result::MBH_SHUT_DOWN,
        })
    })
}

/// Queues the hashing of `len` bytes at `data` with `alg`; waits for room
/// in the queue. `callback(arg, ...)` runs on a worker thread, exactly once,
/// when the digest is there (or with `MBH_CANCELLED`).
///
/// Errors (then nothing is queued and the callback never runs):
/// `MBH_NULL_ARGUMENT` (`svc`, `callback`, or `data` with `len` > 0),
/// `MBH_INVALID_ALGORITHM`, `MBH_LENGTH_OVERFLOW`, `MBH_UNINITIALIZED` (not
/// a live service), `MBH_SHUT_DOWN` (shut down, or called in a child forked
/// from the process that made the service), `MBH_WOULD_DEADLOCK` (called
/// on a worker thread of any service, i.e. from a callback: waiting there
/// for room could wait for the worker itself; use
/// `mbh_service_try_submit`).
///
/// # Safety
/// `svc` is NULL or a live handle from `mbh_service_new`; `data` points to
/// `len` readable bytes that stay valid and unmodified until the callback
/// has been called; `callback` may be called on another thread with `arg`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mbh_service_submit(
    svc: *const mbh_service,
    alg: mbh_algorithm,
    data: *const u8,
    len: usize,
    callback: mbh_service_callback,
    arg: *mut c_void,
) -> mbh_result {
    // SAFETY: forwarded contract.
    unsafe { submit(svc, alg, data, len, callback, arg, true) }
}

/// Like `mbh_service_submit`, but never waits: a full queue is
/// `MBH_QUEUE_FULL` (nothing queued, the buffer untouched, the callback
/// never called). Safe to call from a callback. Errors otherwise as
/// `mbh_service_submit`, without `MBH_WOULD_DEADLOCK`.
///
/// # Safety
/// As `mbh_service_submit`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mbh_service_try_submit(
    svc: *const mbh_service,
    alg: mbh_algorithm,
    data: *const u8,
    len: usize,
    callback: mbh_service_callback,
    arg: *mut c_void,
) -> mbh_result {
    // SAFETY: forwarded contract.
    unsafe { submit(svc, alg, data, len, callback, arg, false) }
}

/// Stops the service: `MBH_SHUTDOWN_FINISH` hashes every accepted job
/// first, `MBH_SHUTDOWN_CANCEL` calls back the jobs not yet started with
/// `MBH_CANCELLED` (each exactly once). Returns once every callback has
/// run (from a callback: at once, the workers finish on their own). Later
/// submits are `MBH_SHUT_DOWN`; a second shutdown waits for the first.
///
/// In a child forked from the process that made the service, returns
/// `MBH_OK` at once and touches nothing: the workers, and the callbacks of
/// the jobs they held, are in the parent only.
///
/// Errors: `MBH_NULL_ARGUMENT`, `MBH_UNINITIALIZED`, `MBH_INVALID_ARGUMENT`
/// (another mode).
///
/// # Safety
/// `svc` is NULL or a live handle from `mbh_service_new`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mbh_service_shutdown(
    svc: *const mbh_service,
    mode: mbh_shutdown,
) -> mbh_result {
    boundary(|| {
        // SAFETY: forwarded contract.
        let svc = unsafe { check_service(svc)? };
        let mode = match mode {
            MBH_SHUTDOWN_FINISH => Shutdown::Finish,
            MBH_SHUTDOWN_CANCEL => Shutdown::Cancel,
            _ => return Err(mbh_result::MBH_INVALID_ARGUMENT),
        };
        if !svc.forked() {
            svc.service.shutdown(mode);
        }
        Ok(())
    })
}

/// Shuts the service down (`MBH_SHUTDOWN_FINISH`, unless it was already)
/// and frees it. NULL is ignored. In a child forked from the process that
/// made the service, the handle is only marked freed: the parent's threads
/// are not there to stop, and what they share with it is kept (it is the
/// parent's memory, copied).
///
/// # Safety
/// `svc` is NULL or a live handle from `mbh_service_new`, not in use by any
/// other call, and this is not called from one of its callbacks. A handle
/// already freed is not live: freeing it again is undefined, as for
/// `free(3)`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mbh_service_free(svc: *mut mbh_service) {
    let _ = boundary(|| {
        // SAFETY: forwarded contract.
        let live = unsafe { check_service(svc)? };
        let forked = live.forked();
        // SAFETY: a live handle from `mbh_service_new`, used by no other
        // call: untagged first.
        unsafe { (*svc).magic.store(0, Ordering::Relaxed) };
        if forked {
            let mut head = ORPHANS.load(Ordering::Relaxed);
            loop {
                // SAFETY: as above; the handle is no longer live, and only
                // this list refers to it from now on.
                unsafe { (*svc).next_orphan = head };
                match ORPHANS.compare_exchange_weak(head, svc, Ordering::Release, Ordering::Relaxed)
                {
                    Ok(_) => return Ok(()),
                    Err(h) => head = h,
                }
            }
        }
        // SAFETY: as above, in the process that made it: its service
        // dropped (shut down, workers joined), then its memory freed.
        unsafe {
            ManuallyDrop::drop(&mut (*svc).service);
            crate::boundary::dealloc(svc);
        }
        Ok(())
    });
}
