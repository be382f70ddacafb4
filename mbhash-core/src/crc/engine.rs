//! The CRC engines: which kernel runs a spec, by name, by the environment,
//! or measured (`auto`).

#[cfg(feature = "std")]
use super::classes::{
    CLASSES, Costs, TIMED_CLASSES, cheapest, class, class_length, class_max, measure,
};
use super::spec::CrcSpec;
use super::variant::CRC32_ISCSI;
#[cfg(feature = "std")]
use super::variant::{CRC64_ECMA_182, CRC64_NVME};
use crate::select::{EngineError, EngineErrorKind, EngineNames};
use core::fmt;
use core::sync::atomic::{AtomicU8, Ordering};
use mbhash_simd::crc::{Consts, Entry, Pclmul, Vpclmul256, Vpclmul512};

/// The environment variable naming the engine of every spec but
/// CRC-32/ISCSI (which follows `MBHASH_CRC32C_ENGINE`).
#[cfg(feature = "std")]
pub const ENGINE_VAR: &str = "MBHASH_CRC_ENGINE";

/// A CRC implementation: `auto` or one kernel.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CrcEngine {
    /// The cheapest supported kernel for each size class, measured on this
    /// CPU at first use (without `std`: the widest folding kernel).
    Auto,
    /// Portable slice-by-16 tables; any CPU.
    Table,
    /// PCLMULQDQ folding of 128-bit lanes.
    Pclmul,
    /// VPCLMULQDQ folding of 256-bit vectors (AVX2; Zen 3, Alder Lake).
    Vpclmul256,
    /// VPCLMULQDQ folding of 512-bit vectors (AVX-512).
    Vpclmul512,
}

impl CrcEngine {
    /// Every engine: `auto`, then the kernels, slowest first.
    pub const ALL: [CrcEngine; 5] = [
        CrcEngine::Auto,
        CrcEngine::Table,
        CrcEngine::Pclmul,
        CrcEngine::Vpclmul256,
        CrcEngine::Vpclmul512,
    ];

    /// The kernels `auto` chooses among.
    pub const KERNELS: [CrcEngine; 4] = [
        CrcEngine::Table,
        CrcEngine::Pclmul,
        CrcEngine::Vpclmul256,
        CrcEngine::Vpclmul512,
    ];

    /// The name used by [`select_engine`] and `MBHASH_CRC_ENGINE`.
    pub const fn name(self) -> &'static str {
        match self {
            CrcEngine::Auto => "auto",
            CrcEngine::Table => "table",
            CrcEngine::Pclmul => "pclmul",
            CrcEngine::Vpclmul256 => "vpclmul256",
            CrcEngine::Vpclmul512 => "vpclmul512",
        }
    }

    /// The position of the engine in [`CrcEngine::ALL`].
    pub const fn index(self) -> usize {
        match self {
            CrcEngine::Auto => 0,
            CrcEngine::Table => 1,
            CrcEngine::Pclmul => 2,
            CrcEngine::Vpclmul256 => 3,
            CrcEngine::Vpclmul512 => 4,
        }
    }

    /// The engine called `name`.
    pub fn from_name(name: &str) -> Option<CrcEngine> {
        CrcEngine::ALL.into_iter().find(|e| e.name() == name)
    }

    /// True if this CPU runs the engine (and `MBHASH_DISABLE` does not hide
    /// what it needs); `auto` and `table` always run.
    pub fn is_supported(self) -> bool {
        match self {
            CrcEngine::Auto => true,
            _ => entry(self).is_some(),
        }
    }
}

impl fmt::Display for CrcEngine {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The kernel entry of one engine (`None` for `auto` or when unsupported).
fn entry(engine: CrcEngine) -> Option<Entry> {
    match engine {
        CrcEngine::Auto => None,
        CrcEngine::Table => Some(Entry::TABLE),
        CrcEngine::Pclmul => Pclmul::new().map(Pclmul::entry),
        CrcEngine::Vpclmul256 => Vpclmul256::new().map(Vpclmul256::entry),
        CrcEngine::Vpclmul512 => Vpclmul512::new().map(Vpclmul512::entry),
    }
}

/// The kernel entry of one engine for constants of one orientation (no
/// test of the orientation per call), for the tables made per
/// orientation; `None` for `auto` or when unsupported.
#[cfg(feature = "std")]
fn entry_for(engine: CrcEngine, reflected: bool) -> Option<Entry> {
    match engine {
        CrcEngine::Auto => None,
        CrcEngine::Table => Some(Entry::TABLE),
        CrcEngine::Pclmul => Pclmul::new().map(|k| k.entry_for(reflected)),
        CrcEngine::Vpclmul256 => Vpclmul256::new().map(|k| k.entry_for(reflected)),
        CrcEngine::Vpclmul512 => Vpclmul512::new().map(|k| k.entry_for(reflected)),
    }
}

/// Every engine, supported here or not: `auto`, then the kernels.
pub fn engines() -> [CrcEngine; 5] {
    CrcEngine::ALL
}

/// The engine called `name` (trimmed); an error if unknown or unsupported.
///
/// # Errors
/// Unknown or unsupported names; the error lists the valid ones.
pub fn select_engine(name: &str) -> Result<CrcEngine, EngineError> {
    let name = name.trim();
    let error = |kind| EngineError::new::<CrcKernel>(name, kind);
    match CrcEngine::from_name(name) {
        None => Err(error(EngineErrorKind::Unknown)),
        Some(e) if !e.is_supported() => Err(error(EngineErrorKind::Unsupported)),
        Some(e) => Ok(e),
    }
}

/// The engine `MBHASH_CRC_ENGINE` asks for (`auto` when unset or empty),
/// or the error that makes the infallible functions run `auto` instead.
/// Read once per process. Without `std`, `auto`. After [`set_default`],
/// the engine set there.
pub fn configured_engine() -> Result<CrcEngine, EngineError> {
    let set = DEFAULT.load(Ordering::Acquire);
    if set != 0 {
        return Ok(CrcEngine::ALL[(set - 1) as usize % 5]);
    }
    #[cfg(feature = "std")]
    {
        use crate::race::Race;
        static CONFIGURED: Race<Result<CrcEngine, EngineError>> = Race::new();
        CONFIGURED
            .get_or_init(|| {
                crate::select::from_env::<CrcKernel, _>(select_engine, || CrcEngine::Auto)
            })
            .clone()
    }
    #[cfg(not(feature = "std"))]
    {
        Ok(CrcEngine::Auto)
    }
}

/// The engine set by [`set_default`]: `1 + ` its index in
/// [`CrcEngine::ALL`]; 0 while none is set.
static DEFAULT: AtomicU8 = AtomicU8::new(0);

/// Makes `name` the engine of every spec but CRC-32/ISCSI from now on, for
/// the whole process (as OpenZFS's writable `zfs_*_impl` parameters, and
/// [`crate::crc::crc32c::set_default`] for CRC-32/ISCSI): [`super::checksum`]
/// and friends, and every [`super::Crc`] made after, run it. It overrides
/// `MBHASH_CRC_ENGINE`. Safe while other threads compute CRCs: every
/// engine gives the same values.
///
/// # Errors
/// An unknown name, or an engine this CPU does not run; nothing changes.
pub fn set_default(name: &str) -> Result<(), EngineError> {
    let engine = select_engine(name)?;
    // Made ready before it is published.
    #[cfg(feature = "std")]
    if table(engine).is_none() {
        return Err(EngineError::new::<CrcKernel>(
            engine.name(),
            EngineErrorKind::Unsupported,
        ));
    }
    let i = engine.index();
    DEFAULT.store(i as u8 + 1, Ordering::Release);
    #[cfg(feature = "std")]
    CURRENT.store(i as u8 + 1, Ordering::Release);
    Ok(())
}

/// Undoes [`set_default`]: from now on the engine `MBHASH_CRC_ENGINE`
/// names runs again (`auto` when it is unset or invalid; without `std`,
/// `auto`).
pub fn clear_default() {
    DEFAULT.store(0, Ordering::Release);
    // The next call chooses again, from the variable.
    #[cfg(feature = "std")]
    CURRENT.store(0, Ordering::Release);
}

/// The engine [`super::checksum`] and friends run now: `1 + ` its index in
/// [`CrcEngine::ALL`] (its [`table`] is made before it is stored here); 0
/// before the first call and after [`clear_default`]. [`ENV_ERROR`] is
/// added while the engine is `auto` because `MBHASH_CRC_ENGINE` is invalid
/// and no default was set, which the checked entry points (the C library)
/// report.
#[cfg(feature = "std")]
static CURRENT: AtomicU8 = AtomicU8::new(0);

/// The flag of [`CURRENT`] for an invalid `MBHASH_CRC_ENGINE`.
#[cfg(feature = "std")]
const ENV_ERROR: u8 = 0x80;

/// The kernel per orientation and size class of each engine, by `1 + ` its
/// index in [`CrcEngine::ALL`] (slot 0 and those past the engines stay
/// empty; eight, so that any index masked by 7 is in range); `None` if
/// this CPU does not run the engine.
#[cfg(feature = "std")]
static TABLES: [crate::race::Race<Option<Selected>>; 8] = [const { crate::race::Race::new() }; 8];

/// The made-ready table of `engine`, for the life of the process.
#[cfg(feature = "std")]
fn table(engine: CrcEngine) -> Option<&'static Selected> {
    TABLES[engine.index() + 1]
        .get_or_init(|| match engine {
            CrcEngine::Auto => Some(Selected {
                engine,
                any: Entry::TABLE,
                by_class: calibrated().0.by_class,
            }),
            e => match (entry(e), entry_for(e, false), entry_for(e, true)) {
                (Some(any), Some(normal), Some(reflected)) => Some(Selected {
                    engine: e,
                    any,
                    by_class: [[normal; CLASSES], [reflected; CLASSES]],
                }),
                _ => None,
            },
        })
        .as_ref()
}

/// What [`CURRENT`] names, once it names something: one load, a mask and
/// the slot's own check.
#[cfg(feature = "std")]
#[inline]
fn current() -> Option<&'static Selected> {
    let i = CURRENT.load(Ordering::Acquire);
    TABLES[(i & 7) as usize].get().and_then(Option::as_ref)
}

/// The kernels the one-shot functions run now, chosen at first use.
#[cfg(feature = "std")]
#[inline]
fn selected() -> &'static Selected {
    match current() {
        Some(s) => s,
        None => choose(),
    }
}

/// The first use (or the first after [`clear_default`]): the run-time
/// default if one is set, else the variable's engine, else `auto`.
#[cfg(feature = "std")]
#[cold]
#[inline(never)]
fn choose() -> &'static Selected {
    let (engine, flag) = match configured_engine() {
        Ok(e) => (e, 0),
        // The functions that cannot fail run `auto`; the checked ones
        // report the error (`ready`).
        Err(_) => (CrcEngine::Auto, ENV_ERROR),
    };
    let engine = match table(engine) {
        Some(_) => engine,
        None => CrcEngine::Auto,
    };
    let code = (engine.index() as u8 + 1) | flag;
    // A default set meanwhile by `set_default` wins.
    let _ = CURRENT.compare_exchange(0, code, Ordering::AcqRel, Ordering::Acquire);
    current()
        .or_else(|| table(CrcEngine::Auto))
        .unwrap_or(&TABLE_ONLY)
}

/// Every class on the table kernel (which runs on any CPU): what
/// [`choose`] falls back to if no table could be made (never, in practice:
/// `auto`'s always can).
#[cfg(feature = "std")]
static TABLE_ONLY: Selected = Selected {
    engine: CrcEngine::Table,
    any: Entry::TABLE,
    by_class: [[Entry::TABLE; CLASSES]; 2],
};

/// True once the first call has chosen the engine the one-shot functions
/// run and while `MBHASH_CRC_ENGINE` has no error to report (or a default
/// set by [`set_default`] overrides it): then the checked entry points
/// (the C library's) need not ask [`configured_engine`]. One load and a
/// comparison.
#[inline]
pub fn ready() -> bool {
    #[cfg(feature = "std")]
    {
        let i = CURRENT.load(Ordering::Acquire);
        i != 0 && i & ENV_ERROR == 0
    }
    #[cfg(not(feature = "std"))]
    {
        true
    }
}

/// Advances the normalised register over `data` with the kernels the
/// one-shot functions run now (the engine [`set_default`] set, else
/// `MBHASH_CRC_ENGINE`'s, else `auto`). After the first call: one load of
/// the current table, the size class and one call of the kernel.
/// `reflected` is the constants' orientation (`c.reflected()`), given by
/// callers that know it at compile time.
#[inline(always)]
pub(crate) fn update_current(reflected: bool, c: &Consts, reg: u64, data: &[u8]) -> u64 {
    #[cfg(feature = "std")]
    {
        debug_assert_eq!(reflected, c.reflected());
        match current() {
            Some(s) => s.by_class[reflected as usize][class(data.len())].update(c, reg, data),
            None => update_first(reflected, c, reg, data),
        }
    }
    #[cfg(not(feature = "std"))]
    {
        let _ = reflected;
        CrcKernel::configured().update_normalised(c, reg, data)
    }
}

/// [`update_current`] before the engine is chosen: the choice and the
/// update out of line, so that the usual path keeps no argument live
/// across a call and needs no saved registers.
#[cfg(feature = "std")]
#[cold]
#[inline(never)]
fn update_first(reflected: bool, c: &Consts, reg: u64, data: &[u8]) -> u64 {
    choose().by_class[reflected as usize][class(data.len())].update(c, reg, data)
}

/// A CRC engine made ready (its kernels detected): what [`super::Crc`]
/// and the one-shot functions run.
#[derive(Clone, Copy, Debug)]
pub struct CrcKernel {
    engine: CrcEngine,
    imp: Imp,
}

#[derive(Clone, Copy, Debug)]
enum Imp {
    /// One kernel for every length.
    One(Entry),
    /// `auto`: a kernel per size class and orientation, measured.
    #[cfg(feature = "std")]
    Auto(&'static Selected),
    /// CRC-32/ISCSI on the CRC32C engines.
    Crc32c(crate::crc::crc32c::Crc32cKernel),
}

impl CrcKernel {
    /// The kernel of `engine` for any spec; an error if this CPU does not
    /// support it.
    ///
    /// # Errors
    /// When `engine` does not run here.
    pub fn new(engine: CrcEngine) -> Result<CrcKernel, EngineError> {
        let imp = match engine {
            CrcEngine::Auto => auto_imp(),
            e => Imp::One(entry(e).ok_or_else(|| {
                EngineError::new::<CrcKernel>(e.name(), EngineErrorKind::Unsupported)
            })?),
        };
        Ok(CrcKernel { engine, imp })
    }

    /// The kernel of `engine` for `spec`: under `auto`, CRC-32/ISCSI runs
    /// the CRC32C engines.
    ///
    /// # Errors
    /// When `engine` does not run here.
    pub fn new_for(spec: &CrcSpec, engine: CrcEngine) -> Result<CrcKernel, EngineError> {
        if engine == CrcEngine::Auto && is_crc32c(spec) {
            return Ok(CrcKernel {
                engine,
                imp: Imp::Crc32c(crate::crc::crc32c::Crc32cKernel::auto()),
            });
        }
        CrcKernel::new(engine)
    }

    /// The configured kernel for `spec`: CRC-32/ISCSI the CRC32C one
    /// (`MBHASH_CRC32C_ENGINE`), any other the engine `MBHASH_CRC_ENGINE`
    /// names, `auto` when that is invalid. Never fails.
    #[inline]
    pub fn for_spec(spec: &CrcSpec) -> CrcKernel {
        if is_crc32c(spec) {
            return CrcKernel {
                engine: CrcEngine::Auto,
                imp: Imp::Crc32c(crate::crc::crc32c::Crc32cKernel::configured()),
            };
        }
        CrcKernel::configured()
    }

    /// The kernel `MBHASH_CRC_ENGINE` names, `auto` when it is unset or
    /// invalid. Never fails.
    /// After [`set_default`], the engine set there.
    #[inline]
    pub fn configured() -> CrcKernel {
        #[cfg(feature = "std")]
        {
            let s = selected();
            match s.engine {
                CrcEngine::Auto => CrcKernel {
                    engine: CrcEngine::Auto,
                    imp: Imp::Auto(s),
                },
                e => CrcKernel {
                    engine: e,
                    imp: Imp::One(s.any),
                },
            }
        }
        #[cfg(not(feature = "std"))]
        {
            let engine = configured_engine().unwrap_or(CrcEngine::Auto);
            CrcKernel::new(engine).unwrap_or_else(|_| CrcKernel {
                engine: CrcEngine::Auto,
                imp: auto_imp(),
            })
        }
    }

    /// The engine.
    pub fn engine(&self) -> CrcEngine {
        self.engine
    }

    /// Advances the normalised register (see `mbhash_simd::crc`).
    #[inline]
    pub(crate) fn update_normalised(&self, c: &Consts, reg: u64, data: &[u8]) -> u64 {
        match self.imp {
            Imp::One(e) => e.update(c, reg, data),
            #[cfg(feature = "std")]
            Imp::Auto(s) => {
                s.by_class[c.reflected() as usize][class(data.len())].update(c, reg, data)
            }
            Imp::Crc32c(k) => !k.append(!(reg as u32), data) as u64,
        }
    }

    /// True if this kernel runs `vpclmul512` for `len` bytes of a spec
    /// with constants `c`.
    pub(crate) fn runs_vpclmul512(&self, c: &Consts, len: usize) -> bool {
        #[cfg(not(feature = "std"))]
        let _ = (c, len);
        match self.imp {
            Imp::One(_) => self.engine == CrcEngine::Vpclmul512,
            #[cfg(feature = "std")]
            Imp::Auto(_) => calibrated().1.choice_for(c.reflected(), len) == CrcEngine::Vpclmul512,
            Imp::Crc32c(_) => false,
        }
    }

    /// Advances the spec's raw register (right-aligned) with constants `c`.
    #[inline]
    pub fn update_register(&self, c: &Consts, reg: u64, data: &[u8]) -> u64 {
        c.from_normalised(self.update_normalised(c, c.to_normalised(reg), data))
    }
}

/// True for the CRC32C polynomial, reflected, 32 bits: the register the
/// CRC32C kernels advance, whatever the spec's `init` and `xorout`.
#[inline]
pub(crate) fn is_crc32c(spec: &CrcSpec) -> bool {
    let c = CRC32_ISCSI;
    spec.width == c.width && spec.poly == c.poly && spec.refin == c.refin
}

/// `auto`: measured per size class with `std`, else the widest folding
/// kernel this CPU has.
fn auto_imp() -> Imp {
    #[cfg(feature = "std")]
    {
        Imp::Auto(&calibrated().0)
    }
    #[cfg(not(feature = "std"))]
    {
        Imp::One(
            CrcEngine::KERNELS
                .iter()
                .rev()
                .find_map(|&e| entry(e))
                .unwrap_or(Entry::TABLE),
        )
    }
}

impl EngineNames for CrcKernel {
    const FAMILY: &'static str = "crc";
    #[cfg(feature = "std")]
    const ENV_VAR: &'static str = ENGINE_VAR;
    #[cfg(not(feature = "std"))]
    const ENV_VAR: &'static str = "MBHASH_CRC_ENGINE";
    fn engine_name(i: usize) -> Option<&'static str> {
        CrcEngine::KERNELS.get(i).map(|e| e.name())
    }
    fn name_supported(i: usize) -> bool {
        CrcEngine::KERNELS.get(i).is_some_and(|e| e.is_supported())
    }
}

/// An engine made ready: a kernel entry per orientation (not reflected,
/// reflected) and size class (for an engine of one kernel, the same entry
/// everywhere).
#[cfg(feature = "std")]
#[derive(Debug)]
struct Selected {
    engine: CrcEngine,
    /// An engine of one kernel: its entry for constants of either
    /// orientation (what a [`CrcKernel`] of it runs); unused by `auto`.
    any: Entry,
    by_class: [[Entry; CLASSES]; 2],
}

/// What `auto` measured: nanoseconds per call of each kernel
/// ([`CrcEngine::KERNELS`] order) per timed size class, for a
/// non-reflected spec (CRC-64/ECMA-182) and a reflected one (CRC-64/NVME),
/// and the kernel it chose for each. The kernels cost the same for every
/// spec of an orientation (the same code over other constants).
#[cfg(feature = "std")]
#[derive(Clone, Debug)]
pub struct AutoChoices {
    cost: [Costs<4>; 2],
    choice: [[CrcEngine; TIMED_CLASSES + 1]; 2],
}

#[cfg(feature = "std")]
impl AutoChoices {
    /// The size classes `auto` timed: `(smallest length, largest length,
    /// length timed)` of each, in order; the last class also covers every
    /// longer input.
    pub fn classes(&self) -> impl Iterator<Item = (usize, usize, usize)> + '_ {
        (1..=TIMED_CLASSES).map(|b| {
            let hi = if b == TIMED_CLASSES {
                usize::MAX
            } else {
                class_max(b)
            };
            (class_length(b), hi, class_length(b))
        })
    }

    /// The kernel `auto` runs for `len` bytes of a reflected spec (most
    /// named CRCs are; [`AutoChoices::choice_for`] gives either).
    pub fn choice(&self, len: usize) -> CrcEngine {
        self.choice_for(true, len)
    }

    /// The kernel `auto` runs for `len` bytes of a spec reflected or not.
    pub fn choice_for(&self, reflected: bool, len: usize) -> CrcEngine {
        self.choice[reflected as usize][class(len).min(TIMED_CLASSES)]
    }

    /// Nanoseconds per call `auto` measured for `kernel` on the length
    /// timed for `len`'s class (`None` for `auto` or an unsupported
    /// kernel).
    pub fn cost(&self, reflected: bool, kernel: CrcEngine, len: usize) -> Option<f64> {
        let i = CrcEngine::KERNELS.iter().position(|&k| k == kernel)?;
        let c = self.cost[reflected as usize][class(len).clamp(1, TIMED_CLASSES)][i];
        c.is_finite().then_some(c)
    }
}

/// What `auto` chose per size class, and the costs it measured (measured
/// at the first call, once per process).
#[cfg(feature = "std")]
pub fn auto_choices() -> &'static AutoChoices {
    &calibrated().1
}

#[cfg(feature = "std")]
fn calibrated() -> &'static (Selected, AutoChoices) {
    use crate::race::Race;
    static AUTO: Race<(Selected, AutoChoices)> = Race::new();
    AUTO.get_or_init(calibrate)
}

/// Times every supported kernel per size class (`classes::measure`, the
/// timing of CRC32C's `auto` too), for each orientation.
#[cfg(feature = "std")]
fn calibrate() -> (Selected, AutoChoices) {
    use std::hint::black_box;
    let entries = CrcEngine::KERNELS.map(entry);
    let table = CrcEngine::KERNELS
        .iter()
        .position(|&k| k == CrcEngine::Table);
    let mut by_class = [[Entry::TABLE; CLASSES]; 2];
    let mut choice = [[CrcEngine::Table; TIMED_CLASSES + 1]; 2];
    let orientations = [CRC64_ECMA_182, CRC64_NVME].map(|s| super::consts(&s).expect("named"));
    let cost: [Costs<4>; 2] = measure(entries.map(|e| e.is_some()), table, |o, i, data| {
        if let Some(e) = entries[i] {
            black_box(e.update(orientations[o], 0, data));
        }
    });
    for o in 0..2 {
        let picked = cheapest(&cost[o], table.unwrap_or(0));
        // The chosen kernels' entries for this orientation alone.
        let oriented = CrcEngine::KERNELS.map(|k| entry_for(k, o == 1));
        for (b, slot) in by_class[o].iter_mut().enumerate() {
            let i = picked[b.min(TIMED_CLASSES)];
            *slot = oriented[i].unwrap_or(Entry::TABLE);
        }
        choice[o] = picked.map(|i| CrcEngine::KERNELS[i]);
    }
    (
        Selected {
            engine: CrcEngine::Auto,
            any: Entry::TABLE,
            by_class,
        },
        AutoChoices { cost, choice },
    )
}

/// A spec's constants kept for the process: a lock-free list that only
/// grows (never waits, as [`crate::race::Race`]).
#[cfg(feature = "std")]
pub(crate) struct Node {
    consts: Consts,
    next: crate::race::Race<Node>,
}

/// Specs not named here whose constants a process keeps (about 37 KiB
/// each): past them, a new (width, polynomial, reflection) runs bit by bit,
/// so that a program trying many polynomials cannot grow without bound.
#[cfg(feature = "std")]
pub(crate) const USER_CONSTS_MAX: usize = 256;

/// The constants of a spec not named here, made once per (width,
/// polynomial, reflection) and kept for the process; `None` once
/// [`USER_CONSTS_MAX`] others are kept.
#[cfg(feature = "std")]
pub(crate) fn user_consts(spec: &CrcSpec) -> Option<&'static Consts> {
    use crate::race::Race;
    static HEAD: Race<Node> = Race::new();
    find_or_add(&HEAD, spec, USER_CONSTS_MAX)
}

/// The constants of `spec` in the list from `head`, added at its end if
/// missing and the list holds fewer than `max`.
#[cfg(feature = "std")]
pub(crate) fn find_or_add(
    head: &'static crate::race::Race<Node>,
    spec: &CrcSpec,
    max: usize,
) -> Option<&'static Consts> {
    let matches = |c: &Consts| {
        c.width() == spec.width && c.reflected() == spec.refin && c.poly_normal() == spec.poly
    };
    let mut cell = head;
    for _ in 0..max {
        let node = match cell.get() {
            Some(node) => node,
            None => cell.get_or_init(|| Node {
                consts: Consts::new(spec.width, spec.poly, spec.refin),
                next: crate::race::Race::new(),
            }),
        };
        if matches(&node.consts) {
            return Some(&node.consts);
        }
        cell = &node.next;
    }
    None
}
