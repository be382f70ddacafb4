//! The standard descriptors and SIGPIPE as the process was started with
//! them, recorded before the Rust runtime changes them.
//!
//! Before `main`, the runtime reopens a closed descriptor 0, 1 or 2 on
//! `/dev/null` (read-write) and sets SIGPIPE to ignored. Afterwards a closed
//! standard output looks like a `/dev/null` opened on purpose, and a
//! parent's ignored SIGPIPE like the runtime's. So this module records both
//! from a function in `.init_array`, which the C library runs before
//! `main`: whether each standard descriptor was open and its access mode
//! (`fcntl(F_GETFL)`), and whether SIGPIPE was ignored (`sigaction` with no
//! new action). Those calls only read the process's state.
//!
//! And, under a limit of the address space, [`fit_allocator`] keeps the C
//! library's allocator to one arena (see there).
//!
//! This file is the crate's only `unsafe` code: the `.init_array` entry (a
//! link section) and the calls into the C library.
//!
//! On a target without `.init_array` nothing is recorded: [`access`] and
//! [`sigpipe_ignored`] return `None`, and the callers fall back to what the
//! runtime left (a closed descriptor then reads as `/dev/null`).

use std::sync::atomic::{AtomicI32, Ordering};

/// Not recorded (yet, or on this target).
const NOT_RECORDED: i32 = i32::MIN;
/// The descriptor was closed.
const CLOSED: i32 = -1;

/// `fcntl(fd, F_GETFL)` of descriptors 0, 1 and 2 at start, or
/// [`CLOSED`].
static FLAGS: [AtomicI32; 3] = [
    AtomicI32::new(NOT_RECORDED),
    AtomicI32::new(NOT_RECORDED),
    AtomicI32::new(NOT_RECORDED),
];

/// Linux's flag of a descriptor opened without read or write access.
#[cfg(any(target_os = "linux", target_os = "android"))]
const O_PATH: libc::c_int = libc::O_PATH;
#[cfg(not(any(target_os = "linux", target_os = "android")))]
const O_PATH: libc::c_int = 0;

/// 1 if SIGPIPE was ignored at start, 0 if not.
static SIGPIPE_IGNORED: AtomicI32 = AtomicI32::new(NOT_RECORDED);

/// A standard descriptor.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Std {
    /// Descriptor 0.
    Input = 0,
    /// Descriptor 1.
    Output = 1,
}

/// How a standard descriptor was open at start.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    /// Not open.
    Closed,
    /// Open for reading only.
    Read,
    /// Open for writing only.
    Write,
    /// Open for reading and writing.
    ReadWrite,
    /// Open without read or write access (`O_PATH`).
    Neither,
}

impl Access {
    /// True if reads were allowed.
    pub fn reads(self) -> bool {
        matches!(self, Access::Read | Access::ReadWrite)
    }

    /// True if writes were allowed.
    pub fn writes(self) -> bool {
        matches!(self, Access::Write | Access::ReadWrite)
    }
}

/// How `fd` was open when the process started; `None` if not recorded.
pub fn access(fd: Std) -> Option<Access> {
    let flags = FLAGS[fd as usize].load(Ordering::Relaxed);
    Some(match flags {
        NOT_RECORDED => return None,
        CLOSED => Access::Closed,
        f if f & O_PATH != 0 => Access::Neither,
        f => match f & libc::O_ACCMODE {
            libc::O_RDONLY => Access::Read,
            libc::O_WRONLY => Access::Write,
            libc::O_RDWR => Access::ReadWrite,
            _ => Access::Neither,
        },
    })
}

/// Whether SIGPIPE was ignored when the process started (by the parent:
/// an ignored signal stays ignored across `exec`); `None` if not recorded.
pub fn sigpipe_ignored() -> Option<bool> {
    match SIGPIPE_IGNORED.load(Ordering::Relaxed) {
        NOT_RECORDED => None,
        v => Some(v == 1),
    }
}

/// Under a finite `RLIMIT_AS`, has glibc's allocator keep one arena for
/// every thread (`M_ARENA_MAX`). Each further arena reserves 64 MiB of
/// address space (glibc makes up to 8 per core, one per thread that
/// allocates while the others' are busy), which under a limit of, say, 1
/// GB takes the whole limit for itself: threads then cannot start and
/// buffers cannot be allocated, whatever the run itself needs. The run's
/// large buffers are pooled, so one arena costs it little. Without a limit
/// nothing changes. To be called before any thread is started.
pub fn fit_allocator() {
    let limited = rustix::process::getrlimit(rustix::process::Resource::As)
        .current
        .is_some();
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    if limited {
        // SAFETY: mallopt takes two integers and sets a parameter of the
        // allocator under the allocator's own lock (glibc): no memory of
        // ours is involved. (Called before other threads start only so
        // that all of them follow it.)
        let _ = unsafe { libc::mallopt(libc::M_ARENA_MAX, 1) };
    }
    let _ = limited;
}

/// Records the state; run by the C library before `main`.
#[cfg(any(target_os = "linux", target_os = "android"))]
#[used]
#[unsafe(link_section = ".init_array")]
static RECORD_AT_START: extern "C" fn() = record;

/// Records the flags of descriptors 0 to 2 and SIGPIPE's disposition.
/// (The C library passes `argc, argv, envp` to `.init_array` functions;
/// a C function may ignore arguments it is passed.)
#[cfg_attr(not(any(target_os = "linux", target_os = "android")), allow(dead_code))]
extern "C" fn record() {
    for (fd, slot) in FLAGS.iter().enumerate() {
        // SAFETY: F_GETFL takes no third argument and only reads the
        // descriptor's status flags; on a descriptor that is not open it
        // fails with EBADF (its only failure) and changes nothing.
        let flags = unsafe { libc::fcntl(fd as libc::c_int, libc::F_GETFL) };
        slot.store(if flags < 0 { CLOSED } else { flags }, Ordering::Relaxed);
    }
    let mut old = std::mem::MaybeUninit::<libc::sigaction>::zeroed();
    // SAFETY: with a null new action, sigaction changes nothing and writes
    // the current action into `old`, which is valid memory of that type.
    let r = unsafe { libc::sigaction(libc::SIGPIPE, std::ptr::null(), old.as_mut_ptr()) };
    if r == 0 {
        // SAFETY: sigaction succeeded, so it wrote `old` (all zeroes was
        // already a valid `sigaction`).
        let old = unsafe { old.assume_init() };
        let ignored = old.sa_sigaction == libc::SIG_IGN;
        SIGPIPE_IGNORED.store(i32::from(ignored), Ordering::Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The test harness was started with its standard descriptors open
    /// (cargo gives it a terminal or pipes) and the state was recorded.
    #[cfg(any(target_os = "linux", target_os = "android"))]
    #[test]
    fn recorded_before_main() {
        assert!(access(Std::Input).is_some());
        assert!(access(Std::Output).is_some_and(|a| a != Access::Closed));
        assert!(sigpipe_ignored().is_some());
    }
}
