//! CRC32C (Castagnoli, as in iSCSI, SCTP, ext4, Btrfs): one-shot, streaming,
//! combination of CRCs of adjacent pieces, and engine selection.
//!
//! Every value taken or returned here is a *finished* CRC (initial value
//! `!0`, final inversion), the number the standards print: the CRC32C of
//! `"123456789"` is `0xE3069283`.
//!
//! ```
//! use mbhash_core::crc32c::{Crc32c, crc32c, crc32c_append, crc32c_combine};
//! let whole = crc32c(b"hello, world");
//! assert_eq!(crc32c_append(crc32c(b"hello, "), b"world"), whole);
//! assert_eq!(crc32c_combine(crc32c(b"hello, "), crc32c(b"world"), 5), whole);
//! let mut h = Crc32c::new();
//! h.update(b"hello, ");
//! h.update(b"world");
//! assert_eq!(h.value(), whole);
//! ```
//!
//! # Engines
//!
//! [`Crc32cEngine`] names the kernels of `mbhash_simd::crc32c`: `table`
//! (portable slice-by-8), `sse42` (the `crc32` instruction on six streams,
//! recombined with PCLMULQDQ), `vpclmul` (AVX-512 VPCLMULQDQ folding, fused
//! with `crc32` streams from 800 bytes on, the `sse42` single chain below
//! 160 bytes) and `vpclmul-fold` (AVX-512 VPCLMULQDQ folding alone, eight
//! accumulators). Which is fastest depends on the CPU and the length: the
//! fused kernel wins where `crc32` is cheap next to VPCLMULQDQ (AMD Zen 5),
//! folding alone where the carry-less multiplier is wide (Intel Xeon).
//!
//! `auto` therefore picks per *size class* (lengths of the same bit length,
//! `2^(b-1)..2^b`): the first time it is used it times every supported
//! kernel on the smallest length of each class, a power of two (the best of
//! a few short trials after a warm-up, one to two milliseconds in all) and
//! keeps the cheapest for each class. [`auto_choices`] shows what it chose.
//!
//! The environment variable `MBHASH_CRC32C_ENGINE` (`auto`, `table`,
//! `sse42`, `vpclmul` or `vpclmul-fold`) overrides the choice for
//! [`crc32c`], [`crc32c_append`], [`crc32c_combine`] and [`Crc32c`]. It is
//! read once, at first use, and the kernels are cached: no detection
//! happens per call. Engine selection follows the rule of every family (see
//! [`crate::engine`]): those functions cannot fail, so with a name that is
//! unknown or unsupported by this CPU they run the `auto` engine, silently;
//! the error (the one [`EngineError`], naming the valid engines) is
//! returned by [`configured_engine`] and [`Crc32cKernel::try_configured`],
//! shown by `mbhash engines`, and returned by the C library's
//! `mbh_crc32c*`. Use [`engine`] to see which engine is in use and
//! [`crc32c_with`] to run a given one.

use crate::crc::classes::{
    CLASSES, TIMED_CLASSES, WARM_UP_US, cheapest, class, class_length, class_max, measure,
};
use crate::race::Race;
use mbhash_simd::crc32c::{Entry, Kernel, Sse42, Table, Vpclmul, VpclmulFold};
use std::fmt;
use std::sync::atomic::{AtomicU8, Ordering};

pub use crate::select::{EngineError, EngineErrorKind};
use crate::select::{EngineNames, from_env};

/// The environment variable that overrides the engine choice.
pub const ENGINE_VAR: &str = "MBHASH_CRC32C_ENGINE";

/// A CRC32C implementation: `auto` or one kernel.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Crc32cEngine {
    /// The cheapest supported kernel for each size class, measured on this
    /// CPU at first use.
    Auto,
    /// Portable slice-by-8 tables; any CPU.
    Table,
    /// SSE4.2 `crc32` on six interleaved streams, recombined with PCLMULQDQ.
    Sse42,
    /// AVX-512 VPCLMULQDQ folding fused with `crc32` streams.
    Vpclmul,
    /// AVX-512 VPCLMULQDQ folding alone, eight 512-bit accumulators.
    VpclmulFold,
}

impl Crc32cEngine {
    /// Every engine: `auto`, then the kernels, slowest first.
    pub const ALL: [Crc32cEngine; 5] = [
        Crc32cEngine::Auto,
        Crc32cEngine::Table,
        Crc32cEngine::Sse42,
        Crc32cEngine::Vpclmul,
        Crc32cEngine::VpclmulFold,
    ];

    /// The kernels `auto` chooses among.
    pub const KERNELS: [Crc32cEngine; 4] = [
        Crc32cEngine::Table,
        Crc32cEngine::Sse42,
        Crc32cEngine::Vpclmul,
        Crc32cEngine::VpclmulFold,
    ];

    /// The name used by [`select_engine`] and `MBHASH_CRC32C_ENGINE`.
    pub const fn name(self) -> &'static str {
        match self {
            Crc32cEngine::Auto => "auto",
            Crc32cEngine::Table => "table",
            Crc32cEngine::Sse42 => "sse42",
            Crc32cEngine::Vpclmul => "vpclmul",
            Crc32cEngine::VpclmulFold => "vpclmul-fold",
        }
    }

    /// The position of the engine in [`Crc32cEngine::ALL`].
    pub const fn index(self) -> usize {
        match self {
            Crc32cEngine::Auto => 0,
            Crc32cEngine::Table => 1,
            Crc32cEngine::Sse42 => 2,
            Crc32cEngine::Vpclmul => 3,
            Crc32cEngine::VpclmulFold => 4,
        }
    }

    /// The engine called `name`.
    pub fn from_name(name: &str) -> Option<Crc32cEngine> {
        Crc32cEngine::ALL.into_iter().find(|e| e.name() == name)
    }

    /// True if this CPU can run the engine (and `MBHASH_DISABLE` does not
    /// hide the features it needs); `auto` always runs.
    pub fn is_supported(self) -> bool {
        match self {
            Crc32cEngine::Auto => true,
            _ => One::new(self).is_some(),
        }
    }

    fn kernel(self) -> Option<Selected> {
        match self {
            Crc32cEngine::Auto => Some(*auto()),
            _ => One::new(self).map(Selected::only),
        }
    }
}

impl fmt::Display for Crc32cEngine {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Every engine, supported here or not: `auto`, then the kernels.
pub fn engines() -> [Crc32cEngine; 5] {
    Crc32cEngine::ALL
}

/// The engine used when none is configured: [`Crc32cEngine::Auto`].
pub fn auto_engine() -> Crc32cEngine {
    Crc32cEngine::Auto
}

/// The engine called `name` (one of [`Crc32cEngine::name`]); an error if
/// unknown or unsupported by this CPU.
pub fn select_engine(name: &str) -> Result<Crc32cEngine, EngineError> {
    let name = name.trim();
    let error = |kind| EngineError::new::<Crc32cKernel>(name, kind);
    match Crc32cEngine::from_name(name) {
        None => Err(error(EngineErrorKind::Unknown)),
        Some(e) if !e.is_supported() => Err(error(EngineErrorKind::Unsupported)),
        Some(e) => Ok(e),
    }
}

/// The engine that `MBHASH_CRC32C_ENGINE` asks for (`auto` when unset or
/// empty), or the error that makes [`crc32c`] and friends ignore it. Read
/// once per process.
///
/// After [`set_default`] it is the engine set there, and the variable no
/// longer counts.
pub fn configured_engine() -> Result<Crc32cEngine, EngineError> {
    if let Some(&e) =
        Crc32cEngine::ALL.get((DEFAULT.load(Ordering::Acquire) as usize).wrapping_sub(1))
    {
        return Ok(e);
    }
    env_engine()
}

/// The engine `MBHASH_CRC32C_ENGINE` names, read once per process.
fn env_engine() -> Result<Crc32cEngine, EngineError> {
    static CONFIGURED: Race<Result<Crc32cEngine, EngineError>> = Race::new();
    CONFIGURED
        .get_or_init(|| from_env::<Crc32cKernel, _>(select_engine, auto_engine))
        .clone()
}

/// The engine that [`crc32c`] and friends use now: the one [`set_default`]
/// set last, else [`configured_engine`] if it is valid, else
/// [`auto_engine`].
pub fn engine() -> Crc32cEngine {
    selected().engine()
}

/// Makes `name` the default CRC32C engine from now on, for the whole
/// process, as OpenZFS's writable `zfs_*_impl` parameters: the next call of
/// [`crc32c`], [`crc32c_append`], [`crc32c_combine`], [`Crc32c::update`]
/// and the C library's `mbh_crc32c*` runs on it (a call under way finishes
/// on the engine it started with; a [`Crc32cKernel`] made earlier keeps its
/// own). It overrides `MBHASH_CRC32C_ENGINE`. Safe while other threads
/// compute CRCs: every engine gives the same values.
///
/// ```
/// use mbhash_core::crc32c::{self, Crc32cEngine};
/// crc32c::set_default("table").unwrap();
/// assert_eq!(crc32c::engine(), Crc32cEngine::Table);
/// assert_eq!(crc32c::crc32c(b"123456789"), 0xE306_9283);
/// assert!(crc32c::set_default("avx9000").is_err());
/// assert_eq!(crc32c::engine(), Crc32cEngine::Table);
/// crc32c::set_default("auto").unwrap();
/// ```
///
/// # Errors
/// An unknown name, or an engine this CPU does not run; nothing changes.
pub fn set_default(name: &str) -> Result<(), EngineError> {
    let engine = select_engine(name)?;
    let i = engine.index();
    // Made ready before it is published: a reader finds its slot filled.
    if slot(engine).is_none() {
        return Err(EngineError::new::<Crc32cKernel>(
            engine.name(),
            EngineErrorKind::Unsupported,
        ));
    }
    DEFAULT.store(i as u8 + 1, Ordering::Release);
    CURRENT.store(i as u8 + 1, Ordering::Release);
    Ok(())
}

/// Undoes [`set_default`]: from now on [`crc32c`] and friends run what
/// `MBHASH_CRC32C_ENGINE` names again (`auto` when it is unset or
/// invalid), as at the start of the process.
pub fn clear_default() {
    DEFAULT.store(0, Ordering::Release);
    // The next call chooses again from the variable (`choose`).
    CURRENT.store(0, Ordering::Release);
}

/// One kernel token, ready to run.
#[derive(Clone, Copy, Debug)]
enum One {
    Table(Table),
    Sse42(Sse42),
    Vpclmul(Vpclmul),
    VpclmulFold(VpclmulFold),
}

impl One {
    /// The token of a kernel engine (`None` for `auto`, or unsupported).
    fn new(engine: Crc32cEngine) -> Option<One> {
        Some(match engine {
            Crc32cEngine::Auto => return None,
            Crc32cEngine::Table => One::Table(Table),
            Crc32cEngine::Sse42 => One::Sse42(Sse42::new()?),
            Crc32cEngine::Vpclmul => One::Vpclmul(Vpclmul::new()?),
            Crc32cEngine::VpclmulFold => One::VpclmulFold(VpclmulFold::new()?),
        })
    }

    fn engine(self) -> Crc32cEngine {
        match self {
            One::Table(_) => Crc32cEngine::Table,
            One::Sse42(_) => Crc32cEngine::Sse42,
            One::Vpclmul(_) => Crc32cEngine::Vpclmul,
            One::VpclmulFold(_) => Crc32cEngine::VpclmulFold,
        }
    }

    /// Advances the raw register.
    #[inline]
    fn update(self, crc: u32, data: &[u8]) -> u32 {
        match self {
            One::Table(k) => k.update(crc, data),
            One::Sse42(k) => k.update(crc, data),
            One::Vpclmul(k) => k.update(crc, data),
            One::VpclmulFold(k) => k.update(crc, data),
        }
    }

    /// The kernel's entry for inputs of at most `max_len` bytes.
    fn entry(self, max_len: usize) -> Entry {
        match self {
            One::Table(k) => k.entry(max_len),
            One::Sse42(k) => k.entry(max_len),
            One::Vpclmul(k) => k.entry(max_len),
            One::VpclmulFold(k) => k.entry(max_len),
        }
    }

    /// `crc * x^(8*len) mod P`.
    #[inline]
    fn shift(self, crc: u32, len: u64) -> u32 {
        match self {
            One::Table(k) => k.shift(crc, len),
            One::Sse42(k) => k.shift(crc, len),
            One::Vpclmul(k) => k.shift(crc, len),
            One::VpclmulFold(k) => k.shift(crc, len),
        }
    }
}

/// An engine made ready: a kernel entry for every size class (the same
/// kernel unless the engine is `auto`), so that a call is one indirect call
/// with no dispatch of its own.
#[derive(Clone, Copy, Debug)]
struct Selected {
    engine: Crc32cEngine,
    by_class: [Entry; CLASSES],
    /// For `shift` (the SIMD kernels share the PCLMULQDQ one).
    shift: One,
}

impl Selected {
    fn only(k: One) -> Selected {
        Selected::new(k.engine(), [k; CLASSES], k)
    }

    fn new(engine: Crc32cEngine, kernels: [One; CLASSES], shift: One) -> Selected {
        Selected {
            engine,
            by_class: core::array::from_fn(|b| kernels[b].entry(class_max(b))),
            shift,
        }
    }

    fn engine(&self) -> Crc32cEngine {
        self.engine
    }

    /// Advances the raw register.
    #[inline]
    fn update(&self, crc: u32, data: &[u8]) -> u32 {
        self.by_class[class(data.len())].update(crc, data)
    }

    /// `crc * x^(8*len) mod P`.
    #[inline]
    fn shift(&self, crc: u32, len: u64) -> u32 {
        self.shift.shift(crc, len)
    }
}

/// What `auto` measured: nanoseconds per call of each kernel
/// ([`Crc32cEngine::KERNELS`] order; infinite when unsupported) for each
/// size class it timed.
#[derive(Clone, Debug)]
pub struct AutoChoices {
    cost: [[f64; 4]; TIMED_CLASSES + 1],
    choice: [Crc32cEngine; TIMED_CLASSES + 1],
}

impl AutoChoices {
    /// The size classes `auto` timed: `(smallest length, largest length,
    /// length timed)` of each, in order; the last class also covers every
    /// longer input.
    pub fn classes(&self) -> impl Iterator<Item = (usize, usize, usize)> + '_ {
        (1..=TIMED_CLASSES).map(|b| {
            let hi = if b == TIMED_CLASSES {
                usize::MAX
            } else {
                (1 << b) - 1
            };
            (1 << (b - 1), hi, class_length(b))
        })
    }

    /// The kernel `auto` runs for `len` bytes.
    pub fn choice(&self, len: usize) -> Crc32cEngine {
        self.choice[class(len).min(TIMED_CLASSES)]
    }

    /// Nanoseconds per call `auto` measured for `kernel` on the length timed
    /// for `len`'s class (`None` for `auto` or an unsupported kernel).
    pub fn cost(&self, kernel: Crc32cEngine, len: usize) -> Option<f64> {
        let i = Crc32cEngine::KERNELS.iter().position(|&k| k == kernel)?;
        let c = self.cost[class(len).clamp(1, TIMED_CLASSES)][i];
        c.is_finite().then_some(c)
    }
}

/// What `auto` chose per size class, and the costs it measured.
pub fn auto_choices() -> &'static AutoChoices {
    &calibrated().1
}

/// The `auto` engine, calibrated at first use.
fn auto() -> &'static Selected {
    &calibrated().0
}

fn calibrated() -> &'static (Selected, AutoChoices) {
    static AUTO: Race<(Selected, AutoChoices)> = Race::new();
    AUTO.get_or_init(calibrate)
}

/// Times every supported kernel on one length per size class and keeps the
/// cheapest (the one timing of every CRC's `auto`, `crc::classes`).
fn calibrate() -> (Selected, AutoChoices) {
    use std::hint::black_box;
    let kernels = Crc32cEngine::KERNELS.map(One::new);
    let table = Crc32cEngine::KERNELS
        .iter()
        .position(|&k| k == Crc32cEngine::Table);
    let cost = measure(
        kernels.map(|k| k.is_some()),
        table,
        WARM_UP_US,
        |i, data| {
            if let Some(k) = kernels[i] {
                black_box(k.update(0, data));
            }
        },
    );
    let table_kernel = One::Table(Table);
    let picked = cheapest(&cost, table.unwrap_or(0)).map(|i| kernels[i].unwrap_or(table_kernel));
    let mut by_class = [picked[TIMED_CLASSES]; CLASSES];
    by_class[..=TIMED_CLASSES].copy_from_slice(&picked);
    // `shift` does not depend on the data: the fastest kernel that has one
    // of its own (every SIMD kernel uses the PCLMULQDQ `shift`).
    let shift = kernels[1..]
        .iter()
        .flatten()
        .next()
        .copied()
        .unwrap_or(table_kernel);
    let choices = AutoChoices {
        cost,
        choice: picked.map(One::engine),
    };
    (Selected::new(Crc32cEngine::Auto, by_class, shift), choices)
}

/// The engine set by [`set_default`]: `1 + ` its index in
/// [`Crc32cEngine::ALL`]; 0 while none was set.
static DEFAULT: AtomicU8 = AtomicU8::new(0);

/// The engine [`crc32c`] and friends run now: `1 + ` its index in
/// [`Crc32cEngine::ALL`] (its [`slot`] is filled before it is stored
/// here); 0 before the first call. [`ENV_ERROR`] is added while the engine
/// is `auto` because `MBHASH_CRC32C_ENGINE` is invalid and no default was
/// set, which the checked entry points ([`Crc32cKernel::try_default`], the
/// C library) report.
static CURRENT: AtomicU8 = AtomicU8::new(0);

/// The flag of [`CURRENT`] for an invalid `MBHASH_CRC32C_ENGINE`.
const ENV_ERROR: u8 = 0x80;

/// Made-ready engines, `1 + ` index in [`Crc32cEngine::ALL`] (slot 0 and
/// those past the engines stay empty; eight, so that any index masked by 7
/// is in range).
static SLOTS: [Race<Option<Selected>>; 8] = [const { Race::new() }; 8];

/// The made-ready engine, for the life of the process (`None` if this CPU
/// does not run it).
fn slot(engine: Crc32cEngine) -> Option<&'static Selected> {
    SLOTS[engine.index() + 1]
        .get_or_init(|| engine.kernel())
        .as_ref()
}

/// What [`CURRENT`] names, once it names something: one load, a mask and
/// the slot's own check.
#[inline]
fn current() -> Option<&'static Selected> {
    let i = CURRENT.load(Ordering::Acquire);
    SLOTS[(i & 7) as usize].get().and_then(Option::as_ref)
}

/// The kernels [`crc32c`] and friends run now, chosen at first use.
#[inline]
fn selected() -> &'static Selected {
    match current() {
        Some(s) => s,
        None => choose(),
    }
}

/// The first use: the run-time default if one was set meanwhile, else the
/// variable's engine, else `auto`.
#[cold]
#[inline(never)]
fn choose() -> &'static Selected {
    // `crc32c()` cannot fail, and a storage path must not crash on a
    // misspelt variable: a bad name means `auto` here, and the error is
    // `configured_engine`'s to report.
    let (engine, flag) = match env_engine() {
        Ok(e) => (e, 0),
        Err(_) => (auto_engine(), ENV_ERROR),
    };
    // Made ready (its slot filled) before it is published.
    let engine = match slot(engine) {
        Some(_) => engine,
        None => {
            slot(auto_engine());
            auto_engine()
        }
    };
    let code = (engine.index() as u8 + 1) | flag;
    // A default set meanwhile by `set_default` wins.
    let _ = CURRENT.compare_exchange(0, code, Ordering::AcqRel, Ordering::Acquire);
    current().unwrap_or_else(auto)
}

/// Advances the raw register with the current kernels. The first call
/// takes a separate, out-of-line path, so that the usual one keeps
/// nothing live across calls but the kernel's own (short inputs cost a
/// few instructions around the kernel, also behind the C ABI).
#[inline]
fn update(crc: u32, data: &[u8]) -> u32 {
    selected().update(crc, data)
}

/// The CRC32C of `data`.
#[inline]
pub fn crc32c(data: &[u8]) -> u32 {
    crc32c_append(0, data)
}

/// Continues a CRC: takes the finished CRC32C of some message `A` and
/// returns the finished CRC32C of `A` followed by `data`.
///
/// `crc32c_append(0, data)` is `crc32c(data)`.
#[inline]
pub fn crc32c_append(crc: u32, data: &[u8]) -> u32 {
    !update(!crc, data)
}

/// [`crc32c_append`] with the given engine (for tests and benchmarks); an
/// error if this CPU does not support it.
pub fn crc32c_with(engine: Crc32cEngine, crc: u32, data: &[u8]) -> Result<u32, EngineError> {
    Ok(Crc32cKernel::new(engine)?.append(crc, data))
}

/// A CRC32C engine made ready once (its kernels detected), for callers that
/// pick an engine themselves and call it often.
///
/// ```
/// use mbhash_core::crc32c::{Crc32cEngine, Crc32cKernel, crc32c};
/// let k = Crc32cKernel::new(Crc32cEngine::Table).unwrap();
/// assert_eq!(k.append(0, b"123456789"), 0xE3069283);
/// assert_eq!(k.append(0, b"abc"), crc32c(b"abc"));
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Crc32cKernel(&'static Selected);

impl Crc32cKernel {
    /// The kernel of `engine`; an error if this CPU does not support it.
    pub fn new(engine: Crc32cEngine) -> Result<Self, EngineError> {
        slot(engine).map(Crc32cKernel).ok_or_else(|| {
            EngineError::new::<Crc32cKernel>(engine.name(), EngineErrorKind::Unsupported)
        })
    }

    /// The engine called `name` (`auto` or one of [`Crc32cEngine::name`]).
    ///
    /// # Errors
    /// Unknown or unsupported names; the error lists the valid ones.
    pub fn from_name(name: &str) -> Result<Self, EngineError> {
        Self::new(select_engine(name)?)
    }

    /// The `auto` engine: the cheapest kernel this CPU supports for each
    /// size class.
    pub fn auto() -> Self {
        Crc32cKernel(auto())
    }

    /// The engine `MBHASH_CRC32C_ENGINE` names, or `auto` when it is unset.
    ///
    /// # Errors
    /// When the variable names an unknown or unsupported engine.
    pub fn try_configured() -> Result<Self, EngineError> {
        configured_engine().and_then(Self::new)
    }

    /// The engine [`crc32c`] and friends run now (see [`engine`]). Never
    /// panics, never prints.
    pub fn configured() -> Self {
        Crc32cKernel(selected())
    }

    /// The engine [`crc32c`] and friends run now, or the error of
    /// `MBHASH_CRC32C_ENGINE` while it names an engine that cannot run and
    /// no default was set by [`set_default`]: what the C library's
    /// `mbh_crc32c*` run. After the first call, one load and a comparison.
    ///
    /// # Errors
    /// As [`configured_engine`].
    #[inline]
    pub fn try_default() -> Result<Self, EngineError> {
        match Self::ready_default() {
            Some(k) => Ok(k),
            None => Self::try_default_slow(),
        }
    }

    /// [`Crc32cKernel::try_default`]'s usual case alone: the engine
    /// [`crc32c`] runs now, once the first call chose it and while no
    /// error is pending; `None` otherwise (then ask `try_default`). One
    /// load and two comparisons, nothing kept on the stack: for entry
    /// points that must cost what the kernel costs.
    #[inline]
    pub fn ready_default() -> Option<Self> {
        let i = CURRENT.load(Ordering::Acquire);
        match SLOTS[(i & 7) as usize].get() {
            Some(Some(s)) if i & ENV_ERROR == 0 => Some(Crc32cKernel(s)),
            _ => None,
        }
    }

    #[cold]
    #[inline(never)]
    fn try_default_slow() -> Result<Self, EngineError> {
        let k = Crc32cKernel(selected());
        configured_engine().map(|_| k)
    }

    /// The engine's name.
    pub fn name(self) -> &'static str {
        self.engine().name()
    }

    /// The engine it runs.
    pub fn engine(self) -> Crc32cEngine {
        self.0.engine()
    }

    /// Like [`crc32c_append`], on this kernel.
    #[inline]
    pub fn append(self, crc: u32, data: &[u8]) -> u32 {
        !self.0.update(!crc, data)
    }
}

impl EngineNames for Crc32cKernel {
    const FAMILY: &'static str = "crc32c";
    const ENV_VAR: &'static str = ENGINE_VAR;
    fn engine_name(i: usize) -> Option<&'static str> {
        Crc32cEngine::KERNELS.get(i).map(|e| e.name())
    }
    fn name_supported(i: usize) -> bool {
        Crc32cEngine::KERNELS
            .get(i)
            .is_some_and(|e| e.is_supported())
    }
}

/// The CRC32C of `A` followed by `B`, from `crc_a = crc32c(A)`,
/// `crc_b = crc32c(B)` and the length of `B` alone.
///
/// Runs in O(log `len_b`) time without touching data: `crc_a` is multiplied
/// by `x^(8*len_b)` modulo the polynomial (square-and-multiply over a
/// compile-time table of `x^(2^k)`, at most 31 carry-less multiplications;
/// PCLMULQDQ when the CPU has it), then `crc_b` is added.
#[inline]
pub fn crc32c_combine(crc_a: u32, crc_b: u32, len_b: u64) -> u32 {
    selected().shift(crc_a, len_b) ^ crc_b
}

/// A streaming CRC32C: feed it pieces, read the CRC of their concatenation.
///
/// Implements [`std::hash::Hasher`] (`finish` returns the CRC as `u64`) and
/// [`std::io::Write`] (never fails), so it can sit under `io::copy`.
///
/// ```
/// use mbhash_core::crc32c::{Crc32c, crc32c};
/// let mut crc = Crc32c::new();
/// crc.update(b"1234");
/// crc.update(b"56789");
/// // The iSCSI check value (RFC 3720).
/// assert_eq!(crc.value(), 0xe306_9283);
/// assert_eq!(crc.value(), crc32c(b"123456789"));
/// // Under io::copy, as any writer.
/// let mut w = Crc32c::new();
/// std::io::copy(&mut &b"123456789"[..], &mut w).unwrap();
/// assert_eq!(w, crc);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Crc32c {
    /// The raw register (the finished value inverted).
    state: u32,
}

impl Crc32c {
    /// A hasher over the empty message.
    pub fn new() -> Crc32c {
        Crc32c::with_initial(0)
    }

    /// A hasher that continues from the finished CRC `crc` of some earlier
    /// message, as [`crc32c_append`] does.
    pub fn with_initial(crc: u32) -> Crc32c {
        Crc32c { state: !crc }
    }

    /// Appends `data` to the message.
    #[inline]
    pub fn update(&mut self, data: &[u8]) {
        self.state = update(self.state, data);
    }

    /// The finished CRC32C of everything fed so far.
    pub fn value(&self) -> u32 {
        !self.state
    }
}

impl Default for Crc32c {
    fn default() -> Crc32c {
        Crc32c::new()
    }
}

impl std::hash::Hasher for Crc32c {
    fn write(&mut self, bytes: &[u8]) {
        self.update(bytes);
    }

    fn finish(&self) -> u64 {
        self.value() as u64
    }
}

impl std::io::Write for Crc32c {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.update(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::hash::Hasher;
    use std::io::Write;

    use mbhash_test_support::Rng;

    fn supported() -> Vec<Crc32cEngine> {
        engines().into_iter().filter(|e| e.is_supported()).collect()
    }

    /// An error lists each engine once (`auto` first), as the SHA
    /// families' errors do.
    #[test]
    fn an_engine_error_lists_each_engine_once() {
        let msg = select_engine("bogus").unwrap_err().to_string();
        let list = msg.split("valid engines: ").nth(1).expect(&msg);
        let valid: Vec<&str> = list.split(';').next().unwrap().split(", ").collect();
        let want: Vec<&str> = engines().iter().map(|e| e.name()).collect();
        assert_eq!(valid, want, "{msg}");
    }

    #[test]
    fn check_value() {
        assert_eq!(crc32c(b"123456789"), 0xE306_9283);
        assert_eq!(crc32c(b""), 0);
        for e in supported() {
            assert_eq!(crc32c_with(e, 0, b"123456789"), Ok(0xE306_9283), "{e}");
        }
    }

    #[test]
    fn engines_agree_with_the_crc_crate() {
        let theirs = crc::Crc::<u32>::new(&crc::CRC_32_ISCSI);
        let mut rng = Rng::new(1);
        let data = rng.bytes(20_000);
        for len in (0..300).chain([1023, 1024, 4096, 8191, 8193, 20_000]) {
            let expected = theirs.checksum(&data[..len]);
            assert_eq!(crc32c(&data[..len]), expected, "length {len}");
            for e in supported() {
                assert_eq!(
                    crc32c_with(e, 0, &data[..len]),
                    Ok(expected),
                    "{e}, length {len}"
                );
            }
        }
    }

    #[test]
    fn append_is_whole() {
        let mut rng = Rng::new(2);
        let data = rng.bytes(5000);
        let whole = crc32c(&data);
        for _ in 0..200 {
            let cut = rng.below(data.len() + 1);
            let (a, b) = data.split_at(cut);
            assert_eq!(crc32c_append(crc32c(a), b), whole, "cut at {cut}");
        }
        assert_eq!(crc32c_append(whole, b""), whole);
    }

    #[test]
    fn hasher_and_writer_agree() {
        let mut rng = Rng::new(3);
        let data = rng.bytes(3000);
        let mut h = Crc32c::new();
        let mut w = Crc32c::default();
        let mut rest = &data[..];
        while !rest.is_empty() {
            let n = rng.below(rest.len().min(700) + 1);
            let (piece, tail) = rest.split_at(n);
            Hasher::write(&mut h, piece);
            w.write_all(piece).unwrap();
            rest = tail;
        }
        w.flush().unwrap();
        assert_eq!(h.value(), crc32c(&data));
        assert_eq!(h.finish(), crc32c(&data) as u64);
        assert_eq!(w, h);
        let mut copied = Crc32c::new();
        std::io::copy(&mut &data[..], &mut copied).unwrap();
        assert_eq!(copied.value(), crc32c(&data));
        let mut continued = Crc32c::with_initial(crc32c(&data[..1000]));
        continued.update(&data[1000..]);
        assert_eq!(continued.value(), crc32c(&data));
    }

    #[test]
    fn combine_matches_direct() {
        let mut rng = Rng::new(4);
        let data = rng.bytes((1 << 20) + 100);
        // Short and medium pieces at random splits.
        for _ in 0..300 {
            let len = rng.below(5000);
            let start = rng.below(data.len() - len);
            let piece = &data[start..start + len];
            let cut = rng.below(len + 1);
            let (a, b) = piece.split_at(cut);
            assert_eq!(
                crc32c_combine(crc32c(a), crc32c(b), b.len() as u64),
                crc32c(piece),
                "length {len} cut at {cut}"
            );
        }
        // Empty pieces, and a long second piece.
        assert_eq!(
            crc32c_combine(crc32c(&data[..10]), crc32c(b""), 0),
            crc32c(&data[..10])
        );
        assert_eq!(
            crc32c_combine(crc32c(b""), crc32c(&data), data.len() as u64),
            crc32c(&data)
        );
        let (a, b) = data.split_at(77);
        assert_eq!(
            crc32c_combine(crc32c(a), crc32c(b), b.len() as u64),
            crc32c(&data)
        );
    }

    #[test]
    fn combine_with_huge_lengths() {
        // A || zeros(n), for n far beyond any buffer: crc32c(zeros(n)) and
        // the CRC of the concatenation both follow from the raw register
        // advanced over n zero bytes, computed by every engine's own shift.
        let mut rng = Rng::new(5);
        for _ in 0..50 {
            let len = rng.below(100);
            let a = rng.bytes(len);
            let n = rng.next_u64() >> rng.below(64);
            let crc_a = crc32c(&a);
            for e in supported() {
                let k = e.kernel().unwrap();
                let zeros = !k.shift(!0, n);
                let expected = !k.shift(!crc_a, n);
                assert_eq!(crc32c_combine(crc_a, zeros, n), expected, "{e}, n = {n}");
            }
        }
        // Associativity over lengths summing past 2^32 and 2^64 / 8.
        let (x, y, z) = (crc32c(b"x"), crc32c(b"yy"), crc32c(b"zzz"));
        for (n1, n2) in [
            (1u64 << 33, 5u64),
            (u64::MAX / 2, u64::MAX / 3),
            (u64::MAX - 7, 7),
        ] {
            let left = crc32c_combine(crc32c_combine(x, y, n1), z, n2);
            let right = crc32c_combine(x, crc32c_combine(y, z, n2), n1 + n2);
            assert_eq!(left, right, "{n1} + {n2}");
        }
    }

    #[test]
    fn auto_chooses_a_supported_kernel_per_class() {
        let choices = auto_choices();
        let theirs = crc::Crc::<u32>::new(&crc::CRC_32_ISCSI);
        let mut rng = Rng::new(6);
        let data = rng.bytes((1 << 18) + 1);
        let auto = Crc32cKernel::new(Crc32cEngine::Auto).unwrap();
        assert_eq!(auto.engine(), Crc32cEngine::Auto);
        let mut classes = 0;
        for (lo, hi, timed) in choices.classes() {
            classes += 1;
            assert!(lo <= timed && timed <= hi, "{lo} {timed} {hi}");
            for len in [lo, timed, hi.min(data.len())] {
                let k = choices.choice(len);
                assert!(k.is_supported() && k != Crc32cEngine::Auto, "{k}");
                // The chosen kernel was timed, and was the cheapest.
                let c = choices.cost(k, len).expect("timed");
                for other in Crc32cEngine::KERNELS {
                    if let Some(o) = choices.cost(other, len) {
                        assert!(c <= o, "{k} {c} vs {other} {o} at {len}");
                    }
                }
                assert_eq!(auto.append(0, &data[..len]), theirs.checksum(&data[..len]));
            }
        }
        assert!(classes >= 10);
        assert_eq!(choices.cost(Crc32cEngine::Auto, 64), None);
        assert!(choices.cost(Crc32cEngine::Table, 1 << 20).is_some());
        // Every class boundary, through the cached engine.
        for b in 0..19 {
            for len in [(1usize << b) - 1, 1 << b, (1 << b) + 1] {
                assert_eq!(crc32c(&data[..len]), theirs.checksum(&data[..len]), "{len}");
            }
        }
    }

    #[test]
    fn configured_engine_follows_the_variable() {
        let asked = std::env::var(ENGINE_VAR).unwrap_or_default();
        if asked.trim().is_empty() {
            assert_eq!(configured_engine(), Ok(auto_engine()));
            assert_eq!(engine(), auto_engine());
            return;
        }
        match select_engine(&asked) {
            Ok(e) => {
                assert_eq!(configured_engine(), Ok(e));
                assert_eq!(engine(), e);
            }
            Err(_) => {
                let err = configured_engine().unwrap_err();
                assert!(err.to_string().contains(ENGINE_VAR), "{err}");
                assert_eq!(engine(), auto_engine());
            }
        }
    }

    #[test]
    fn engine_names() {
        for e in engines() {
            assert_eq!(Crc32cEngine::from_name(e.name()), Some(e));
        }
        assert_eq!(select_engine("auto"), Ok(auto_engine()));
        assert_eq!(select_engine(" table "), Ok(Crc32cEngine::Table));
        assert!(auto_engine().is_supported());
        assert!(supported().contains(&engine()));

        let err = select_engine("avx9000").unwrap_err();
        assert_eq!(err.kind(), EngineErrorKind::Unknown);
        assert_eq!(err.name(), "avx9000");
        let message = err.to_string();
        for name in [
            "auto",
            "table",
            "sse42",
            "vpclmul",
            "vpclmul-fold",
            "avx9000",
        ] {
            assert!(message.contains(name), "{message}");
        }
        assert!(select_engine("").is_err());
        assert!(select_engine("Table").is_err());
        for e in engines() {
            match select_engine(e.name()) {
                Ok(got) => assert!(got == e && e.is_supported()),
                Err(err) => {
                    assert!(!e.is_supported());
                    assert_eq!(err.kind(), EngineErrorKind::Unsupported);
                    assert!(err.to_string().contains("table"));
                    assert!(crc32c_with(e, 0, b"").is_err());
                }
            }
        }
    }
}
