//! The pool's host operations on the standard library.

use std::sync::{Condvar, Mutex, PoisonError};

use super::{CHANNELS, PoolOps};

/// [`PoolOps`] on `std`: a mutex and a condition variable per wait channel.
///
/// `cpus` is the default, [`Pool::SLOTS`](super::Pool::SLOTS), not the
/// process's available parallelism: the threads of a `std` program are
/// time-shared by the operating system's scheduler, so with more callers
/// than CPUs a running combiner is often one that was preempted, and a
/// caller that joined its lanes waits for the scheduler instead of hashing
/// on the CPU it runs on. Measured on 2 vCPUs (128 KiB records, 4 and 8
/// writers), callers that joined left a CPU idle often enough to cost
/// 11-21% of the bandwidth of hashing each record in its own thread; with
/// up to `SLOTS` combiners the pool matches it. A kernel host that runs
/// callers in a fixed set of threads may still pass its CPU count.
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
}
