//! Engines: which kernels run a family's lanes, chosen at run time.
//!
//! This module is the one place that knows about instruction sets. Everything
//! else (the job manager, the hashers) asks an engine for its lane count and
//! calls `compress_lanes` / `compress_one`.
//!
//! Every family has an `auto` engine that picks, per kernel call, the
//! cheapest way to run the lanes that are busy: one wide SIMD pass, a few
//! narrow ones, or interleaved SHA-NI streams. The costs it compares are
//! measured on this CPU the first time `auto` is used (a calibration of about
//! half a millisecond per family that a busy machine does not sway: see
//! `calibrate.rs`), not assumed.
//!
//! An engine can be forced by name, through an API (`JobManager::with_engine`)
//! or an environment variable read once per process
//! (`MBHASH_SHA256_ENGINE`, `MBHASH_SHA512_ENGINE`). An unknown or unsupported
//! name is an [`EngineError`] that lists the valid names; there is no silent
//! fallback.
//!
//! ```
//! use mbhash_core::engine::Sha256Engine;
//! let scalar = Sha256Engine::from_name("scalar").unwrap();
//! assert_eq!(scalar.name(), "scalar");
//! let err = Sha256Engine::from_name("sha3").unwrap_err();
//! assert!(err.to_string().contains("valid engines: auto, scalar"));
//! ```

#[cfg(feature = "std")]
mod calibrate;
mod md5;
mod plan;
mod sha1;
mod sha256;
mod sha512;
mod sm3;

pub use md5::Md5Kernels;
pub use plan::{NarrowSplit, Plan, Step};
pub use sha1::Sha1Kernels;
pub use sha256::Sha256Kernels;
pub use sha512::Sha512Kernels;
pub use sm3::Sm3Kernels;

#[cfg(feature = "std")]
use crate::race::Race;
use core::fmt;
use core::sync::atomic::{AtomicU8, Ordering};

use crate::alg::{Family, MAX_LANES};

/// What the job manager needs from an engine.
pub trait LaneEngine<F: Family>: Copy + fmt::Debug + Send + Sync + 'static {
    /// Lanes the manager fills before it runs kernels on a submit (at most
    /// [`MAX_LANES`]).
    fn lanes(&self) -> usize;

    /// Runs the lanes whose bit is set in `busy` over their blocks.
    ///
    /// `states` and `blocks` have one entry per lane, any number of lanes
    /// up to [`MAX_LANES`]; `busy` names lanes below that number. Every
    /// lane, busy or not, holds the same number of blocks (idle lanes point
    /// at some busy lane's blocks), so a kernel may run them all; the state
    /// of an idle lane is garbage after the call.
    fn compress_lanes(&self, states: &mut [F::State], blocks: &[&[F::Block]], busy: u32);

    /// Runs a single stream.
    fn compress_one(&self, state: &mut F::State, blocks: &[F::Block]);

    /// The engine's one-stream kernel as a value of a few bytes: what a
    /// one-stream hasher keeps (an engine, with its plan for every lane
    /// count, is over a hundred bytes to copy).
    type Single: SingleStream<F>;

    /// This engine's one-stream kernel.
    fn single(&self) -> Self::Single;

    /// The configured engine's one-stream kernel: `configured().single()`,
    /// without building the whole engine.
    fn configured_single() -> Self::Single;

    /// The engine's name as accepted by `from_name`.
    fn name(&self) -> &'static str;

    /// The family's engine with this name.
    ///
    /// # Errors
    /// Unknown or unsupported names; the error lists the valid ones.
    fn from_name(name: &str) -> Result<Self, EngineError>;

    /// True if the family's engine with this name runs on this CPU.
    fn is_supported(name: &str) -> bool;

    /// Every engine name of the family, `auto` first.
    fn names() -> impl Iterator<Item = &'static str>;

    /// The engine as a value of the one type of every family's engines.
    fn into_any(self) -> AnyEngine;

    /// The engine in `any`, if it is one of this family's.
    fn from_any(any: AnyEngine) -> Option<Self>;

    /// The engine named by the family's environment variable, or `auto`
    /// when it is unset.
    ///
    /// # Errors
    /// When the variable names an unknown or unsupported engine.
    fn try_configured() -> Result<Self, EngineError>;

    /// The engine named by the family's environment variable; `auto` when
    /// it is unset or names an engine that cannot run (that error is
    /// [`LaneEngine::try_configured`]'s). Never panics, never prints.
    fn configured() -> Self;

    /// [`LaneEngine::try_configured`], kept for the process (see
    /// [`Engine::configured_static`]).
    #[cfg(feature = "std")]
    fn configured_static() -> &'static Result<Self, EngineError>;

    /// The process's calibrated `auto` engine.
    #[cfg(feature = "std")]
    fn auto_static() -> &'static Self;
}

/// An engine's one-stream kernel ([`LaneEngine::single`]): what the
/// one-stream hashers run.
pub trait SingleStream<F: Family>: Copy + fmt::Debug + Send + Sync + 'static {
    /// Compresses `blocks` into `state`.
    fn compress(&self, state: &mut F::State, blocks: &[F::Block]);

    /// The name of the engine it came from.
    fn name(&self) -> &'static str;
}

/// The one-stream kernel of an [`Engine`]: its name, the step its plan
/// runs one lane on, and the kernels.
#[derive(Clone, Copy, Debug)]
pub struct Single<K: Kernels> {
    name: &'static str,
    step: Step,
    kernels: K,
}

impl<K: Kernels> SingleStream<K::Family> for Single<K> {
    #[inline]
    fn compress(
        &self,
        state: &mut <K::Family as Family>::State,
        blocks: &[<K::Family as Family>::Block],
    ) {
        let k = &self.kernels;
        match self.step {
            Step::Scalar | Step::Narrow1 => k.run_one(self.step, state, blocks),
            // An engine without a one-lane kernel: its narrowest call, the
            // other lanes running copies of this one.
            Step::Narrow2 => {
                let mut dummy = *state;
                k.run_x2([state, &mut dummy], [blocks; 2]);
            }
            Step::Narrow4 => {
                let mut dummies = [*state; 3];
                let [b, c, d] = &mut dummies;
                k.run_x4([state, b, c, d], [blocks; 4]);
            }
            Step::Mid | Step::Wide => {
                let w = Engine::<K>::width(self.step) as usize;
                let mut lanes = [*state; MAX_LANES];
                k.run_group(self.step, &mut lanes[..w], &[blocks; MAX_LANES][..w]);
                *state = lanes[0];
            }
        }
    }

    fn name(&self) -> &'static str {
        self.name
    }
}

/// A family's set of kernels, as detected on this CPU: the ISA-specific half
/// of an [`Engine`].
pub trait Kernels: Copy + fmt::Debug + Send + Sync + 'static {
    /// The family the kernels compress.
    type Family: Family;
    /// Family name in messages, e.g. `"sha256"`.
    const FAMILY: &'static str;
    /// The environment variable that names the configured engine.
    const ENV_VAR: &'static str;
    /// Engine names (but `auto`) and the steps each may run.
    const KINDS: &'static [(&'static str, &'static [Step])];
    /// Lanes of the mid-width kernel (0 if none).
    const MID_WIDTH: u32;
    /// Lanes of the wide kernel (0 if none).
    const WIDE_WIDTH: u32;
    /// Costs per block per call (ns, indexed like [`Step::ALL`]) that `auto`
    /// uses without `std`, where it cannot measure: figures measured on an
    /// AVX-512 + SHA-NI CPU (AMD Zen 5).
    const DEFAULT_COST: [f32; 6];

    /// Detects the kernels (each a proof token, `None` when unavailable).
    fn detect() -> Self;
    /// True if this CPU runs `step`.
    fn has(&self, step: Step) -> bool;
    /// The kernel name behind a step, as shown by `mbhash engines`.
    fn step_name(step: Step) -> &'static str;
    /// Runs one lane on a one-lane step (`Scalar` or `Narrow1`).
    fn run_one(
        &self,
        step: Step,
        state: &mut <Self::Family as Family>::State,
        blocks: &[<Self::Family as Family>::Block],
    );
    /// Runs two lanes on the two-lane step.
    fn run_x2(
        &self,
        states: [&mut <Self::Family as Family>::State; 2],
        blocks: [&[<Self::Family as Family>::Block]; 2],
    );
    /// Runs four lanes on the four-lane step.
    fn run_x4(
        &self,
        states: [&mut <Self::Family as Family>::State; 4],
        blocks: [&[<Self::Family as Family>::Block]; 4],
    );
    /// Runs one aligned group of `MID_WIDTH` or `WIDE_WIDTH` lanes.
    fn run_group(
        &self,
        step: Step,
        states: &mut [<Self::Family as Family>::State],
        blocks: &[&[<Self::Family as Family>::Block]],
    );
    /// The process-wide `auto` engine cell.
    #[cfg(feature = "std")]
    fn auto_cell() -> &'static Race<Engine<Self>>;
    /// The process-wide configured engine cell.
    #[cfg(feature = "std")]
    fn configured_cell() -> &'static Race<Result<Engine<Self>, EngineError>>;
    /// What [`Engine::configured_static`] keeps for each value of
    /// [`Kernels::default_cell`].
    #[cfg(feature = "std")]
    fn default_cells() -> &'static [Race<Result<Engine<Self>, EngineError>>; 8];
    /// The default set at run time ([`Engine::set_default`]): 0 for none,
    /// 1 for `auto`, `2 + i` for `KINDS[i]`.
    fn default_cell() -> &'static AtomicU8;
    /// The one-lane step `auto`'s one-stream hashers run, as measured by
    /// the one-stream calibration: 0 before it ran, `1 + i` for
    /// `Step::ALL[i]` (an atomic, not a lock: racing first callers each
    /// measure, and a forked child never waits for a thread it lacks).
    fn single_cell() -> &'static AtomicU8;
    /// The engine as an [`AnyEngine`].
    fn wrap(engine: Engine<Self>) -> AnyEngine;
    /// The engine in `any`, if it is of these kernels.
    fn unwrap(any: AnyEngine) -> Option<Engine<Self>>;
}

/// The process-wide cells of a [`Kernels`] impl ([`Kernels::auto_cell`],
/// [`Kernels::configured_cell`], [`Kernels::default_cells`],
/// [`Kernels::default_cell`], [`Kernels::single_cell`]): each family's own
/// statics, written once here.
macro_rules! kernel_cells {
    ($k:ty, $v:ident) => {
        fn wrap(engine: $crate::engine::Engine<Self>) -> $crate::engine::AnyEngine {
            $crate::engine::AnyEngine::$v(engine)
        }

        fn unwrap(any: $crate::engine::AnyEngine) -> Option<$crate::engine::Engine<Self>> {
            match any {
                $crate::engine::AnyEngine::$v(engine) => Some(engine),
                #[allow(unreachable_patterns)]
                _ => None,
            }
        }

        #[cfg(feature = "std")]
        fn auto_cell() -> &'static $crate::race::Race<$crate::engine::Engine<Self>> {
            static CELL: $crate::race::Race<$crate::engine::Engine<$k>> = $crate::race::Race::new();
            &CELL
        }

        #[cfg(feature = "std")]
        fn configured_cell() -> &'static $crate::race::Race<
            Result<$crate::engine::Engine<Self>, $crate::engine::EngineError>,
        > {
            static CELL: $crate::race::Race<
                Result<$crate::engine::Engine<$k>, $crate::engine::EngineError>,
            > = $crate::race::Race::new();
            &CELL
        }

        #[cfg(feature = "std")]
        fn default_cells() -> &'static [$crate::race::Race<
            Result<$crate::engine::Engine<Self>, $crate::engine::EngineError>,
        >; 8] {
            static CELLS: [$crate::race::Race<
                Result<$crate::engine::Engine<$k>, $crate::engine::EngineError>,
            >; 8] = [const { $crate::race::Race::new() }; 8];
            &CELLS
        }

        fn default_cell() -> &'static core::sync::atomic::AtomicU8 {
            static CELL: core::sync::atomic::AtomicU8 = core::sync::atomic::AtomicU8::new(0);
            &CELL
        }

        fn single_cell() -> &'static core::sync::atomic::AtomicU8 {
            static CELL: core::sync::atomic::AtomicU8 = core::sync::atomic::AtomicU8::new(0);
            &CELL
        }
    };
}
pub(crate) use kernel_cells;

/// An engine: the kernels it may run and the plan that picks among them.
#[derive(Clone, Copy, Debug)]
pub struct Engine<K: Kernels> {
    name: &'static str,
    lanes: u8,
    plan: Plan,
    kernels: K,
}

impl<K: Kernels> Engine<K> {
    /// Every engine name of the family, `auto` first.
    pub fn names() -> impl Iterator<Item = &'static str> {
        core::iter::once("auto").chain(K::KINDS.iter().map(|(n, _)| *n))
    }

    /// True if the named engine runs on this CPU (after `MBHASH_DISABLE`).
    pub fn is_supported(name: &str) -> bool {
        if name == "auto" {
            return true;
        }
        let kernels = K::detect();
        K::KINDS
            .iter()
            .find(|(n, _)| *n == name)
            .is_some_and(|(_, steps)| steps.iter().all(|s| kernels.has(*s)))
    }

    /// The engine with this name.
    ///
    /// # Errors
    /// Unknown or unsupported names; the error lists the valid ones.
    pub fn from_name(name: &str) -> Result<Self, EngineError> {
        if name == "auto" {
            return Ok(Self::auto());
        }
        let Some((name, steps)) = K::KINDS.iter().find(|(n, _)| *n == name) else {
            return Err(Self::error(name, EngineErrorKind::Unknown));
        };
        if !Self::is_supported(name) {
            return Err(Self::error(name, EngineErrorKind::Unsupported));
        }
        let kernels = K::detect();
        Ok(Engine {
            name,
            lanes: steps.iter().map(|s| Self::width(*s)).max().unwrap_or(1) as u8,
            plan: Plan::only(steps, K::MID_WIDTH, K::WIDE_WIDTH),
            kernels,
        })
    }

    /// The engine named by the family's environment variable (read once
    /// per process), or `auto` when it is unset.
    ///
    /// # Errors
    /// When the variable names an unknown or unsupported engine.
    pub fn try_configured() -> Result<Self, EngineError> {
        match K::default_cell().load(Ordering::Acquire) {
            0 => {}
            1 => return Ok(Self::auto()),
            i => {
                if let Some((name, _)) = K::KINDS.get(usize::from(i) - 2)
                    && let Ok(engine) = Self::from_name(name)
                {
                    return Ok(engine);
                }
            }
        }
        #[cfg(feature = "std")]
        {
            Self::from_env_cell().clone().map(Self::calibrated)
        }
        #[cfg(not(feature = "std"))]
        {
            Ok(Self::auto())
        }
    }

    /// Makes `name` the family's default engine from now on, for the whole
    /// process: what [`Engine::configured`] returns, so the next kernel
    /// call of every pool and service worker, and every new manager and
    /// hasher, runs on it (work already under way finishes on the engine it
    /// started with). It overrides the environment variable. Safe while
    /// other threads hash.
    ///
    /// # Errors
    /// An unknown or unsupported name; the default is then unchanged.
    pub fn set_default(name: &str) -> Result<(), EngineError> {
        let engine = Self::from_name(name)?;
        let code = match K::KINDS.iter().position(|(n, _)| *n == engine.name) {
            Some(i) => i as u8 + 2,
            None => 1,
        };
        K::default_cell().store(code, Ordering::Release);
        Ok(())
    }

    /// Undoes [`Engine::set_default`]: from now on the family's engine is
    /// the one its environment variable names again (`auto` when unset), as
    /// at the start of the process.
    pub fn clear_default() {
        K::default_cell().store(0, Ordering::Release);
    }

    /// Whether [`Engine::set_default`] chose the family's engine (rather
    /// than the environment variable).
    pub fn default_is_set() -> bool {
        K::default_cell().load(Ordering::Acquire) != 0
    }

    /// [`Engine::try_configured`], or `auto` if that is an error: what every
    /// infallible constructor (`JobManager::new`, `StreamHasher::new`,
    /// `hash_many`) runs on.
    pub fn configured() -> Self {
        Self::try_configured().unwrap_or_else(|_| Self::auto())
    }

    /// [`Engine::configured`]'s one-stream kernel. The engines kept for
    /// the process (`auto`, the environment's) are read in place, not
    /// copied: a one-stream hasher asks on every `new`.
    fn configured_single() -> Single<K> {
        #[cfg(feature = "std")]
        {
            match K::default_cell().load(Ordering::Acquire) {
                0 => match Self::from_env_cell() {
                    Ok(engine) if engine.name != "auto" => engine.single(),
                    _ => Self::auto_single(),
                },
                1 => Self::auto_single(),
                _ => Self::configured().single(),
            }
        }
        #[cfg(not(feature = "std"))]
        {
            Self::configured().single()
        }
    }

    /// The engine the family's environment variable names (`auto` when
    /// unset), read once per process. `auto` is kept uncalibrated here
    /// ([`Engine::calibrated`] calibrates it where a caller needs its
    /// plan), so that a one-stream hasher's first use measures only the
    /// one-stream kernels.
    #[cfg(feature = "std")]
    fn from_env_cell() -> &'static Result<Self, EngineError> {
        K::configured_cell().get_or_init(|| {
            from_env::<Self, _>(
                |name| match name {
                    "auto" => Ok(Self::auto_uncalibrated()),
                    _ => Self::from_name(name),
                },
                Self::auto_uncalibrated,
            )
        })
    }

    /// `self`, with `auto`'s plan measured (the process's calibrated
    /// `auto`).
    #[cfg(feature = "std")]
    fn calibrated(self) -> Self {
        if self.name == "auto" {
            Self::auto()
        } else {
            self
        }
    }

    /// The one-stream kernel of `auto`: the calibrated engine's, once a
    /// manager or `hash_many` made one calibrate; before that, the one-lane
    /// kernel that the one-stream calibration ([`Engine::calibrate_one`],
    /// some microseconds) measured fastest. A process that hashes one
    /// stream at a time never pays for timing the multi-lane kernels.
    #[cfg(feature = "std")]
    fn auto_single() -> Single<K> {
        if let Some(engine) = K::auto_cell().get() {
            return engine.single();
        }
        let kernels = K::detect();
        let cell = K::single_cell();
        let step = match cell.load(Ordering::Acquire) {
            0 => {
                let step = Self::calibrate_one(&kernels);
                cell.store(step as u8 + 1, Ordering::Release);
                step
            }
            n => Step::ALL[usize::from(n) - 1],
        };
        Single {
            name: "auto",
            step,
            kernels,
        }
    }

    /// The process's `auto` engine, calibrated at first use.
    #[cfg(feature = "std")]
    fn auto_ref() -> &'static Self {
        K::auto_cell().get_or_init(|| {
            let mut engine = Self::auto_uncalibrated();
            engine.plan = engine.calibrate();
            engine
        })
    }

    /// What [`Engine::try_configured`] returns now, kept for the process:
    /// one cell for each default the family can have (the environment's,
    /// `auto`, each named engine), so that a caller that asks on every call
    /// (the isa-l drop-in, whose managers have no room for an engine) pays
    /// two atomic loads and follows [`Engine::set_default`] from its next
    /// call on.
    #[cfg(feature = "std")]
    pub fn configured_static() -> &'static Result<Self, EngineError> {
        const { assert!(K::KINDS.len() + 2 <= 8, "a cell per default") };
        let code = K::default_cell().load(Ordering::Acquire);
        K::default_cells()[usize::from(code) & 7].get_or_init(|| match code {
            0 => Self::from_env_cell().clone().map(Self::calibrated),
            1 => Ok(Self::auto()),
            i => match K::KINDS.get(usize::from(i) - 2) {
                Some((name, _)) => Self::from_name(name),
                None => Ok(Self::auto()),
            },
        })
    }

    /// The process's calibrated `auto` engine, kept for the process.
    #[cfg(feature = "std")]
    pub fn auto_static() -> &'static Self {
        Self::auto_ref()
    }

    /// The process's calibrated `auto` engine, if a caller has needed it
    /// (a manager, `hash_many`, the service); `None` before that. It
    /// calibrates nothing: one-stream hashers alone never make it
    /// calibrate (see [`Engine::auto`]).
    #[cfg(feature = "std")]
    pub fn auto_if_calibrated() -> Option<Self> {
        K::auto_cell().get().copied()
    }

    /// The `auto` engine: every supported kernel, chosen per call by costs
    /// measured once per process (without `std`: by the family's default
    /// costs, for the kernels this CPU has).
    pub fn auto() -> Self {
        #[cfg(feature = "std")]
        {
            *Self::auto_ref()
        }
        #[cfg(not(feature = "std"))]
        {
            Self::auto_uncalibrated()
        }
    }

    /// `auto` with the default costs of the detected kernels.
    fn auto_uncalibrated() -> Self {
        let kernels = K::detect();
        let lanes = Step::ALL
            .into_iter()
            .filter(|s| kernels.has(*s))
            .map(Self::width)
            .max()
            .unwrap_or(1);
        let cost = core::array::from_fn(|i| {
            if kernels.has(Step::ALL[i]) {
                K::DEFAULT_COST[i]
            } else {
                f32::INFINITY
            }
        });
        Engine {
            name: "auto",
            lanes: lanes as u8,
            plan: Plan::new(cost, K::MID_WIDTH, K::WIDE_WIDTH),
            kernels,
        }
    }

    /// The engine's name.
    pub fn name(&self) -> &'static str {
        self.name
    }

    /// The plan: per-step costs (for `auto`, measured on this CPU).
    pub fn plan(&self) -> &Plan {
        &self.plan
    }

    /// The physical floor of a hasher that many streams share on this
    /// engine, against hashing each stream by itself: the least time per
    /// lane-block among the steps this engine may run, every lane of the
    /// call busy (on `auto`, usually its widest kernel), over the time per
    /// block of this CPU's fastest one-lane kernel (SHA-NI or the AVX2
    /// schedule, as a one-stream hasher such as `sha2`'s runs). Both are
    /// `auto`'s costs measured in this process (this calibrates `auto` if
    /// no caller has yet). A shared pool or service cannot use less CPU per
    /// byte than this share of one stream's; 1.0 or more means sharing
    /// saves none.
    ///
    /// ```
    /// use mbhash_core::engine::Sha256Engine;
    /// let floor = Sha256Engine::auto().floor_vs_one_stream();
    /// assert!(floor > 0.0 && floor <= 1.0);
    /// ```
    #[cfg(feature = "std")]
    pub fn floor_vs_one_stream(&self) -> f32 {
        let measured = Self::auto().plan;
        let per_lane_block = Step::ALL
            .into_iter()
            .filter(|s| self.plan.allows(*s) && measured.allows(*s))
            .map(|s| measured.cost(s) / Self::width(s) as f32)
            .fold(f32::INFINITY, f32::min);
        // `auto` always allows the portable kernel: `one` is finite.
        let one = measured
            .cost(Step::Scalar)
            .min(measured.cost(Step::Narrow1));
        per_lane_block / one
    }

    /// The step this engine runs for `busy` lanes: e.g. how `auto` runs a
    /// flush with 3 lanes left.
    pub fn choose(&self, busy: u32) -> Step {
        self.plan.choose(busy)
    }

    /// The kernel name behind a step of this family.
    pub fn step_name(step: Step) -> &'static str {
        K::step_name(step)
    }

    fn width(step: Step) -> u32 {
        match step {
            Step::Scalar | Step::Narrow1 => 1,
            Step::Narrow2 => 2,
            Step::Narrow4 => 4,
            Step::Mid => K::MID_WIDTH,
            Step::Wide => K::WIDE_WIDTH,
        }
    }

    fn error(name: &str, kind: EngineErrorKind) -> EngineError {
        EngineError::new::<Self>(name, kind)
    }

    #[inline]
    fn run(
        &self,
        step: Step,
        states: &mut [<K::Family as Family>::State],
        blocks: &[&[<K::Family as Family>::Block]],
        busy: u32,
    ) {
        let k = &self.kernels;
        let lanes = states.len();
        match step {
            Step::Mid | Step::Wide => {
                let w = Self::width(step) as usize;
                let mask = (1u32 << w) - 1;
                for lo in (0..lanes).step_by(w) {
                    if busy & (mask << lo) == 0 {
                        continue;
                    }
                    if lo + w <= lanes {
                        k.run_group(step, &mut states[lo..lo + w], &blocks[lo..lo + w]);
                    } else {
                        // A group wider than the lanes left: run it on a
                        // copy, the missing lanes filled with a busy one.
                        let m = lanes - lo;
                        let fill = (busy >> lo).trailing_zeros() as usize;
                        let mut tmp = [states[lo + fill]; MAX_LANES];
                        tmp[..m].copy_from_slice(&states[lo..]);
                        let mut b = [blocks[lo + fill]; MAX_LANES];
                        b[..m].copy_from_slice(&blocks[lo..]);
                        k.run_group(step, &mut tmp[..w], &b[..w]);
                        states[lo..].copy_from_slice(&tmp[..m]);
                    }
                }
            }
            Step::Narrow1 | Step::Narrow2 | Step::Narrow4 => {
                let split = self.plan.narrow_split(busy.count_ones()).0;
                let mut lanes = (0..lanes).filter(|i| busy & (1 << i) != 0);
                // Gather up to N busy lanes (a dummy copy of the first one
                // where fewer are left), run them, scatter the results back.
                macro_rules! narrow {
                    ($n:literal, $run:ident) => {{
                        let idx: [Option<usize>; $n] = core::array::from_fn(|_| lanes.next());
                        let first = idx[0].expect("a narrow call has a busy lane");
                        let mut tmp = idx.map(|i| states[i.unwrap_or(first)]);
                        let mut it = tmp.iter_mut();
                        k.$run(
                            core::array::from_fn(|_| it.next().expect("n states")),
                            idx.map(|i| blocks[i.unwrap_or(first)]),
                        );
                        for (i, s) in idx.iter().zip(tmp) {
                            if let Some(i) = *i {
                                states[i] = s;
                            }
                        }
                    }};
                }
                for _ in 0..split.x4 {
                    narrow!(4, run_x4);
                }
                for _ in 0..split.x2 {
                    narrow!(2, run_x2);
                }
                for i in lanes.take(split.x1 as usize) {
                    k.run_one(Step::Narrow1, &mut states[i], blocks[i]);
                }
            }
            Step::Scalar => {
                for i in (0..lanes).filter(|i| busy & (1 << i) != 0) {
                    k.run_one(Step::Scalar, &mut states[i], blocks[i]);
                }
            }
        }
    }
}

impl<K: Kernels> LaneEngine<K::Family> for Engine<K> {
    #[inline]
    fn lanes(&self) -> usize {
        self.lanes as usize
    }

    #[inline]
    fn compress_lanes(
        &self,
        states: &mut [<K::Family as Family>::State],
        blocks: &[&[<K::Family as Family>::Block]],
        busy: u32,
    ) {
        debug_assert_eq!(states.len(), blocks.len());
        debug_assert!(states.len() <= MAX_LANES && busy >> states.len() == 0);
        if busy != 0 {
            self.run(self.plan.choose(busy), states, blocks, busy);
        }
    }

    #[inline]
    fn compress_one(
        &self,
        state: &mut <K::Family as Family>::State,
        blocks: &[<K::Family as Family>::Block],
    ) {
        self.single().compress(state, blocks);
    }

    type Single = Single<K>;

    #[inline]
    fn single(&self) -> Single<K> {
        Single {
            name: self.name,
            step: self.plan.one(),
            kernels: self.kernels,
        }
    }

    #[inline]
    fn configured_single() -> Single<K> {
        Engine::configured_single()
    }

    fn name(&self) -> &'static str {
        self.name
    }

    fn from_name(name: &str) -> Result<Self, EngineError> {
        Engine::from_name(name)
    }

    fn is_supported(name: &str) -> bool {
        Engine::<K>::is_supported(name)
    }

    fn names() -> impl Iterator<Item = &'static str> {
        Engine::<K>::names()
    }

    fn into_any(self) -> AnyEngine {
        K::wrap(self)
    }

    fn from_any(any: AnyEngine) -> Option<Self> {
        K::unwrap(any)
    }

    fn try_configured() -> Result<Self, EngineError> {
        Engine::try_configured()
    }

    fn configured() -> Self {
        Engine::configured()
    }

    #[cfg(feature = "std")]
    fn configured_static() -> &'static Result<Self, EngineError> {
        Engine::configured_static()
    }

    #[cfg(feature = "std")]
    fn auto_static() -> &'static Self {
        Engine::auto_static()
    }
}

/// The engine aliases, [`EngineFamily`], [`AnyEngine`] and the per-family
/// defaults, from the family catalogue
/// ([`for_each_family!`](crate::for_each_family)).
macro_rules! engine_families {
    ([] $($(#[$doc:meta])* $v:ident = $ty:ident {
        word: $word:ty, words: $words:literal, block: $block:literal, length: $len:literal,
        big_endian: $big:literal, lanes: $lanes:literal,
        engine: $engine:ident, kernels: $kernels:ident, name: $name:literal $(,)?
    };)*) => {
        $(
            #[doc = concat!("The ", $name, " family's engine (", stringify!($ty), ").")]
            pub type $engine = Engine<$kernels>;
        )*

        /// A family of algorithms that share one list of engines and one
        /// default engine: SHA-224 runs SHA-256's engines, the SHA-512
        /// variants SHA-512's; and CRC32C. (Not [`crate::alg::Family`], the
        /// compile-time trait of a hash family's words and blocks.)
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum EngineFamily {
            $(
                #[doc = concat!("The ", $name, " family ([`", stringify!($engine), "`]).")]
                $v,
            )*
            /// CRC32C ([`crate::crc32c::Crc32cEngine`]).
            #[cfg(feature = "std")]
            Crc32c,
        }

        /// An engine of any hash family: what code that holds one engine
        /// per family stores (the service's workers), without a downcast.
        #[derive(Clone, Copy, Debug)]
        pub enum AnyEngine {
            $(
                #[doc = concat!("A ", $name, " engine.")]
                $v($engine),
            )*
        }

        impl EngineFamily {
            /// Every hash family, then CRC32C.
            #[cfg(feature = "std")]
            pub const ALL: [EngineFamily; [$(EngineFamily::$v,)* EngineFamily::Crc32c].len()] =
                [$(EngineFamily::$v,)* EngineFamily::Crc32c];
            /// Every hash family.
            #[cfg(not(feature = "std"))]
            pub const ALL: [EngineFamily; [$(EngineFamily::$v),*].len()] = [$(EngineFamily::$v),*];

            /// The family's name in messages: `"sha256"`, `"sha512"`, ..., `"crc32c"`.
            pub const fn name(self) -> &'static str {
                match self {
                    $(EngineFamily::$v => $name,)*
                    #[cfg(feature = "std")]
                    EngineFamily::Crc32c => "crc32c",
                }
            }
        }

        impl AnyEngine {
            /// The engine's family.
            pub const fn family(self) -> EngineFamily {
                match self {
                    $(AnyEngine::$v(_) => EngineFamily::$v,)*
                }
            }
        }

        /// Makes `name` the default engine of `family` (an [`EngineFamily`], or an
        /// [`Algo`](crate::Algo), which names its family) at run time, for the
        /// whole process, as OpenZFS's writable `zfs_sha256_impl`: see
        /// [`Engine::set_default`] and [`crate::crc32c::set_default`]. The next
        /// kernel call of pools and services, every new manager and hasher, and
        /// the next [`crate::crc32c::crc32c`] run on it. Safe while other threads
        /// hash.
        ///
        /// ```
        /// use mbhash_core::{Algo, engine::{self, EngineFamily}};
        /// engine::set_default(EngineFamily::Sha256, "scalar").unwrap();
        /// assert_eq!(engine::default_name(Algo::Sha224), "scalar");
        /// assert!(engine::set_default(Algo::Sha256, "sha3").is_err());
        /// assert_eq!(engine::default_name(EngineFamily::Sha256), "scalar");
        /// engine::set_default(Algo::Sha256, "auto").unwrap();
        ///
        /// engine::set_default(EngineFamily::Crc32c, "table").unwrap();
        /// assert_eq!(engine::default_name(EngineFamily::Crc32c), "table");
        /// assert_eq!(mbhash_core::crc32c::crc32c(b"123456789"), 0xE306_9283);
        /// engine::set_default(EngineFamily::Crc32c, "auto").unwrap();
        /// ```
        ///
        /// # Errors
        /// An unknown or unsupported name (the error lists the family's valid
        /// names); nothing changes.
        pub fn set_default(family: impl Into<EngineFamily>, name: &str) -> Result<(), EngineError> {
            match family.into() {
                $(EngineFamily::$v => $engine::set_default(name),)*
                #[cfg(feature = "std")]
                EngineFamily::Crc32c => crate::crc32c::set_default(name),
            }
        }

        /// Undoes [`set_default`] for `family` (an [`EngineFamily`] or an
        /// [`Algo`](crate::Algo)): its engine is the one its environment variable
        /// names again (`auto` when unset), as at the start of the process.
        pub fn clear_default(family: impl Into<EngineFamily>) {
            match family.into() {
                $(EngineFamily::$v => $engine::clear_default(),)*
                #[cfg(feature = "std")]
                EngineFamily::Crc32c => crate::crc32c::clear_default(),
            }
        }

        /// The name of the engine `family` (an [`EngineFamily`] or an
        /// [`Algo`](crate::Algo)) runs by default now.
        pub fn default_name(family: impl Into<EngineFamily>) -> &'static str {
            match family.into() {
                $(EngineFamily::$v => $engine::configured().name(),)*
                #[cfg(feature = "std")]
                EngineFamily::Crc32c => crate::crc32c::engine().name(),
            }
        }
    };
}

crate::for_each_family!(engine_families);

impl EngineFamily {
    /// The family of an algorithm.
    pub const fn of(algo: crate::Algo) -> EngineFamily {
        crate::with_algo!(algo, A => <<A as crate::alg::Algorithm>::Family as Family>::ENGINE_FAMILY)
    }
}

impl From<crate::Algo> for EngineFamily {
    fn from(algo: crate::Algo) -> EngineFamily {
        EngineFamily::of(algo)
    }
}

impl fmt::Display for EngineFamily {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Views a slice of exactly `N` lanes as the arrays a kernel takes.
fn group_arrays<'s, 'b, S, B, const N: usize>(
    states: &'s mut [S],
    blocks: &[&'b [B]],
) -> ([&'s mut S; N], [&'b [B]; N]) {
    let mut it = states.iter_mut();
    (
        core::array::from_fn(|_| it.next().expect("a full group")),
        core::array::from_fn(|i| blocks[i]),
    )
}

/// A family's engines as names: what an [`EngineError`] lists.
///
/// Implemented by every family's engine type (`Engine<K>` for SHA-256 and
/// SHA-512, `crc32c::Crc32cKernel` for CRC32C): the one model by which an
/// engine is chosen by name.
pub trait EngineNames {
    /// Family name in messages, e.g. `"sha256"`, `"crc32c"`.
    const FAMILY: &'static str;
    /// The environment variable that names the configured engine.
    const ENV_VAR: &'static str;
    /// Engine name number `i` (`auto` excepted), in a fixed order; `None`
    /// past the last (at most 32).
    fn engine_name(i: usize) -> Option<&'static str>;
    /// True if the engine named `engine_name(i)` runs on this CPU.
    fn name_supported(i: usize) -> bool;
}

impl<K: Kernels> EngineNames for Engine<K> {
    const FAMILY: &'static str = K::FAMILY;
    const ENV_VAR: &'static str = K::ENV_VAR;
    fn engine_name(i: usize) -> Option<&'static str> {
        K::KINDS.get(i).map(|(n, _)| *n)
    }
    fn name_supported(i: usize) -> bool {
        K::KINDS.get(i).is_some_and(|(n, _)| Self::is_supported(n))
    }
}

/// Why an engine name was refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum EngineErrorKind {
    /// No engine has this name.
    Unknown,
    /// The engine exists but this CPU (or `MBHASH_DISABLE`) does not allow it.
    Unsupported,
}

/// An engine name that cannot be used, with the names that can: the one
/// error of engine selection, for every family (SHA-256, SHA-512, CRC32C).
///
/// It allocates nothing (a name longer than [`EngineError::NAME_MAX`] bytes
/// is kept truncated).
#[derive(Clone, Debug)]
pub struct EngineError {
    /// The algorithm family, e.g. `"sha256"`.
    pub family: &'static str,
    name: [u8; EngineError::NAME_MAX],
    name_len: u8,
    /// Unknown or unsupported.
    pub kind: EngineErrorKind,
    names: fn(usize) -> Option<&'static str>,
    supported: u32,
    /// Where the name came from, e.g. `"MBHASH_SHA256_ENGINE"`, if not an API call.
    pub source: Option<&'static str>,
}

impl EngineError {
    /// Bytes of the refused name that are kept.
    pub const NAME_MAX: usize = 32;

    /// The error for `name` in the family of the engine type `E`.
    pub fn new<E: EngineNames>(name: &str, kind: EngineErrorKind) -> EngineError {
        let mut supported = 0;
        for i in (0..32).take_while(|i| E::engine_name(*i).is_some()) {
            if E::name_supported(i) {
                supported |= 1 << i;
            }
        }
        let mut stored = [0u8; EngineError::NAME_MAX];
        let mut len = name.len().min(EngineError::NAME_MAX);
        while !name.is_char_boundary(len) {
            len -= 1;
        }
        stored[..len].copy_from_slice(&name.as_bytes()[..len]);
        EngineError {
            family: E::FAMILY,
            name: stored,
            name_len: len as u8,
            kind,
            names: E::engine_name,
            supported,
            source: None,
        }
    }

    /// The name that was asked for (at most [`EngineError::NAME_MAX`] bytes).
    pub fn name(&self) -> &str {
        core::str::from_utf8(&self.name[..self.name_len as usize]).unwrap_or("")
    }

    /// Unknown or unsupported.
    pub fn kind(&self) -> EngineErrorKind {
        self.kind
    }

    /// Every engine name of the family, `auto` first.
    pub fn valid(&self) -> impl Iterator<Item = &'static str> + '_ {
        core::iter::once("auto").chain((0..32).map_while(self.names))
    }

    /// The names this CPU supports, `auto` first.
    pub fn supported(&self) -> impl Iterator<Item = &'static str> + '_ {
        core::iter::once("auto").chain(
            (0..32)
                .map_while(self.names)
                .enumerate()
                .filter(|(i, _)| self.supported & (1 << i) != 0)
                .map(|(_, n)| n),
        )
    }
}

impl PartialEq for EngineError {
    fn eq(&self, other: &Self) -> bool {
        self.family == other.family
            && self.name() == other.name()
            && self.kind == other.kind
            && self.supported == other.supported
            && self.source == other.source
    }
}

impl Eq for EngineError {}

impl fmt::Display for EngineError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let what = match self.kind {
            EngineErrorKind::Unknown => "unknown",
            EngineErrorKind::Unsupported => "unsupported on this CPU",
        };
        write!(f, "{} engine '{}' is {what}", self.family, self.name())?;
        if let Some(src) = self.source {
            write!(f, " (from {src})")?;
        }
        let list = |f: &mut fmt::Formatter<'_>, names: &mut dyn Iterator<Item = &str>| {
            for (i, n) in names.enumerate() {
                if i > 0 {
                    f.write_str(", ")?;
                }
                f.write_str(n)?;
            }
            Ok(())
        };
        f.write_str("; valid engines: ")?;
        list(f, &mut self.valid())?;
        f.write_str("; supported here: ")?;
        list(f, &mut self.supported())
    }
}

impl core::error::Error for EngineError {}

/// The engine that the family's environment variable (`E::ENV_VAR`) names:
/// `auto()` when it is unset or blank, else `from_name` of its trimmed
/// lower-case value (an error then names the variable); a value that is
/// not UTF-8 is an unknown name. The one reading of an engine variable, for
/// every family; it never prints.
#[cfg(feature = "std")]
pub fn from_env<E: EngineNames, T>(
    from_name: impl FnOnce(&str) -> Result<T, EngineError>,
    auto: impl FnOnce() -> T,
) -> Result<T, EngineError> {
    let result = match std::env::var(E::ENV_VAR) {
        Err(std::env::VarError::NotPresent) => return Ok(auto()),
        Err(std::env::VarError::NotUnicode(raw)) => Err(EngineError::new::<E>(
            &raw.to_string_lossy(),
            EngineErrorKind::Unknown,
        )),
        Ok(v) => {
            let v = v.trim().to_ascii_lowercase();
            if v.is_empty() {
                return Ok(auto());
            }
            from_name(&v)
        }
    };
    result.map_err(|mut e| {
        e.source = Some(E::ENV_VAR);
        e
    })
}
