//! [`Race`]: a value made once per process without a lock, so that a
//! process forked while another thread was making it is not left waiting.
//!
//! A `OnceLock` (or any lock) held by a thread at `fork()` stays held in the
//! child, where that thread does not exist: a child whose first call waits
//! for it waits forever. A [`Race`] never waits: every caller that finds it
//! empty makes the value itself, and the first to publish it (a
//! compare-and-swap of a pointer) wins; the others drop theirs and use the
//! winner's. A child forked mid-way finds the cell empty and makes its own.
//!
//! This file holds the crate's second audited `unsafe` code: the published
//! pointer is turned back into a reference. The rules that make it sound:
//!
//! 1. Only a pointer from `Box::into_raw` of a fully made value is ever
//!    stored, by one successful compare-and-swap from NULL (release), and
//!    it is never replaced, written through or freed: the value lives for
//!    the rest of the process.
//! 2. A reader loads it with acquire, so it sees the value whole.

#![allow(unsafe_code)]

use core::sync::atomic::{AtomicPtr, Ordering};

/// A value of `T` made at most a few times (once per racing caller) and
/// published once, for the life of the process.
pub struct Race<T> {
    ptr: AtomicPtr<T>,
}

impl<T> Race<T> {
    /// An empty cell.
    pub const fn new() -> Self {
        Race {
            ptr: AtomicPtr::new(core::ptr::null_mut()),
        }
    }
}

impl<T> Default for Race<T> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T: Send + Sync + 'static> Race<T> {
    /// The published value, if any.
    #[inline]
    pub fn get(&'static self) -> Option<&'static T> {
        let p = self.ptr.load(Ordering::Acquire);
        // SAFETY: NULL, or a value published once and never freed or
        // written (the module's rules 1 and 2).
        unsafe { p.as_ref() }
    }

    /// The published value; if there is none, `make` makes one and this
    /// publishes it, unless another caller published first (then `make`'s
    /// value is dropped and the other's returned). Never waits.
    pub fn get_or_init(&'static self, make: impl FnOnce() -> T) -> &'static T {
        if let Some(v) = self.get() {
            return v;
        }
        let mine = Box::into_raw(Box::new(make()));
        match self.ptr.compare_exchange(
            core::ptr::null_mut(),
            mine,
            Ordering::AcqRel,
            Ordering::Acquire,
        ) {
            // SAFETY: published just now by this call: rule 1.
            Ok(_) => unsafe { &*mine },
            Err(theirs) => {
                // SAFETY: `mine` came from `Box::into_raw` above and was
                // never published: this call still owns it.
                drop(unsafe { Box::from_raw(mine) });
                // SAFETY: the pointer another caller published (non-NULL,
                // since the exchange from NULL failed): rules 1 and 2.
                unsafe { &*theirs }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Race;
    use std::sync::atomic::{AtomicUsize, Ordering};

    #[test]
    fn first_published_wins() {
        static CELL: Race<u32> = Race::new();
        assert!(CELL.get().is_none());
        assert_eq!(*CELL.get_or_init(|| 7), 7);
        assert_eq!(*CELL.get_or_init(|| 8), 7);
        assert_eq!(CELL.get(), Some(&7));
    }

    #[test]
    fn racing_callers_all_see_one_value() {
        static CELL: Race<usize> = Race::new();
        static MADE: AtomicUsize = AtomicUsize::new(0);
        let seen: Vec<usize> = std::thread::scope(|s| {
            let threads: Vec<_> = (0..8)
                .map(|_| s.spawn(|| *CELL.get_or_init(|| MADE.fetch_add(1, Ordering::SeqCst))))
                .collect();
            threads.into_iter().map(|t| t.join().unwrap()).collect()
        });
        assert!(MADE.load(Ordering::SeqCst) >= 1);
        assert!(seen.iter().all(|v| *v == seen[0]), "{seen:?}");
    }
}
