//! `mbhash.hash_many(name, buffers)`: many messages at once, in SIMD lanes,
//! with the GIL released.

use mbhash_core::alg::Algorithm;
use mbhash_core::hash_many_with;
use mbhash_core::with_algo;
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyList};

use crate::algo;
use crate::buffer::{self, Buffer};
use crate::engines;

/// The digests (bytes) of every buffer of the iterable `buffers`, in
/// order, for the algorithm `name`. Any object with the buffer protocol
/// will do (bytes, bytearray, memoryview, array.array, numpy arrays, mmap):
/// each is read where it lies, without a copy, with the GIL released. The
/// buffers are held (exported) until the call returns, so another thread
/// cannot resize or free them meanwhile; it must not write into them
/// either (the digest would be of some mix of old and new bytes).
/// TypeError for an item without the buffer protocol, the exporter's own
/// error for a non-contiguous one (as hashlib: BufferError for a
/// memoryview, ValueError for numpy), ValueError for an unknown algorithm
/// or engine.
#[pyfunction]
#[pyo3(signature = (name, buffers, *, engine = None))]
pub(crate) fn hash_many<'py>(
    py: Python<'py>,
    name: &str,
    buffers: &Bound<'py, PyAny>,
    engine: Option<&str>,
) -> PyResult<Bound<'py, PyList>> {
    let algo = algo::parse(name)?;
    let held = export_all(buffers)?;
    let messages = buffer::slices(&held);
    with_algo!(algo, A => {
        let engine = engines::engine::<<A as Algorithm>::Family>(engine)?;
        let mut out = vec![A::ZERO_OUTPUT; messages.len()];
        py.detach(|| hash_many_with::<A>(engine, &messages, &mut out));
        drop(messages);
        // The exports are released here, with the GIL held.
        drop(held);
        PyList::new(py, out.iter().map(|d| PyBytes::new(py, d.as_ref())))
    })
}

/// Exports the buffer of every item; the error names the item that has none.
fn export_all<'py>(buffers: &Bound<'py, PyAny>) -> PyResult<Vec<Buffer<'py>>> {
    let items = buffers.try_iter().map_err(|_| {
        PyTypeError::new_err(format!(
            "hash_many: buffers must be an iterable of bytes-like objects, not '{}'",
            type_name(buffers)
        ))
    })?;
    let mut held = Vec::with_capacity(buffers.len().unwrap_or(0));
    for (i, item) in items.enumerate() {
        let item = item?;
        let buf = Buffer::get(&item).map_err(|e| {
            let msg = format!("hash_many: item {i}: {}", e.value(buffers.py()));
            if e.is_instance_of::<PyTypeError>(buffers.py()) {
                PyTypeError::new_err(msg)
            } else {
                e
            }
        })?;
        held.push(buf);
    }
    Ok(held)
}

fn type_name(obj: &Bound<'_, PyAny>) -> String {
    obj.get_type()
        .name()
        .map(|n| n.to_string())
        .unwrap_or_else(|_| "?".into())
}
