//! The SHA-256 family's engines.

use std::sync::OnceLock;
use std::time::Instant;

use mbhash_simd::sha256::{self as k, Avx2x8, Avx512x16, Block, Compress, ShaNi, State};

use super::plan::{Plan, Step};
use super::{EngineError, EngineErrorKind, LaneEngine, env_name};
use crate::alg::{MAX_LANES, Sha256Family};

/// The environment variable that selects the SHA-256 engine.
pub const ENV_VAR: &str = "MBHASH_SHA256_ENGINE";

/// The SHA-256 engines, by name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Sha256Kind {
    /// Pick per call from every supported kernel, by costs measured on this CPU.
    Auto,
    /// The portable reference kernel.
    Scalar,
    /// SHA-NI, one stream per call.
    ShaNi,
    /// SHA-NI, two streams interleaved.
    ShaNiX2,
    /// AVX2, 8 lanes.
    Avx2,
    /// AVX-512, 16 lanes.
    Avx512,
}

impl Sha256Kind {
    /// Every engine, `auto` first.
    pub const ALL: [Sha256Kind; 6] = [
        Sha256Kind::Auto,
        Sha256Kind::Scalar,
        Sha256Kind::ShaNi,
        Sha256Kind::ShaNiX2,
        Sha256Kind::Avx2,
        Sha256Kind::Avx512,
    ];

    /// The name accepted by [`Sha256Kind::from_name`] and `MBHASH_SHA256_ENGINE`.
    pub const fn name(self) -> &'static str {
        match self {
            Sha256Kind::Auto => "auto",
            Sha256Kind::Scalar => "scalar",
            Sha256Kind::ShaNi => "shani",
            Sha256Kind::ShaNiX2 => "shani-x2",
            Sha256Kind::Avx2 => "avx2",
            Sha256Kind::Avx512 => "avx512",
        }
    }

    /// Looks up an engine by name (exact, lower case).
    pub fn from_name(name: &str) -> Option<Sha256Kind> {
        Sha256Kind::ALL.into_iter().find(|k| k.name() == name)
    }

    /// True if this CPU runs the engine (after `MBHASH_DISABLE`).
    pub fn is_supported(self) -> bool {
        match self {
            Sha256Kind::Auto | Sha256Kind::Scalar => true,
            Sha256Kind::ShaNi | Sha256Kind::ShaNiX2 => ShaNi::new().is_some(),
            Sha256Kind::Avx2 => Avx2x8::new().is_some(),
            Sha256Kind::Avx512 => Avx512x16::new().is_some(),
        }
    }
}

/// A SHA-256 engine: the kernels it may run and how it chooses among them.
///
/// ```
/// use mbhash_core::engine::{Sha256Engine, Sha256Kind};
/// let scalar = Sha256Engine::new(Sha256Kind::Scalar).unwrap();
/// assert_eq!(scalar.kind(), Sha256Kind::Scalar);
/// assert!(Sha256Engine::from_name("sha3").is_err());
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Sha256Engine {
    kind: Sha256Kind,
    lanes: u8,
    plan: Plan,
    shani: Option<ShaNi>,
    avx2: Option<Avx2x8>,
    avx512: Option<Avx512x16>,
}

impl Sha256Engine {
    /// The engine `kind`, if this CPU supports it.
    ///
    /// # Errors
    /// [`EngineErrorKind::Unsupported`] when the CPU lacks the kernel.
    pub fn new(kind: Sha256Kind) -> Result<Self, EngineError> {
        let shani = ShaNi::new();
        let avx2 = Avx2x8::new();
        let avx512 = Avx512x16::new();
        let fixed = |lanes: u8, steps: &[Step], ok: bool| {
            if !ok {
                return Err(error(kind.name(), EngineErrorKind::Unsupported, None));
            }
            Ok(Sha256Engine {
                kind,
                lanes,
                plan: Plan::only(steps, 8, 16),
                shani,
                avx2,
                avx512,
            })
        };
        match kind {
            Sha256Kind::Auto => Ok(Self::auto()),
            Sha256Kind::Scalar => fixed(1, &[Step::Scalar], true),
            Sha256Kind::ShaNi => fixed(1, &[Step::Narrow1], shani.is_some()),
            Sha256Kind::ShaNiX2 => fixed(2, &[Step::Narrow2], shani.is_some()),
            Sha256Kind::Avx2 => fixed(8, &[Step::Mid], avx2.is_some()),
            Sha256Kind::Avx512 => fixed(16, &[Step::Wide], avx512.is_some()),
        }
    }

    /// The engine with this name.
    ///
    /// # Errors
    /// Unknown or unsupported names; the error lists the valid ones.
    pub fn from_name(name: &str) -> Result<Self, EngineError> {
        match Sha256Kind::from_name(name) {
            Some(kind) => Self::new(kind),
            None => Err(error(name, EngineErrorKind::Unknown, None)),
        }
    }

    /// The `auto` engine: every supported kernel, chosen per call by costs
    /// measured once per process.
    pub fn auto() -> Self {
        static AUTO: OnceLock<Sha256Engine> = OnceLock::new();
        *AUTO.get_or_init(|| {
            let shani = ShaNi::new();
            let avx2 = Avx2x8::new();
            let avx512 = Avx512x16::new();
            let lanes = if avx512.is_some() {
                16
            } else if avx2.is_some() {
                8
            } else if shani.is_some() {
                2
            } else {
                1
            };
            let mut engine = Sha256Engine {
                kind: Sha256Kind::Auto,
                lanes,
                plan: Plan::only(&[], 8, 16),
                shani,
                avx2,
                avx512,
            };
            engine.plan = engine.calibrate();
            engine
        })
    }

    /// Which engine this is.
    pub fn kind(&self) -> Sha256Kind {
        self.kind
    }

    /// The plan: per-step costs (for `auto`, measured on this CPU).
    pub fn plan(&self) -> &Plan {
        &self.plan
    }

    /// The step this engine runs for `busy` lanes: e.g. how `auto` runs a
    /// flush with 3 lanes left.
    pub fn choose(&self, busy: u32) -> Step {
        self.plan.choose(busy)
    }

    /// The name of the kernel behind a step of this family.
    pub fn step_name(step: Step) -> &'static str {
        match step {
            Step::Scalar => "scalar",
            Step::Narrow1 => "shani",
            Step::Narrow2 => "shani-x2",
            Step::Mid => "avx2",
            Step::Wide => "avx512",
        }
    }

    /// Measures each available kernel: nanoseconds per block per call with
    /// all of its lanes busy, the minimum over a few repetitions.
    fn calibrate(&self) -> Plan {
        const N: usize = 8;
        const REPS: usize = 9;
        let data = [[0x5au8; 64]; N];
        let blocks: [&[Block]; MAX_LANES] = [&data[..]; MAX_LANES];
        let mut best = [f32::INFINITY; 5];
        let mut allowed = vec![Step::Scalar];
        if self.shani.is_some() {
            allowed.extend([Step::Narrow1, Step::Narrow2]);
        }
        if self.avx2.is_some() {
            allowed.push(Step::Mid);
        }
        if self.avx512.is_some() {
            allowed.push(Step::Wide);
        }
        let mut states = [k::IV; MAX_LANES];
        for rep in 0..REPS {
            for &step in &allowed {
                let busy = match step {
                    Step::Scalar | Step::Narrow1 => 0b1,
                    Step::Narrow2 => 0b11,
                    Step::Mid => 0xff,
                    Step::Wide => 0xffff,
                };
                let t = Instant::now();
                self.run(step, &mut states, &blocks, busy);
                let ns = t.elapsed().as_nanos() as f32 / N as f32;
                // The first two repetitions warm caches and clocks.
                if rep >= 2 && ns < best[step as usize] {
                    best[step as usize] = ns;
                }
            }
        }
        std::hint::black_box(&states);
        Plan {
            cost: best.map(|c| c.max(f32::MIN_POSITIVE)),
            mid_width: 8,
            wide_width: 16,
        }
    }

    #[inline]
    fn run(
        &self,
        step: Step,
        states: &mut [State; MAX_LANES],
        blocks: &[&[Block]; MAX_LANES],
        busy: u32,
    ) {
        match step {
            Step::Wide => {
                let k = self.avx512.expect("plan allows avx512 only when detected");
                let mut it = states.iter_mut();
                k.compress(core::array::from_fn(|_| it.next().unwrap()), *blocks);
            }
            Step::Mid => {
                let k = self.avx2.expect("plan allows avx2 only when detected");
                for (g, group) in states.chunks_exact_mut(8).enumerate() {
                    if busy & (0xff << (8 * g)) == 0 {
                        continue;
                    }
                    let mut it = group.iter_mut();
                    k.compress(
                        core::array::from_fn(|_| it.next().unwrap()),
                        core::array::from_fn(|i| blocks[8 * g + i]),
                    );
                }
            }
            Step::Narrow1 | Step::Narrow2 => {
                let k = self.shani.expect("plan allows shani only when detected");
                let pairs = step == Step::Narrow2 && self.plan.allows(Step::Narrow2);
                let mut pending: Option<usize> = None;
                for i in (0..MAX_LANES).filter(|i| busy & (1 << i) != 0) {
                    match pending {
                        Some(j) if pairs => {
                            let [a, b] = states
                                .get_disjoint_mut([j, i])
                                .expect("distinct lanes in range");
                            Compress::<2>::compress(k, [a, b], [blocks[j], blocks[i]]);
                            pending = None;
                        }
                        _ if pairs => pending = Some(i),
                        _ => Compress::<1>::compress(k, [&mut states[i]], [blocks[i]]),
                    }
                }
                if let Some(j) = pending {
                    if self.plan.allows(Step::Narrow1) {
                        Compress::<1>::compress(k, [&mut states[j]], [blocks[j]]);
                    } else {
                        let mut dummy = states[j];
                        Compress::<2>::compress(k, [&mut states[j], &mut dummy], [blocks[j]; 2]);
                    }
                }
            }
            Step::Scalar => {
                for i in (0..MAX_LANES).filter(|i| busy & (1 << i) != 0) {
                    k::scalar::compress(&mut states[i], blocks[i]);
                }
            }
        }
    }
}

impl LaneEngine<Sha256Family> for Sha256Engine {
    #[inline]
    fn lanes(&self) -> usize {
        self.lanes as usize
    }

    #[inline]
    fn compress_lanes(
        &self,
        states: &mut [State; MAX_LANES],
        blocks: &[&[Block]; MAX_LANES],
        busy: u32,
    ) {
        if busy != 0 {
            self.run(self.plan.choose(busy), states, blocks, busy);
        }
    }

    #[inline]
    fn compress_one(&self, state: &mut State, blocks: &[Block]) {
        match (self.plan.choose(1), self.shani) {
            (Step::Scalar, _) => k::scalar::compress(state, blocks),
            (Step::Narrow1 | Step::Narrow2, Some(k)) if self.plan.allows(Step::Narrow1) => {
                Compress::<1>::compress(k, [state], [blocks]);
            }
            (step, _) => {
                let mut states = [*state; MAX_LANES];
                self.run(step, &mut states, &[blocks; MAX_LANES], 1);
                *state = states[0];
            }
        }
    }

    fn name(&self) -> &'static str {
        self.kind.name()
    }

    fn configured() -> Result<Self, EngineError> {
        static CONFIGURED: OnceLock<Result<Sha256Engine, EngineError>> = OnceLock::new();
        CONFIGURED
            .get_or_init(|| match env_name(ENV_VAR) {
                None => Ok(Sha256Engine::auto()),
                Some(name) => Sha256Engine::from_name(&name).map_err(|mut e| {
                    e.source = Some(ENV_VAR);
                    e
                }),
            })
            .clone()
    }
}

fn error(name: &str, kind: EngineErrorKind, source: Option<&'static str>) -> EngineError {
    EngineError {
        family: "sha256",
        name: name.to_string(),
        kind,
        valid: Sha256Kind::ALL.iter().map(|k| k.name()).collect(),
        supported: Sha256Kind::ALL
            .iter()
            .filter(|k| k.is_supported())
            .map(|k| k.name())
            .collect(),
        source,
    }
}
