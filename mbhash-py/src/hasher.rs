//! hashlib-compatible hash objects: `mbhash.sha256(data)`, `mbhash.new(name,
//! data)`, and `update`, `digest`, `hexdigest`, `copy`, `name`,
//! `digest_size`, `block_size`.
//!
//! One object may be shared by threads. Its state sits behind a lock: each
//! `update` absorbs its whole buffer at once, so concurrent updates are
//! applied one after the other, in the order they take the lock, never
//! interleaved; `digest` and `copy` see the state between two updates.
//! As in hashlib, an `update` of 2048 bytes or more releases the GIL
//! while it hashes, and a thread that finds the lock taken waits for it
//! with the GIL released.

use std::sync::{Mutex, MutexGuard, TryLockError};

use mbhash_core::Algo;
use mbhash_core::StreamHasher;
use mbhash_core::alg::{self, Algorithm};
use mbhash_core::with_algo;
use pyo3::exceptions::{PyRuntimeError, PyTypeError};
use pyo3::prelude::*;
use pyo3::types::PyBytes;

use crate::algo as names;
use crate::buffer::Buffer;
use crate::engines;

/// hashlib's threshold: shorter updates keep the GIL (releasing it would
/// cost more than the hash).
const GIL_MIN: usize = 2048;

/// A typed hasher of any algorithm of the catalogue
/// ([`mbhash_core::for_each_algorithm!`]), and `each!`, which runs an
/// expression on whichever it is.
macro_rules! states {
    ([] $($(#[$doc:meta])* $v:ident = $t:ident $info:tt;)*) => {
        #[derive(Clone)]
        enum State {
            $($v(StreamHasher<alg::$t>),)*
        }

        macro_rules! each {
            ($state:expr, $h:ident => $body:expr) => {
                match $state {
                    $(State::$v($h) => $body,)*
                }
            };
        }

        $(
            impl From<StreamHasher<alg::$t>> for State {
                fn from(h: StreamHasher<alg::$t>) -> State {
                    State::$v(h)
                }
            }
        )*
    };
}

mbhash_core::for_each_algorithm!(states);

impl State {
    /// A fresh hasher and the name of its engine.
    fn new(algo: Algo, engine: Option<&str>) -> PyResult<(State, &'static str)> {
        Ok(with_algo!(algo, A => {
            let engine = engines::engine::<<A as Algorithm>::Family>(engine)?;
            (State::from(StreamHasher::<A>::with_engine(engine)), engine.name())
        }))
    }

    fn update(&mut self, data: &[u8]) {
        each!(self, h => h.update(data))
    }

    /// The digest of the data so far; the state goes on unchanged.
    fn digest(&self) -> Vec<u8> {
        each!(self, h => h.clone().finalize_reset_output().as_ref().to_vec())
    }
}

/// A hash object, as hashlib's: update(data), digest(), hexdigest(),
/// copy(), name, digest_size, block_size; engine is the name of the engine
/// it runs on. Safe to share between threads: updates are applied whole,
/// one at a time.
///
/// The type is immutable, as hashlib's are (`Py_TPFLAGS_IMMUTABLETYPE`):
/// `mbhash.Hash.hexdigest = ...` is a `TypeError`, not a change to every
/// object.
#[pyclass(frozen, immutable_type, module = "mbhash", name = "Hash")]
pub(crate) struct Hash {
    algo: Algo,
    engine: &'static str,
    state: Mutex<State>,
}

impl Hash {
    pub(crate) fn new(
        py: Python<'_>,
        algo: Algo,
        data: Option<&Bound<'_, PyAny>>,
        engine: Option<&str>,
    ) -> PyResult<Hash> {
        let (state, engine) = State::new(algo, engine)?;
        let hash = Hash {
            algo,
            engine,
            state: Mutex::new(state),
        };
        if let Some(data) = data {
            hash.absorb(py, data)?;
        }
        Ok(hash)
    }

    fn absorb(&self, py: Python<'_>, data: &Bound<'_, PyAny>) -> PyResult<()> {
        let buf = Buffer::get(data)?;
        let bytes = buf.bytes();
        if bytes.len() >= GIL_MIN {
            return py.detach(|| lock(&self.state).map(|mut s| s.update(bytes)));
        }
        self.with_state(py, |s| s.update(bytes))
    }

    /// Runs `f` on the locked state. If another thread holds the lock (it
    /// may be hashing with the GIL released, or waiting for the GIL), waits
    /// for it with the GIL released.
    fn with_state<R: Send>(
        &self,
        py: Python<'_>,
        f: impl FnOnce(&mut State) -> R + Send,
    ) -> PyResult<R> {
        match self.state.try_lock() {
            Ok(mut guard) => Ok(f(&mut guard)),
            Err(TryLockError::WouldBlock) => py.detach(|| lock(&self.state).map(|mut s| f(&mut s))),
            Err(TryLockError::Poisoned(_)) => Err(poisoned()),
        }
    }
}

fn poisoned() -> PyErr {
    PyRuntimeError::new_err("mbhash: this hash object is unusable after an internal error")
}

fn lock(state: &Mutex<State>) -> PyResult<MutexGuard<'_, State>> {
    state.lock().map_err(|_| poisoned())
}

#[pymethods]
impl Hash {
    /// Absorbs the bytes of `data` (any object with the buffer protocol).
    fn update(&self, py: Python<'_>, data: &Bound<'_, PyAny>) -> PyResult<()> {
        self.absorb(py, data)
    }

    /// The digest of the data so far, as bytes; the object can go on.
    fn digest<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        let digest = self.with_state(py, |s| s.digest())?;
        Ok(PyBytes::new(py, &digest))
    }

    /// The digest as lower-case hexadecimal.
    fn hexdigest(&self, py: Python<'_>) -> PyResult<String> {
        let digest = self.with_state(py, |s| s.digest())?;
        Ok(digest.iter().map(|b| format!("{b:02x}")).collect())
    }

    /// An independent copy of this object, in the same state.
    fn copy(&self, py: Python<'_>) -> PyResult<Hash> {
        let state = self.with_state(py, |s| s.clone())?;
        Ok(Hash {
            algo: self.algo,
            engine: self.engine,
            state: Mutex::new(state),
        })
    }

    /// The algorithm's name as hashlib spells it, e.g. "sha512_256".
    #[getter]
    fn name(&self) -> &'static str {
        names::hashlib_name(self.algo)
    }

    /// Bytes of the digest.
    #[getter]
    fn digest_size(&self) -> usize {
        self.algo.output_len()
    }

    /// Bytes per block of the compression function.
    #[getter]
    fn block_size(&self) -> usize {
        self.algo.block_len()
    }

    /// The name of the engine this object runs on.
    #[getter]
    fn engine(&self) -> &'static str {
        self.engine
    }

    fn __repr__(&self) -> String {
        format!("<mbhash {} object (engine {})>", self.name(), self.engine)
    }

    fn __reduce__(&self) -> PyResult<()> {
        Err(PyTypeError::new_err(format!(
            "cannot pickle an mbhash {} object (neither can hashlib)",
            self.name()
        )))
    }
}

/// An argument that may be left out: unlike `Option`, an explicit `None`
/// is `Given(None)`, which hashlib refuses as data.
pub(crate) enum Arg<'py> {
    Missing,
    Given(Bound<'py, PyAny>),
}

impl<'a, 'py> FromPyObject<'a, 'py> for Arg<'py> {
    type Error = PyErr;

    fn extract(obj: Borrowed<'a, 'py, PyAny>) -> PyResult<Self> {
        Ok(Arg::Given(obj.to_owned()))
    }
}

/// The data of a constructor call, by hashlib's rules: positional or
/// `data=`, or `string=` (the keyword of CPython 3.9 to 3.13, still
/// accepted by 3.14), not both; `None` is not data (`TypeError`, from the
/// buffer export). `usedforsecurity` may be any object with a truth value
/// (CPython's `bool` converter, `PyObject_IsTrue`), whose errors propagate;
/// it changes nothing: mbhash has no FIPS mode that would refuse MD5 or
/// SHA-1 for security use (`usedforsecurity=False` is how code that uses
/// them for checksums says so, and is accepted as hashlib accepts it).
fn data_of<'a, 'py>(
    data: &'a Arg<'py>,
    string: &'a Arg<'py>,
    usedforsecurity: &Arg<'py>,
) -> PyResult<Option<&'a Bound<'py, PyAny>>> {
    if let Arg::Given(flag) = usedforsecurity {
        flag.is_truthy()?;
    }
    match (data, string) {
        (Arg::Given(_), Arg::Given(_)) => Err(PyTypeError::new_err(
            "'data' and 'string' are mutually exclusive and support for 'string' \
             keyword parameter is slated for removal in a future version.",
        )),
        (Arg::Given(d), Arg::Missing) | (Arg::Missing, Arg::Given(d)) => Ok(Some(d)),
        (Arg::Missing, Arg::Missing) => Ok(None),
    }
}

/// A hash object for the algorithm `name` (hashlib's spelling, e.g.
/// "sha512_256"; "sha512-256" also), fed `data` (or `string`, hashlib's
/// older keyword). ValueError for an unknown algorithm or engine.
/// usedforsecurity is accepted for hashlib compatibility and ignored.
#[pyfunction]
#[pyo3(
    signature = (name, data = Arg::Missing, *, usedforsecurity = Arg::Missing, string = Arg::Missing, engine = None),
    text_signature = "(name, data=b'', *, usedforsecurity=True, string=None, engine=None)"
)]
fn new(
    py: Python<'_>,
    name: &str,
    data: Arg<'_>,
    usedforsecurity: Arg<'_>,
    string: Arg<'_>,
    engine: Option<&str>,
) -> PyResult<Hash> {
    let data = data_of(&data, &string, &usedforsecurity)?;
    Hash::new(py, names::parse(name)?, data, engine)
}

macro_rules! constructors {
    ($($fn:ident, $variant:ident;)*) => {$(
        #[doc = concat!("A ", stringify!($fn), " hash object fed `data`, as hashlib.", stringify!($fn), ".")]
        #[pyfunction]
        #[pyo3(
            signature = (data = Arg::Missing, *, usedforsecurity = Arg::Missing, string = Arg::Missing, engine = None),
            text_signature = "(data=b'', *, usedforsecurity=True, string=None, engine=None)"
        )]
        fn $fn(
            py: Python<'_>,
            data: Arg<'_>,
            usedforsecurity: Arg<'_>,
            string: Arg<'_>,
            engine: Option<&str>,
        ) -> PyResult<Hash> {
            let data = data_of(&data, &string, &usedforsecurity)?;
            Hash::new(py, Algo::$variant, data, engine)
        }
    )*

        /// Adds `new` and the constructors to the module.
        pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
            m.add_function(wrap_pyfunction!(new, m)?)?;
            $(m.add_function(wrap_pyfunction!($fn, m)?)?;)*
            Ok(())
        }
    };
}

constructors! {
    md5, Md5;
    sha1, Sha1;
    sm3, Sm3;
    sha224, Sha224;
    sha256, Sha256;
    sha384, Sha384;
    sha512, Sha512;
    sha512_224, Sha512_224;
    sha512_256, Sha512_256;
}
