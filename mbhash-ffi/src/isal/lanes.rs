//! The job manager ("scheduler" in isa-l_crypto): jobs of whole blocks in
//! SIMD lanes, kept in the caller's manager memory.
//!
//! As in isa-l_crypto, a submit puts the job in a free lane and returns at
//! once while lanes are free; when every lane of the engine is busy it runs
//! the lanes for as many blocks as the shortest job has left and returns
//! that job. A flush does the same with the lanes that are busy; several
//! jobs may finish in one run, and the next call returns one of them
//! without running anything.

use core::ptr;

use mbhash_core::alg::{Algorithm, MAX_LANES};
use mbhash_core::engine::LaneEngine;

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

/// The lane state inside an `ISAL_SHA*_HASH_CTX_MGR` (lane-major, like
/// isa-l_crypto's arguments but not transposed). 840 bytes for SHA-256,
/// 680 for SHA-512.
#[repr(C)]
pub(crate) struct LaneMgr<F: IsalFamily> {
    /// Chaining state of each lane's job.
    states: F::Lanes<[F::Word; 8]>,
    /// Next block of each lane's job.
    data: F::Lanes<*const F::Block>,
    /// Blocks left in each lane's job.
    blocks: F::Lanes<u32>,
    /// The context whose job is in each lane (NULL when free).
    jobs: F::Lanes<*mut HashCtx<F>>,
    /// Lanes holding a job.
    busy: u32,
    /// [`MAGIC_READY`] once initialised, [`MAGIC_BUSY`] during a call.
    magic: u32,
}

impl<F: IsalFamily> LaneMgr<F> {
    /// An empty manager.
    pub(crate) fn new() -> Self {
        LaneMgr {
            states: F::lanes(<F::Alg as Algorithm>::IV),
            data: F::lanes(ptr::null()),
            blocks: F::lanes(0),
            jobs: F::lanes(ptr::null_mut()),
            busy: 0,
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
    pub(crate) fn holds(&self, ctx: *const HashCtx<F>) -> bool {
        self.busy != 0 && self.jobs.as_ref().iter().any(|&j| ptr::eq(j, ctx))
    }

    /// Lanes this engine fills before a submit runs the kernels.
    fn lane_count(engine: &F::Engine) -> usize {
        engine.lanes().clamp(1, F::MAX_LANES)
    }

    /// Puts `ctx`'s job (`blocks` blocks at `data`, state in
    /// `ctx.job.result_digest`) in a free lane. Returns a finished job's
    /// context when every lane was busy, else NULL.
    ///
    /// # Safety
    /// `ctx` points to a context that is in no lane, to which no reference
    /// exists now, and that stays valid and untouched until it comes back
    /// from this manager; `data` is readable for `blocks` blocks until then.
    pub(crate) unsafe fn submit(
        &mut self,
        engine: &F::Engine,
        ctx: *mut HashCtx<F>,
        data: *const F::Block,
        blocks: u32,
    ) -> *mut HashCtx<F> {
        let lanes = Self::lane_count(engine);
        // A submit that fills the last lane runs until one is free again, and
        // the configured engine (so the lane count) is fixed per process.
        let free = !self.busy & ((1u32 << lanes) - 1);
        assert!(free != 0, "a free lane exists between calls");
        let i = free.trailing_zeros() as usize;
        // SAFETY: `ctx` is valid and nobody refers to it (the caller's
        // contract); plain field accesses through the raw pointer.
        unsafe {
            self.states.as_mut()[i] = (&raw const (*ctx).job.result_digest).read();
            (&raw mut (*ctx).job.status).write(JOB_BEING_PROCESSED);
        }
        self.data.as_mut()[i] = data;
        self.blocks.as_mut()[i] = blocks;
        self.jobs.as_mut()[i] = ctx;
        self.busy |= 1 << i;
        if (self.busy.count_ones() as usize) < lanes {
            return ptr::null_mut();
        }
        let i = self.run(engine);
        self.retire(i)
    }

    /// Runs the busy lanes until a job finishes and returns its context;
    /// NULL if no lane is busy.
    pub(crate) fn flush(&mut self, engine: &F::Engine) -> *mut HashCtx<F> {
        if self.busy == 0 {
            return ptr::null_mut();
        }
        let i = self.run(engine);
        self.retire(i)
    }

    /// Runs the busy lanes (at least one) until one has no block left;
    /// returns it.
    fn run(&mut self, engine: &F::Engine) -> usize {
        let busy = self.busy;
        debug_assert!(busy != 0);
        let blocks = self.blocks.as_ref();
        let mut n = u32::MAX;
        for i in lanes_of(busy) {
            if blocks[i] == 0 {
                // Finished in an earlier run.
                return i;
            }
            n = n.min(blocks[i]);
        }
        let first = busy.trailing_zeros() as usize;
        let data = self.data.as_ref();
        let lane_blocks: [&[F::Block]; MAX_LANES] = core::array::from_fn(|i| {
            let lane = if i < F::MAX_LANES && busy & (1 << i) != 0 {
                i
            } else {
                first
            };
            // SAFETY: a busy lane's data is readable for its remaining
            // blocks, at least `n`, until its job comes back (the contract
            // of `submit`); nothing writes it meanwhile (contexts whose
            // partial block is in a lane are not referenced while a job is
            // in flight).
            unsafe { core::slice::from_raw_parts(data[lane], n as usize) }
        });
        let states = self.states.as_mut();
        match <&mut [[F::Word; 8]; MAX_LANES]>::try_from(&mut *states) {
            Ok(all) => engine.compress_lanes(all, &lane_blocks, busy),
            Err(_) => {
                // Fewer lanes than the engine's array (SHA-512): run a copy.
                let mut all = [[F::Word::default(); 8]; MAX_LANES];
                all[..states.len()].copy_from_slice(states);
                engine.compress_lanes(&mut all, &lane_blocks, busy);
                states.copy_from_slice(&all[..states.len()]);
            }
        }
        let mut done = None;
        for i in lanes_of(busy) {
            self.data.as_mut()[i] = lane_blocks[i].as_ptr_range().end;
            let left = &mut self.blocks.as_mut()[i];
            *left -= n;
            if *left == 0 && done.is_none() {
                done = Some(i);
            }
        }
        done.expect("the shortest job finishes")
    }

    /// Takes the finished job out of lane `i`: writes its state back to
    /// its context and returns the context.
    fn retire(&mut self, i: usize) -> *mut HashCtx<F> {
        let ctx = core::mem::replace(&mut self.jobs.as_mut()[i], ptr::null_mut());
        let state = self.states.as_ref()[i];
        // SAFETY: a busy lane's context is valid and nobody refers to it
        // until it comes back (the contract of `submit`), which is now.
        unsafe {
            (&raw mut (*ctx).job.result_digest).write(state);
            (&raw mut (*ctx).job.status).write(JOB_COMPLETED);
        }
        self.data.as_mut()[i] = ptr::null();
        self.busy &= !(1 << i);
        ctx
    }
}

/// The set bits of `mask`, lowest first.
fn lanes_of(mask: u32) -> impl Iterator<Item = usize> {
    let mut m = mask;
    core::iter::from_fn(move || {
        (m != 0).then(|| {
            let i = m.trailing_zeros() as usize;
            m &= m - 1;
            i
        })
    })
}

/// The blocks of a context's partial block buffer (raw, with the context
/// pointer's provenance).
pub(crate) fn partial_blocks<F: IsalFamily>(ctx: *mut HashCtx<F>) -> *const F::Block {
    // Address arithmetic only: nothing is read, no reference is made.
    ctx.wrapping_byte_add(core::mem::offset_of!(HashCtx<F>, partial_block_buffer))
        .cast::<F::Block>()
        .cast_const()
}
