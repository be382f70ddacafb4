//! A combining slot: the requests waiting in it, and who runs them.
//!
//! This file holds the pool's only `unsafe` code: a caller publishes a
//! pointer to its request (on its own stack), and the combiner turns that
//! pointer back into a reference. The rules that make it sound:
//!
//! 1. A caller publishes a request, then does not return (nor touch the
//!    request's data) until the request is finished or promoted
//!    ([`Request::outcome`]).
//! 2. Only the holder of the slot's combining flag ([`Combiner`]) removes
//!    entries; callers only add them. So while a combiner holds the flag,
//!    an entry it sees stays published until it takes it.
//! 3. A request taken from an entry is finished by the combiner that took
//!    it, exactly once, and not touched after that; or, when a combiner
//!    leaves, it is handed the combining flag ([`Request::promote`]) and
//!    its own caller runs it.

use core::cell::UnsafeCell;
use core::sync::atomic::{AtomicBool, AtomicPtr, AtomicU8, AtomicU64, AtomicUsize, Ordering};

use crate::Algo;
use crate::algo::MAX_OUTPUT_LEN;

use super::Pieces;
use super::combine::Store;

/// Requests one slot holds at a time (waiting to be taken by its combiner).
pub(super) const ENTRIES: usize = 16;

/// Published, not taken or taken and running; the caller does not sleep.
const PENDING: u8 = 0;
/// As `PENDING`, and the caller sleeps (or is about to): whoever changes
/// the state wakes its channel.
const ASLEEP: u8 = 1;
const DONE: u8 = 2;
const FAILED: u8 = 3;
/// Taken by a leaving combiner, which handed this request's caller the
/// slot's combining flag: the caller runs it itself.
const PROMOTED: u8 = 4;

/// What became of a request a caller waited for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Outcome {
    /// Not yet.
    Pending,
    /// Finished (its digest is there, or it failed).
    Finished,
    /// The caller holds the slot's combining flag and runs it.
    Promoted,
}

/// One caller's job: an algorithm, its message as pieces, and, once
/// finished, the digest.
pub(super) struct Request<'d> {
    pub(super) algo: Algo,
    pub(super) pieces: &'d (dyn Pieces + 'd),
    /// The wait channel its caller sleeps on (set before it is published).
    chan: AtomicUsize,
    digest: [AtomicU64; MAX_OUTPUT_LEN / 8],
    state: AtomicU8,
}

impl<'d> Request<'d> {
    pub(super) fn new(algo: Algo, pieces: &'d (dyn Pieces + 'd)) -> Self {
        Request {
            algo,
            pieces,
            chan: AtomicUsize::new(0),
            digest: [const { AtomicU64::new(0) }; MAX_OUTPUT_LEN / 8],
            state: AtomicU8::new(PENDING),
        }
    }

    /// What became of it.
    pub(super) fn outcome(&self) -> Outcome {
        match self.state.load(Ordering::Acquire) {
            PENDING | ASLEEP => Outcome::Pending,
            PROMOTED => Outcome::Promoted,
            _ => Outcome::Finished,
        }
    }

    /// The channel its caller sleeps on.
    pub(super) fn chan(&self) -> usize {
        self.chan.load(Ordering::Relaxed)
    }

    /// Marks the caller as going to sleep; false if the request is no
    /// longer pending (then it must not sleep).
    pub(super) fn mark_asleep(&self) -> bool {
        match self
            .state
            .compare_exchange(PENDING, ASLEEP, Ordering::SeqCst, Ordering::Acquire)
        {
            Ok(_) => true,
            Err(s) => s == ASLEEP,
        }
    }

    /// The digest of a finished request; `None` if its combiner failed (a
    /// panic while hashing).
    pub(super) fn digest(&self) -> Option<[u8; MAX_OUTPUT_LEN]> {
        (self.state.load(Ordering::Acquire) == DONE).then(|| {
            let mut out = [0u8; MAX_OUTPUT_LEN];
            for (chunk, word) in out.chunks_mut(8).zip(&self.digest) {
                chunk.copy_from_slice(&word.load(Ordering::Relaxed).to_le_bytes());
            }
            out
        })
    }

    /// Sets the final state; returns the channel to wake if the caller
    /// sleeps. The caller may return (and the request go away) as soon as
    /// this has run: nothing of `self` is read after the swap.
    fn settle(&self, state: u8) -> Option<usize> {
        let chan = self.chan();
        (self.state.swap(state, Ordering::SeqCst) == ASLEEP).then_some(chan)
    }

    /// Stores the digest and finishes the request; the channel to wake, if
    /// its caller sleeps.
    pub(super) fn finish(&self, digest: &[u8]) -> Option<usize> {
        let mut bytes = [0u8; MAX_OUTPUT_LEN];
        bytes[..digest.len()].copy_from_slice(digest);
        for (word, chunk) in self.digest.iter().zip(bytes.chunks(8)) {
            let mut w = [0u8; 8];
            w.copy_from_slice(chunk);
            word.store(u64::from_le_bytes(w), Ordering::Relaxed);
        }
        self.settle(DONE)
    }

    /// Finishes the request as failed; the channel to wake, if any.
    pub(super) fn fail(&self) -> Option<usize> {
        self.settle(FAILED)
    }
}

/// A combining slot.
pub(super) struct Slot {
    entries: [AtomicPtr<Request<'static>>; ENTRIES],
    combining: AtomicBool,
    /// The combiner takes new requests (its own is not finished yet).
    admitting: AtomicBool,
    /// Jobs the combiner holds in its lanes.
    held: AtomicUsize,
    /// The combiner's contexts: only the holder of the combining flag
    /// reaches them ([`Combiner::with_store`]).
    store: UnsafeCell<Store>,
}

// SAFETY: `store` is the only field that is not `Sync`; it is reached only
// by the holder of the combining flag, one thread at a time, and the flag
// is passed on with sequentially consistent atomics (a release by the
// holder that lets go, an acquire by the next), so each holder sees the
// last one's writes. The store holds plain data (contexts), which may move
// between threads.
unsafe impl Sync for Slot {}

impl Slot {
    pub(super) const fn new() -> Slot {
        Slot {
            entries: [const { AtomicPtr::new(core::ptr::null_mut()) }; ENTRIES],
            combining: AtomicBool::new(false),
            admitting: AtomicBool::new(false),
            held: AtomicUsize::new(0),
            store: UnsafeCell::new(Store::Empty),
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

    /// Jobs in the combiner's lanes and waiting in the slot (a hint).
    pub(super) fn load(&self) -> usize {
        self.held.load(Ordering::Relaxed)
            + self
                .entries
                .iter()
                .filter(|e| !e.load(Ordering::Relaxed).is_null())
                .count()
    }

    /// Publishes `req` in a free entry; its index, or `None` if all are
    /// taken. `chan` of the entry is `base + index`. The caller keeps `req`
    /// alive and in place until it is finished (rule 1).
    pub(super) fn publish(&self, req: &Request<'_>, base: usize) -> Option<usize> {
        let ptr = core::ptr::from_ref(req)
            .cast::<Request<'static>>()
            .cast_mut();
        self.entries.iter().enumerate().position(|(i, e)| {
            if !e.load(Ordering::Relaxed).is_null() {
                return false;
            }
            // Not published yet: no one reads it.
            req.chan.store(base + i, Ordering::Relaxed);
            e.compare_exchange(
                core::ptr::null_mut(),
                ptr,
                Ordering::SeqCst,
                Ordering::Relaxed,
            )
            .is_ok()
        })
    }

    /// Becomes the slot's combiner, if no one is. `wake` wakes a wait
    /// channel (the host's operation).
    pub(super) fn try_combine<'s>(&'s self, wake: &'s dyn Fn(usize)) -> Option<Combiner<'s>> {
        self.combining
            .compare_exchange(false, true, Ordering::SeqCst, Ordering::Relaxed)
            .ok()?;
        Some(Combiner::start(self, wake))
    }

    /// The combining flag a leaving combiner handed over with a promoted
    /// request: the caller of that request is the combiner now.
    pub(super) fn adopt<'s>(&'s self, wake: &'s dyn Fn(usize)) -> Combiner<'s> {
        debug_assert!(self.combining.load(Ordering::Relaxed));
        Combiner::start(self, wake)
    }

    /// Takes a waiting request of `algo` (any algorithm if `None`) out of
    /// the slot. Only the holder of the combining flag calls this. The
    /// request stays valid until the holder finishes or promotes it, and the
    /// holder must do one of these (rules 1 and 3); the reference must not
    /// be used after that.
    fn take<'s>(&'s self, algo: Option<Algo>) -> Option<&'s Request<'s>> {
        for entry in &self.entries {
            let ptr = entry.load(Ordering::SeqCst);
            if ptr.is_null() {
                continue;
            }
            // SAFETY: `ptr` was published by a caller that keeps the request
            // alive and in place until it is finished (rule 1); it is still
            // in the entry, so it is not finished: only the flag's holder
            // (the caller of this function) removes entries (rule 2), and it
            // has not taken this one. The request holds only shared data
            // (atomics and shared references), so a shared reference to it
            // is sound while its caller waits.
            let req: &'s Request<'s> = unsafe { &*ptr.cast::<Request<'s>>() };
            if algo.is_some_and(|a| req.algo != a) {
                continue;
            }
            // Only the flag's holder removes entries, so the swap returns
            // `ptr`.
            let taken = entry.swap(core::ptr::null_mut(), Ordering::SeqCst);
            debug_assert_eq!(taken, ptr);
            return Some(req);
        }
        None
    }
}

/// The right to run a slot's kernels and take its entries: held by one
/// caller at a time. Dropping it lets go of the slot: if requests still
/// wait in it, one of them is handed the combining flag (promoted) and its
/// caller, woken, combines next.
pub(super) struct Combiner<'s> {
    slot: &'s Slot,
    wake: &'s dyn Fn(usize),
}

impl<'s> Combiner<'s> {
    fn start(slot: &'s Slot, wake: &'s dyn Fn(usize)) -> Self {
        slot.held.store(0, Ordering::Relaxed);
        slot.admitting.store(true, Ordering::SeqCst);
        Combiner { slot, wake }
    }

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

    /// Takes a waiting request of `algo` out of the slot. The combiner must
    /// finish it (rule 3) and not use the reference after that.
    pub(super) fn take(&self, algo: Algo) -> Option<&'s Request<'s>> {
        self.slot.take(Some(algo))
    }

    /// Runs `f` with the slot's contexts.
    pub(super) fn with_store<R>(&mut self, f: impl FnOnce(&Self, &mut Store) -> R) -> R {
        // SAFETY: this combiner holds the slot's flag, so no other thread
        // reaches the store until it lets go (dropped, after `f`); `&mut
        // self` keeps two calls from overlapping, so this is the only
        // reference to the store.
        let store = unsafe { &mut *self.slot.store.get() };
        f(self, store)
    }

    /// Wakes a request's caller if it sleeps (`chan` from
    /// [`Request::finish`] or [`Request::fail`]).
    pub(super) fn wake(&self, chan: Option<usize>) {
        if let Some(c) = chan {
            (self.wake)(c);
        }
    }

    /// Records how many jobs the combiner holds (a hint for callers
    /// choosing a slot).
    pub(super) fn set_held(&self, n: usize) {
        self.slot.held.store(n, Ordering::Relaxed);
    }

    /// Stops taking new requests: later callers go to other slots.
    pub(super) fn close(&self) {
        self.slot.admitting.store(false, Ordering::SeqCst);
    }
}

impl Drop for Combiner<'_> {
    fn drop(&mut self) {
        let slot = self.slot;
        loop {
            slot.admitting.store(false, Ordering::SeqCst);
            slot.held.store(0, Ordering::Relaxed);
            slot.combining.store(false, Ordering::SeqCst);
            // A caller publishes, then looks at the flag; the combiner drops
            // the flag, then looks at the entries: one of the two sees the
            // other (both sequentially consistent).
            if slot
                .entries
                .iter()
                .all(|e| e.load(Ordering::SeqCst).is_null())
            {
                return;
            }
            if slot
                .combining
                .compare_exchange(false, true, Ordering::SeqCst, Ordering::Relaxed)
                .is_err()
            {
                // Another caller combines: it sees the entries.
                return;
            }
            if let Some(req) = slot.take(None) {
                // The flag stays held: it passes to the request's caller,
                // which runs the request itself.
                let chan = req.settle(PROMOTED);
                if let Some(c) = chan {
                    (self.wake)(c);
                }
                return;
            }
            // Another holder took the entries meanwhile; let go again.
        }
    }
}
