//! The CRC engines: which kernel runs a spec, by name, by the environment,
//! or measured (`auto`).

use super::spec::CrcSpec;
#[cfg(feature = "std")]
use super::variant::Variant;
use crate::engine::{EngineError, EngineErrorKind, EngineNames};
use core::fmt;
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
/// Read once per process. Without `std`, `auto`.
pub fn configured_engine() -> Result<CrcEngine, EngineError> {
    #[cfg(feature = "std")]
    {
        use crate::race::Race;
        static CONFIGURED: Race<Result<CrcEngine, EngineError>> = Race::new();
        CONFIGURED
            .get_or_init(|| {
                crate::engine::from_env::<CrcKernel, _>(select_engine, || CrcEngine::Auto)
            })
            .clone()
    }
    #[cfg(not(feature = "std"))]
    {
        Ok(CrcEngine::Auto)
    }
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
    /// CRC-32/ISCSI on the CRC32C engines.
    #[cfg(feature = "std")]
    Crc32c(crate::crc32c::Crc32cKernel),
}

impl CrcKernel {
    /// The kernel of `engine` for any spec; an error if this CPU does not
    /// support it.
    ///
    /// # Errors
    /// When `engine` does not run here.
    pub fn new(engine: CrcEngine) -> Result<CrcKernel, EngineError> {
        let imp = match engine {
            CrcEngine::Auto => Imp::One(auto_entry()),
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
        #[cfg(feature = "std")]
        if engine == CrcEngine::Auto && Variant::of(spec) == Some(Variant::Crc32Iscsi) {
            return Ok(CrcKernel {
                engine,
                imp: Imp::Crc32c(crate::crc32c::Crc32cKernel::auto()),
            });
        }
        let _ = spec;
        CrcKernel::new(engine)
    }

    /// The configured kernel for `spec`: CRC-32/ISCSI the CRC32C one
    /// (`MBHASH_CRC32C_ENGINE`), any other the engine `MBHASH_CRC_ENGINE`
    /// names, `auto` when that is invalid. Never fails.
    pub fn for_spec(spec: &CrcSpec) -> CrcKernel {
        #[cfg(feature = "std")]
        if Variant::of(spec) == Some(Variant::Crc32Iscsi) {
            return CrcKernel {
                engine: CrcEngine::Auto,
                imp: Imp::Crc32c(crate::crc32c::Crc32cKernel::configured()),
            };
        }
        let _ = spec;
        CrcKernel::configured()
    }

    /// The kernel `MBHASH_CRC_ENGINE` names, `auto` when it is unset or
    /// invalid. Never fails.
    pub fn configured() -> CrcKernel {
        let engine = configured_engine().unwrap_or(CrcEngine::Auto);
        CrcKernel::new(engine).unwrap_or_else(|_| CrcKernel {
            engine: CrcEngine::Auto,
            imp: Imp::One(auto_entry()),
        })
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
            Imp::Crc32c(k) => !k.append(!(reg as u32), data) as u64,
        }
    }

    /// Advances the spec's raw register (right-aligned) with constants `c`.
    #[inline]
    pub fn update_register(&self, c: &Consts, reg: u64, data: &[u8]) -> u64 {
        c.from_normalised(self.update_normalised(c, c.to_normalised(reg), data))
    }
}

/// `auto`'s kernel: the widest supported.
fn auto_entry() -> Entry {
    CrcEngine::KERNELS
        .iter()
        .rev()
        .find_map(|&e| entry(e))
        .unwrap_or(Entry::TABLE)
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

/// What `auto` measured (placeholder until calibration lands).
#[cfg(feature = "std")]
#[derive(Clone, Debug)]
pub struct AutoChoices {
    choice: CrcEngine,
}

#[cfg(feature = "std")]
impl AutoChoices {
    /// The kernel `auto` runs for `len` bytes.
    pub fn choice(&self, len: usize) -> CrcEngine {
        let _ = len;
        self.choice
    }
}

/// What `auto` chose.
#[cfg(feature = "std")]
pub fn auto_choices() -> AutoChoices {
    AutoChoices {
        choice: CrcEngine::KERNELS
            .iter()
            .rev()
            .copied()
            .find(|e| e.is_supported())
            .unwrap_or(CrcEngine::Table),
    }
}

/// A spec's constants kept for the process: a lock-free list that only
/// grows (never waits, as [`crate::race::Race`]).
#[cfg(feature = "std")]
struct Node {
    consts: Consts,
    next: crate::race::Race<Node>,
}

/// The constants of a spec not named here, made once per (width,
/// polynomial, reflection) and kept for the process.
#[cfg(feature = "std")]
pub(crate) fn user_consts(spec: &CrcSpec) -> &'static Consts {
    use crate::race::Race;
    static HEAD: Race<Node> = Race::new();
    let make = || Node {
        consts: Consts::new(spec.width, spec.poly, spec.refin),
        next: Race::new(),
    };
    let mut cell = &HEAD;
    loop {
        let node = cell.get_or_init(make);
        let c = &node.consts;
        if c.width == spec.width && c.reflected == spec.refin && c.poly_normal() == spec.poly {
            return c;
        }
        cell = &node.next;
    }
}
