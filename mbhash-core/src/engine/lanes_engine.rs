//! [`Engine`]: a family's kernels and the plan that picks among them per
//! kernel call; its choice by name, by environment variable and by
//! run-time default; and how it runs a plan's step over the busy lanes.

use core::sync::atomic::Ordering;

#[cfg(feature = "std")]
use super::from_env;
use super::{
    AnyEngine, EngineError, EngineErrorKind, EngineNames, Kernels, LaneEngine, Plan, Single,
    SingleStream, Step,
};
use crate::alg::lane_array;
use crate::alg::{Family, MAX_LANES};

/// Bit 7 of [`Kernels::default_cell`]: `auto` is calibrated.
const CALIBRATED: u16 = 0x80;

/// An engine: the kernels it may run and the plan that picks among them.
#[derive(Clone, Copy, Debug)]
pub struct Engine<K: Kernels> {
    pub(super) name: &'static str,
    /// The name as a byte: 0 for `auto`, `1 + i` for `K::KINDS[i]`.
    pub(super) code: u8,
    pub(super) lanes: u8,
    pub(super) plan: Plan,
    pub(super) kernels: K,
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
        let kernels = K::detect().for_engine(name);
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
        let Some(i) = K::KINDS.iter().position(|(n, _)| *n == name) else {
            return Err(Self::error(name, EngineErrorKind::Unknown));
        };
        let (name, steps) = K::KINDS[i];
        if !Self::is_supported(name) {
            return Err(Self::error(name, EngineErrorKind::Unsupported));
        }
        let kernels = K::detect().for_engine(name);
        Ok(Engine {
            name,
            code: i as u8 + 1,
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
        Self::try_configured_for(Self::default_code())
    }

    /// [`Engine::try_configured`] under the run-time default `code`.
    fn try_configured_for(code: u8) -> Result<Self, EngineError> {
        match code {
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
        Self::store_default(code);
        Ok(())
    }

    /// The low byte of [`Kernels::default_cell`]: the run-time default.
    #[inline]
    fn default_code() -> u8 {
        (K::default_cell().load(Ordering::Acquire) & 0x7f) as u8
    }

    /// Sets the run-time default to `code` and forgets the cached
    /// one-stream kernel, in one atomic write that keeps the calibration
    /// bit.
    fn store_default(code: u8) {
        let _ = K::default_cell().fetch_update(Ordering::AcqRel, Ordering::Acquire, |w| {
            Some(w & CALIBRATED | u16::from(code))
        });
    }

    /// Undoes [`Engine::set_default`]: from now on the family's engine is
    /// the one its environment variable names again (`auto` when unset), as
    /// at the start of the process.
    pub fn clear_default() {
        Self::store_default(0);
    }

    /// Whether [`Engine::set_default`] chose the family's engine (rather
    /// than the environment variable).
    pub fn default_is_set() -> bool {
        Self::default_code() != 0
    }

    /// [`Engine::try_configured`], or `auto` if that is an error: what every
    /// infallible constructor (`JobManager::new`, `StreamHasher::new`,
    /// `hash_many`) runs on.
    pub fn configured() -> Self {
        Self::try_configured().unwrap_or_else(|_| Self::auto())
    }

    /// [`Engine::configured`]'s one-stream kernel: a one-stream hasher
    /// asks on every `new`. Once found under the current default, it is
    /// cached in the high byte of [`Kernels::default_cell`], so that the
    /// next call is one load of that word and of the detected kernels.
    fn configured_single() -> Single<K> {
        #[cfg(feature = "std")]
        {
            let cell = K::default_cell();
            let word = cell.load(Ordering::Acquire);
            if let Some(single) = Single::from_code((word >> 8) as u8, K::detected()) {
                return single;
            }
            let single = Self::find_single((word & 0x7f) as u8);
            // Cached only if the word is unchanged: a default set, or
            // `auto` calibrated, since it was read leaves it uncached.
            let _ = cell.compare_exchange(
                word,
                word | u16::from(single.code()) << 8,
                Ordering::AcqRel,
                Ordering::Relaxed,
            );
            single
        }
        #[cfg(not(feature = "std"))]
        {
            Self::configured().single()
        }
    }

    /// The one-stream kernel of the engine that the run-time default
    /// `code` (the low byte of [`Kernels::default_cell`]) makes the
    /// configured one. The engines kept for the process (`auto`, the
    /// environment's) are read in place, not copied.
    #[cfg(feature = "std")]
    fn find_single(code: u8) -> Single<K> {
        match code {
            0 => match Self::from_env_cell() {
                Ok(engine) if engine.code != 0 => engine.single(),
                _ => Self::auto_single(),
            },
            1 => Self::auto_single(),
            i => Self::try_configured_for(i)
                .unwrap_or_else(|_| Self::auto())
                .single(),
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
        let kernels = K::detected();
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
            engine: 0,
            step,
            kernels,
        }
    }

    /// The process's `auto` engine, calibrated at first use.
    #[cfg(feature = "std")]
    fn auto_ref() -> &'static Self {
        if let Some(engine) = K::auto_cell().get() {
            return engine;
        }
        let engine = K::auto_cell().get_or_init(|| {
            let mut engine = Self::auto_uncalibrated();
            engine.plan = engine.calibrate();
            engine
        });
        // `auto`'s one-stream kernel is now the calibrated plan's: forget
        // the cached one, and mark the word so that a single found before
        // the calibration cannot be cached after it.
        let _ = K::default_cell().fetch_update(Ordering::AcqRel, Ordering::Acquire, |w| {
            Some(w & 0xff | CALIBRATED)
        });
        engine
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
        let code = Self::default_code();
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
    pub(super) fn auto_uncalibrated() -> Self {
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
            code: 0,
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

    pub(super) fn width(step: Step) -> u32 {
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
                let mask = u32::MAX >> (32 - w);
                for lo in (0..lanes).step_by(w) {
                    if busy & (mask << lo) == 0 {
                        continue;
                    }
                    if lo + w <= lanes {
                        k.run_group(step, &mut states[lo..lo + w], &blocks[lo..lo + w]);
                    } else {
                        Self::run_short_group(
                            k,
                            step,
                            &mut states[lo..],
                            &blocks[lo..],
                            busy >> lo,
                        );
                    }
                }
            }
            Step::Narrow1 | Step::Narrow2 | Step::Narrow4 | Step::Scalar => {
                self.run_lanewise(step, states, |i| blocks[i], busy);
            }
        }
    }
}

impl<K: Kernels> Engine<K> {
    /// Runs the busy lanes on a lane-by-lane step (narrow calls of up to
    /// four independent streams, or the scalar kernel per lane), lane `i`
    /// over `blocks_of(i)` (the same number of blocks in every busy lane).
    /// Only busy lanes are read or written, so `states` may be the whole
    /// set and no array of every lane's blocks is built.
    #[inline]
    fn run_lanewise<'b>(
        &self,
        step: Step,
        states: &mut [<K::Family as Family>::State],
        blocks_of: impl Fn(usize) -> &'b [<K::Family as Family>::Block],
        busy: u32,
    ) {
        let k = &self.kernels;
        if step == Step::Scalar {
            for i in crate::alg::lanes_of(busy) {
                k.run_one(Step::Scalar, &mut states[i], blocks_of(i));
            }
            return;
        }
        let split = self.plan.narrow_calls(busy.count_ones());
        if split.x2 == 1 && split.x4 == 0 && split.x1 == 0 && busy.count_ones() == 2 {
            // Two lanes on the two-stream kernel, the common round of a few
            // short jobs on SHA-NI: straight to it.
            let (a, b) = (
                busy.trailing_zeros() as usize,
                31 - busy.leading_zeros() as usize,
            );
            let [sa, sb] = states
                .get_disjoint_mut([a, b])
                .expect("two distinct busy lanes of the slice");
            k.run_x2([sa, sb], [blocks_of(a), blocks_of(b)]);
            return;
        }
        let mut lanes = crate::alg::lanes_of(busy);
        // Up to N busy lanes per call: N of them run in place; where
        // fewer are left, the first one's state is copied into the
        // missing places and the results are copied back.
        macro_rules! narrow {
            ($n:literal, $run:ident) => {{
                let idx: [Option<usize>; $n] = core::array::from_fn(|_| lanes.next());
                let first = idx[0].expect("a narrow call has a busy lane");
                let lane = idx.map(|i| i.unwrap_or(first));
                let blocks = lane.map(&blocks_of);
                if idx[$n - 1].is_some() {
                    let states = states
                        .get_disjoint_mut(lane)
                        .expect("distinct busy lanes of the slice");
                    k.$run(states, blocks);
                } else {
                    let mut tmp = lane.map(|i| states[i]);
                    let mut it = tmp.iter_mut();
                    k.$run(
                        core::array::from_fn(|_| it.next().expect("n states")),
                        blocks,
                    );
                    for (i, s) in idx.iter().zip(tmp) {
                        if let Some(i) = *i {
                            states[i] = s;
                        }
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
            k.run_one(Step::Narrow1, &mut states[i], blocks_of(i));
        }
    }

    /// A group wider than the lanes left (`states`, from the group's
    /// first lane; `busy` from there): run on a copy, the missing lanes
    /// filled with a busy one. Not inlined: its copies (a family's lanes of
    /// states and blocks, a kilobyte for MD5's 32) stay off the stack of
    /// the common path.
    #[inline(never)]
    fn run_short_group(
        k: &K,
        step: Step,
        states: &mut [<K::Family as Family>::State],
        blocks: &[&[<K::Family as Family>::Block]],
        busy: u32,
    ) {
        let w = Self::width(step) as usize;
        let m = states.len();
        let fill = busy.trailing_zeros() as usize;
        let mut tmp = lane_array::<K::Family, _>(|_| states[fill]);
        let tmp = tmp.as_mut();
        tmp[..m].copy_from_slice(states);
        let mut b = lane_array::<K::Family, _>(|_| blocks[fill]);
        let b = b.as_mut();
        b[..m].copy_from_slice(blocks);
        k.run_group(step, &mut tmp[..w], &b[..w]);
        states.copy_from_slice(&tmp[..m]);
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
        debug_assert!(
            states.len() <= MAX_LANES && busy.checked_shr(states.len() as u32).unwrap_or(0) == 0
        );
        if busy != 0 {
            self.run(self.plan.choose(busy), states, blocks, busy);
        }
    }

    #[inline]
    fn compress_sparse<'b>(
        &self,
        states: &mut [<K::Family as Family>::State],
        blocks_of: impl Fn(usize) -> &'b [<K::Family as Family>::Block],
        busy: u32,
    ) -> bool {
        let step = self.plan.choose(busy);
        if matches!(step, Step::Mid | Step::Wide) {
            return false;
        }
        self.run_lanewise(step, states, blocks_of, busy);
        true
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
            engine: self.code,
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

    #[cfg(feature = "std")]
    fn floor_vs_one_stream(&self) -> f32 {
        Engine::floor_vs_one_stream(self)
    }
}

/// Views a slice of exactly `N` lanes as the arrays a kernel takes.
pub(super) fn group_arrays<'s, 'b, S, B, const N: usize>(
    states: &'s mut [S],
    blocks: &[&'b [B]],
) -> ([&'s mut S; N], [&'b [B]; N]) {
    let mut it = states.iter_mut();
    (
        core::array::from_fn(|_| it.next().expect("a full group")),
        core::array::from_fn(|i| blocks[i]),
    )
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
