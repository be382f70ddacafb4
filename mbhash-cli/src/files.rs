//! Opening the files to hash under the process's open-file limit.
//!
//! The workers share one [`Budget`] of descriptors, derived from
//! `RLIMIT_NOFILE` (less those open at the start and a reserve for directory
//! walks and checksum lists). A worker with files open takes a descriptor only
//! if one is free; a worker with none waits for one. An open that still fails
//! with `EMFILE` or `ENFILE` (descriptors taken by someone else) is waited out:
//! retried when one of ours is closed, or after a short sleep.

use std::fs::{File, Metadata};
use std::io;
use std::path::Path;
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

/// Descriptors kept out of the budget: directory walks, checksum lists, the
/// progress bar's terminal, whatever the libraries open.
const RESERVE: u64 = 16;

/// The most the budget grows to when the limit is huge.
const MAX_BUDGET: u64 = 1 << 16;

/// How long an open that fails for lack of descriptors is retried when none
/// of ours can free one.
const GIVE_UP: Duration = Duration::from_secs(60);

/// Descriptors the workers may hold open, shared by them.
#[derive(Debug)]
pub struct Budget {
    free: Mutex<u64>,
    freed: Condvar,
}

impl Budget {
    /// A budget of `n` descriptors (at least 1).
    pub fn new(n: u64) -> Arc<Budget> {
        Arc::new(Budget {
            free: Mutex::new(n.max(1)),
            freed: Condvar::new(),
        })
    }

    /// The budget this process's soft `RLIMIT_NOFILE` allows.
    pub fn from_limit() -> Arc<Budget> {
        let limit = rustix::process::getrlimit(rustix::process::Resource::Nofile)
            .current
            .unwrap_or(MAX_BUDGET);
        let open = open_now();
        Budget::new(limit.saturating_sub(open + RESERVE).clamp(1, MAX_BUDGET))
    }

    /// Takes a descriptor if one is free.
    pub fn try_take(self: &Arc<Self>) -> Option<Permit> {
        let mut free = self.free.lock().unwrap_or_else(|e| e.into_inner());
        if *free == 0 {
            return None;
        }
        *free -= 1;
        Some(Permit(self.clone()))
    }

    /// Takes a descriptor, waiting for one to be freed.
    pub fn take(self: &Arc<Self>) -> Permit {
        let mut free = self.free.lock().unwrap_or_else(|e| e.into_inner());
        while *free == 0 {
            free = self.freed.wait(free).unwrap_or_else(|e| e.into_inner());
        }
        *free -= 1;
        Permit(self.clone())
    }

    /// Waits until a descriptor of ours is freed, at most `d`.
    fn wait_freed(&self, d: Duration) {
        let free = self.free.lock().unwrap_or_else(|e| e.into_inner());
        let _ = self.freed.wait_timeout(free, d);
    }
}

/// Descriptors open now (`/proc/self/fd`; a guess elsewhere).
fn open_now() -> u64 {
    std::fs::read_dir("/proc/self/fd").map_or(8, |d| d.count() as u64)
}

/// The right to hold one descriptor; given back on drop.
#[derive(Debug)]
pub struct Permit(Arc<Budget>);

impl Drop for Permit {
    fn drop(&mut self) {
        let mut free = self.0.free.lock().unwrap_or_else(|e| e.into_inner());
        *free += 1;
        self.0.freed.notify_one();
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

/// An open file, its descriptor counted, and what it was at the start.
#[derive(Debug)]
pub struct Opened {
    /// The file.
    pub file: File,
    /// Its status when opened (for `--warn-changed`).
    pub meta: Option<Metadata>,
    _permit: Permit,
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

/// Opens `path` with a descriptor from `budget`. With `wait`, waits for a
/// descriptor (the caller has none open that it could close first);
/// otherwise returns [`Open::Later`] when none is free.
pub fn open(path: &Path, budget: &Arc<Budget>, wait: bool, stat: bool) -> Open {
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
        match File::open(path) {
            Ok(file) => {
                let meta = if stat { file.metadata().ok() } else { None };
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

/// Runs `f` (a directory read), waiting out a lack of descriptors.
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
