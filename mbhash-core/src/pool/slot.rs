//! A combining slot: the requests waiting in it, and who runs them.
//!
//! This file holds the pool's only `unsafe` code: a caller publishes a
//! pointer to its request (on its own stack), and the combiner turns that
//! pointer back into a reference. The rules that make it sound:
//!
//! 1. A caller publishes a request, then does not return (nor touch the
//!    request's data) until the request is finished
//!    ([`Request::is_finished`]).
//! 2. Only the holder of the slot's combining flag ([`Combiner`]) removes
//!    entries; callers only add them. So while a combiner holds the flag,
//!    an entry it sees stays published until it takes it.
//! 3. A request taken from an entry is finished by the combiner that took
//!    it, exactly once, and not touched after that.

use core::sync::atomic::{AtomicBool, AtomicPtr, AtomicU8, AtomicU64, AtomicUsize, Ordering};

use crate::Algo;
use crate::algo::MAX_OUTPUT_LEN;

use super::Pieces;

/// Requests one slot holds at a time (waiting to be taken by its combiner).
pub(super) const ENTRIES: usize = 16;

const PENDING: u8 = 0;
const DONE: u8 = 1;
const FAILED: u8 = 2;

/// One caller's job: an algorithm, its message as pieces, and, once
/// finished, the digest.
pub(super) struct Request<'d> {
    pub(super) algo: Algo,
    pub(super) pieces: &'d (dyn Pieces + 'd),
    digest: [AtomicU64; MAX_OUTPUT_LEN / 8],
    state: AtomicU8,
}

impl<'d> Request<'d> {
    pub(super) fn new(algo: Algo, pieces: &'d (dyn Pieces + 'd)) -> Self {
        Request {
            algo,
            pieces,
            digest: [const { AtomicU64::new(0) }; MAX_OUTPUT_LEN / 8],
            state: AtomicU8::new(PENDING),
        }
    }

    /// True once the combiner that took it has finished it.
    pub(super) fn is_finished(&self) -> bool {
        self.state.load(Ordering::SeqCst) != PENDING
    }

    /// The digest of a finished request; `None` if its combiner failed (a
    /// panic while hashing).
    pub(super) fn digest(&self) -> Option<[u8; MAX_OUTPUT_LEN]> {
        (self.state.load(Ordering::SeqCst) == DONE).then(|| {
            let mut out = [0u8; MAX_OUTPUT_LEN];
            for (chunk, word) in out.chunks_mut(8).zip(&self.digest) {
                chunk.copy_from_slice(&word.load(Ordering::Relaxed).to_le_bytes());
            }
            out
        })
    }

    /// Stores the digest and finishes the request. The caller may return
    /// (and the request go away) as soon as this has run.
    pub(super) fn finish(&self, digest: &[u8]) {
        let mut bytes = [0u8; MAX_OUTPUT_LEN];
        bytes[..digest.len()].copy_from_slice(digest);
        for (word, chunk) in self.digest.iter().zip(bytes.chunks(8)) {
            let mut w = [0u8; 8];
            w.copy_from_slice(chunk);
            word.store(u64::from_le_bytes(w), Ordering::Relaxed);
        }
        self.state.store(DONE, Ordering::SeqCst);
    }

    /// Finishes the request as failed.
    pub(super) fn fail(&self) {
        self.state.store(FAILED, Ordering::SeqCst);
    }
}

/// A combining slot.
pub(super) struct Slot {
    entries: [AtomicPtr<Request<'static>>; ENTRIES],
    combining: AtomicBool,
    /// The combiner takes new requests (its own is not finished yet).
    admitting: AtomicBool,
    /// Callers asleep (or going to sleep) on this slot.
    sleepers: AtomicUsize,
}

impl Slot {
    pub(super) const fn new() -> Slot {
        Slot {
            entries: [const { AtomicPtr::new(core::ptr::null_mut()) }; ENTRIES],
            combining: AtomicBool::new(false),
            admitting: AtomicBool::new(false),
            sleepers: AtomicUsize::new(0),
        }
    }

    /// True if a combiner runs here and takes new requests.
    pub(super) fn is_admitting(&self) -> bool {
        self.combining.load(Ordering::Relaxed) && self.admitting.load(Ordering::Relaxed)
    }

    /// True while some caller runs this slot's kernels.
    pub(super) fn is_combining(&self) -> bool {
        self.combining.load(Ordering::SeqCst)
    }

    /// Publishes `req` in a free entry; its index, or `None` if all are
    /// taken. The caller keeps `req` alive and in place until it is
    /// finished (rule 1).
    pub(super) fn publish(&self, req: &Request<'_>) -> Option<usize> {
        let ptr = core::ptr::from_ref(req)
            .cast::<Request<'static>>()
            .cast_mut();
        self.entries.iter().position(|e| {
            e.load(Ordering::Relaxed).is_null()
                && e.compare_exchange(
                    core::ptr::null_mut(),
                    ptr,
                    Ordering::SeqCst,
                    Ordering::Relaxed,
                )
                .is_ok()
        })
    }

    /// Becomes the slot's combiner, if no one is.
    pub(super) fn try_combine(&self) -> Option<Combiner<'_>> {
        self.combining
            .compare_exchange(false, true, Ordering::SeqCst, Ordering::Relaxed)
            .ok()?;
        self.admitting.store(true, Ordering::SeqCst);
        Some(Combiner { slot: self })
    }

    /// Counts a caller going to sleep; then it re-checks its condition.
    pub(super) fn sleeping(&self) {
        self.sleepers.fetch_add(1, Ordering::SeqCst);
    }

    /// Counts a caller awake again.
    pub(super) fn awake(&self) {
        self.sleepers.fetch_sub(1, Ordering::SeqCst);
    }

    /// True if a caller may be asleep (a wake-up is needed after a change
    /// it waits for).
    pub(super) fn has_sleepers(&self) -> bool {
        self.sleepers.load(Ordering::SeqCst) > 0
    }
}

/// The right to run a slot's kernels and take its entries: held by one
/// caller at a time; dropping it lets another caller combine.
pub(super) struct Combiner<'s> {
    slot: &'s Slot,
}

impl<'s> Combiner<'s> {
    /// Takes back the entry `index` if it still holds `req` (the caller's
    /// own request, published there).
    pub(super) fn claim(&self, index: usize, req: &Request<'_>) -> bool {
        let ptr = core::ptr::from_ref(req)
            .cast::<Request<'static>>()
            .cast_mut();
        self.slot.entries[index]
            .compare_exchange(
                ptr,
                core::ptr::null_mut(),
                Ordering::SeqCst,
                Ordering::Relaxed,
            )
            .is_ok()
    }

    /// Takes a waiting request of `algo` out of the slot. The request stays
    /// valid until the combiner finishes it, and the combiner must finish it
    /// (rules 1 and 3); the reference must not be used after that.
    pub(super) fn take(&self, algo: Algo) -> Option<&'s Request<'s>> {
        for entry in &self.slot.entries {
            let ptr = entry.load(Ordering::SeqCst);
            if ptr.is_null() {
                continue;
            }
            // SAFETY: `ptr` was published by a caller that keeps the request
            // alive and in place until it is finished (rule 1); it is still
            // in the entry, so it is not finished: only this combiner removes
            // entries (rule 2) and it has not taken this one. The request
            // holds only shared data (atomics and shared references), so a
            // shared reference to it is sound while its caller waits.
            let req: &'s Request<'s> = unsafe { &*ptr.cast::<Request<'s>>() };
            if req.algo != algo {
                continue;
            }
            // Only this combiner removes entries, so the swap returns `ptr`.
            let taken = entry.swap(core::ptr::null_mut(), Ordering::SeqCst);
            debug_assert_eq!(taken, ptr);
            return Some(req);
        }
        None
    }

    /// Stops taking new requests: later callers go to other slots.
    pub(super) fn close(&self) {
        self.slot.admitting.store(false, Ordering::SeqCst);
    }
}

impl Drop for Combiner<'_> {
    fn drop(&mut self) {
        self.slot.admitting.store(false, Ordering::SeqCst);
        self.slot.combining.store(false, Ordering::SeqCst);
    }
}
