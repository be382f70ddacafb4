//! The shared hashing pool: `mbh_pool`, hashed into from any thread.

use core::ffi::c_void;
use core::mem::{align_of, size_of};

use mbhash_core::pool::{Pieces, Pool, PoolOps};

use crate::alg::{Alg, AlgRaw, mbh_algorithm};
use crate::boundary::{boundary, mbh_result, non_null};

/// Bytes of caller memory a pool needs: `sizeof(mbh_pool)`.
pub const MBH_POOL_SIZE: usize = 32768;
/// Alignment of a pool's memory: `_Alignof(mbh_pool)`.
pub const MBH_POOL_ALIGN: usize = 8;
/// Combining slots of a pool: at most this many callers run kernels at
/// once.
pub const MBH_POOL_SLOTS: u32 = 8;
/// Wait channels of a pool: the `chan` argument of the `mbh_pool_ops`
/// functions is below this (each waiting caller sleeps on its own).
pub const MBH_POOL_CHANNELS: u32 = 128;

const _: () = assert!(MBH_POOL_SLOTS as usize == Pool::<HostOps>::SLOTS);
const _: () = assert!(MBH_POOL_CHANNELS as usize == Pool::<HostOps>::CHANNELS);

/// A shared hashing pool with no threads of its own.
///
/// `mbh_pool_hash` may be called from any number of threads at once: the
/// pool combines concurrent callers' jobs into SIMD lanes, run by one of
/// the callers (flat combining). A lone caller hashes its own block at once
/// at one-stream cost; a caller whose job another caller is running spins
/// briefly, then sleeps (through the pool's operations) until it is done.
///
/// Opaque. Either on the heap (`mbh_pool_new` ... `mbh_pool_free`, on the C
/// library's threads) or in caller memory (`mbh_pool_init` with the host's
/// `mbh_pool_ops` ... `mbh_pool_fini`). The memory stays in place, and is
/// not freed or finished, while any call is inside `mbh_pool_hash`.
#[repr(C)]
pub struct mbh_pool {
    _opaque: [u64; 4096],
}

/// How a pool's waiting callers sleep and wake: the host's locks and
/// condition variables, one of each per wait channel (or fewer, shared by
/// several channels: then more callers wake than need to), as a kernel's
/// mutexes and condition variables (`kmutex_t`, `kcondvar_t`).
///
/// Every function gets `arg` and a channel number below
/// `MBH_POOL_CHANNELS`, and may be called from any thread that calls
/// `mbh_pool_hash`.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct mbh_pool_ops {
    /// Passed to every function.
    pub arg: *mut c_void,
    /// Locks the channel's mutex.
    pub lock: Option<unsafe extern "C" fn(arg: *mut c_void, chan: u32)>,
    /// Unlocks it.
    pub unlock: Option<unsafe extern "C" fn(arg: *mut c_void, chan: u32)>,
    /// Waits on the channel's condition variable: called with the mutex
    /// held; releases it while asleep and holds it again on return.
    /// Spurious returns are fine.
    pub wait: Option<unsafe extern "C" fn(arg: *mut c_void, chan: u32)>,
    /// Wakes every waiter of the channel's condition variable (broadcast):
    /// called with the mutex held.
    pub wake: Option<unsafe extern "C" fn(arg: *mut c_void, chan: u32)>,
    /// CPUs that may run callers of the pool at once (e.g. the kernel's
    /// `boot_ncpus`). While fewer callers run kernels, a new caller hashes
    /// its block at once on its own CPU instead of joining another's lanes.
    /// 0: unknown (up to `MBH_POOL_SLOTS` callers run kernels at once).
    pub cpus: u32,
}

/// The layout of the C library's `struct iovec` (`<sys/uio.h>`: `void
/// *iov_base; size_t iov_len;`, or the kernel's own), which `mbh_pool_hash`
/// takes as `const void *` so that the header names no type of its own
/// without the `mbh_` prefix.
#[repr(C)]
#[derive(Clone, Copy)]
struct RawIovec {
    base: *const u8,
    len: usize,
}

/// The host's operations, checked non-NULL.
#[derive(Clone, Copy)]
pub(crate) struct HostOps {
    arg: *mut c_void,
    lock: unsafe extern "C" fn(*mut c_void, u32),
    unlock: unsafe extern "C" fn(*mut c_void, u32),
    wait: unsafe extern "C" fn(*mut c_void, u32),
    wake: unsafe extern "C" fn(*mut c_void, u32),
    cpus: u32,
}

// SAFETY: the host's contract (`mbh_pool_ops`): its functions may be called
// from any thread that calls `mbh_pool_hash`, with the same `arg`.
unsafe impl Sync for HostOps {}
// SAFETY: as above.
unsafe impl Send for HostOps {}

impl PoolOps for HostOps {
    fn sleep_until(&self, chan: usize, ready: &dyn Fn() -> bool) {
        let chan = chan as u32;
        // SAFETY: the host's functions, called as `mbh_pool_ops` documents:
        // wait and unlock with the mutex held.
        unsafe {
            (self.lock)(self.arg, chan);
            while !ready() {
                (self.wait)(self.arg, chan);
            }
            (self.unlock)(self.arg, chan);
        }
    }

    fn wake_all(&self, chan: usize) {
        let chan = chan as u32;
        // SAFETY: as above; wake with the mutex held.
        unsafe {
            (self.lock)(self.arg, chan);
            (self.wake)(self.arg, chan);
            (self.unlock)(self.arg, chan);
        }
    }

    fn cpus(&self) -> usize {
        match self.cpus {
            0 => Pool::<HostOps>::SLOTS,
            n => n as usize,
        }
    }
}

/// "mbhp": an initialised pool.
const POOL_MAGIC: u32 = 0x6d62_6870;

// Both live in the fixed-size `mbh_pool` block (boxing the larger would
// allocate, which the kernel-style library cannot).
#[allow(clippy::large_enum_variant)]
enum AnyPool {
    Host(Pool<HostOps>),
    #[cfg(feature = "std")]
    Std(Pool<mbhash_core::pool::StdOps>),
}

/// What an `mbh_pool` holds.
#[repr(C)]
struct PoolInner {
    magic: u32,
    /// Allocated by `mbh_pool_new`.
    #[cfg_attr(not(feature = "std"), allow(dead_code))]
    heap: bool,
    pool: AnyPool,
}

const _: () = {
    assert!(size_of::<mbh_pool>() == MBH_POOL_SIZE);
    assert!(align_of::<mbh_pool>() == MBH_POOL_ALIGN);
    assert!(size_of::<PoolInner>() <= MBH_POOL_SIZE);
    assert!(align_of::<PoolInner>() <= MBH_POOL_ALIGN);
};

/// The caller's iovec array, checked: every element's buffer is non-NULL
/// unless empty, and no longer than `PTRDIFF_MAX`.
struct IovecPieces {
    iov: *const RawIovec,
    count: usize,
}

// SAFETY: the buffers are only read, and stay valid and unmodified for the
// call (the contract of `mbh_pool_hash`), whichever thread reads them.
unsafe impl Sync for IovecPieces {}

impl IovecPieces {
    /// # Safety
    /// `iov` points to `count` readable `struct iovec` whose buffers stay
    /// valid and unmodified while the value lives.
    unsafe fn new(iov: *const c_void, count: usize) -> Result<IovecPieces, mbh_result> {
        if count == 0 {
            return Ok(IovecPieces {
                iov: core::ptr::NonNull::dangling().as_ptr(),
                count: 0,
            });
        }
        non_null(iov)?;
        if !(iov as usize).is_multiple_of(align_of::<RawIovec>()) {
            return Err(mbh_result::MBH_MISALIGNED);
        }
        if count > isize::MAX as usize / size_of::<RawIovec>() {
            return Err(mbh_result::MBH_LENGTH_OVERFLOW);
        }
        let iov = iov.cast::<RawIovec>();
        for i in 0..count {
            // SAFETY: `i < count` readable elements (the caller's contract).
            let v = unsafe { iov.add(i).read() };
            if v.len > 0 {
                non_null(v.base)?;
            }
            if v.len > isize::MAX as usize {
                return Err(mbh_result::MBH_LENGTH_OVERFLOW);
            }
        }
        Ok(IovecPieces { iov, count })
    }
}

impl Pieces for IovecPieces {
    fn count(&self) -> usize {
        self.count
    }

    fn piece(&self, i: usize) -> &[u8] {
        assert!(i < self.count);
        // SAFETY: `i < count` readable elements, checked by `new`: the
        // buffer is non-NULL when not empty, at most `isize::MAX` bytes,
        // valid and unmodified while `self` lives.
        unsafe {
            let v = self.iov.add(i).read();
            if v.len == 0 {
                &[]
            } else {
                core::slice::from_raw_parts(v.base, v.len)
            }
        }
    }
}

/// The pool at `pool`, checked.
///
/// # Safety
/// `pool` is NULL or points to an `mbh_pool` (initialised, finished or
/// zeroed) that stays in place for `'p`.
unsafe fn check_pool<'p>(pool: *const mbh_pool) -> Result<&'p PoolInner, mbh_result> {
    non_null(pool)?;
    if !(pool as usize).is_multiple_of(MBH_POOL_ALIGN) {
        return Err(mbh_result::MBH_MISALIGNED);
    }
    let inner = pool.cast::<PoolInner>();
    // SAFETY: aligned and points to an `mbh_pool` (the caller's contract);
    // the tag is a plain integer, written only by init and fini, which the
    // contract keeps apart from every other call.
    if unsafe { (*inner).magic } != POOL_MAGIC {
        return Err(mbh_result::MBH_UNINITIALIZED);
    }
    // SAFETY: initialised (tag checked); shared by every thread, which the
    // Rust pool is made for (it is `Sync`).
    Ok(unsafe { &*inner })
}

/// Builds a pool into caller memory, on the host's sleep and wake
/// operations (copied: `ops` need not outlive the call, but `ops->arg`
/// must outlive the pool). This is the kernel-style library's pool.
///
/// Errors: `MBH_NULL_ARGUMENT` (`mem`, `ops` or any of its functions
/// NULL), `MBH_MISALIGNED`.
///
/// # Safety
/// `mem` is NULL or points to `MBH_POOL_SIZE` writable bytes not in use by
/// any call; `ops` is NULL or points to an `mbh_pool_ops` whose functions
/// behave as documented there.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mbh_pool_init(mem: *mut mbh_pool, ops: *const mbh_pool_ops) -> mbh_result {
    boundary(|| {
        non_null(mem)?;
        non_null(ops)?;
        if !(mem as usize).is_multiple_of(MBH_POOL_ALIGN) {
            return Err(mbh_result::MBH_MISALIGNED);
        }
        // SAFETY: non-NULL, points to an `mbh_pool_ops` (the contract).
        let ops = unsafe { ops.read() };
        let (Some(lock), Some(unlock), Some(wait), Some(wake)) =
            (ops.lock, ops.unlock, ops.wait, ops.wake)
        else {
            return Err(mbh_result::MBH_NULL_ARGUMENT);
        };
        let host = HostOps {
            arg: ops.arg,
            lock,
            unlock,
            wait,
            wake,
            cpus: ops.cpus,
        };
        // SAFETY: non-NULL, aligned, writable and unused (the contract).
        unsafe { write_pool(mem, AnyPool::Host(Pool::with_ops(host)), false) };
        Ok(())
    })
}

/// Writes a pool into `mem`, its tag last.
///
/// # Safety
/// `mem` is valid for writes of `MBH_POOL_SIZE` bytes and aligned.
unsafe fn write_pool(mem: *mut mbh_pool, pool: AnyPool, heap: bool) {
    let inner = mem.cast::<PoolInner>();
    // SAFETY: valid for writes (the caller's contract); fields through raw
    // pointers.
    unsafe {
        (&raw mut (*inner).heap).write(heap);
        (&raw mut (*inner).pool).write(pool);
        (&raw mut (*inner).magic).write(POOL_MAGIC);
    }
}

/// Ends a pool built by `mbh_pool_init`: it is marked uninitialised (a pool
/// holds nothing else). `MBH_UNINITIALIZED` for memory that holds no pool;
/// a pool from `mbh_pool_new` must be given to `mbh_pool_free` instead.
///
/// # Safety
/// `pool` is NULL or points to an `mbh_pool`; no call is inside
/// `mbh_pool_hash` on it, and none starts during this one.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mbh_pool_fini(pool: *mut mbh_pool) -> mbh_result {
    boundary(|| {
        // SAFETY: forwarded contract.
        let inner = unsafe { check_pool(pool)? };
        if inner.heap {
            return Err(mbh_result::MBH_UNINITIALIZED);
        }
        let inner = pool.cast::<PoolInner>();
        // SAFETY: initialised and unused (the contract): dropped in place,
        // then untagged.
        unsafe {
            core::ptr::drop_in_place(&raw mut (*inner).pool);
            (&raw mut (*inner).magic).write_volatile(0);
        }
        Ok(())
    })
}

/// A new pool on the heap, on the C library's threads (mutexes and
/// condition variables of the standard library). Free it with
/// `mbh_pool_free`. Not in the kernel-style library (use `mbh_pool_init`).
///
/// Errors: `MBH_NULL_ARGUMENT`, `MBH_OUT_OF_MEMORY`.
///
/// # Safety
/// `pool_out` is NULL or valid for writing a pointer.
#[cfg(feature = "std")]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mbh_pool_new(pool_out: *mut *mut mbh_pool) -> mbh_result {
    boundary(|| {
        non_null(pool_out)?;
        let mem = crate::boundary::try_alloc::<mbh_pool>()?;
        let pool = AnyPool::Std(Pool::new());
        // SAFETY: fresh, aligned, `MBH_POOL_SIZE` bytes; `pool_out` checked
        // non-NULL and writable (the contract).
        unsafe {
            write_pool(mem, pool, true);
            crate::boundary::write_out(pool_out, mem);
        }
        Ok(())
    })
}

/// Frees a pool from `mbh_pool_new`. NULL, or memory that holds no pool
/// from `mbh_pool_new` (a pool of `mbh_pool_init`, finished or not, or
/// zeroed memory), is ignored. A pool already freed is no memory of the
/// caller's any more: freeing it again is undefined, as for `free(3)`.
///
/// # Safety
/// `pool` is NULL, or points to an `mbh_pool`'s memory, or came from
/// `mbh_pool_new` and was not freed; no call is inside `mbh_pool_hash` on
/// it, and none starts during this one.
#[cfg(feature = "std")]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mbh_pool_free(pool: *mut mbh_pool) {
    let _ = boundary(|| {
        // SAFETY: forwarded contract.
        let inner = unsafe { check_pool(pool)? };
        if !inner.heap {
            return Err(mbh_result::MBH_UNINITIALIZED);
        }
        let inner = pool.cast::<PoolInner>();
        // SAFETY: from `mbh_pool_new` (heap tag) and unused: untagged (a
        // volatile store, kept although the memory is freed next), dropped,
        // and its allocation freed as `mbh_pool_new` made it.
        unsafe {
            (&raw mut (*inner).magic).write_volatile(0);
            core::ptr::drop_in_place(&raw mut (*inner).pool);
            crate::boundary::dealloc(pool);
        }
        Ok(())
    });
}

/// Hashes the concatenation of `count` buffers (`iov`, a scatter list) with
/// `alg`, combined with other threads' calls, and writes the digest to
/// `out` (`out_len` at least the algorithm's digest length; the digest's
/// length of bytes are written). Blocks until the digest is there.
///
/// Errors: `MBH_NULL_ARGUMENT` (`pool`, `out`, or `iov` with `count` > 0,
/// or an element's buffer with a non-zero length), `MBH_INVALID_ALGORITHM`,
/// `MBH_BUFFER_TOO_SMALL`, `MBH_LENGTH_OVERFLOW` (an element longer than
/// `PTRDIFF_MAX`), `MBH_MISALIGNED` (`pool` or `iov`), `MBH_UNINITIALIZED`,
/// `MBH_PANIC` (a bug in mbhash, here or in the call that ran this job's
/// kernels). `out` is written only on success.
///
/// # Safety
/// `pool` is NULL or points to an `mbh_pool`; `iov` points to `count`
/// readable `struct iovec` (of `<sys/uio.h>`, or the kernel's own: `void
/// *iov_base; size_t iov_len;`; the parameter is `const void *` so that the
/// header declares no name of its own without the `mbh_` prefix) whose
/// buffers stay valid and unmodified until this returns; `out` is NULL or
/// valid for `out_len` bytes of writes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mbh_pool_hash(
    pool: *const mbh_pool,
    alg: mbh_algorithm,
    iov: *const c_void,
    count: usize,
    out: *mut u8,
    out_len: usize,
) -> mbh_result {
    boundary(|| {
        // SAFETY: forwarded contract.
        let inner = unsafe { check_pool(pool)? };
        let algo = Alg::from_raw(alg)?;
        non_null(out)?;
        if out_len < algo.output_len() {
            return Err(mbh_result::MBH_BUFFER_TOO_SMALL);
        }
        // SAFETY: forwarded contract.
        let pieces = unsafe { IovecPieces::new(iov, count)? };
        let digest = match &inner.pool {
            AnyPool::Host(p) => p.hash_pieces(algo, &pieces),
            #[cfg(feature = "std")]
            AnyPool::Std(p) => p.hash_pieces(algo, &pieces),
        };
        let bytes = digest.as_bytes();
        // SAFETY: `out` is valid for `out_len >= bytes.len()` bytes (the
        // contract) and disjoint from the digest on this stack.
        unsafe { core::ptr::copy_nonoverlapping(bytes.as_ptr(), out, bytes.len()) };
        Ok(())
    })
}
