//! The ISA-specific half of an engine: a family's [`Kernels`] as detected
//! on this CPU, their process-wide cells, and the one-stream kernel
//! ([`Single`]) that the one-stream hashers keep.

use core::fmt;

#[cfg(feature = "std")]
use super::EngineError;
use super::{AnyEngine, Engine, Step};
use crate::alg::Family;
use crate::alg::lane_array;
#[cfg(feature = "std")]
use crate::race::Race;
use core::sync::atomic::{AtomicU8, AtomicU16};

/// An engine's one-stream kernel ([`LaneEngine::single`](super::LaneEngine::single)): what the
/// one-stream hashers run.
pub trait SingleStream<F: Family>: Copy + fmt::Debug + Send + Sync + 'static {
    /// Compresses `blocks` into `state`.
    fn compress(&self, state: &mut F::State, blocks: &[F::Block]);

    /// The name of the engine it came from.
    fn name(&self) -> &'static str;
}

/// The one-stream kernel of an [`Engine`]: which engine it came from (a
/// byte: 0 for `auto`, `1 + i` for `KINDS[i]`), the step its plan runs one
/// lane on, and the kernels (proof tokens, a byte or less each). A few
/// bytes, since a one-stream hasher keeps one and is made and moved for
/// every message.
#[derive(Clone, Copy, Debug)]
pub struct Single<K: Kernels> {
    pub(super) engine: u8,
    pub(super) step: Step,
    pub(super) kernels: K,
}

impl<K: Kernels> Single<K> {
    /// The single as one byte of the family's cache word (see
    /// [`Kernels::default_cell`]): bit 7 set, the engine in bits 3-5, the
    /// step's index in [`Step::ALL`] in bits 0-2.
    #[cfg(feature = "std")]
    #[inline]
    pub(super) fn code(&self) -> u8 {
        0x80 | self.engine << 3 | self.step as u8
    }

    /// The single of a [`Single::code`] byte, on `kernels`; `None` for a
    /// byte without bit 7 (nothing cached).
    #[cfg(feature = "std")]
    #[inline]
    pub(super) fn from_code(code: u8, kernels: K) -> Option<Self> {
        if code & 0x80 == 0 {
            return None;
        }
        let step = *Step::ALL.get(usize::from(code & 7))?;
        Some(Single {
            engine: (code >> 3) & 7,
            step,
            kernels,
        })
    }
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
            Step::Mid | Step::Wide => one_in_group(k, self.step, state, blocks),
        }
    }

    fn name(&self) -> &'static str {
        match self.engine {
            0 => "auto",
            i => K::KINDS.get(usize::from(i) - 1).map_or("auto", |(n, _)| n),
        }
    }
}

/// One stream on a group kernel, the other lanes running copies of it. Not
/// inlined: its copies (a family's lanes of states and blocks, a kilobyte
/// for MD5's 32) stay off the stack of the other one-stream steps.
#[inline(never)]
fn one_in_group<K: Kernels>(
    k: &K,
    step: Step,
    state: &mut <K::Family as Family>::State,
    blocks: &[<K::Family as Family>::Block],
) {
    let w = Engine::<K>::width(step) as usize;
    let mut lanes = lane_array::<K::Family, _>(|_| *state);
    let group = lane_array::<K::Family, _>(|_| blocks);
    k.run_group(step, &mut lanes.as_mut()[..w], &group.as_ref()[..w]);
    *state = lanes.as_ref()[0];
}

/// A family's set of kernels, as detected on this CPU: the ISA-specific half
/// of an [`Engine`].
pub trait Kernels: Copy + fmt::Debug + Send + Sync + 'static {
    /// The family the kernels compress.
    type Family: super::FamilyEngine;
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
    /// The kernels the engine named `name` (one of [`Kernels::KINDS`]) runs,
    /// out of those detected: all of them, unless a step has several
    /// kernels and the name picks one (MD5's 16-lane step: `avx2` or
    /// `avx512`).
    #[inline]
    fn for_engine(self, _name: &str) -> Self {
        self
    }
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
    /// The default set at run time ([`Engine::set_default`]) in bits 0-6:
    /// 0 for none, 1 for `auto`, `2 + i` for `KINDS[i]`; bit 7 set once
    /// `auto` is calibrated in this process; in the high byte, 0 or
    /// the one-stream kernel that a new hasher takes under that default
    /// (bit 7 set, the engine in bits 3-5, the step's index in
    /// [`Step::ALL`] in bits 0-2), so that `StreamHasher::new` is one load of this
    /// word (and of [`Kernels::detected`]). Every change of the default
    /// clears the high byte in the same atomic write; the calibration of
    /// `auto` too (setting bit 7, so a single found before it cannot be
    /// cached after it).
    fn default_cell() -> &'static AtomicU16;
    /// [`Kernels::detect`], once per process (the tokens' detection is
    /// fixed for the process, `MBHASH_DISABLE` included).
    #[cfg(feature = "std")]
    fn detected() -> Self {
        *Self::detected_cell().get_or_init(Self::detect)
    }
    /// The cell of [`Kernels::detected`].
    #[cfg(feature = "std")]
    fn detected_cell() -> &'static Race<Self>;
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

        fn default_cell() -> &'static core::sync::atomic::AtomicU16 {
            static CELL: core::sync::atomic::AtomicU16 = core::sync::atomic::AtomicU16::new(0);
            &CELL
        }

        #[cfg(feature = "std")]
        fn detected_cell() -> &'static $crate::race::Race<Self> {
            static CELL: $crate::race::Race<$k> = $crate::race::Race::new();
            &CELL
        }

        fn single_cell() -> &'static core::sync::atomic::AtomicU8 {
            static CELL: core::sync::atomic::AtomicU8 = core::sync::atomic::AtomicU8::new(0);
            &CELL
        }
    };
}
pub(crate) use kernel_cells;
