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

use super::layout::{HashCtx, IsalFamily, Job, Tail};
use super::{JOB_BEING_PROCESSED, JOB_COMPLETED};

/// A manager inside a call; still set after a panic escaped from one
/// ("mbhBmbhB"; between calls the tag is the family's
/// [`IsalFamily::READY`]).
const MAGIC_BUSY: u64 = 0x4268_626d_4268_626d;

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
/// blocks (left as they are, as in isa-l_crypto); how many of them are done
/// is kept in the job's padding (`Job::done`), so that a lane's job is one
/// pointer, as isa-l_crypto's `job_in_lane`.
pub(crate) struct IsalJob<F: IsalFamily> {
    ctx: NonNull<HashCtx<F>>,
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
            let len = Job::blocks(&raw const (*ctx).job);
            let done = (&raw const (*ctx).job.done).read();
            core::slice::from_raw_parts(data.cast_const().add(done as usize), (len - done) as usize)
        }
    }

    #[inline]
    fn advance(&mut self, n: usize) -> bool {
        let ctx = self.ctx.as_ptr();
        // SAFETY: as in `blocks`; the padding is the manager's while the
        // context is in a lane.
        unsafe {
            let done = (&raw const (*ctx).job.done).read() + n as u64;
            (&raw mut (*ctx).job.done).write(done);
            done == Job::blocks(&raw const (*ctx).job)
        }
    }
}

/// What lives inside an `ISAL_<FAMILY>_HASH_CTX_MGR`, laid over
/// isa-l_crypto's fields so that a new manager holds what isa-l_crypto's
/// `*_ctx_mgr_init` leaves in each (see `layout`): the lane set of
/// `mbhash-core` (the jobs are the contexts themselves, as in isa-l_crypto)
/// over `args` (chaining states and job pointers, zero when empty) and the
/// first 8 bytes of `lens` (the busy and done masks, zero when empty: where
/// isa-l_crypto's MD5 manager leaves 0xFFFFFFFF in `lens[0]` and `lens[1]`,
/// the one difference from its initial values); then the family's [`MgrTail`](super::layout::MgrTail): the rest
/// of `args` and `lens` as isa-l_crypto sets them, and the tag over
/// `unused_lanes`, whose initial value it is. The bytes after it (`ldata`,
/// `num_lanes_inuse`) are zero. The engine is the family's (not kept here:
/// a pointer would be no initial value of isa-l_crypto's).
#[repr(C)]
pub(crate) struct LaneMgr<F: IsalFamily> {
    set: FamilySet<F, IsalJob<F>>,
    /// Never changed but for the tag: [`IsalFamily::READY`] between
    /// calls, [`MAGIC_BUSY`] during one.
    tail: F::MgrTail,
}

impl<F: IsalFamily> LaneMgr<F> {
    /// Bytes of the lane set, and where the tag is (for `layout`'s checks).
    pub(crate) const SET_SIZE: usize = core::mem::size_of::<FamilySet<F, IsalJob<F>>>();
    pub(crate) const MAGIC_OFFSET: usize =
        core::mem::offset_of!(Self, tail) + <F::MgrTail as Tail>::MAGIC_OFFSET;

    /// Builds an empty manager at `this`: every byte of the C manager as
    /// isa-l_crypto's initialisation leaves it.
    ///
    /// # Safety
    /// `this` is aligned and valid for writes of `F::MGR_SIZE` bytes.
    pub(crate) unsafe fn init(this: *mut Self) {
        // SAFETY: the caller's contract; our layout is within the C type
        // (checked in `layout`). Zeroed first: the bytes past our fields
        // are isa-l_crypto's `ldata` and `num_lanes_inuse`, zero there.
        unsafe {
            this.cast::<u8>().write_bytes(0, F::MGR_SIZE);
            (&raw mut (*this).set).write(LaneSet::new());
            (&raw mut (*this).tail).write(F::MGR_TAIL);
        }
    }

    /// The family's engine now (see `api::engine`). A manager is
    /// initialised only once the engine was found; if the default has since
    /// gone back to an environment variable that names no usable engine
    /// (`mbh_set_engine` then a reset), the call runs on `auto`, as every
    /// infallible path does.
    fn engine() -> &'static F::Engine {
        match super::api::engine::<F>() {
            Ok(engine) => engine,
            #[cfg(feature = "std")]
            Err(_) => <F::Engine as mbhash_core::engine::LaneEngine<F>>::auto_static(),
            #[cfg(not(feature = "std"))]
            Err(_) => unreachable!("without std the engine is looked up once, at init"),
        }
    }

    /// Lanes the engine fills before a submit runs it.
    fn lane_count() -> usize {
        Self::engine().lanes().clamp(1, F::MAX_LANES)
    }

    /// Reads the state of the manager at `this` (its magic word only).
    ///
    /// # Safety
    /// `this` is aligned and valid for reads of `F::MGR_SIZE` bytes.
    pub(crate) unsafe fn state(this: *const Self) -> MgrState {
        // SAFETY: the tag is inside the manager's memory (our layout is
        // smaller than the C type, checked in `layout`), at an offset that
        // is a multiple of 8 (a `u64` field); a plain integer read through a
        // raw pointer.
        match unsafe { this.byte_add(Self::MAGIC_OFFSET).cast::<u64>().read() } {
            m if m == F::READY => MgrState::Ready,
            MAGIC_BUSY => MgrState::Poisoned,
            _ => MgrState::Uninitialised,
        }
    }

    /// Marks the manager inside a call (poisoned if the call never ends).
    pub(crate) fn enter(&mut self) {
        *self.tail.magic_mut() = MAGIC_BUSY;
    }

    /// Marks the call finished.
    pub(crate) fn leave(&mut self) {
        *self.tail.magic_mut() = F::READY;
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
            (&raw mut (*ctx).job.done).write(0);
            (&raw const (*ctx).job.result_digest).read()
        };
        let job = IsalJob {
            ctx: NonNull::new(ctx).expect("a checked context"),
        };
        self.set.insert(state, job);
        if self.set.in_flight() < Self::lane_count() {
            return ptr::null_mut();
        }
        self.flush()
    }

    /// Runs the busy lanes until a job finishes and returns its context;
    /// NULL if no lane is busy.
    #[inline]
    pub(crate) fn flush(&mut self) -> *mut HashCtx<F> {
        match self.set.run(Self::engine()) {
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
