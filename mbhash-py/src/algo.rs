//! Algorithm names as hashlib spells them. (`mbhash_core::with_algo!` is the
//! step from a run-time [`Algo`] to the typed code.)

use mbhash_core::Algo;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

/// The names hashlib gives the algorithms, as `mbhash.algorithms_available`
/// and `mbhash.algorithms_guaranteed` (the same set: every build computes
/// every algorithm, whatever the CPU).
pub(crate) const HASHLIB_NAMES: [&str; Algo::ALL.len()] = {
    let mut names = [""; Algo::ALL.len()];
    let mut i = 0;
    while i < names.len() {
        names[i] = Algo::ALL[i].hashlib_name();
        i += 1;
    }
    names
};

/// The algorithm called `name`: hashlib's spelling (`"sha512_256"`), the
/// `mbhash` command line's (`"sha512-256"`), in any case.
pub(crate) fn parse(name: &str) -> PyResult<Algo> {
    let wanted = name.to_ascii_lowercase().replace('-', "_");
    Algo::ALL
        .into_iter()
        .find(|a| hashlib_name(*a) == wanted)
        .ok_or_else(|| {
            PyValueError::new_err(format!(
                "unsupported hash type {name:?} (mbhash has: {})",
                HASHLIB_NAMES.join(", ")
            ))
        })
}

/// hashlib's name of the algorithm, e.g. `"sha512_256"`.
pub(crate) fn hashlib_name(algo: Algo) -> &'static str {
    algo.hashlib_name()
}
