//! The threads a run starts: as many as asked, or as many as the system
//! lets it start (maybe none), with room left for the run's buffers.
//!
//! A thread takes address space (its stack, the signal stack the standard
//! library maps for it, which aborts the process when it cannot) and a
//! task of `RLIMIT_NPROC`. Under a limit, starting threads until one fails
//! would leave nothing for the buffers, or abort in the last thread's
//! start. So a run holds a [`Reserve`] for its buffers while its threads
//! start, starts a thread only while [`THREAD_ROOM`] is free besides, lets
//! the threads work only once all have started and the reserve is given
//! back ([`Reserve::release`]), and measures first how many threads it
//! can have ([`split`]) to share them between hashing and reading.

use std::io;
use std::sync::{Condvar, Mutex, PoisonError};
use std::thread::Scope;

use crate::service::{THREAD_ROOM, room_for_a_thread};

/// A reading thread's stack (as the service's workers').
const STACK: usize = THREAD_ROOM / 2;

/// What a run allocates besides its buffer pool, at most about: the window
/// of outcomes, the output buffer, the readers' batches, names.
const BESIDES_POOL: usize = 16 << 20;

/// The least pool limit a run is given: one chunk (a larger request waits
/// for an empty pool, then gets its buffer).
const MIN_POOL: usize = 1 << 20;

/// Address space held while the threads of a run start, given back by
/// [`Reserve::release`], which also lets the threads started with
/// [`spawn_scoped`] begin. Under a tight limit the reserve is what could
/// be had, and the pool's limit shrinks to fit it.
#[derive(Debug)]
pub(crate) struct Reserve {
    /// The room held; `None` once released.
    held: Mutex<Option<Vec<u8>>>,
    released: Condvar,
    pool: usize,
}

impl Reserve {
    /// Holds room for a pool of limit `pool` (whose memory is at most
    /// about twice its limit) and the rest of the run; less if the
    /// address space has not that much left. Allocated, never touched.
    pub(crate) fn for_pool(pool: usize) -> Reserve {
        let mut want = pool.saturating_mul(2).saturating_add(BESIDES_POOL);
        let mut held = Vec::new();
        while held.try_reserve_exact(want).is_err() && want > MIN_POOL {
            want /= 2;
        }
        let room = held.capacity().saturating_sub(BESIDES_POOL) / 2;
        Reserve {
            held: Mutex::new(Some(held)),
            released: Condvar::new(),
            pool: pool.min(room).max(MIN_POOL),
        }
    }

    /// The pool limit that fits the reserve.
    pub(crate) fn pool_limit(&self) -> usize {
        self.pool
    }

    /// Gives the room back and lets the threads begin.
    pub(crate) fn release(&self) {
        let mut held = self.held.lock().unwrap_or_else(PoisonError::into_inner);
        *held = None;
        self.released.notify_all();
    }

    /// Waits for [`Reserve::release`].
    fn wait(&self) {
        let mut held = self.held.lock().unwrap_or_else(PoisonError::into_inner);
        while held.is_some() {
            held = self
                .released
                .wait(held)
                .unwrap_or_else(PoisonError::into_inner);
        }
    }
}

/// How many of `workers` hashing and `readers` reading threads to start:
/// all, if the system starts that many threads now; else the threads it
/// did start, shared between the two (one worker and no reader if only
/// one thread starts, or none: the calling thread reads, and with no
/// thread hashes too, as the service does then). Measured by starting them
/// (each has made an allocation once started, so that the C library has
/// given it what it gives a thread) and ending them again.
pub(crate) fn split(workers: usize, readers: usize) -> (usize, usize) {
    let workers = workers.max(1);
    let want = workers.saturating_add(readers);
    let (release, wait) = std::sync::mpsc::channel::<()>();
    let wait = Mutex::new(wait);
    let started = std::thread::scope(|s| {
        let wait = &wait;
        let started = spawn_scoped(s, "mbhash-probe", want, None, || {
            move || {
                // Until `release` is dropped.
                let _ = wait.lock().map(|w| w.recv());
            }
        });
        drop(release);
        started
    });
    if started >= want {
        return (workers, readers);
    }
    let w = (started / 2).clamp(1, workers);
    (w, started.saturating_sub(w).min(readers))
}

/// Starts up to `n` threads named `name-i` in `scope`, each running
/// `make()` (once `gate` is released, if given); stops at the first that
/// cannot be started, or when less than [`THREAD_ROOM`] is free. Returns
/// how many started (maybe none).
pub(crate) fn spawn_scoped<'scope, F>(
    scope: &'scope Scope<'scope, '_>,
    name: &str,
    n: usize,
    gate: Option<&'scope Reserve>,
    mut make: impl FnMut() -> F,
) -> usize
where
    F: FnOnce() + Send + 'scope,
{
    let mut started = 0;
    // Each thread says when it has started (its signal stack mapped and
    // its first allocation made) before the next is considered: room that
    // a thread still about to take is not free for the next one.
    let (up, is_up) = std::sync::mpsc::channel::<()>();
    for i in 0..n {
        let spawned = if room_for_a_thread() {
            let f = make();
            let up = up.clone();
            std::thread::Builder::new()
                .name(format!("{name}-{i}"))
                .stack_size(STACK)
                .spawn_scoped(scope, move || {
                    std::hint::black_box(Box::new(0u8));
                    let _ = up.send(());
                    drop(up);
                    if let Some(gate) = gate {
                        gate.wait();
                    }
                    f()
                })
        } else {
            Err(io::ErrorKind::OutOfMemory.into())
        };
        match spawned {
            Ok(_) => {
                started += 1;
                // A started thread sends before anything else it does.
                let _ = is_up.recv();
            }
            // The later ones would fail too; the scope joins the others.
            Err(_) => break,
        }
    }
    started
}
