//! Result codes, the panic boundary and pointer checks shared by every export.

use core::ffi::{CStr, c_char};

/// What a function did. Every fallible function returns one; outputs are
/// written only with `MBH_OK`.
///
/// Conventions of this API: a buffer pointer is followed by its length and
/// may be NULL only when the length is 0; any other NULL pointer argument is
/// `MBH_NULL_ARGUMENT`. After any error the manager and the context are as
/// they were and keep working (the one exception is `MBH_PANIC` from
/// `mbh_submit` or `mbh_flush`, which poisons that manager). Values are
/// stable and never reused.
///
/// The header needs C99 (it uses `//` comments, `bool`, `<stdint.h>`) or
/// C++11, and is clean under `-Wc++-compat`.
///
/// Panics: a Rust panic never crosses into C; it becomes `MBH_PANIC` (a bug
/// in mbhash), and the panic's message is printed to standard error first
/// (the standard library's panic hook; the kernel-style library traps
/// instead).
///
/// `fork()`: in a child forked from a multi-threaded parent, the library
/// works as in any process (its one-time set-up never waits for a thread
/// the child does not have), except that a service made by the parent is
/// shut down there: its submits are `MBH_SHUT_DOWN`, and
/// `mbh_service_shutdown` / `mbh_service_free` return at once without
/// touching the parent's threads (callbacks of jobs the parent had queued
/// never run in the child). A pool or manager in memory the child
/// inherited is the child's own copy; one that a parent's thread was inside
/// at the fork is in an unknown state in the child and must not be used
/// there.
// `repr(C)`, not `repr(u32)`: cbindgen then writes `typedef enum mbh_result
// {...} mbh_result;`, one type under both names, where a sized enum gets a tag
// and a `uint32_t` typedef of the same name (invalid C++, which
// `-Wc++-compat` reports). A C enum of these values is 32 bits, as before.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum mbh_result {
    /// Success.
    MBH_OK = 0,
    /// A required pointer argument was NULL.
    MBH_NULL_ARGUMENT = 1,
    /// The algorithm is not one of the `MBH_SHA*` constants.
    MBH_INVALID_ALGORITHM = 2,
    /// Flags other than `MBH_FIRST`, `MBH_UPDATE`, `MBH_LAST`, `MBH_ENTIRE`.
    MBH_INVALID_FLAGS = 3,
    /// The context was initialised for another algorithm than the manager's.
    MBH_WRONG_ALGORITHM = 4,
    /// The context is in flight: submitted and not yet back from
    /// `mbh_submit` or `mbh_flush`.
    MBH_ALREADY_PROCESSING = 5,
    /// `MBH_UPDATE` or `MBH_LAST` on a context with no open stream (new or
    /// completed): start it with `MBH_FIRST` or `MBH_ENTIRE`.
    MBH_ALREADY_COMPLETED = 6,
    /// The chunk is longer than `PTRDIFF_MAX`, or the stream would exceed
    /// 2^64 - 1 bytes.
    MBH_LENGTH_OVERFLOW = 7,
    /// No engine of the algorithm's family has this name.
    MBH_UNKNOWN_ENGINE = 8,
    /// The engine exists but this CPU (or `MBHASH_DISABLE`) does not run it.
    MBH_UNSUPPORTED_ENGINE = 9,
    /// Caller memory for a context or a manager is not aligned to
    /// `MBH_CTX_ALIGN` / `MBH_MANAGER_ALIGN`.
    MBH_MISALIGNED = 10,
    /// The context or manager was not initialised (or was finished); a
    /// best-effort check of a tag, not a guarantee.
    MBH_UNINITIALIZED = 11,
    /// The digest was asked for before the stream's last chunk came back.
    MBH_NOT_COMPLETE = 12,
    /// An output buffer is shorter than the output.
    MBH_BUFFER_TOO_SMALL = 13,
    /// An index past the end of a list.
    MBH_OUT_OF_RANGE = 14,
    /// A panic inside this manager's `mbh_submit` or `mbh_flush` left it in an
    /// unknown state: it refuses work. `mbh_manager_free` / `mbh_manager_fini`
    /// still work and release its contexts.
    MBH_POISONED = 15,
    /// A Rust panic was caught at the boundary (a bug in mbhash).
    MBH_PANIC = 16,
    /// The service's queue is full (`mbh_service_try_submit`): nothing was
    /// queued and the buffer is untouched.
    MBH_QUEUE_FULL = 17,
    /// The service is shut down: nothing was queued.
    MBH_SHUT_DOWN = 18,
    /// The status a service callback gets for a job cancelled by
    /// `mbh_service_shutdown(svc, MBH_SHUTDOWN_CANCEL)`: no digest.
    MBH_CANCELLED = 19,
    /// An argument outside its documented values (e.g. a shutdown mode).
    MBH_INVALID_ARGUMENT = 20,
    /// A verity parameter out of range: block size, salt length, format
    /// version, or an algorithm the format does not use.
    MBH_INVALID_PARAMETER = 21,
    /// Reading or writing a file descriptor failed.
    MBH_IO_ERROR = 22,
    /// The data or hash image does not fit the parameters: no whole data
    /// block, a truncated hash image, a missing or mismatching superblock.
    MBH_BAD_IMAGE = 23,
    /// `mbh_service_submit` (which waits for room) was called on a worker
    /// thread of a service, i.e. from a service callback, where waiting
    /// could wait for the worker itself: nothing was queued. Use
    /// `mbh_service_try_submit` there.
    MBH_WOULD_DEADLOCK = 24,
    /// Memory for a handle could not be allocated: nothing was made.
    MBH_OUT_OF_MEMORY = 25,
    /// The CRC id is not one of the `MBH_CRC_*` constants, or the name is
    /// no named CRC's (`mbh_crc_from_name`).
    MBH_UNKNOWN_CRC = 26,
}

const _: () = assert!(core::mem::size_of::<mbh_result>() == 4);

impl mbh_result {
    /// Every code, in value order.
    const ALL: [mbh_result; 27] = [
        mbh_result::MBH_OK,
        mbh_result::MBH_NULL_ARGUMENT,
        mbh_result::MBH_INVALID_ALGORITHM,
        mbh_result::MBH_INVALID_FLAGS,
        mbh_result::MBH_WRONG_ALGORITHM,
        mbh_result::MBH_ALREADY_PROCESSING,
        mbh_result::MBH_ALREADY_COMPLETED,
        mbh_result::MBH_LENGTH_OVERFLOW,
        mbh_result::MBH_UNKNOWN_ENGINE,
        mbh_result::MBH_UNSUPPORTED_ENGINE,
        mbh_result::MBH_MISALIGNED,
        mbh_result::MBH_UNINITIALIZED,
        mbh_result::MBH_NOT_COMPLETE,
        mbh_result::MBH_BUFFER_TOO_SMALL,
        mbh_result::MBH_OUT_OF_RANGE,
        mbh_result::MBH_POISONED,
        mbh_result::MBH_PANIC,
        mbh_result::MBH_QUEUE_FULL,
        mbh_result::MBH_SHUT_DOWN,
        mbh_result::MBH_CANCELLED,
        mbh_result::MBH_INVALID_ARGUMENT,
        mbh_result::MBH_INVALID_PARAMETER,
        mbh_result::MBH_IO_ERROR,
        mbh_result::MBH_BAD_IMAGE,
        mbh_result::MBH_WOULD_DEADLOCK,
        mbh_result::MBH_OUT_OF_MEMORY,
        mbh_result::MBH_UNKNOWN_CRC,
    ];

    /// The code with this value, if any.
    fn from_u32(value: u32) -> Option<mbh_result> {
        Self::ALL.into_iter().find(|r| *r as u32 == value)
    }

    /// A one-line description.
    fn message(self) -> &'static CStr {
        match self {
            mbh_result::MBH_OK => c"success",
            mbh_result::MBH_NULL_ARGUMENT => c"a required pointer argument is NULL",
            mbh_result::MBH_INVALID_ALGORITHM => c"unknown algorithm",
            mbh_result::MBH_INVALID_FLAGS => {
                c"invalid flags: use MBH_FIRST, MBH_UPDATE, MBH_LAST or MBH_ENTIRE"
            }
            mbh_result::MBH_WRONG_ALGORITHM => {
                c"the context's algorithm differs from the manager's"
            }
            mbh_result::MBH_ALREADY_PROCESSING => {
                c"context is in flight: wait until it comes back from submit or flush"
            }
            mbh_result::MBH_ALREADY_COMPLETED => {
                c"context has no open stream (new or completed): submit it with MBH_FIRST or MBH_ENTIRE"
            }
            mbh_result::MBH_LENGTH_OVERFLOW => c"length too large",
            mbh_result::MBH_UNKNOWN_ENGINE => c"unknown engine name",
            mbh_result::MBH_UNSUPPORTED_ENGINE => c"engine unsupported on this CPU",
            mbh_result::MBH_MISALIGNED => c"caller memory is not suitably aligned",
            mbh_result::MBH_UNINITIALIZED => c"context or manager not initialised",
            mbh_result::MBH_NOT_COMPLETE => c"the stream is not complete: no digest yet",
            mbh_result::MBH_BUFFER_TOO_SMALL => c"output buffer too small",
            mbh_result::MBH_OUT_OF_RANGE => c"index out of range",
            mbh_result::MBH_POISONED => c"manager poisoned by an earlier panic",
            mbh_result::MBH_PANIC => c"a Rust panic was caught (bug in mbhash)",
            mbh_result::MBH_QUEUE_FULL => c"the service's queue is full",
            mbh_result::MBH_SHUT_DOWN => c"the service is shut down",
            mbh_result::MBH_CANCELLED => c"the job was cancelled by a shutdown",
            mbh_result::MBH_INVALID_ARGUMENT => c"argument out of range",
            mbh_result::MBH_INVALID_PARAMETER => c"verity parameter out of range",
            mbh_result::MBH_IO_ERROR => c"I/O error on a file descriptor",
            mbh_result::MBH_BAD_IMAGE => {
                c"data or hash image does not fit the parameters (truncated, bad superblock)"
            }
            mbh_result::MBH_WOULD_DEADLOCK => {
                c"a waiting submit from a service callback could deadlock: use mbh_service_try_submit"
            }
            mbh_result::MBH_OUT_OF_MEMORY => c"out of memory",
            mbh_result::MBH_UNKNOWN_CRC => c"unknown CRC: not one of the MBH_CRC_* ids or names",
        }
    }
}

/// A static, NUL-terminated description of a result code; unknown values
/// give `"unknown result code"`. Never NULL, never to be freed.
///
/// # Safety
/// None: any value is accepted (it is taken as an integer, so a value
/// outside the enumeration is not undefined behaviour).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mbh_result_str(result: u32) -> *const c_char {
    // Nothing here can panic; the boundary is kept for uniformity.
    guard(c"panic", || {
        mbh_result::from_u32(result).map_or(c"unknown result code", |r| r.message())
    })
    .as_ptr()
}

/// The panic boundary: runs `f`, and gives `on_panic` if it panics, so that
/// no unwind reaches C.
///
/// Without `std` (the kernel-style library, built with `panic = "abort"`)
/// there is nothing to catch: a panic runs the crate's panic handler, which
/// traps, so this just runs `f`.
#[inline(always)]
pub(crate) fn guard<T>(on_panic: T, f: impl FnOnce() -> T) -> T {
    #[cfg(feature = "std")]
    {
        // AssertUnwindSafe: the only state a panic can leave half-updated is
        // a manager in the middle of submit/flush, and those mark it
        // poisoned for the duration (see `manager::run_guarded` and the
        // isa-l_crypto `with_mgr`).
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).unwrap_or(on_panic)
    }
    #[cfg(not(feature = "std"))]
    {
        let _ = on_panic;
        f()
    }
}

/// The body of an export: `Err(code)` or a panic become the result code.
#[inline(always)]
pub(crate) fn boundary(f: impl FnOnce() -> Result<(), mbh_result>) -> mbh_result {
    match guard(Err(mbh_result::MBH_PANIC), f) {
        Ok(()) => mbh_result::MBH_OK,
        Err(code) => code,
    }
}

/// Uninitialised heap memory for one `T` (not zero-sized), or
/// `MBH_OUT_OF_MEMORY`: an allocation failure is an error code, not an
/// abort. Free it with [`dealloc`].
#[cfg(feature = "std")]
pub(crate) fn try_alloc<T>() -> Result<*mut T, mbh_result> {
    let layout = std::alloc::Layout::new::<T>();
    const { assert!(size_of::<T>() > 0) };
    // SAFETY: a layout of non-zero size (asserted).
    let p = unsafe { std::alloc::alloc(layout) }.cast::<T>();
    if p.is_null() {
        Err(mbh_result::MBH_OUT_OF_MEMORY)
    } else {
        Ok(p)
    }
}

/// Frees memory from [`try_alloc`] (its value already dropped or moved out).
///
/// # Safety
/// `p` came from `try_alloc::<T>` and is not freed yet.
#[cfg(feature = "std")]
pub(crate) unsafe fn dealloc<T>(p: *mut T) {
    // SAFETY: allocated by `try_alloc::<T>` with this layout (the contract).
    unsafe { std::alloc::dealloc(p.cast(), std::alloc::Layout::new::<T>()) }
}

/// `MBH_NULL_ARGUMENT` if `p` is NULL.
pub(crate) fn non_null<T>(p: *const T) -> Result<(), mbh_result> {
    if p.is_null() {
        Err(mbh_result::MBH_NULL_ARGUMENT)
    } else {
        Ok(())
    }
}

/// Writes an output parameter (checked non-NULL beforehand).
///
/// # Safety
/// `out` is valid for a write of `T` and aligned.
pub(crate) unsafe fn write_out<T>(out: *mut T, value: T) {
    // SAFETY: the caller's contract.
    unsafe { out.write(value) }
}

/// A buffer from a pointer and its length: NULL only with length 0.
///
/// # Safety
/// If `len > 0`, `ptr` points to `len` readable bytes that stay valid and
/// unmodified for `'a`.
pub(crate) unsafe fn bytes<'a>(ptr: *const u8, len: usize) -> Result<&'a [u8], mbh_result> {
    // NULL first, then the length: a valid buffer passes two tests.
    if ptr.is_null() {
        return if len == 0 {
            Ok(&[])
        } else {
            Err(mbh_result::MBH_NULL_ARGUMENT)
        };
    }
    if len > isize::MAX as usize {
        return Err(mbh_result::MBH_LENGTH_OVERFLOW);
    }
    // SAFETY: non-NULL, `len` readable bytes valid for 'a (the caller's
    // contract), and `len <= isize::MAX`.
    Ok(unsafe { core::slice::from_raw_parts(ptr, len) })
}

/// Bytes of a name read from C before it is refused as too long: far more
/// than any engine name.
const NAME_MAX: usize = 64;

/// A NUL-terminated name; invalid UTF-8, or more than [`NAME_MAX`] bytes,
/// is no valid name.
///
/// Read byte by byte up to the NUL, never past it, and at most
/// `NAME_MAX + 1` bytes: no call to `strlen` (the kernel-style library
/// needs no C library), and an endless string is not scanned on.
///
/// # Safety
/// `name` is non-NULL and points to a NUL-terminated string.
pub(crate) unsafe fn name_str<'a>(name: *const c_char) -> Option<&'a str> {
    let mut len = 0;
    // SAFETY: the bytes up to the NUL are readable (the caller's contract),
    // and no byte before `len` was the NUL.
    while unsafe { name.add(len).read() } != 0 {
        len += 1;
        if len > NAME_MAX {
            return None;
        }
    }
    // SAFETY: the `len` bytes before the NUL, readable as above; C does not
    // change them during the call.
    let bytes = unsafe { core::slice::from_raw_parts(name.cast::<u8>(), len) };
    core::str::from_utf8(bytes).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_dense_and_distinct() {
        for (i, r) in mbh_result::ALL.into_iter().enumerate() {
            assert_eq!(r as u32, i as u32);
            assert_eq!(mbh_result::from_u32(i as u32), Some(r));
        }
        assert_eq!(mbh_result::from_u32(mbh_result::ALL.len() as u32), None);
    }

    #[test]
    fn names_are_read_up_to_their_nul_and_bounded() {
        let read = |bytes: &[u8]| {
            // SAFETY: every test string below holds a NUL.
            unsafe { name_str(bytes.as_ptr().cast()) }
        };
        assert_eq!(read(b"avx512\0"), Some("avx512"));
        assert_eq!(read(b"\0"), Some(""));
        assert_eq!(read(b"auto\0trailing"), Some("auto"));
        assert_eq!(read(b"\xff\0"), None);
        let mut long = [b'a'; NAME_MAX + 2];
        long[NAME_MAX] = 0;
        let at_max = read(&long).expect("NAME_MAX bytes are read");
        assert_eq!(at_max.len(), NAME_MAX);
        long[NAME_MAX] = b'a';
        long[NAME_MAX + 1] = 0;
        assert_eq!(read(&long), None);
    }

    #[test]
    #[cfg(feature = "std")]
    fn boundary_catches_panics() {
        assert_eq!(boundary(|| Ok(())), mbh_result::MBH_OK);
        assert_eq!(
            boundary(|| Err(mbh_result::MBH_OUT_OF_RANGE)),
            mbh_result::MBH_OUT_OF_RANGE
        );
        assert_eq!(boundary(|| panic!("test")), mbh_result::MBH_PANIC);
    }
}
