//! `mbhash.crc32c(data, value=0)` and `mbhash.crc32c_combine(a, b, len_b)`;
//! `mbhash.crc32(data, value=0)` (zlib's), `mbhash.crc64_nvme(data,
//! value=0)`, and the generic `mbhash.crc(name)` object.

use std::sync::{Mutex, MutexGuard, TryLockError};

use mbhash_core::crc::{self as core_crc, Variant};
use mbhash_core::crc32c::{crc32c_combine as combine, crc32c_with};
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyInt};

use crate::buffer::Buffer;
use crate::engines;
use crate::hasher::Arg;

/// zlib's threshold for `crc32`: shorter inputs keep the GIL.
const GIL_MIN: usize = 5 * 1024;

/// The CRC32C (Castagnoli) of `data`, continuing from `value`, the CRC32C
/// of the bytes before it, as zlib.crc32 does:
/// crc32c(b, crc32c(a)) == crc32c(a + b). Values are finished CRCs, as the
/// standards print them: crc32c(b"123456789") == 0xE3069283. `value` may
/// be any integer and is masked to 32 bits, as zlib.crc32 masks it:
/// crc32c(d, -1) == crc32c(d, 0xFFFFFFFF), crc32c(d, 2**32) == crc32c(d).
#[pyfunction]
#[pyo3(
    signature = (data, value = Arg::Missing, *, engine = None),
    text_signature = "(data, value=0, *, engine=None)"
)]
pub(crate) fn crc32c(
    py: Python<'_>,
    data: &Bound<'_, PyAny>,
    value: Arg<'_>,
    engine: Option<&str>,
) -> PyResult<u32> {
    let value = match value {
        Arg::Missing => 0,
        Arg::Given(v) => masked(&v)?,
    };
    let engine = engines::crc32c_engine(engine)?;
    let buf = Buffer::get(data)?;
    let bytes = buf.bytes();
    let run = || crc32c_with(engine, value, bytes);
    let crc = if bytes.len() >= GIL_MIN {
        py.detach(run)
    } else {
        run()
    };
    crc.map_err(|e| PyValueError::new_err(e.to_string()))
}

/// `value` as zlib's `unsigned_int(bitwise=True)` argument takes it: any
/// `int` (or object with `__index__`), its low 32 bits (the two's
/// complement ones for a negative value); `TypeError` for anything else
/// (a float, a str, None), as zlib.
fn masked(value: &Bound<'_, PyAny>) -> PyResult<u32> {
    // The mask is 32 bits wide: the value fits.
    masked_to(value, u64::from(u32::MAX)).map(|v| v as u32)
}

/// `value`'s low bits under `mask` (`2^width - 1`), as [`masked`] takes
/// them: any `int` or object with `__index__`, two's complement for a
/// negative one; `TypeError` for anything else.
fn masked_to(value: &Bound<'_, PyAny>, mask: u64) -> PyResult<u64> {
    if let Ok(Ok(small)) = value.cast::<PyInt>().map(|i| i.extract::<i64>()) {
        // Truncation is the point: the low bits, two's complement.
        return Ok(small as u64 & mask);
    }
    let int = value
        .py()
        .import("operator")?
        .call_method1("index", (value,))?;
    int.bitand(mask)?.extract::<u64>()
}

/// The CRC of `data` continuing from the finished CRC `value` (masked to
/// the width), with the GIL released for long inputs; `ValueError` if
/// `MBHASH_CRC_ENGINE` (or `MBHASH_CRC32C_ENGINE` for CRC-32/ISCSI) names
/// an engine that cannot run.
fn continued(py: Python<'_>, v: Variant, data: &Bound<'_, PyAny>, value: Arg<'_>) -> PyResult<u64> {
    let spec = v.spec();
    let value = match value {
        Arg::Missing => core_crc::checksum(spec, b""),
        Arg::Given(x) => masked_to(&x, spec.mask())?,
    };
    engine_ok(v)?;
    let buf = Buffer::get(data)?;
    let bytes = buf.bytes();
    let run = || core_crc::append(spec, value, bytes);
    Ok(if bytes.len() >= GIL_MIN {
        py.detach(run)
    } else {
        run()
    })
}

/// The engine variable's error as a `ValueError`, as for `crc32c`.
fn engine_ok(v: Variant) -> PyResult<()> {
    match v {
        Variant::Crc32Iscsi => engines::crc32c_engine(None).map(drop),
        _ => core_crc::configured_engine()
            .map(drop)
            .map_err(|e| PyValueError::new_err(e.to_string())),
    }
}

/// zlib's `crc32`: the CRC-32/ISO-HDLC of `data`, continuing from `value`
/// (the CRC of the bytes before it; any integer, masked to 32 bits as
/// zlib masks it), so that it drops in for `zlib.crc32` and
/// `binascii.crc32`: crc32(b, crc32(a)) == crc32(a + b),
/// crc32(b"123456789") == 0xCBF43926.
#[pyfunction]
#[pyo3(signature = (data, value = Arg::Missing, /), text_signature = "(data, value=0, /)")]
pub(crate) fn crc32(py: Python<'_>, data: &Bound<'_, PyAny>, value: Arg<'_>) -> PyResult<u32> {
    // A 32-bit CRC: the value fits.
    continued(py, Variant::Crc32IsoHdlc, data, value).map(|v| v as u32)
}

/// The CRC-64/NVME of `data`, continuing from `value` (the CRC of the bytes
/// before it; masked to 64 bits): crc64_nvme(b"123456789") ==
/// 0xAE8B14860A799888.
#[pyfunction]
#[pyo3(signature = (data, value = Arg::Missing, /), text_signature = "(data, value=0, /)")]
pub(crate) fn crc64_nvme(py: Python<'_>, data: &Bound<'_, PyAny>, value: Arg<'_>) -> PyResult<u64> {
    continued(py, Variant::Crc64Nvme, data, value)
}

/// A streaming CRC of one named variant: `mbhash.crc("crc64-nvme")`, then
/// `update(data)`, `digest()` (the CRC as big-endian bytes, `digest_size`
/// of them), `hexdigest()`, `value` (the CRC as an int) and `copy()`.
/// Names: those of `mbhash sum -a` (`crc32`, `crc32c`, `crc64-nvme`,
/// `crc16-t10dif`, ...), their aliases, or the catalogue's (`CRC-64/NVME`,
/// any case). Large buffers are absorbed with the GIL released; one object
/// may be shared by threads (they take turns).
#[pyclass(frozen, immutable_type, module = "mbhash", name = "Crc")]
pub(crate) struct Crc {
    variant: Variant,
    state: Mutex<core_crc::Crc>,
}

fn poisoned() -> PyErr {
    PyRuntimeError::new_err("mbhash: this CRC object is unusable after an internal error")
}

fn lock(state: &Mutex<core_crc::Crc>) -> PyResult<MutexGuard<'_, core_crc::Crc>> {
    state.lock().map_err(|_| poisoned())
}

impl Crc {
    /// Runs `f` on the locked state, waiting with the GIL released if
    /// another thread holds it.
    fn with_state<R: Send>(
        &self,
        py: Python<'_>,
        f: impl FnOnce(&mut core_crc::Crc) -> R + Send,
    ) -> PyResult<R> {
        match self.state.try_lock() {
            Ok(mut guard) => Ok(f(&mut guard)),
            Err(TryLockError::WouldBlock) => py.detach(|| lock(&self.state).map(|mut s| f(&mut s))),
            Err(TryLockError::Poisoned(_)) => Err(poisoned()),
        }
    }

    fn absorb(&self, py: Python<'_>, data: &Bound<'_, PyAny>) -> PyResult<()> {
        let buf = Buffer::get(data)?;
        let bytes = buf.bytes();
        if bytes.len() >= GIL_MIN {
            return py.detach(|| lock(&self.state).map(|mut s| s.update(bytes)));
        }
        self.with_state(py, |s| s.update(bytes))
    }

    fn bytes(&self, value: u64) -> Vec<u8> {
        let n = self.digest_size();
        value.to_be_bytes()[8 - n..].to_vec()
    }
}

/// `mbhash.crc(name, data=b"")`: a [`Crc`] of the named variant, fed
/// `data` if given. `ValueError` for an unknown name (the message lists the
/// names) or an engine variable naming an engine that cannot run.
#[pyfunction]
#[pyo3(signature = (name, data = None), text_signature = "(name, data=b'')")]
pub(crate) fn crc(py: Python<'_>, name: &str, data: Option<&Bound<'_, PyAny>>) -> PyResult<Crc> {
    let variant = Variant::from_name(&name.to_ascii_lowercase())
        .or_else(|| Variant::from_name(name))
        .ok_or_else(|| {
            let names: Vec<_> = Variant::ALL.iter().map(|v| v.name()).collect();
            PyValueError::new_err(format!(
                "unknown CRC {name:?} (named CRCs: {})",
                names.join(", ")
            ))
        })?;
    engine_ok(variant)?;
    let c = Crc {
        variant,
        state: Mutex::new(core_crc::Crc::new(variant.spec())),
    };
    if let Some(data) = data {
        c.absorb(py, data)?;
    }
    Ok(c)
}

#[pymethods]
impl Crc {
    /// Absorbs the bytes of `data` (any object with the buffer protocol).
    fn update(&self, py: Python<'_>, data: &Bound<'_, PyAny>) -> PyResult<()> {
        self.absorb(py, data)
    }

    /// The CRC of the data so far as big-endian bytes; the object can go on.
    fn digest<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        let v = self.with_state(py, |s| s.finalize())?;
        Ok(PyBytes::new(py, &self.bytes(v)))
    }

    /// The digest as lower-case hexadecimal (`width / 4` digits).
    fn hexdigest(&self, py: Python<'_>) -> PyResult<String> {
        let v = self.with_state(py, |s| s.finalize())?;
        Ok(self.bytes(v).iter().map(|b| format!("{b:02x}")).collect())
    }

    /// An independent copy of this object, in the same state.
    fn copy(&self, py: Python<'_>) -> PyResult<Crc> {
        let state = self.with_state(py, |s| *s)?;
        Ok(Crc {
            variant: self.variant,
            state: Mutex::new(state),
        })
    }

    /// The CRC of the data so far, as an int.
    #[getter]
    fn value(&self, py: Python<'_>) -> PyResult<u64> {
        self.with_state(py, |s| s.finalize())
    }

    /// The variant's name, as `mbhash sum -a` takes it (e.g. "crc64-nvme").
    #[getter]
    fn name(&self) -> &'static str {
        self.variant.name()
    }

    /// The catalogue's name, e.g. "CRC-64/NVME".
    #[getter]
    fn catalogue_name(&self) -> &'static str {
        self.variant.spec().name
    }

    /// The CRC's width in bits (16, 32 or 64).
    #[getter]
    fn width(&self) -> u8 {
        self.variant.spec().width
    }

    /// Bytes of `digest()`: the width in bytes.
    #[getter]
    fn digest_size(&self) -> usize {
        usize::from(self.variant.spec().width).div_ceil(8)
    }
}

/// The CRC32C of the concatenation A + B from a = crc32c(A), b = crc32c(B)
/// and len_b = len(B), without the data (O(log len_b)).
#[pyfunction]
pub(crate) fn crc32c_combine(a: u32, b: u32, len_b: u64) -> u32 {
    combine(a, b, len_b)
}
