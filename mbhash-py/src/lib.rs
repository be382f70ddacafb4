//! The `mbhash` Python module: hashlib-compatible MD5, SHA-1, SM3 and SHA-2
//! hashers, batch
//! hashing of many buffers or files with the GIL released, CRCs, and the
//! engine list and override.
//!
//! Built with maturin (`pyproject.toml` beside this crate); the Python API
//! is documented in the repository README ("Python") and in the docstrings
//! below, and tested by pytest (`mbhash-py/tests/`) against the installed
//! wheel.
//!
//! The crate is safe Rust but for one module, `buffer`, which requests,
//! reads as `&[u8]` and releases buffer exports the way hashlib does
//! (PyO3's safe buffer asks exporters for more than hashlib does).

#![deny(unsafe_code)]

mod algo;
mod buffer;
mod crc;
mod engines;
mod files;
mod hasher;
mod many;
mod s3;

use pyo3::prelude::*;

/// Multi-buffer MD5, SHA-1, SM3 and SHA-2 hashing, and CRCs.
///
/// hashlib-compatible constructors: md5, sha1, sm3, sha224, sha256,
/// sha384, sha512, sha512_224, sha512_256 and new(name); hash_many(name, buffers) and
/// hash_files(paths, name) hash many inputs at once with the GIL released;
/// crc32c(data, value) and crc32c_combine(a, b, len_b); crc32(data, value)
/// (zlib's), crc64_nvme(data, value) and crc(name), a streaming CRC of any
/// named variant; engines(),
/// set_engine(family, name) and get_engine(family).
#[pymodule]
fn mbhash(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add(
        "algorithms_available",
        pyo3::types::PyFrozenSet::new(m.py(), algo::HASHLIB_NAMES)?,
    )?;
    m.add(
        "algorithms_guaranteed",
        pyo3::types::PyFrozenSet::new(m.py(), algo::HASHLIB_NAMES)?,
    )?;
    m.add_class::<hasher::Hash>()?;
    hasher::register(m)?;
    m.add_function(wrap_pyfunction!(many::hash_many, m)?)?;
    m.add_function(wrap_pyfunction!(files::hash_files, m)?)?;
    m.add_function(wrap_pyfunction!(s3::s3_etag, m)?)?;
    m.add_function(wrap_pyfunction!(crc::crc32c, m)?)?;
    m.add_function(wrap_pyfunction!(crc::crc32c_combine, m)?)?;
    m.add_function(wrap_pyfunction!(crc::crc32, m)?)?;
    m.add_function(wrap_pyfunction!(crc::crc64_nvme, m)?)?;
    m.add_class::<crc::Crc>()?;
    m.add_function(wrap_pyfunction!(crc::crc, m)?)?;
    m.add_function(wrap_pyfunction!(engines::engines, m)?)?;
    m.add_function(wrap_pyfunction!(engines::set_engine, m)?)?;
    m.add_function(wrap_pyfunction!(engines::get_engine, m)?)?;
    Ok(())
}
