//! Engines: which one a call runs, the module-wide override, and the list
//! `mbhash.engines()` returns (what `mbhash engines` prints).
//!
//! A call runs, in this order of precedence: the engine named by its
//! `engine=` argument; the process's default for the family, which
//! `set_engine` sets in the core (the one default that Rust's
//! `engine::set_default` and C's `mbh_set_engine` also set, so the three
//! see each other's choice); the one the family's environment variable
//! names (`MBHASH_SHA256_ENGINE`, `MBHASH_SHA512_ENGINE`,
//! `MBHASH_MD5_ENGINE`, `MBHASH_SHA1_ENGINE`, `MBHASH_SM3_ENGINE`,
//! `MBHASH_CRC32C_ENGINE`, read once per process); `auto`. An unknown or
//! unsupported name, wherever it comes from, is a `ValueError` listing the
//! valid names, never a silent fallback.

use mbhash_core::crc32c::{self, Crc32cEngine};
use mbhash_core::engine::{Engine, EngineFamily, Kernels, LaneEngine, Step};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

use crate::algo;
use mbhash_core::engine::FamilyEngine;

fn value_error(e: impl std::fmt::Display) -> PyErr {
    PyValueError::new_err(e.to_string())
}

/// The engine a call of family `F` runs (see the module docs).
pub(crate) fn engine<F: FamilyEngine>(name: Option<&str>) -> PyResult<F::Engine> {
    if let Some(name) = name {
        return F::Engine::from_name(name).map_err(value_error);
    }
    F::Engine::try_configured().map_err(value_error)
}

/// The CRC32C engine a call runs.
pub(crate) fn crc32c_engine(name: Option<&str>) -> PyResult<Crc32cEngine> {
    if let Some(name) = name {
        return crc32c::select_engine(name).map_err(value_error);
    }
    crc32c::configured_engine().map_err(value_error)
}

/// A family by its name (`"sha256"`, `"sha512"`, `"md5"`, `"sha1"`,
/// `"sm3"`, `"crc32c"`) or by the
/// name of one of its algorithms (`"sha512_256"` is the `sha512` family).
fn which(family: &str) -> PyResult<EngineFamily> {
    if let Some(f) = EngineFamily::from_name(&family.to_ascii_lowercase()) {
        return Ok(f);
    }
    let algo = algo::parse(family).map_err(|_| {
        let families: Vec<&str> = EngineFamily::ALL.iter().map(|f| f.name()).collect();
        PyValueError::new_err(format!(
            "unknown engine family {family:?} (families: {}, or an algorithm name)",
            families.join(", ")
        ))
    })?;
    Ok(EngineFamily::of(algo))
}

/// Makes `name` the engine of `family` ("sha256", "sha512", "md5", "sha1",
/// "sm3", "crc32c", "crc" (every CRC of `crc`, `crc32`, `crc64_nvme` but
/// crc32c), or
/// an algorithm name, which stands for its family) for every later call
/// of this process that gives no engine= of its own, from Python, Rust
/// or C (the process has one default per family); None goes back to
/// the environment variable's choice, else auto. Hash objects keep the
/// engine they were made with. ValueError for an unknown family, or an
/// engine that is unknown or unsupported on this CPU.
#[pyfunction]
#[pyo3(signature = (family, name))]
pub(crate) fn set_engine(family: &str, name: Option<&str>) -> PyResult<()> {
    let family = which(family)?;
    match name {
        Some(name) => mbhash_core::engine::set_default(family, name).map_err(value_error),
        None => {
            mbhash_core::engine::clear_default(family);
            Ok(())
        }
    }
}

/// The name of the engine a call of `family` runs when it gives no
/// engine= (see set_engine). ValueError if the environment variable names
/// an unusable engine.
#[pyfunction]
pub(crate) fn get_engine(family: &str) -> PyResult<&'static str> {
    let family = which(family)?;
    match family {
        EngineFamily::Crc32c => return Ok(crc32c_engine(None)?.name()),
        EngineFamily::Crc => return crc_engine().map(|e| e.name()),
        _ => {}
    }
    // A hash family: the default of its algorithms (every family has one).
    let algo = mbhash_core::Algo::ALL
        .into_iter()
        .find(|a| EngineFamily::of(*a) == family)
        .expect("every hash family computes an algorithm");
    mbhash_core::with_algo!(algo, A => {
        Ok(engine::<<A as mbhash_core::alg::Algorithm>::Family>(None)?.name())
    })
}

/// Every engine of every family, as `mbhash engines` shows them: a list of
/// dicts, one per family, with keys "family", "algorithms", "env_var",
/// "engines" (dicts of "name" and "supported" on this CPU), "in_use" (the
/// engine a call without engine= runs; None with "error" set when the
/// environment variable names an unusable engine), and for the SHA
/// families "lanes", "cost_ns" (kernel name to the cost per block per
/// kernel call that auto measured on this CPU) and "auto_runs" (the
/// kernel auto runs for 1, 2, ... busy lanes).
#[pyfunction]
pub(crate) fn engines(py: Python<'_>) -> PyResult<Bound<'_, PyList>> {
    let list = PyList::empty(py);
    hash_families(py, &list)?;
    list.append(crc32c_family(py)?)?;
    list.append(crc_family(py)?)?;
    Ok(list)
}

/// Appends every hash family of the catalogue
/// ([`mbhash_core::for_each_family!`]) to `list`.
macro_rules! hash_families {
    ($($v:ident $ty:ident $engine:ident $kernels:ident $name:literal;)*) => {
        fn hash_families(py: Python<'_>, list: &Bound<'_, PyList>) -> PyResult<()> {
            $(list.append(hash_family::<mbhash_core::engine::$kernels>(py)?)?;)*
            Ok(())
        }
    };
}

mbhash_core::for_each_family!(@names hash_families);

/// The engine of every CRC but CRC-32/ISCSI now, or the environment
/// variable's error.
fn crc_engine() -> PyResult<mbhash_core::crc::CrcEngine> {
    mbhash_core::crc::configured_engine().map_err(value_error)
}

/// The generic CRC engines: family "crc", every named CRC but crc32c
/// (which follows the crc32c family).
fn crc_family(py: Python<'_>) -> PyResult<Bound<'_, PyDict>> {
    use mbhash_core::crc::{CrcEngine, ENGINE_VAR, Variant};
    let d = PyDict::new(py);
    d.set_item("family", "crc")?;
    let algorithms: Vec<&str> = Variant::ALL
        .iter()
        .filter(|v| **v != Variant::Crc32Iscsi)
        .map(|v| v.name())
        .collect();
    d.set_item("algorithms", algorithms)?;
    d.set_item("env_var", ENGINE_VAR)?;
    let list = PyList::empty(py);
    for engine in CrcEngine::ALL {
        let e = PyDict::new(py);
        e.set_item("name", engine.name())?;
        e.set_item("supported", engine.is_supported())?;
        list.append(e)?;
    }
    d.set_item("engines", list)?;
    in_use(&d, crc_engine().map(|e| e.name()))?;
    Ok(d)
}

fn hash_family<'py, K>(py: Python<'py>) -> PyResult<Bound<'py, PyDict>>
where
    K: Kernels,
    K::Family: FamilyEngine<Engine = Engine<K>>,
{
    let d = PyDict::new(py);
    d.set_item("family", K::FAMILY)?;
    let family = <K::Family as FamilyEngine>::ENGINE_FAMILY;
    let algorithms: Vec<&str> = mbhash_core::Algo::ALL
        .into_iter()
        .filter(|a| EngineFamily::of(*a) == family)
        .map(|a| a.hashlib_name())
        .collect();
    d.set_item("algorithms", algorithms)?;
    d.set_item("env_var", K::ENV_VAR)?;
    let list = PyList::empty(py);
    for name in Engine::<K>::names() {
        let e = PyDict::new(py);
        e.set_item("name", name)?;
        e.set_item("supported", Engine::<K>::is_supported(name))?;
        list.append(e)?;
    }
    d.set_item("engines", list)?;
    in_use(&d, engine::<K::Family>(None).map(|e| e.name()))?;
    let auto = Engine::<K>::auto();
    d.set_item("lanes", auto.lanes())?;
    let costs = PyDict::new(py);
    for step in Step::ALL {
        let c = auto.plan().cost(step);
        if c.is_finite() {
            costs.set_item(Engine::<K>::step_name(step), c)?;
        }
    }
    d.set_item("cost_ns", costs)?;
    let runs: Vec<&str> = (1..=auto.lanes() as u32)
        .map(|k| {
            let busy = if k >= 32 { u32::MAX } else { (1u32 << k) - 1 };
            Engine::<K>::step_name(auto.choose(busy))
        })
        .collect();
    d.set_item("auto_runs", runs)?;
    Ok(d)
}

fn crc32c_family(py: Python<'_>) -> PyResult<Bound<'_, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("family", "crc32c")?;
    d.set_item("algorithms", vec!["crc32c"])?;
    d.set_item("env_var", crc32c::ENGINE_VAR)?;
    let list = PyList::empty(py);
    // `auto` first, then the kernels.
    for engine in crc32c::engines() {
        let e = PyDict::new(py);
        e.set_item("name", engine.name())?;
        e.set_item("supported", engine.is_supported())?;
        list.append(e)?;
    }
    d.set_item("engines", list)?;
    in_use(&d, crc32c_engine(None).map(|e| e.name()))?;
    Ok(d)
}

fn in_use(d: &Bound<'_, PyDict>, name: PyResult<&str>) -> PyResult<()> {
    match name {
        Ok(name) => {
            d.set_item("in_use", name)?;
            d.set_item("error", d.py().None())
        }
        Err(e) => {
            d.set_item("in_use", d.py().None())?;
            d.set_item("error", e.value(d.py()).str()?)
        }
    }
}
