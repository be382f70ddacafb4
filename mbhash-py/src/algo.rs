//! Algorithm names as hashlib spells them, and the step from a run-time
//! algorithm to the typed code of `mbhash-core`.

use mbhash_core::service::Algo;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

/// The names hashlib gives the algorithms, as `mbhash.algorithms_available`.
pub(crate) const HASHLIB_NAMES: [&str; 6] = [
    "sha224",
    "sha256",
    "sha384",
    "sha512",
    "sha512_224",
    "sha512_256",
];

/// Runs `$body` with `$A` the `mbhash_core::alg` type of `$algo`.
macro_rules! dispatch {
    ($algo:expr, $A:ident => $body:expr) => {
        match $algo {
            mbhash_core::service::Algo::Sha256 => {
                type $A = mbhash_core::alg::Sha256;
                $body
            }
            mbhash_core::service::Algo::Sha224 => {
                type $A = mbhash_core::alg::Sha224;
                $body
            }
            mbhash_core::service::Algo::Sha512 => {
                type $A = mbhash_core::alg::Sha512;
                $body
            }
            mbhash_core::service::Algo::Sha384 => {
                type $A = mbhash_core::alg::Sha384;
                $body
            }
            mbhash_core::service::Algo::Sha512_256 => {
                type $A = mbhash_core::alg::Sha512_256;
                $body
            }
            mbhash_core::service::Algo::Sha512_224 => {
                type $A = mbhash_core::alg::Sha512_224;
                $body
            }
        }
    };
}
pub(crate) use dispatch;

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
    match algo {
        Algo::Sha256 => "sha256",
        Algo::Sha224 => "sha224",
        Algo::Sha512 => "sha512",
        Algo::Sha384 => "sha384",
        Algo::Sha512_256 => "sha512_256",
        Algo::Sha512_224 => "sha512_224",
    }
}

/// Bytes per block of the algorithm's compression function (hashlib's
/// `block_size`).
pub(crate) fn block_size(algo: Algo) -> usize {
    use mbhash_core::alg::{Algorithm, Family};
    dispatch!(algo, A => <<A as Algorithm>::Family as Family>::BLOCK_LEN)
}
