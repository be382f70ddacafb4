//! S3 ETags: the parts of a file hashed as independent MD5 jobs in lanes.

use std::path::PathBuf;

use mbhash_core::s3;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

/// The ETag S3 reports for the file at `path` uploaded as the AWS CLI
/// uploads it: the hex MD5 of a file shorter than `threshold` bytes (or
/// empty); from `threshold` bytes on, uploaded in parts of `part_size` bytes (doubled until there are at most 10,000,
/// held to S3's 5 MiB to 5 GiB), `hex(MD5(MD5(part 1) || ...)) + "-N"`.
/// The parts are hashed as independent jobs of the multi-buffer engine,
/// with the GIL released. OSError if the file cannot be read; ValueError
/// for a part size of 0.
#[pyfunction]
#[pyo3(signature = (path, part_size = s3::DEFAULT_PART_SIZE, threshold = s3::DEFAULT_THRESHOLD))]
pub(crate) fn s3_etag(
    py: Python<'_>,
    path: PathBuf,
    part_size: u64,
    threshold: u64,
) -> PyResult<String> {
    if part_size == 0 {
        return Err(PyValueError::new_err(
            "s3_etag: part_size must be at least 1",
        ));
    }
    py.detach(|| s3::aws_cli_etag_file(&path, part_size, threshold))
        .map_err(PyErr::from)
}
