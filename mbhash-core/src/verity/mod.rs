//! Merkle trees over fixed-size blocks, as Linux's two integrity layers
//! build them: fs-verity file digests ([`fsverity`], byte-identical to
//! fsverity-utils' `fsverity digest`) and dm-verity hash images
//! ([`dmverity`], byte-identical to cryptsetup's `veritysetup format`).
//!
//! Every block of a tree level is an independent, equal-length hash job, so
//! each level is hashed many blocks at a time through the [`JobManager`]
//! (all lanes busy); the data blocks can also be spread over threads
//! ([`Options::jobs`]). Memory stays constant whatever the data size: data
//! is read in chunks and every tree level keeps one batch of pending hash
//! blocks, written out (top level first, as both formats store it) as soon
//! as it is full.
//!
//! Algorithms are named by [`Algo`](crate::Algo): fs-verity uses SHA-256
//! and SHA-512, dm-verity any of them.
//!
//! Verification ([`fsverity::verify`], [`dmverity::verify`]) checks every
//! stored hash block against its parent (the top one against the root hash)
//! and every data block against its stored hash, and reports them all, not
//! only the first. fs-verity is verified against the file digest (the hash
//! of the descriptor, which holds the data's length), as the kernel enables
//! a file; a root hash that the data and tree agree on but that is not the
//! one given is told apart from corruption ([`Report::only_root_differs`]),
//! as `veritysetup verify` does.
//!
//! ```
//! use mbhash_core::Algo;
//! use mbhash_core::verity::{fsverity, Input, NoTree, Options};
//! let params = fsverity::Params::new(Algo::Sha256, 4096, &[]).unwrap();
//! let out = fsverity::build(&params, Input::Bytes(b"hello"), &mut NoTree, &Options::default()).unwrap();
//! assert_eq!(out.descriptor[0], 1); // descriptor version
//! ```
//!
//! [`JobManager`]: crate::JobManager

#![forbid(unsafe_code)]

mod batch;
pub mod dmverity;
mod error;
pub mod fsverity;
mod io;
mod tree;

pub use error::VerityError;
pub use io::{Input, NoTree, TreeSink, TreeSource};
pub use tree::{BadHashBlock, Report};

use core::fmt;

/// How a tree is computed: threads and progress.
#[derive(Clone, Copy)]
pub struct Options<'a> {
    /// Threads hashing data blocks (at least 1). With more than one, the
    /// data must be positional ([`Input::File`] or [`Input::Bytes`]); a
    /// [`Input::Reader`] is always read by one thread.
    pub jobs: usize,
    /// Called with the number of data bytes hashed since the last call.
    pub progress: Option<&'a (dyn Fn(u64) + Sync)>,
}

impl Default for Options<'_> {
    fn default() -> Self {
        Options {
            jobs: 1,
            progress: None,
        }
    }
}

impl fmt::Debug for Options<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Options")
            .field("jobs", &self.jobs)
            .field("progress", &self.progress.is_some())
            .finish()
    }
}

/// Lower-case hex of `bytes`.
pub fn to_hex(bytes: &[u8]) -> String {
    use fmt::Write;
    let mut s = String::with_capacity(2 * bytes.len());
    for b in bytes {
        let _ = write!(s, "{b:02x}");
    }
    s
}

/// Bytes of a hex string (either case, even length), or `None`.
pub fn from_hex(hex: &str) -> Option<Vec<u8>> {
    if !hex.len().is_multiple_of(2) {
        return None;
    }
    hex.as_bytes()
        .chunks(2)
        .map(|p| {
            if !p.iter().all(u8::is_ascii_hexdigit) {
                return None;
            }
            u8::from_str_radix(core::str::from_utf8(p).ok()?, 16).ok()
        })
        .collect()
}

/// Checks that `root_hash` has the length of `alg`'s digest.
fn check_root_hash(alg: crate::Algo, root_hash: &[u8]) -> Result<(), VerityError> {
    let expected = alg.output_len();
    if root_hash.len() == expected {
        Ok(())
    } else {
        Err(VerityError::RootHashLength {
            len: root_hash.len(),
            expected,
        })
    }
}

/// Checks that `size` is a power of two in `min..=max`.
fn check_block_size(
    what: &'static str,
    size: usize,
    min: u64,
    max: u64,
) -> Result<(), VerityError> {
    let s = size as u64;
    if s.is_power_of_two() && (min..=max).contains(&s) {
        Ok(())
    } else {
        Err(VerityError::BlockSize {
            what,
            size: s,
            min,
            max,
        })
    }
}
