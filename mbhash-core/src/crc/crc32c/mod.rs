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
//! Without `std` there is neither clock nor environment: `auto` is the
//! widest kernel the CPU has (the last of [`Crc32cEngine::KERNELS`] it
//! runs), and [`set_default`] alone changes the engine.
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

#[cfg(feature = "std")]
mod calibrate;
mod kernel;

#[cfg(feature = "std")]
use calibrate::auto;
#[cfg(feature = "std")]
pub use calibrate::{AutoChoices, auto_choices};
use kernel::One;
#[cfg(feature = "std")]
use kernel::Selected;

#[cfg(feature = "std")]
use crate::race::Race;
use core::fmt;
use core::sync::atomic::{AtomicU8, Ordering};

use crate::select::EngineNames;
pub use crate::select::{EngineError, EngineErrorKind};

/// A made-ready engine: with `std`, its kernel entry per size class, made
/// once for the life of the process; without, the kernel's token (there is
/// no allocation to keep a table in, and no clock to measure by).
#[cfg(feature = "std")]
type Ready = &'static Selected;
#[cfg(not(feature = "std"))]
type Ready = kernel::Picked;

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

    #[cfg(feature = "std")]
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
///
/// Without `std` no variable is read: the engine set by [`set_default`],
/// else `auto`.
pub fn configured_engine() -> Result<Crc32cEngine, EngineError> {
    if let Some(&e) =
        Crc32cEngine::ALL.get((DEFAULT.load(Ordering::Acquire) as usize).wrapping_sub(1))
    {
        return Ok(e);
    }
    env_engine()
}

/// The engine `MBHASH_CRC32C_ENGINE` names, read once per process.
#[cfg(feature = "std")]
fn env_engine() -> Result<Crc32cEngine, EngineError> {
    static CONFIGURED: Race<Result<Crc32cEngine, EngineError>> = Race::new();
    CONFIGURED
        .get_or_init(|| crate::select::from_env::<Crc32cKernel, _>(select_engine, auto_engine))
        .clone()
}

/// Without `std`: no environment, `auto`.
#[cfg(not(feature = "std"))]
fn env_engine() -> Result<Crc32cEngine, EngineError> {
    Ok(auto_engine())
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
    #[cfg(feature = "std")]
    CURRENT.store(i as u8 + 1, Ordering::Release);
    Ok(())
}

/// Undoes [`set_default`]: from now on [`crc32c`] and friends run what
/// `MBHASH_CRC32C_ENGINE` names again (`auto` when it is unset or
/// invalid), as at the start of the process.
pub fn clear_default() {
    DEFAULT.store(0, Ordering::Release);
    // The next call chooses again from the variable (`choose`).
    #[cfg(feature = "std")]
    CURRENT.store(0, Ordering::Release);
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
#[cfg(feature = "std")]
static CURRENT: AtomicU8 = AtomicU8::new(0);

/// The flag of [`CURRENT`] for an invalid `MBHASH_CRC32C_ENGINE`.
#[cfg(feature = "std")]
const ENV_ERROR: u8 = 0x80;

/// Made-ready engines, `1 + ` index in [`Crc32cEngine::ALL`] (slot 0 and
/// those past the engines stay empty; eight, so that any index masked by 7
/// is in range).
#[cfg(feature = "std")]
static SLOTS: [Race<Option<Selected>>; 8] = [const { Race::new() }; 8];

/// The made-ready engine, for the life of the process (`None` if this CPU
/// does not run it).
#[cfg(feature = "std")]
fn slot(engine: Crc32cEngine) -> Option<Ready> {
    SLOTS[engine.index() + 1]
        .get_or_init(|| engine.kernel())
        .as_ref()
}

/// The engine's kernel (`None` if this CPU does not run it); `auto` is
/// the widest kernel this CPU has.
#[cfg(not(feature = "std"))]
fn slot(engine: Crc32cEngine) -> Option<Ready> {
    match engine {
        Crc32cEngine::Auto => Some(auto()),
        e => One::new(e).map(|kernel| Ready { engine: e, kernel }),
    }
}

/// Without `std`, `auto` is the widest kernel this CPU has (there is no
/// clock to measure by): the last of [`Crc32cEngine::KERNELS`] supported.
#[cfg(not(feature = "std"))]
fn auto() -> Ready {
    let kernel = Crc32cEngine::KERNELS
        .iter()
        .rev()
        .find_map(|&e| One::new(e))
        .unwrap_or(One::Table(mbhash_simd::crc32c::Table));
    Ready {
        engine: Crc32cEngine::Auto,
        kernel,
    }
}

/// What [`CURRENT`] names, once it names something: one load, a mask and
/// the slot's own check.
#[cfg(feature = "std")]
#[inline]
fn current() -> Option<Ready> {
    let i = CURRENT.load(Ordering::Acquire);
    SLOTS[(i & 7) as usize].get().and_then(Option::as_ref)
}

/// The kernels [`crc32c`] and friends run now, chosen at first use.
#[cfg(feature = "std")]
#[inline]
fn selected() -> Ready {
    match current() {
        Some(s) => s,
        None => choose(),
    }
}

/// The kernel [`crc32c`] and friends run now: the engine [`set_default`]
/// set, else `auto` (feature detection is cached; this is a few loads).
#[cfg(not(feature = "std"))]
#[inline]
fn selected() -> Ready {
    configured_engine().ok().and_then(slot).unwrap_or_else(auto)
}

/// The first use: the run-time default if one was set meanwhile, else the
/// variable's engine, else `auto`.
#[cfg(feature = "std")]
#[cold]
#[inline(never)]
fn choose() -> Ready {
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
    #[cfg(feature = "std")]
    {
        match current() {
            Some(s) => s.update(crc, data),
            None => update_first(crc, data),
        }
    }
    #[cfg(not(feature = "std"))]
    {
        selected().update(crc, data)
    }
}

/// [`update`] before the engine is chosen: the choice and the update out
/// of line, so that the usual path keeps no argument live across a call
/// and needs no saved registers. With the C calling convention, as the
/// kernels' entries have, which cannot unwind: a C entry point (which
/// aborts on an unwinding panic) then reaches either by a jump, with no
/// stack frame of its own. (Only Rust calls it; nothing in it panics but a
/// bug, which aborts.)
#[cfg(feature = "std")]
#[cold]
#[inline(never)]
#[allow(improper_ctypes_definitions)]
extern "C" fn update_first(crc: u32, data: &[u8]) -> u32 {
    choose().update(crc, data)
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
pub struct Crc32cKernel(Ready);

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
        #[cfg(feature = "std")]
        {
            let i = CURRENT.load(Ordering::Acquire);
            match SLOTS[(i & 7) as usize].get() {
                Some(Some(s)) if i & ENV_ERROR == 0 => Some(Crc32cKernel(s)),
                _ => None,
            }
        }
        // Without `std` there is no variable whose error could be pending.
        #[cfg(not(feature = "std"))]
        {
            Some(Crc32cKernel(selected()))
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
/// Implements [`core::hash::Hasher`] (`finish` returns the CRC as `u64`)
/// and, with `std`, [`std::io::Write`] (never fails), so it can sit under
/// `io::copy`.
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

impl core::hash::Hasher for Crc32c {
    fn write(&mut self, bytes: &[u8]) {
        self.update(bytes);
    }

    fn finish(&self) -> u64 {
        self.value() as u64
    }
}

#[cfg(feature = "std")]
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
mod tests;
