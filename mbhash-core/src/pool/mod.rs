//! A shared hashing pool that needs no threads of its own: [`Pool`].
//!
//! Many threads each need a block's digest before they go on (a file
//! system's I/O pipeline checksumming records). One thread rarely fills a
//! job manager's lanes, yet together they do. `Pool::hash` is synchronous
//! and callable from any thread; the pool combines concurrent callers' jobs
//! into lanes (flat combining):
//!
//! * a caller publishes its job in a combining slot; if no caller is
//!   running that slot's kernels, it becomes the slot's **combiner**: it
//!   takes its own job and every waiting job of the same algorithm the
//!   lanes can hold, runs them through a [`JobManager`](crate::JobManager) (FIRST / UPDATE /
//!   LAST for the pieces of a scatter list), hands each digest back, and
//!   keeps taking new jobs until its own is done;
//! * a lone caller is its own combiner with one busy lane: its block is
//!   hashed at once at one-stream cost (the engine runs a single busy lane
//!   on its one-stream kernel). There is no timer, ever;
//! * other callers wait: they spin briefly, then sleep through the host's
//!   [`PoolOps`] until their job is done or the slot has no combiner (then
//!   one of them becomes it);
//! * there are [`Pool::SLOTS`] slots. A caller joins a slot whose combiner
//!   still takes jobs, else starts one in a slot with no combiner, so
//!   under load several combiners run on several cores.
//!
//! The engine is the configured one ([`crate::engine`]), read again by every
//! combiner: a change of the default engine applies to the next combining
//! run.
//!
//! Without `std` the pool works the same; the host supplies sleeping and
//! waking ([`PoolOps`], as a kernel's mutexes and condition variables),
//! and nothing is allocated: a `Pool` is a fixed-size value.
//!
//! ```
//! use mbhash_core::{Algo, Pool};
//! use std::io::IoSlice;
//!
//! let pool = Pool::new();
//! let block = vec![7u8; 128 << 10];
//! let d = pool.hash(Algo::Sha256, &block);
//! assert_eq!(d, Algo::Sha256.digest(&block));
//! // A scatter list: the digest of the concatenation.
//! let v = pool.hash_vectored(Algo::Sha512_256, &[IoSlice::new(b"ab"), IoSlice::new(b"c")]);
//! assert_eq!(v, Algo::Sha512_256.digest(b"abc"));
//! std::thread::scope(|s| {
//!     for _ in 0..4 {
//!         s.spawn(|| assert_eq!(pool.hash(Algo::Sha256, &block), d));
//!     }
//! });
//! ```

mod combine;
// The crate's one `unsafe` block: a combiner reading a caller's published
// request.
#[allow(unsafe_code)]
mod slot;
#[cfg(feature = "std")]
mod std_ops;
#[cfg(test)]
mod tests;

#[cfg(feature = "std")]
pub use std_ops::StdOps;

use crate::algo::{Algo, Digest};

use slot::{Request, Slot};

/// How a pool's callers sleep and wake: supplied by the host.
///
/// `std` builds use [`StdOps`] (a mutex and a condition variable per slot).
/// A kernel supplies its own (e.g. SPL's `kmutex_t` and `kcondvar_t`).
/// `slot` is below [`Pool::SLOTS`]; the host may map several slots to one
/// lock.
pub trait PoolOps: Sync {
    /// Blocks until `ready()` returns true: with the slot's lock held, call
    /// `ready()`, and while it is false wait on the slot's condition
    /// variable (which releases the lock while asleep); then unlock.
    /// Spurious wake-ups are fine; so is spinning instead of sleeping.
    fn sleep_until(&self, slot: usize, ready: &dyn Fn() -> bool);

    /// Wakes every caller asleep on `slot`: with the slot's lock held,
    /// broadcast its condition variable.
    fn wake_all(&self, slot: usize);
}

/// A message as pieces (a scatter list): hashed as their concatenation.
pub trait Pieces: Sync {
    /// The number of pieces.
    fn count(&self) -> usize;
    /// Piece `i` (below `count()`).
    fn piece(&self, i: usize) -> &[u8];
}

impl Pieces for &[&[u8]] {
    fn count(&self) -> usize {
        self.len()
    }
    fn piece(&self, i: usize) -> &[u8] {
        self[i]
    }
}

#[cfg(feature = "std")]
impl Pieces for &[std::io::IoSlice<'_>] {
    fn count(&self) -> usize {
        self.len()
    }
    fn piece(&self, i: usize) -> &[u8] {
        &self[i]
    }
}

/// Combining slots of every pool.
const SLOTS: usize = 8;

/// Spins of a waiting caller before it sleeps.
const SPINS: u32 = 200;

/// A shared, thread-safe hashing pool with no threads of its own (see the
/// [module documentation](self)).
pub struct Pool<O: PoolOps = DefaultOps> {
    ops: O,
    slots: [Slot; SLOTS],
}

/// The default [`PoolOps`]: [`StdOps`] with `std`.
#[cfg(feature = "std")]
pub type DefaultOps = StdOps;
/// The default [`PoolOps`]: without `std` there is none, so this is
/// [`SpinOps`].
#[cfg(not(feature = "std"))]
pub type DefaultOps = SpinOps;

/// [`PoolOps`] that never sleep: a waiting caller spins (for hosts that
/// cannot sleep, and single-threaded tests).
#[derive(Clone, Copy, Debug, Default)]
pub struct SpinOps;

impl PoolOps for SpinOps {
    fn sleep_until(&self, _slot: usize, ready: &dyn Fn() -> bool) {
        while !ready() {
            core::hint::spin_loop();
        }
    }

    fn wake_all(&self, _slot: usize) {}
}

impl<O: PoolOps + core::fmt::Debug> core::fmt::Debug for Pool<O> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Pool")
            .field("ops", &self.ops)
            .field("slots", &Self::SLOTS)
            .finish_non_exhaustive()
    }
}

#[cfg(feature = "std")]
impl Pool<StdOps> {
    /// A pool on the standard library's mutexes and condition variables.
    pub const fn new() -> Self {
        Pool::with_ops(StdOps::new())
    }
}

#[cfg(feature = "std")]
impl Default for Pool<StdOps> {
    fn default() -> Self {
        Self::new()
    }
}

impl<O: PoolOps> Pool<O> {
    /// Combining slots: at most this many callers run kernels at once.
    pub const SLOTS: usize = SLOTS;

    /// A pool on the host's sleep and wake operations.
    pub const fn with_ops(ops: O) -> Self {
        Pool {
            ops,
            slots: [const { Slot::new() }; SLOTS],
        }
    }

    /// The host operations.
    pub fn ops(&self) -> &O {
        &self.ops
    }

    /// Hashes `data` with `algo`, combined with other callers' jobs.
    ///
    /// # Panics
    /// If the caller that ran this job's kernels panicked while doing so (a
    /// bug in mbhash).
    pub fn hash(&self, algo: Algo, data: &[u8]) -> Digest {
        self.hash_pieces(algo, &&[data][..])
    }

    /// Hashes the concatenation of a scatter list.
    ///
    /// # Panics
    /// As [`Pool::hash`].
    #[cfg(feature = "std")]
    pub fn hash_vectored(&self, algo: Algo, pieces: &[std::io::IoSlice<'_>]) -> Digest {
        self.hash_pieces(algo, &pieces)
    }

    /// Hashes the concatenation of `pieces`.
    ///
    /// # Panics
    /// As [`Pool::hash`].
    pub fn hash_pieces(&self, algo: Algo, pieces: &(dyn Pieces + '_)) -> Digest {
        let req = Request::new(algo, pieces);
        let (s, index) = self.publish(&req);
        let slot = &self.slots[s];
        while !req.is_finished() {
            if let Some(combiner) = slot.try_combine() {
                // Our request is still published: only a combiner takes
                // entries, and each finishes what it took before it lets go.
                if !req.is_finished() && combiner.claim(index, &req) {
                    let wake = || {
                        if slot.has_sleepers() {
                            self.ops.wake_all(s);
                        }
                    };
                    let own = &req;
                    crate::with_algo!(algo, A => {
                        if <<A as crate::alg::Algorithm>::Family as crate::alg::Family>::BLOCK_LEN == 128 {
                            combine::run::<A, 8>(&combiner, own, &wake)
                        } else {
                            combine::run::<A, 16>(&combiner, own, &wake)
                        }
                    });
                }
                drop(combiner);
                if slot.has_sleepers() {
                    self.ops.wake_all(s);
                }
                break;
            }
            self.wait(s, &req);
        }
        match req.digest() {
            Some(bytes) => Digest::from_bytes(algo, &bytes[..algo.output_len()])
                .expect("the digest length of the algorithm"),
            None => panic!("mbhash pool: the call hashing this job panicked"),
        }
    }

    /// Publishes `req`: in a slot whose combiner takes new requests (it
    /// joins lanes being run), else in one with no combiner (it becomes
    /// one), else in any slot with room.
    fn publish(&self, req: &Request<'_>) -> (usize, usize) {
        loop {
            for pass in 0..3 {
                for (s, slot) in self.slots.iter().enumerate() {
                    let fits = match pass {
                        0 => slot.is_admitting(),
                        1 => !slot.is_combining(),
                        _ => true,
                    };
                    if fits && let Some(i) = slot.publish(req) {
                        return (s, i);
                    }
                }
            }
            core::hint::spin_loop();
        }
    }

    /// Waits until `req` is finished or slot `s` has no combiner.
    fn wait(&self, s: usize, req: &Request<'_>) {
        let slot = &self.slots[s];
        let ready = || req.is_finished() || !slot.is_combining();
        for _ in 0..SPINS {
            if ready() {
                return;
            }
            core::hint::spin_loop();
        }
        slot.sleeping();
        self.ops.sleep_until(s, &ready);
        slot.awake();
    }
}
