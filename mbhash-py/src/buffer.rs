//! Zero-copy views of Python objects with the buffer protocol.
//!
//! A [`Buffer`] holds a buffer export (`PyObject_GetBuffer`) for as long as
//! it lives, and is released (`PyBuffer_Release`) when dropped, which the
//! callers do with the GIL held, after hashing. While an export is held its
//! exporter must keep the memory where it is: a `bytearray` refuses to be
//! resized (`BufferError: Existing exports of data: object cannot be
//! re-sized`), a `memoryview` to be released, an `mmap` to be closed, a
//! numpy array to be resized. So the memory stays valid while the GIL is
//! released and another thread runs Python code.
//!
//! What an export does not stop is another thread *writing into* a mutable
//! buffer while it is hashed. As with hashlib (which also releases the GIL
//! while it reads the caller's buffer), the digest is then of some mix of
//! old and new bytes; the hash never reads outside the buffer, whatever the
//! bytes are. Do not write into a buffer while it is being hashed.

use pyo3::buffer::PyUntypedBuffer;
use pyo3::exceptions::{PyBufferError, PyTypeError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyString};

/// The bytes of a Python object, held without a copy.
pub(crate) enum Buffer<'py> {
    /// A `bytes` object: immutable, viewed safely through its own API.
    Bytes(Bound<'py, PyBytes>),
    /// Any other object with the buffer protocol: a held export of a
    /// C-contiguous buffer.
    Export(PyUntypedBuffer),
}

impl<'py> Buffer<'py> {
    /// Exports `obj`'s buffer. `TypeError` if `obj` has no buffer protocol
    /// (a `str` included: encode it first, as hashlib says),
    /// `BufferError` if the buffer is not C-contiguous.
    pub(crate) fn get(obj: &Bound<'py, PyAny>) -> PyResult<Self> {
        if let Ok(bytes) = obj.cast::<PyBytes>() {
            return Ok(Buffer::Bytes(bytes.clone()));
        }
        if obj.is_instance_of::<PyString>() {
            return Err(PyTypeError::new_err(
                "Strings must be encoded before hashing",
            ));
        }
        let export = PyUntypedBuffer::get(obj)?;
        if !export.is_c_contiguous() {
            return Err(PyBufferError::new_err(
                "the buffer is not C-contiguous (copy it first, e.g. bytes(view))",
            ));
        }
        Ok(Buffer::Export(export))
    }

    /// The bytes, valid as long as `self`.
    pub(crate) fn bytes(&self) -> &[u8] {
        match self {
            Buffer::Bytes(b) => b.as_bytes(),
            Buffer::Export(export) => {
                let len = export.len_bytes();
                if len == 0 {
                    return &[];
                }
                #[allow(unsafe_code)]
                // SAFETY: `export` is a held export of a C-contiguous buffer
                // (checked in `get`), so its memory is the `len_bytes()`
                // bytes from `buf_ptr()`, non-null as `len > 0`, and the
                // exporter keeps it allocated and in place until the export
                // is released, which happens when `export` is dropped (the
                // borrow of `self` outlives the slice). `u8` has no alignment
                // or validity requirement. Only reads are done through the
                // slice; writes by other Python threads while it is read are
                // the caller's race, as with hashlib (see the module docs),
                // and can change only the digest, not where the reads go.
                unsafe {
                    std::slice::from_raw_parts(export.buf_ptr().cast::<u8>().cast_const(), len)
                }
            }
        }
    }
}

/// The bytes of every `Buffer`, for code that runs with the GIL released:
/// a `Buffer` itself may hold a `Bound` (tied to the GIL), the slices are
/// plain memory.
pub(crate) fn slices<'a>(buffers: &'a [Buffer<'_>]) -> Vec<&'a [u8]> {
    buffers.iter().map(Buffer::bytes).collect()
}
