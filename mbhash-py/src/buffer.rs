//! Zero-copy views of Python objects with the buffer protocol, requested
//! as hashlib requests them.
//!
//! A [`Buffer`] holds a buffer export for as long as it lives, and releases
//! it (`PyBuffer_Release`) when dropped. While an export is held its
//! exporter must keep the memory where it is: a `bytearray` refuses to be
//! resized (`BufferError: Existing exports of data: object cannot be
//! re-sized`), a `memoryview` to be released, an `mmap` to be closed, a
//! numpy array to be resized. So the memory stays valid while the GIL is
//! released and another thread runs Python code.
//!
//! The export is requested with `PyBUF_SIMPLE`, the simplest request there
//! is, as hashlib and zlib make it: the exporter hands out its bytes as one
//! contiguous block with no shape, strides or format (so 0-dimensional
//! numpy arrays and scalars, `memoryview.cast("q", ())`, ctypes structures
//! and string buffers are all accepted), or raises its own error when its
//! memory is not contiguous (`memoryview` a `BufferError`, numpy a
//! `ValueError`): the same object and the same error as with hashlib.
//!
//! What an export does not stop is another thread *writing into* a mutable
//! buffer while it is hashed. As with hashlib (which also releases the GIL
//! while it reads the caller's buffer), the digest is then of some mix of
//! old and new bytes; the hash never reads outside the buffer, whatever the
//! bytes are. Do not write into a buffer while it is being hashed.
//!
//! This is the crate's only `unsafe` code: PyO3's safe `PyBuffer` asks for
//! shape and strides (`PyBUF_FULL_RO`), which many exporters hashlib
//! accepts refuse or leave null.

#![allow(unsafe_code)]

use pyo3::exceptions::{PyBufferError, PyTypeError};
use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyString};

/// The bytes of a Python object, held without a copy.
pub(crate) enum Buffer<'py> {
    /// A `bytes` object: immutable, viewed safely through its own API.
    Bytes(Bound<'py, PyBytes>),
    /// Any other object with the buffer protocol: a held export.
    Export(Export<'py>),
}

/// A held `PyBUF_SIMPLE` export of `owner`'s buffer, released on drop.
///
/// The `Bound<'py, _>` makes the type neither `Send` nor `Sync`, so an
/// `Export` (or a reference to one) cannot enter a `Python::detach`
/// closure: it is created, read through [`Buffer::bytes`] and dropped only
/// on a thread attached to the interpreter, as `PyObject_GetBuffer` and
/// `PyBuffer_Release` require.
pub(crate) struct Export<'py> {
    /// Boxed so that the struct the exporter filled in never moves.
    view: Box<ffi::Py_buffer>,
    /// The exported object (the view holds its own reference too).
    _owner: Bound<'py, PyAny>,
    /// `view.len`, checked non-negative.
    len: usize,
}

impl Drop for Export<'_> {
    fn drop(&mut self) {
        // SAFETY: `view` was filled in by a successful `PyObject_GetBuffer`
        // (an `Export` exists only then) and is released exactly once,
        // here; the thread is attached to the interpreter (see the type's
        // docs: an `Export` is `!Send` and cannot be used inside `detach`).
        unsafe { ffi::PyBuffer_Release(&mut *self.view) }
    }
}

impl<'py> Export<'py> {
    /// `PyObject_GetBuffer(obj, PyBUF_SIMPLE)`: the exporter's error if it
    /// refuses (e.g. its memory is not contiguous).
    fn simple(obj: &Bound<'py, PyAny>) -> PyResult<Self> {
        let mut view = Box::new(ffi::Py_buffer::new());
        // SAFETY: `obj` is a valid object (a `Bound`, with the thread
        // attached), `view` points to a writable `Py_buffer` that outlives
        // the call. On failure the exporter leaves nothing to release.
        let rc = unsafe { ffi::PyObject_GetBuffer(obj.as_ptr(), &mut *view, ffi::PyBUF_SIMPLE) };
        if rc != 0 {
            return Err(PyErr::fetch(obj.py()));
        }
        let len = view.len;
        let ndim = view.ndim;
        // From here on, dropping `export` releases the view.
        let mut export = Export {
            view,
            _owner: obj.clone(),
            len: 0,
        };
        // hashlib's own check (GET_BUFFER_VIEW_OR_ERROR): an exporter that
        // reports several dimensions to a simple request is refused.
        if ndim > 1 {
            return Err(PyBufferError::new_err("Buffer must be single dimension"));
        }
        let len = usize::try_from(len)
            .map_err(|_| PyBufferError::new_err("the exporter reported a negative length"))?;
        if len > 0 && export.view.buf.is_null() {
            return Err(PyBufferError::new_err(
                "the exporter reported a null buffer",
            ));
        }
        export.len = len;
        Ok(export)
    }
}

impl<'py> Buffer<'py> {
    /// Exports `obj`'s buffer as hashlib does: `TypeError` for a `str`
    /// ("Strings must be encoded before hashing") and for an object without
    /// the buffer protocol ("object supporting the buffer API required",
    /// `None` included); the exporter's own error if it cannot give its
    /// bytes as one contiguous block.
    pub(crate) fn get(obj: &Bound<'py, PyAny>) -> PyResult<Self> {
        if let Ok(bytes) = obj.cast::<PyBytes>() {
            return Ok(Buffer::Bytes(bytes.clone()));
        }
        if obj.is_instance_of::<PyString>() {
            return Err(PyTypeError::new_err(
                "Strings must be encoded before hashing",
            ));
        }
        // SAFETY: `obj` is a valid object and the thread is attached;
        // `PyObject_CheckBuffer` only reads its type.
        if unsafe { ffi::PyObject_CheckBuffer(obj.as_ptr()) } == 0 {
            return Err(PyTypeError::new_err(
                "object supporting the buffer API required",
            ));
        }
        Ok(Buffer::Export(Export::simple(obj)?))
    }

    /// The bytes, valid as long as `self`.
    pub(crate) fn bytes(&self) -> &[u8] {
        match self {
            Buffer::Bytes(b) => b.as_bytes(),
            Buffer::Export(export) => {
                if export.len == 0 {
                    return &[];
                }
                // SAFETY: `export` holds a `PyBUF_SIMPLE` export, whose
                // memory is by the protocol's contract one contiguous block
                // of `len` bytes from `buf` (non-null, checked in `simple`,
                // as `len > 0`); the exporter keeps it allocated and in
                // place until the export is released, which happens when
                // `export` is dropped (the borrow of `self` outlives the
                // slice). `u8` has no alignment or validity requirement.
                // Only reads are done through the slice; writes by other
                // Python threads while it is read are the caller's race, as
                // with hashlib (see the module docs), and can change only
                // the digest, not where the reads go.
                unsafe {
                    std::slice::from_raw_parts(
                        export.view.buf.cast::<u8>().cast_const(),
                        export.len,
                    )
                }
            }
        }
    }
}

/// The bytes of every `Buffer`, for code that runs with the GIL released:
/// a `Buffer` itself holds a `Bound` (tied to the GIL), the slices are
/// plain memory.
pub(crate) fn slices<'a>(buffers: &'a [Buffer<'_>]) -> Vec<&'a [u8]> {
    buffers.iter().map(Buffer::bytes).collect()
}
