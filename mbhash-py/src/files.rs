//! `mbhash.hash_files(paths, name="sha256", jobs=None, *, engine=None,
//! timeout=None)`: many files at once, read by `mbhash-core`'s reader of
//! files (the one of `mbhash sum`) onto its hash service, with the GIL
//! released.
//!
//! `jobs` reader threads open the files in order, one descriptor each from
//! a budget under `RLIMIT_NOFILE` (a file is never reported as `EMFILE`:
//! a reader waits for a descriptor), and hand them to `jobs` hashing
//! workers that put many files in their lanes; memory is bounded by the
//! reader's pool of buffers, whatever the number and sizes of the files.
//! The calling thread waits for the results in order and looks for signals
//! every few milliseconds: a `KeyboardInterrupt` cancels the run, the
//! readers stop (a FIFO or a device is read with `poll`, so none is left
//! waiting) and the exception is raised.

use std::io;
use std::path::PathBuf;
use std::time::Duration;

use mbhash_core::alg::Algorithm;
use mbhash_core::files::{Job, ReadError, Run, Settings, Source};
use mbhash_core::service::{self, Digest};
use mbhash_core::{Algo, HashService, with_algo};
use pyo3::exceptions::{PyOSError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyList};

use crate::algo;
use crate::engines;

/// How often the waiting thread looks for signals.
const CHECK_EVERY: Duration = Duration::from_millis(20);

/// Hashes every file of the iterable `paths` (str, bytes or os.PathLike)
/// with the algorithm `name`, `jobs` threads at once (default: one per
/// CPU), many files in the SIMD lanes of each, with the GIL released.
/// Returns a list in the order of `paths`: for each file its digest
/// (bytes), or, if it could not be opened or read, the OSError (not
/// raised), e.g. FileNotFoundError, whose filename is that path; one bad
/// file loses no other file's result. With `timeout` (seconds), a file not
/// read whole that long after its open, such as a FIFO with no writer or
/// an endless device, is a TimeoutError of its own. A signal's exception
/// (KeyboardInterrupt) stops the call and is raised. ValueError for an
/// unknown algorithm or engine, jobs < 1 or a timeout that is not a
/// positive number of seconds, TypeError for an item that is not a path.
#[pyfunction]
#[pyo3(signature = (paths, name = "sha256", jobs = None, *, engine = None, timeout = None))]
pub(crate) fn hash_files<'py>(
    py: Python<'py>,
    paths: &Bound<'py, PyAny>,
    name: &str,
    jobs: Option<usize>,
    engine: Option<&str>,
    timeout: Option<f64>,
) -> PyResult<Bound<'py, PyList>> {
    let algo = algo::parse(name)?;
    let jobs = match jobs {
        Some(0) => return Err(PyValueError::new_err("hash_files: jobs must be at least 1")),
        Some(j) => j,
        None => std::thread::available_parallelism().map_or(1, |n| n.get()),
    };
    let timeout = match timeout {
        None => None,
        Some(t) => match Duration::try_from_secs_f64(t) {
            Ok(d) if !d.is_zero() => Some(d),
            _ => {
                return Err(PyValueError::new_err(
                    "hash_files: timeout must be a positive number of seconds",
                ));
            }
        },
    };
    let (names, files) = collect_paths(paths)?;
    with_algo!(algo, A => {
        let engine = engines::engine::<<A as Algorithm>::Family>(engine)?;
        let list = PyList::empty(py);
        if files.is_empty() {
            return Ok(list);
        }
        let service = HashService::builder().engine_of::<A>(engine);
        let workers = jobs.min(files.len());
        let settings = Settings {
            readers: workers,
            timeout,
            ..Settings::new(workers)
        };
        let results = run(py, service, A::ALGO, settings, files)?;
        let os = py.import("os")?;
        let strerror = os.getattr("strerror")?;
        let etimedout: i32 = py.import("errno")?.getattr("ETIMEDOUT")?.extract()?;
        for (result, name) in results.into_iter().zip(&names) {
            match result {
                Ok(digest) => list.append(PyBytes::new(py, digest.as_bytes()))?,
                Err(e) => list.append(os_error(py, &strerror, etimedout, &e, name)?)?,
            }
        }
        Ok(list)
    })
}

/// A file to hash.
struct File(Source);

impl Job for File {
    fn source(&self) -> Option<&Source> {
        Some(&self.0)
    }
}

/// Runs the files with the GIL released, looking for signals while the
/// calling thread waits; the results in the order of `files`, or the
/// signal's exception.
fn run(
    py: Python<'_>,
    service: service::Builder,
    algo: Algo,
    settings: Settings,
    files: Vec<PathBuf>,
) -> PyResult<Vec<io::Result<Digest>>> {
    let mut raised: Option<PyErr> = None;
    let mut results = Vec::with_capacity(files.len());
    let done = py.detach(|| {
        let mut check = || {
            Python::attach(|py| py.check_signals()).map_err(|e| {
                raised = Some(e);
                io::Error::other("interrupted by a signal")
            })
        };
        let jobs = files.into_iter().map(|p| File(Source::Path(p)));
        Run::new(service, algo, settings)
            .check_every(CHECK_EVERY, &mut check)
            .run(jobs, |_, outcome| {
                // Every job has a source: its outcome is there.
                let outcome = outcome.ok_or_else(|| io::Error::other("mbhash: internal error"))?;
                results.push(outcome.map(|hashed| hashed.digest));
                Ok(())
            })
    });
    match (raised, done) {
        (Some(e), _) => Err(e),
        (None, Ok(())) => Ok(results),
        (None, Err(e)) => Err(PyOSError::new_err(format!("hash_files: {e}"))),
    }
}

/// Each path as given (after `os.fspath`, for the errors) and as a `PathBuf`.
fn collect_paths<'py>(
    paths: &Bound<'py, PyAny>,
) -> PyResult<(Vec<Bound<'py, PyAny>>, Vec<PathBuf>)> {
    let py = paths.py();
    let os = py.import("os")?;
    let fspath = os.getattr("fspath")?;
    let items = paths.try_iter().map_err(|_| {
        PyTypeError::new_err("hash_files: paths must be an iterable of str, bytes or os.PathLike")
    })?;
    let mut names = Vec::with_capacity(paths.len().unwrap_or(0));
    let mut files = Vec::with_capacity(names.capacity());
    for item in items {
        let name = fspath.call1((item?,))?;
        files.push(to_path(&os, &name)?);
        names.push(name);
    }
    Ok((names, files))
}

/// The file-system path of a `str` or `bytes` name, undoing Python's
/// surrogate escapes.
#[cfg(unix)]
fn to_path(os: &Bound<'_, PyModule>, name: &Bound<'_, PyAny>) -> PyResult<PathBuf> {
    use std::os::unix::ffi::OsStrExt;
    let raw = os.getattr("fsencode")?.call1((name,))?;
    let raw = raw.cast::<PyBytes>()?;
    Ok(std::ffi::OsStr::from_bytes(raw.as_bytes()).into())
}

#[cfg(not(unix))]
fn to_path(_os: &Bound<'_, PyModule>, name: &Bound<'_, PyAny>) -> PyResult<PathBuf> {
    name.extract()
}

/// The OSError Python would raise for `e` on `name` (its subclass, such as
/// FileNotFoundError, follows from the errno): a system error's errno and
/// text; a read error past the first byte with its errno and the offset in
/// its text; a time-out as `ETIMEDOUT` (TimeoutError) with the reader's
/// text.
fn os_error<'py>(
    py: Python<'py>,
    strerror: &Bound<'py, PyAny>,
    etimedout: i32,
    e: &io::Error,
    name: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyAny>> {
    let name = name.clone().unbind();
    let read_at = e
        .get_ref()
        .and_then(|inner| inner.downcast_ref::<ReadError>());
    let err = match (e.raw_os_error(), read_at) {
        (Some(errno), _) => {
            let text: String = strerror.call1((errno,))?.extract()?;
            PyOSError::new_err((errno, text, name))
        }
        (None, Some(r)) => match r.error.raw_os_error() {
            Some(errno) => PyOSError::new_err((errno, r.to_string(), name)),
            None => PyOSError::new_err((py.None(), r.to_string(), name)),
        },
        (None, None) if e.kind() == io::ErrorKind::TimedOut => {
            PyOSError::new_err((etimedout, e.to_string(), name))
        }
        (None, None) => PyOSError::new_err((py.None(), e.to_string(), name)),
    };
    Ok(err.value(py).clone().into_any())
}
