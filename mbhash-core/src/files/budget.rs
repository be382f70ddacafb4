//! Descriptors under the process's open-file limit.
//!
//! The readers of a run share one [`Budget`] of descriptors, derived from
//! `RLIMIT_NOFILE` (less those open at the start and a reserve for directory
//! walks, checksum lists and whatever the caller's libraries open). A reader
//! with files open takes a descriptor only if one is free; a reader with none
//! waits for one. An open that still fails with `EMFILE` or `ENFILE`
//! (descriptors taken by someone else: another run, another thread of the
//! caller) is waited out: retried when one of ours is closed, or after a
//! short sleep, for up to a minute.

use std::fs::{File, Metadata, OpenOptions};
use std::io;
use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
use std::path::Path;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use rustix::fs::OFlags;

/// Descriptors kept out of the budget: directory walks, checksum lists, the
/// progress bar's terminal, whatever the libraries open.
const RESERVE: u64 = 16;

/// The most the budget grows to when the limit is huge.
const MAX_BUDGET: u64 = 1 << 16;

/// How long an open that fails for lack of descriptors is retried when none
/// of ours can free one.
const GIVE_UP: Duration = Duration::from_secs(60);

/// Descriptors the readers may hold open, shared by them.
///
/// The count is an atomic, so that taking and giving back a descriptor
/// costs no lock and no system call (a reader of small files does both for
/// every file); the lock and the condition variable are only for those that
/// wait, who say so in `waiting`, and a give-back wakes them only when there
/// are some.
#[derive(Debug)]
pub struct Budget {
    free: AtomicU64,
    /// Threads in [`Budget::take`] or [`Budget::wait_freed`].
    waiting: AtomicUsize,
    lock: Mutex<()>,
    freed: Condvar,
}

impl Budget {
    /// A budget of `n` descriptors (at least 1).
    pub fn new(n: u64) -> Arc<Budget> {
        Arc::new(Budget {
            free: AtomicU64::new(n.max(1)),
            waiting: AtomicUsize::new(0),
            lock: Mutex::new(()),
            freed: Condvar::new(),
        })
    }

    /// The budget this process's soft `RLIMIT_NOFILE` allows now.
    pub fn from_limit() -> Arc<Budget> {
        let limit = rustix::process::getrlimit(rustix::process::Resource::Nofile)
            .current
            .unwrap_or(MAX_BUDGET);
        let open = open_now();
        Budget::new(limit.saturating_sub(open + RESERVE).clamp(1, MAX_BUDGET))
    }

    /// Takes a descriptor if one is free.
    pub fn try_take(self: &Arc<Self>) -> Option<Permit> {
        // SeqCst: this load of the count pairs with `Permit::drop`'s load
        // of `waiting` (see `take`).
        self.free
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| n.checked_sub(1))
            .ok()
            .map(|_| Permit(self.clone()))
    }

    /// Takes a descriptor, waiting for one to be freed.
    pub fn take(self: &Arc<Self>) -> Permit {
        if let Some(p) = self.try_take() {
            return p;
        }
        let mut guard = self.lock.lock().unwrap_or_else(|e| e.into_inner());
        // No wake-up is lost: this thread counts itself as waiting before it
        // looks at the count again, and a give-back adds to the count before
        // it looks at `waiting` (all SeqCst), so either the look below sees
        // the descriptor or the give-back sees this thread and notifies it
        // under the lock, which this thread holds until it waits.
        self.waiting.fetch_add(1, Ordering::SeqCst);
        let permit = loop {
            if let Some(p) = self.try_take() {
                break p;
            }
            guard = self.freed.wait(guard).unwrap_or_else(|e| e.into_inner());
        };
        self.waiting.fetch_sub(1, Ordering::SeqCst);
        permit
    }

    /// Waits until a descriptor of ours is freed, at most `d`.
    fn wait_freed(&self, d: Duration) {
        let guard = self.lock.lock().unwrap_or_else(|e| e.into_inner());
        self.waiting.fetch_add(1, Ordering::SeqCst);
        let _ = self.freed.wait_timeout(guard, d);
        self.waiting.fetch_sub(1, Ordering::SeqCst);
    }
}

/// Descriptors open now (`/proc/self/fd`; where that cannot be read, a
/// small count stands for the standard streams and a few more, and the
/// `EMFILE` retries of [`open`] cover the rest).
fn open_now() -> u64 {
    std::fs::read_dir("/proc/self/fd").map_or(8, |d| d.count() as u64)
}

/// The right to hold one descriptor; given back on drop.
#[derive(Debug)]
pub struct Permit(Arc<Budget>);

impl Drop for Permit {
    fn drop(&mut self) {
        let budget = &self.0;
        budget.free.fetch_add(1, Ordering::SeqCst);
        if budget.waiting.load(Ordering::SeqCst) > 0 {
            // Under the lock: a waiter between its count and its wait holds
            // it. All of them: `take` and `wait_freed` wait on one variable.
            let _guard = budget.lock.lock().unwrap_or_else(|e| e.into_inner());
            budget.freed.notify_all();
        }
    }
}

/// True for the errors that mean "no descriptor left" (process or system).
pub fn out_of_descriptors(e: &io::Error) -> bool {
    matches!(
        e.raw_os_error(),
        Some(code) if code == rustix::io::Errno::MFILE.raw_os_error()
            || code == rustix::io::Errno::NFILE.raw_os_error()
    )
}

/// An open file, its descriptor counted, and what it was when opened.
#[derive(Debug)]
pub struct Opened {
    /// The file. A FIFO, a character device or a socket is left
    /// non-blocking ([`Opened::pollable`]); anything else blocks as usual.
    pub file: File,
    /// Its status when opened.
    pub meta: Metadata,
    _permit: Permit,
}

impl Opened {
    /// True for a FIFO, a character device or a socket: an input that may
    /// keep a read waiting for ever, read non-blocking with `poll`.
    pub fn pollable(&self) -> bool {
        let t = self.meta.file_type();
        t.is_fifo() || t.is_char_device() || t.is_socket()
    }
}

/// What became of an open.
#[derive(Debug)]
pub enum Open {
    /// Opened.
    Done(Opened),
    /// No descriptor free now: try again after closing one of ours.
    Later,
    /// The open failed.
    Failed(io::Error),
}

/// Opens `path` for reading with a descriptor from `budget`. With `wait`,
/// waits for a descriptor (the caller has none open that it could close
/// first); otherwise returns [`Open::Later`] when none is free.
///
/// The open itself never waits for a peer: it is made with `O_NONBLOCK`, so
/// a FIFO with no writer opens at once (a blocking open would wait for a
/// writer, beyond any cancel). A FIFO, character device or socket stays
/// non-blocking, to be read with `poll` (see [`Opened::pollable`]); for
/// anything else the flag is cleared again.
pub fn open(path: &Path, budget: &Arc<Budget>, wait: bool) -> Open {
    let permit = if wait {
        budget.take()
    } else {
        match budget.try_take() {
            Some(p) => p,
            None => return Open::Later,
        }
    };
    let start = Instant::now();
    loop {
        match open_nonblocking(path) {
            Ok((file, meta)) => {
                return Open::Done(Opened {
                    file,
                    meta,
                    _permit: permit,
                });
            }
            Err(e) if out_of_descriptors(&e) => {
                if !wait {
                    return Open::Later;
                }
                if start.elapsed() > GIVE_UP {
                    return Open::Failed(e);
                }
                budget.wait_freed(Duration::from_millis(5));
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Open::Failed(e),
        }
    }
}

/// Opens `path` read-only and non-blocking, and makes it blocking again
/// unless it is pollable.
fn open_nonblocking(path: &Path) -> io::Result<(File, Metadata)> {
    let file = OpenOptions::new()
        .read(true)
        .custom_flags(OFlags::NONBLOCK.bits() as i32)
        .open(path)?;
    let meta = file.metadata()?;
    let t = meta.file_type();
    if !(t.is_fifo() || t.is_char_device() || t.is_socket()) {
        // Of the status flags F_SETFL sets (O_APPEND, O_ASYNC, O_DIRECT,
        // O_NOATIME, O_NONBLOCK), the open set only O_NONBLOCK: setting none
        // clears it, without reading them first (one system call per file
        // fewer, for lists of many small files).
        rustix::fs::fcntl_setfl(&file, OFlags::empty())?;
    }
    Ok((file, meta))
}

/// Runs `f` (a directory read, a list's open), waiting out a lack of
/// descriptors for up to a minute.
pub fn retry<R>(mut f: impl FnMut() -> io::Result<R>) -> io::Result<R> {
    let start = Instant::now();
    loop {
        match f() {
            Err(e) if out_of_descriptors(&e) && start.elapsed() < GIVE_UP => {
                std::thread::sleep(Duration::from_millis(2));
            }
            r => return r,
        }
    }
}
