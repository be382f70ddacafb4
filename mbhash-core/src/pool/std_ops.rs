//! The pool's host operations on the standard library.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex, PoisonError};

use super::{CHANNELS, PoolOps};

/// [`PoolOps`] on `std`: a mutex and a condition variable per wait channel;
/// the CPUs are the process's available parallelism.
#[derive(Debug)]
pub struct StdOps {
    chans: [(Mutex<()>, Condvar); CHANNELS],
}

impl StdOps {
    /// A mutex and a condition variable for every wait channel.
    pub const fn new() -> Self {
        StdOps {
            chans: [const { (Mutex::new(()), Condvar::new()) }; CHANNELS],
        }
    }
}

impl Default for StdOps {
    fn default() -> Self {
        Self::new()
    }
}

impl PoolOps for StdOps {
    fn sleep_until(&self, chan: usize, ready: &dyn Fn() -> bool) {
        let (lock, cond) = &self.chans[chan % CHANNELS];
        let mut guard = lock.lock().unwrap_or_else(PoisonError::into_inner);
        while !ready() {
            guard = cond.wait(guard).unwrap_or_else(PoisonError::into_inner);
        }
    }

    fn wake_all(&self, chan: usize) {
        let (lock, cond) = &self.chans[chan % CHANNELS];
        let _guard = lock.lock().unwrap_or_else(PoisonError::into_inner);
        cond.notify_all();
    }

    fn cpus(&self) -> usize {
        // Asked once per process: it reads files on Linux.
        static CPUS: AtomicUsize = AtomicUsize::new(0);
        match CPUS.load(Ordering::Relaxed) {
            0 => {
                let n = std::thread::available_parallelism().map_or(1, |n| n.get());
                CPUS.store(n, Ordering::Relaxed);
                n
            }
            n => n,
        }
    }
}
