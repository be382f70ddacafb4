//! A shared hashing pool that needs no threads of its own: [`Pool`].
//!
//! Many threads each need a block's digest before they go on (a file
//! system's I/O pipeline checksumming records). One thread rarely fills a
//! job manager's lanes, yet together they do. `Pool::hash` is synchronous
//! and callable from any thread; the pool combines concurrent callers' jobs
//! into lanes (flat combining):
//!
//! * a caller that finds fewer combiners running than the host has CPUs
//!   ([`PoolOps::cpus`]) becomes the **combiner** of a free slot at once
//!   (a lone caller so hashes its block at once at one-stream cost: the
//!   engine runs a single busy lane on its one-stream kernel; there is no
//!   timer, ever). Searching from a slot picked by the caller's stack
//!   address, threads spread over the slots;
//! * otherwise it publishes its job in the slot of the running combiner
//!   with the fewest jobs. A combiner runs its own job and every waiting
//!   job of the same algorithm the lanes can hold through a
//!   [`JobManager`](crate::JobManager) (FIRST / UPDATE / LAST for the pieces
//!   of a scatter list; the engine's plan picks the kernels for the busy
//!   lanes), hands each digest back, and takes new jobs until its own is
//!   done; then it finishes the ones it holds and leaves;
//! * a waiting caller spins briefly (not at all for a long job), then
//!   sleeps on its own wait channel through the host's [`PoolOps`]; a
//!   combiner wakes only the callers whose jobs it finished. A leaving
//!   combiner hands its slot to a caller still waiting there, which runs
//!   its own job and the others next.
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
// The crate's one `unsafe` module: a combiner reading a caller's published
// request, and the slot's contexts reached by its combiner.
#[allow(unsafe_code)]
mod slot;
#[cfg(feature = "std")]
mod std_ops;
#[cfg(test)]
mod tests;

#[cfg(feature = "std")]
pub use std_ops::StdOps;

use crate::algo::{Algo, Digest};

use slot::{Combiner, ENTRIES, Outcome, Request, Slot};

/// How a pool's callers sleep and wake: supplied by the host.
///
/// `std` builds use [`StdOps`] (a mutex and a condition variable per wait
/// channel). A kernel supplies its own (e.g. SPL's `kmutex_t` and
/// `kcondvar_t`). A wait channel `chan` is below [`Pool::CHANNELS`] (each
/// waiting caller has its own); the host may map several channels to one
/// lock and condition variable (waking more callers than needed).
pub trait PoolOps: Sync {
    /// Blocks until `ready()` returns true: with the channel's lock held,
    /// call `ready()`, and while it is false wait on the channel's
    /// condition variable (which releases the lock while asleep); then
    /// unlock. Spurious wake-ups are fine; so is spinning instead of
    /// sleeping.
    fn sleep_until(&self, chan: usize, ready: &dyn Fn() -> bool);

    /// Wakes every caller asleep on `chan`: with the channel's lock held,
    /// broadcast its condition variable.
    fn wake_all(&self, chan: usize);

    /// CPUs that may run the pool's callers at once. While fewer combiners
    /// run, a new caller runs its job at once on its own CPU instead of
    /// joining a combiner's lanes. The default, [`Pool::SLOTS`], suits a
    /// host that does not know, and one whose scheduler time-shares more
    /// callers than CPUs ([`StdOps`] uses it: see there why).
    fn cpus(&self) -> usize {
        SLOTS
    }
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

/// Wait channels of every pool: one per entry of every slot.
const CHANNELS: usize = SLOTS * ENTRIES;

/// Spins of a waiting caller before it sleeps (for a short job; a long
/// one spins a sixteenth of it).
const SPINS: u32 = 200;

/// Jobs up to this long spin [`SPINS`] times before sleeping.
const SPIN_LEN: usize = 8 << 10;

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
    fn sleep_until(&self, _chan: usize, ready: &dyn Fn() -> bool) {
        while !ready() {
            core::hint::spin_loop();
        }
    }

    fn wake_all(&self, _chan: usize) {}
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

    /// Wait channels: the `chan` argument of the [`PoolOps`] functions is
    /// below this.
    pub const CHANNELS: usize = CHANNELS;

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
        let wake = |chan: usize| self.ops.wake_all(chan);
        let hint = thread_hint(&req);
        if let Some(mut combiner) = self.start(hint, &wake) {
            // A CPU is free: the job runs at once, on this thread.
            Self::combine(&mut combiner, &req);
        } else {
            self.join(&req, hint, &wake);
        }
        match req.digest() {
            Some(bytes) => Digest::from_bytes(algo, &bytes[..algo.output_len()])
                .expect("the digest length of the algorithm"),
            None => panic!("mbhash pool: the call hashing this job panicked"),
        }
    }

    /// Runs `own` (not published, or claimed back) and the jobs of its
    /// algorithm that wait in the combiner's slot.
    fn combine(combiner: &mut Combiner<'_>, own: &Request<'_>) {
        let algo = own.algo;
        combiner.with_store(|combiner, store| {
            crate::with_algo!(algo, A => {
                combine::run::<A, { combine::lanes::<<A as crate::alg::Algorithm>::Family>() }>(
                    combiner, store, own,
                )
            })
        });
    }

    /// The combining right of a free slot, if fewer combiners run than the
    /// host has CPUs (searched from the caller's slot hint).
    fn start<'s>(&'s self, hint: usize, wake: &'s dyn Fn(usize)) -> Option<Combiner<'s>> {
        let limit = self.ops.cpus().clamp(1, SLOTS);
        if self.slots.iter().filter(|s| s.is_combining()).count() >= limit {
            return None;
        }
        (0..SLOTS)
            .map(|k| &self.slots[(hint + k) % SLOTS])
            .filter(|s| !s.is_combining())
            .find_map(|s| s.try_combine(wake))
    }

    /// Publishes `req` beside running combiners and waits until it is
    /// finished, or runs it when this caller is handed a slot.
    fn join(&self, req: &Request<'_>, hint: usize, wake: &dyn Fn(usize)) {
        let (s, index) = self.publish(req, hint);
        let slot = &self.slots[s];
        loop {
            match req.outcome() {
                Outcome::Finished => return,
                Outcome::Promoted => {
                    // The combiner that left handed this caller its slot.
                    let mut combiner = slot.adopt(wake);
                    Self::combine(&mut combiner, req);
                    return;
                }
                Outcome::Pending => {}
            }
            // Published, then the flag looked at: a combiner that left
            // meanwhile saw the entry (and promoted it, or another caller
            // combines here and will); a free slot is taken.
            if !slot.is_combining()
                && let Some(mut combiner) = slot.try_combine(wake)
            {
                if combiner.claim(index, req) {
                    Self::combine(&mut combiner, req);
                    return;
                }
                // Taken and finished by an earlier combiner.
                continue;
            }
            self.wait(req);
        }
    }

    /// Publishes `req`: beside the admitting combiner with the fewest jobs
    /// (its lanes take it), else in the running slot with the fewest jobs
    /// (its request is taken, or it is handed the slot), else anywhere.
    fn publish(&self, req: &Request<'_>, hint: usize) -> (usize, usize) {
        loop {
            for pass in 0..3 {
                let mut order = [(usize::MAX, 0, 0); SLOTS];
                for (k, place) in order.iter_mut().enumerate() {
                    let s = (hint + k) % SLOTS;
                    let slot = &self.slots[s];
                    let fits = match pass {
                        0 => slot.is_admitting(),
                        1 => slot.is_combining(),
                        _ => true,
                    };
                    if fits {
                        *place = (slot.load(), k, s);
                    }
                }
                // Ties keep the hint's order.
                order.sort_unstable();
                for &(load, _, s) in &order {
                    if load == usize::MAX {
                        break;
                    }
                    if let Some(i) = self.slots[s].publish(req, s * ENTRIES) {
                        return (s, i);
                    }
                }
            }
            core::hint::spin_loop();
        }
    }

    /// Waits until `req` is no longer pending: spins briefly (not at all for
    /// a long job, whose wait is long), then sleeps on its channel.
    fn wait(&self, req: &Request<'_>) {
        let pieces = req.pieces;
        let len: usize = (0..pieces.count()).map(|i| pieces.piece(i).len()).sum();
        let spins = if len <= SPIN_LEN { SPINS } else { SPINS / 16 };
        for _ in 0..spins {
            if req.outcome() != Outcome::Pending {
                return;
            }
            core::hint::spin_loop();
        }
        if req.mark_asleep() {
            self.ops
                .sleep_until(req.chan(), &|| req.outcome() != Outcome::Pending);
        }
    }
}

/// A slot index to start searching from, different for different threads:
/// from the address of the caller's stack (no thread-local storage, which a
/// kernel build has not).
fn thread_hint<T>(on_stack: &T) -> usize {
    let a = core::ptr::from_ref(on_stack) as usize as u64;
    // Threads' stacks lie at least 64 KiB apart.
    ((a >> 16).wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 32) as usize
}
