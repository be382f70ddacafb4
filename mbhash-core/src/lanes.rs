//! The lane scheduler: one set of SIMD lanes under every manager.
//!
//! A [`LaneSet`] is what isa-l_crypto calls the lane manager: the chaining
//! state of the job in each lane, the jobs themselves and two masks (busy,
//! done). A job is anything that can show the blocks it compresses next and
//! move past them ([`LaneJob`]). The set puts a job in the lowest free lane
//! ([`LaneSet::insert`]), runs the busy lanes until some job is done
//! ([`LaneSet::run`]: the shortest job's block count in every lane, idle
//! lanes pointing at a busy lane's blocks as filler, one engine call) and
//! hands a done job back with its state ([`LaneSet::take`]).
//!
//! It serves the [`JobManager`](crate::JobManager) (jobs borrowing Rust
//! contexts and data), `hash_many`'s short path (padded messages on the
//! stack) and the C library's isa-l_crypto drop-in manager (jobs in C
//! contexts, the set inside the caller's manager memory: hence
//! `#[repr(C)]` and no heap). The lane count is a type ([`Lanes`]), so a
//! set is exactly as large as its family needs: `Family::Lanes`, 16 for
//! SHA-256, 8 for SHA-512 and 32 for MD5 (the widest kernel of each); so
//! is any other per-lane array ([`LaneArray`]), so that a family of few
//! lanes does not pay for MD5's 32 on the stack.

use core::fmt;

use crate::alg::Family;
use crate::alg::lanes_of;
pub use crate::alg::{LaneArray, LaneCount, Lanes, lane_array};
use crate::engine::LaneEngine;

/// A job in a lane: the blocks it compresses next, and a way past them.
pub trait LaneJob<F: Family> {
    /// The blocks the job compresses next; never empty while the job is in
    /// a lane and not done.
    fn blocks(&self) -> &[F::Block];

    /// The first `n` blocks of [`LaneJob::blocks`] were compressed; returns
    /// true if the job has nothing more to compress.
    fn advance(&mut self, n: usize) -> bool;
}

/// A set of SIMD lanes holding jobs of the family `F`; `L` is the lane
/// count ([`Lanes<N>`](Lanes)).
#[repr(C)]
pub struct LaneSet<F: Family, J, L: LaneCount<F, J>> {
    /// Chaining state of each lane's job.
    states: L::States,
    /// The job in each lane.
    jobs: L::Jobs,
    /// Lanes holding a job.
    busy: u32,
    /// Lanes whose job has nothing left to compress.
    done: u32,
}

/// A lane set of its family's size ([`Family::Lanes`]): what a job
/// manager holds.
pub type FamilySet<F, J> = LaneSet<F, J, <F as Family>::Lanes<J>>;

impl<F: Family, J: LaneJob<F>, L: LaneCount<F, J>> LaneSet<F, J, L> {
    /// An empty set.
    // Not inlined: called, it writes straight into the caller's memory (a
    // manager's field), where inlined code would build the kilobyte of
    // lanes on the stack and then copy it.
    #[inline(never)]
    pub fn new() -> Self {
        LaneSet {
            states: L::states(),
            jobs: L::jobs(),
            busy: 0,
            done: 0,
        }
    }

    /// The number of lanes.
    pub const fn lanes(&self) -> usize {
        L::N
    }

    /// Lanes holding a job, as a bit mask.
    #[inline]
    pub fn busy(&self) -> u32 {
        self.busy
    }

    /// Jobs held.
    #[inline]
    pub fn in_flight(&self) -> usize {
        self.busy.count_ones() as usize
    }

    /// True if no job is held.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.busy == 0
    }

    /// The jobs held, with their lanes.
    pub fn jobs(&self) -> impl Iterator<Item = (usize, &J)> {
        self.jobs
            .as_ref()
            .iter()
            .enumerate()
            .filter_map(|(i, j)| j.as_ref().map(|j| (i, j)))
    }

    /// Puts `job`, whose chaining state is `state`, in the lowest free
    /// lane; returns the lane. A job with no blocks is done at once.
    ///
    /// # Panics
    /// If every lane is busy.
    #[inline]
    pub fn insert(&mut self, state: F::State, job: J) -> usize {
        let i = (!self.busy).trailing_zeros() as usize;
        assert!(i < L::N, "a lane set has a free lane for an insert");
        if job.blocks().is_empty() {
            self.done |= 1 << i;
        }
        self.states.as_mut()[i] = state;
        self.jobs.as_mut()[i] = Some(job);
        self.busy |= 1 << i;
        i
    }

    /// Runs the busy lanes until some job is done; returns its lane (the
    /// lowest done one), or `None` if the set is empty.
    ///
    /// Each round compresses the shortest busy job's block count in every
    /// busy lane, in one engine call; idle lanes get a busy lane's blocks as
    /// filler (their states are garbage afterwards). A lone busy lane runs
    /// on the engine's one-stream path.
    #[inline(always)]
    pub fn run<E: LaneEngine<F>>(&mut self, engine: &E) -> Option<usize> {
        // A job already done (what a submit to a full set of short jobs
        // finds most of the time) and an empty set inline in the caller;
        // running lanes in a call.
        if self.done != 0 {
            return Some(self.done.trailing_zeros() as usize);
        }
        if self.busy == 0 {
            return None;
        }
        self.run_busy(engine)
    }

    /// [`LaneSet::run`] with no job done: one busy lane on the engine's
    /// one-stream kernel here, rounds over several lanes in a call.
    #[inline]
    fn run_busy<E: LaneEngine<F>>(&mut self, engine: &E) -> Option<usize> {
        loop {
            if self.done != 0 {
                return Some(self.done.trailing_zeros() as usize);
            }
            let busy = self.busy;
            if busy == 0 {
                return None;
            }
            if !busy.is_power_of_two() {
                return self.run_rounds(engine);
            }
            let i = busy.trailing_zeros() as usize;
            let job = self.jobs.as_mut()[i]
                .as_mut()
                .expect("a busy lane has a job");
            let blocks = job.blocks();
            let n = blocks.len();
            engine.compress_one(&mut self.states.as_mut()[i], blocks);
            if job.advance(n) {
                self.done |= 1 << i;
            }
        }
    }

    /// [`LaneSet::run`] with at least two busy lanes: rounds until some job
    /// is done.
    #[inline(never)]
    fn run_rounds<E: LaneEngine<F>>(&mut self, engine: &E) -> Option<usize> {
        while self.done == 0 {
            let busy = self.busy;
            self.done = Self::round(engine, self.states.as_mut(), self.jobs.as_mut(), busy);
        }
        Some(self.done.trailing_zeros() as usize)
    }

    /// One round over the busy lanes (at least two): the shortest job's
    /// block count in every lane, on the engine's narrow kernels lane by
    /// lane or in one call of a wide one; returns the lanes whose
    /// job is done. The engine sees as many lanes as it has (or up to the
    /// highest busy one), not the whole set: a 4-lane engine under a set of
    /// 8 fills and runs 4.
    #[inline]
    fn round<E: LaneEngine<F>>(
        engine: &E,
        states: &mut [F::State],
        jobs: &mut [Option<J>],
        busy: u32,
    ) -> u32 {
        let blocks_of = |i: usize| jobs[i].as_ref().map_or(&[][..], |j| j.blocks());
        let n = lanes_of(busy)
            .map(|i| blocks_of(i).len())
            .min()
            .unwrap_or(0);
        // Lanes that run one by one, or a few per call, need no array of
        // every lane's blocks.
        if engine.compress_sparse(states, |i| &blocks_of(i)[..n], busy) {
            return Self::advance_all(jobs, busy, n);
        }
        debug_assert!(n > 0, "busy lanes that are not done have blocks");
        // The blocks' array (of the set's size) lives in this block: the
        // jobs it borrows are advanced after it.
        {
            // Every lane starts with the filler and the busy ones get their
            // own blocks: no branch per lane on whether it is busy.
            let filler = &blocks_of(busy.trailing_zeros() as usize)[..n];
            let mut blocks = L::array::<&[F::Block]>(|_| filler);
            let blocks = blocks.as_mut();
            for i in lanes_of(busy) {
                blocks[i] = &blocks_of(i)[..n];
            }
            let width = engine
                .lanes()
                .max(32 - busy.leading_zeros() as usize)
                .min(L::N);
            engine.compress_lanes(&mut states[..width], &blocks[..width], busy);
        }
        Self::advance_all(jobs, busy, n)
    }

    /// Moves every busy lane's job past `n` blocks; returns the lanes whose
    /// job is done.
    #[inline]
    fn advance_all(jobs: &mut [Option<J>], busy: u32, n: usize) -> u32 {
        let mut done = 0;
        for i in lanes_of(busy) {
            if jobs[i].as_mut().is_some_and(|j| j.advance(n)) {
                done |= 1 << i;
            }
        }
        done
    }

    /// Runs every job to its end, handing each done one to `f` with its
    /// lane and state as it finishes (lowest lane first within a round);
    /// the set is empty afterwards.
    pub fn run_all<E: LaneEngine<F>>(&mut self, engine: &E, mut f: impl FnMut(usize, F::State, J)) {
        loop {
            while self.done != 0 {
                let i = self.done.trailing_zeros() as usize;
                let (state, job) = self.take(i);
                f(i, state, job);
            }
            if self.busy == 0 {
                return;
            }
            if self.busy.is_power_of_two() {
                self.run(engine);
                continue;
            }
            let busy = self.busy;
            self.done = Self::round(engine, self.states.as_mut(), self.jobs.as_mut(), busy);
        }
    }

    /// Takes the job out of lane `i` with its chaining state.
    ///
    /// # Panics
    /// If lane `i` holds no job.
    #[inline]
    pub fn take(&mut self, i: usize) -> (F::State, J) {
        let job = self.jobs.as_mut()[i].take().expect("a job in the lane");
        // A job is in a lane exactly when its busy bit is set, so the xor
        // clears it. Unlike two `&= !bit`, the two updates are not the same
        // operation, which keeps the compiler from merging them into one
        // 8-byte load of both masks: that load cannot be forwarded from the
        // 4-byte store of `done` a round has just made, and stalls.
        self.busy ^= 1 << i;
        self.done &= !(1 << i);
        (self.states.as_ref()[i], job)
    }
}

impl<F: Family, J: LaneJob<F>, L: LaneCount<F, J>> Default for LaneSet<F, J, L> {
    fn default() -> Self {
        Self::new()
    }
}

impl<F: Family, J, L: LaneCount<F, J>> fmt::Debug for LaneSet<F, J, L> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LaneSet")
            .field("lanes", &L::N)
            .field("busy", &format_args!("{:#x}", self.busy))
            .field("done", &format_args!("{:#x}", self.done))
            .finish()
    }
}

/// A job of blocks in a slice (e.g. a padded message): done when they are.
#[derive(Clone, Copy, Debug)]
pub struct SliceJob<'a, F: Family> {
    /// The blocks left.
    pub blocks: &'a [F::Block],
}

impl<F: Family> LaneJob<F> for SliceJob<'_, F> {
    #[inline]
    fn blocks(&self) -> &[F::Block] {
        self.blocks
    }

    #[inline]
    fn advance(&mut self, n: usize) -> bool {
        self.blocks = &self.blocks[n..];
        self.blocks.is_empty()
    }
}
