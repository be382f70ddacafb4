//! The pool's host operations on the standard library.

use std::sync::{Condvar, Mutex, PoisonError};

use super::{PoolOps, SLOTS};

/// [`PoolOps`] on `std`: a mutex and a condition variable per slot.
#[derive(Debug)]
pub struct StdOps {
    slots: [(Mutex<()>, Condvar); SLOTS],
}

impl StdOps {
    /// A mutex and a condition variable for every slot.
    pub const fn new() -> Self {
        StdOps {
            slots: [const { (Mutex::new(()), Condvar::new()) }; SLOTS],
        }
    }
}

impl Default for StdOps {
    fn default() -> Self {
        Self::new()
    }
}

impl PoolOps for StdOps {
    fn sleep_until(&self, slot: usize, ready: &dyn Fn() -> bool) {
        let (lock, cond) = &self.slots[slot % self.slots.len()];
        let mut guard = lock.lock().unwrap_or_else(PoisonError::into_inner);
        while !ready() {
            guard = cond.wait(guard).unwrap_or_else(PoisonError::into_inner);
        }
    }

    fn wake_all(&self, slot: usize) {
        let (lock, cond) = &self.slots[slot % self.slots.len()];
        let _guard = lock.lock().unwrap_or_else(PoisonError::into_inner);
        cond.notify_all();
    }
}
