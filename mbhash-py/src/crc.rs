//! `mbhash.crc32c(data, value=0)` and `mbhash.crc32c_combine(a, b, len_b)`.

use mbhash_core::crc32c::{crc32c_combine as combine, crc32c_with};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyInt;

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
    if let Ok(Ok(small)) = value.cast::<PyInt>().map(|i| i.extract::<i64>()) {
        // Truncation is the point: the low 32 bits, two's complement.
        return Ok(small as u32);
    }
    let int = value
        .py()
        .import("operator")?
        .call_method1("index", (value,))?;
    int.bitand(0xFFFF_FFFFu32)?.extract::<u32>()
}

/// The CRC32C of the concatenation A + B from a = crc32c(A), b = crc32c(B)
/// and len_b = len(B), without the data (O(log len_b)).
#[pyfunction]
pub(crate) fn crc32c_combine(a: u32, b: u32, len_b: u64) -> u32 {
    combine(a, b, len_b)
}
