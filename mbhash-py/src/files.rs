//! `mbhash.hash_files(paths, name="sha256", jobs=None)`: many files at once,
//! as independent streams of `mbhash-core`'s job manager, with the GIL
//! released.
//!
//! `jobs` worker threads take files from one shared counter. Each keeps up
//! to two lanes' worth of files open and works in rounds: it reads the next
//! chunk of every open file into that file's buffer, submits every chunk to
//! a job manager made for the round (`ENTIRE` for a file read whole in its
//! first round, else `FIRST`, `UPDATE`..., `LAST`), flushes it, and replaces
//! the files that ended. Memory is bounded by `jobs * 2 * lanes * CHUNK`,
//! whatever the number and sizes of the files. (The `mbhash sum` command
//! line has its own, ordered, streaming scheduler in `mbhash-cli`; this one
//! returns every result at once.)

use std::fs::File;
use std::io::{self, Read};
use std::path::PathBuf;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use mbhash_core::alg::{Algorithm, Family};
use mbhash_core::engine::LaneEngine;
use mbhash_core::with_algo;
use mbhash_core::{Context, Flags, JobManager};
use pyo3::exceptions::{PyOSError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyList};

use crate::algo;
use crate::engines;

/// Bytes read per file per round.
const CHUNK: usize = 256 << 10;
/// Files a worker keeps open, per lane of the engine.
const STREAMS_PER_LANE: usize = 2;

/// Hashes every file of the iterable `paths` (str, bytes or os.PathLike)
/// with the algorithm `name`, `jobs` threads at once (default: one per
/// CPU), many files in the SIMD lanes of each, with the GIL released.
/// Returns a list in the order of `paths`: for each file its digest
/// (bytes), or, if it could not be opened or read, the OSError (not
/// raised), e.g. FileNotFoundError, whose filename is that path; one bad
/// file loses no other file's result. ValueError for an unknown algorithm
/// or engine or jobs < 1, TypeError for an item that is not a path.
#[pyfunction]
#[pyo3(signature = (paths, name = "sha256", jobs = None, *, engine = None))]
pub(crate) fn hash_files<'py>(
    py: Python<'py>,
    paths: &Bound<'py, PyAny>,
    name: &str,
    jobs: Option<usize>,
    engine: Option<&str>,
) -> PyResult<Bound<'py, PyList>> {
    let algo = algo::parse(name)?;
    let jobs = match jobs {
        Some(0) => return Err(PyValueError::new_err("hash_files: jobs must be at least 1")),
        Some(j) => j,
        None => std::thread::available_parallelism().map_or(1, |n| n.get()),
    };
    let (names, files) = collect_paths(paths)?;
    with_algo!(algo, A => {
        let engine = engines::engine::<<A as Algorithm>::Family>(engine)?;
        let results = py.detach(|| run::<A>(engine, &files, jobs));
        let strerror = py.import("os")?.getattr("strerror")?;
        let list = PyList::empty(py);
        for (result, name) in results.into_iter().zip(&names) {
            match result {
                Ok(digest) => list.append(PyBytes::new(py, digest.as_ref()))?,
                Err(e) => list.append(os_error(py, &strerror, &e, name)?)?,
            }
        }
        Ok(list)
    })
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
/// FileNotFoundError, follows from the errno).
fn os_error<'py>(
    py: Python<'py>,
    strerror: &Bound<'py, PyAny>,
    e: &io::Error,
    name: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyAny>> {
    let err = match e.raw_os_error() {
        Some(errno) => {
            let text: String = strerror.call1((errno,))?.extract()?;
            PyOSError::new_err((errno, text, name.clone().unbind()))
        }
        None => PyOSError::new_err((py.None(), e.to_string(), name.clone().unbind())),
    };
    Ok(err.value(py).clone().into_any())
}

/// One result slot per file.
type Slots<A> = Mutex<Vec<Option<io::Result<<A as Algorithm>::Output>>>>;

/// Hashes every file on `jobs` threads; results in the order of `files`.
fn run<A: Algorithm>(
    engine: <A::Family as Family>::Engine,
    files: &[PathBuf],
    jobs: usize,
) -> Vec<io::Result<A::Output>> {
    let next = AtomicUsize::new(0);
    let slots: Slots<A> = Mutex::new((0..files.len()).map(|_| None).collect());
    std::thread::scope(|s| {
        let workers: Vec<_> = (0..jobs.min(files.len()))
            .map(|_| s.spawn(|| worker::<A>(engine, files, &next, &slots)))
            .collect();
        for w in workers {
            // A worker that panicked (a bug) leaves its files' slots empty:
            // they are reported below rather than lost.
            let _ = w.join();
        }
    });
    slots
        .into_inner()
        .unwrap_or_else(|e| e.into_inner())
        .into_iter()
        .map(|slot| slot.unwrap_or_else(|| Err(io::Error::other("mbhash: internal error"))))
        .collect()
}

/// A file being hashed.
struct Open<A: Algorithm> {
    index: usize,
    file: File,
    ctx: Context<A>,
    buf: Vec<u8>,
    /// Bytes of `buf` read this round.
    len: usize,
    flags: Flags,
    /// A chunk has been submitted (the stream is open).
    started: bool,
    /// This round's chunk is the last.
    eof: bool,
    error: Option<io::Error>,
}

fn worker<A: Algorithm>(
    engine: <A::Family as Family>::Engine,
    files: &[PathBuf],
    next: &AtomicUsize,
    slots: &Slots<A>,
) {
    let capacity = engine.lanes().max(1) * STREAMS_PER_LANE;
    let mut open: Vec<Open<A>> = Vec::with_capacity(capacity);
    let mut spare: Vec<Vec<u8>> = Vec::new();
    let finish = |index: usize, result: io::Result<A::Output>| {
        slots.lock().unwrap_or_else(|e| e.into_inner())[index] = Some(result);
    };
    loop {
        while open.len() < capacity {
            let index = next.fetch_add(1, Ordering::Relaxed);
            if index >= files.len() {
                break;
            }
            match File::open(&files[index]) {
                Ok(file) => open.push(Open {
                    index,
                    file,
                    ctx: Context::new(),
                    buf: spare.pop().unwrap_or_else(|| vec![0; CHUNK]),
                    len: 0,
                    flags: Flags::ENTIRE,
                    started: false,
                    eof: false,
                    error: None,
                }),
                Err(e) => finish(index, Err(e)),
            }
        }
        if open.is_empty() {
            return;
        }
        for o in open.iter_mut() {
            match fill(&mut o.file, &mut o.buf) {
                Ok((len, eof)) => {
                    o.len = len;
                    o.flags = match (o.started, eof) {
                        (false, true) => Flags::ENTIRE,
                        (false, false) => Flags::FIRST,
                        (true, false) => Flags::UPDATE,
                        (true, true) => Flags::LAST,
                    };
                    o.eof = eof;
                }
                Err(e) => o.error = Some(e),
            }
        }
        // One round: every chunk into one manager, flushed, dropped; the
        // contexts outlive it.
        let mut refused = Vec::new();
        {
            let mut manager = JobManager::<A>::with_engine(engine);
            for (k, o) in open.iter_mut().enumerate() {
                if o.error.is_some() {
                    continue;
                }
                o.started = true;
                // Well-formed flag sequences on contexts that are not in
                // flight are never refused; should one be, it is that
                // file's error.
                if let Err(e) = manager.submit(&mut o.ctx, &o.buf[..o.len], o.flags) {
                    refused.push((k, e.kind()));
                }
            }
            while manager.flush().is_some() {}
        }
        for (k, kind) in refused {
            open[k].error = Some(io::Error::other(format!("mbhash: {}", kind.as_str())));
        }
        let mut k = 0;
        while k < open.len() {
            let o = &mut open[k];
            let result = if let Some(e) = o.error.take() {
                Err(e)
            } else if o.eof {
                o.ctx
                    .digest()
                    .ok_or_else(|| io::Error::other("mbhash: internal error: stream not finished"))
            } else {
                k += 1;
                continue;
            };
            let o = open.swap_remove(k);
            finish(o.index, result);
            spare.push(o.buf);
        }
    }
}

/// Fills `buf` from `r` until it is full or the input ends; returns the
/// bytes read and whether the input ended.
fn fill(r: &mut impl Read, buf: &mut [u8]) -> io::Result<(usize, bool)> {
    let mut n = 0;
    while n < buf.len() {
        match r.read(&mut buf[n..]) {
            Ok(0) => return Ok((n, true)),
            Ok(k) => n += k,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok((n, false))
}
