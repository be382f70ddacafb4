//! The job manager ("scheduler" in isa-l_crypto): jobs of whole blocks in
//! SIMD lanes, kept in the caller's manager memory.
//!
//! As in isa-l_crypto, a submit puts the job in a free lane and returns at
//! once while lanes are free; when every lane of the engine is busy it runs
//! the lanes for as many blocks as the shortest job has left and returns
//! that job. A flush does the same with the lanes that are busy; several
//! jobs may finish in one run, and the next call returns one of them
//! without running anything.

use core::ptr::{self, NonNull};

use mbhash_core::engine::LaneEngine;
use mbhash_core::lanes::{FamilySet, LaneJob, LaneSet};

use super::layout::{HashCtx, IsalFamily};
use super::{JOB_BEING_PROCESSED, JOB_COMPLETED};

/// "mbhI": an initialised manager.
const MAGIC_READY: u32 = 0x4968_626d;
/// A manager inside a call; still set after a panic escaped from one.
const MAGIC_BUSY: u32 = 0x4268_626d;

/// What a manager's state says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum MgrState {
    /// Initialised and between calls.
    Ready,
    /// A panic left it in the middle of a call: it refuses work.
    Poisoned,
    /// Not initialised (or not a manager).
    Uninitialised,
}

/// A job in a lane: a context whose `job.buffer` and `job.len` are its
/// blocks (left as they are, as in isa-l_crypto), and how many of them are
/// done.
pub(crate) struct IsalJob<F: IsalFamily> {
    ctx: NonNull<HashCtx<F>>,
    done: u64,
}

impl<F: IsalFamily> LaneJob<F> for IsalJob<F> {
    #[inline]
    fn blocks(&self) -> &[F::Block] {
        let ctx = self.ctx.as_ptr();
        // SAFETY: a context in a lane is valid and nobody refers to it until
        // it comes back (the contract of `LaneMgr::submit`); its job's
        // buffer is readable for `len` blocks until then, and not written
        // (contexts whose partial block is in a lane are not referenced
        // while their job is in flight). Fields are read through the raw
        // pointer.
        unsafe {
            let data = (&raw const (*ctx).job.buffer).read().cast::<F::Block>();
            let len = (&raw const (*ctx).job.len).read();
            core::slice::from_raw_parts(
                data.cast_const().add(self.done as usize),
                (len - self.done) as usize,
            )
        }
    }

    #[inline]
    fn advance(&mut self, n: usize) -> bool {
        self.done += n as u64;
        // SAFETY: as in `blocks`.
        self.done == unsafe { (&raw const (*self.ctx.as_ptr()).job.len).read() }
    }
}

/// What lives inside an `ISAL_SHA*_HASH_CTX_MGR`: the lane set of
/// `mbhash-core` (the jobs are the contexts themselves, as in
/// isa-l_crypto), the engine and its lane count: 792 of the 848 bytes of
/// the SHA-256 manager, 664 of the 720 of the SHA-512 one.
#[repr(C)]
pub(crate) struct LaneMgr<F: IsalFamily> {
    set: FamilySet<F, IsalJob<F>>,
    /// The configured engine, looked up once per process.
    engine: &'static F::Engine,
    /// Lanes the engine fills before a submit runs it.
    lane_count: u32,
    /// [`MAGIC_READY`] once initialised, [`MAGIC_BUSY`] during a call.
    magic: u32,
}

impl<F: IsalFamily> LaneMgr<F> {
    /// An empty manager on `engine`.
    pub(crate) fn new(engine: &'static F::Engine) -> Self {
        LaneMgr {
            set: LaneSet::new(),
            engine,
            lane_count: engine.lanes().clamp(1, F::MAX_LANES) as u32,
            magic: MAGIC_READY,
        }
    }

    /// Reads the state of the manager at `this` (its magic word only).
    ///
    /// # Safety
    /// `this` is aligned and valid for reads of `F::MGR_SIZE` bytes.
    pub(crate) unsafe fn state(this: *const Self) -> MgrState {
        // SAFETY: the field is inside the manager's memory (our layout is
        // smaller than the C type, checked in `layout`); a plain integer read
        // through a raw pointer.
        match unsafe { (&raw const (*this).magic).read() } {
            MAGIC_READY => MgrState::Ready,
            MAGIC_BUSY => MgrState::Poisoned,
            _ => MgrState::Uninitialised,
        }
    }

    /// Marks the manager inside a call (poisoned if the call never ends).
    pub(crate) fn enter(&mut self) {
        self.magic = MAGIC_BUSY;
    }

    /// Marks the call finished.
    pub(crate) fn leave(&mut self) {
        self.magic = MAGIC_READY;
    }

    /// True if `ctx`'s job is in a lane.
    #[inline]
    pub(crate) fn holds(&self, ctx: *const HashCtx<F>) -> bool {
        self.set.jobs().any(|(_, j)| ptr::eq(j.ctx.as_ptr(), ctx))
    }

    /// Puts `ctx`'s job (`job.len` blocks at `job.buffer`, state in
    /// `job.result_digest`) in a free lane. Returns a finished job's context
    /// when every lane was busy, else NULL.
    ///
    /// # Safety
    /// `ctx` points to a context that is in no lane, to which no reference
    /// exists now, and that stays valid and untouched until it comes back
    /// from this manager; its job's buffer is readable for `job.len` blocks
    /// until then.
    pub(crate) unsafe fn submit(&mut self, ctx: *mut HashCtx<F>) -> *mut HashCtx<F> {
        // SAFETY: `ctx` is valid and nobody refers to it (the caller's
        // contract); plain field accesses through the raw pointer.
        let state = unsafe {
            (&raw mut (*ctx).job.status).write(JOB_BEING_PROCESSED);
            (&raw const (*ctx).job.result_digest).read()
        };
        let job = IsalJob {
            ctx: NonNull::new(ctx).expect("a checked context"),
            done: 0,
        };
        self.set.insert(state, job);
        if self.set.in_flight() < self.lane_count as usize {
            return ptr::null_mut();
        }
        self.flush()
    }

    /// Runs the busy lanes until a job finishes and returns its context;
    /// NULL if no lane is busy.
    #[inline]
    pub(crate) fn flush(&mut self) -> *mut HashCtx<F> {
        match self.set.run(self.engine) {
            Some(i) => self.retire(i),
            None => ptr::null_mut(),
        }
    }

    /// Takes the finished job out of lane `i`: writes its state back to
    /// its context and returns the context.
    fn retire(&mut self, i: usize) -> *mut HashCtx<F> {
        let (state, job) = self.set.take(i);
        let ctx = job.ctx.as_ptr();
        // SAFETY: a busy lane's context is valid and nobody refers to it
        // until it comes back (the contract of `submit`), which is now.
        unsafe {
            (&raw mut (*ctx).job.result_digest).write(state);
            (&raw mut (*ctx).job.status).write(JOB_COMPLETED);
        }
        ctx
    }
}

/// The blocks of a context's partial block buffer (raw, with the context
/// pointer's provenance).
pub(crate) fn partial_blocks<F: IsalFamily>(ctx: *mut HashCtx<F>) -> *const F::Block {
    // Address arithmetic only: nothing is read, no reference is made.
    ctx.wrapping_byte_add(core::mem::offset_of!(HashCtx<F>, partial))
        .cast::<F::Block>()
        .cast_const()
}
