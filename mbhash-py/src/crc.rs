//! `mbhash.crc32c(data, value=0)` and `mbhash.crc32c_combine(a, b, len_b)`.

use mbhash_core::crc32c::{crc32c_combine as combine, crc32c_with};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use crate::buffer::Buffer;
use crate::engines;

/// zlib's threshold for `crc32`: shorter inputs keep the GIL.
const GIL_MIN: usize = 5 * 1024;

/// The CRC32C (Castagnoli) of `data`, continuing from `value`, the CRC32C
/// of the bytes before it, as zlib.crc32 does:
/// crc32c(b, crc32c(a)) == crc32c(a + b). Values are finished CRCs, as the
/// standards print them: crc32c(b"123456789") == 0xE3069283.
#[pyfunction]
#[pyo3(signature = (data, value = 0, *, engine = None))]
pub(crate) fn crc32c(
    py: Python<'_>,
    data: &Bound<'_, PyAny>,
    value: u32,
    engine: Option<&str>,
) -> PyResult<u32> {
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

/// The CRC32C of the concatenation A + B from a = crc32c(A), b = crc32c(B)
/// and len_b = len(B), without the data (O(log len_b)).
#[pyfunction]
pub(crate) fn crc32c_combine(a: u32, b: u32, len_b: u64) -> u32 {
    combine(a, b, len_b)
}
