//! mbhash core: multi-buffer hashing for storage stacks.
//!
//! * [`JobManager`]: ISA-L-style `submit` / `flush` of independent jobs
//!   packed into SIMD lanes, with multi-part streams ([`Context`], [`Flags`]).
//! * [`hash_many`]: many messages at once.
//! * [`Sha256`], [`Sha224`], [`Sha512`], [`Sha384`], [`Sha512_256`],
//!   [`Sha512_224`]: one-stream hashers with the `digest` traits.
//! * [`BlockBuffer`]: a stream's partial block and padding, the one
//!   buffering routine of the hashers, the contexts and the C library.
//! * [`HashService`] ([`service`]): worker threads hashing owned buffers
//!   submitted from any thread, with handles, callbacks or channels.
//! * [`Pool`] ([`pool`]): a shared, synchronous pool with no threads of its
//!   own that combines concurrent callers' jobs into lanes.
//! * [`files`]: many files read onto a [`HashService`] under the
//!   open-file limit, outcomes in job order (the reader of the command
//!   line and of Python's `hash_files`).
//! * [`verity`]: fs-verity digests and dm-verity hash trees, built and
//!   verified many blocks at a time.
//! * [`crc`]: every CRC of the CRC catalogue's model (CRC-32, CRC-32C,
//!   CRC-64/NVME, CRC-16/T10-DIF, ..., and any spec given), one folding
//!   engine; [`crc32c`] keeps CRC32C's own API.
//! * [`engine`]: run-time choice of kernels (`auto` measures this CPU), with
//!   overrides by name (`MBHASH_SHA256_ENGINE`, `MBHASH_SHA512_ENGINE`).
//!
//! Without the default `std` feature the crate is `no_std` and allocates
//! nothing: the manager, contexts, padding, engines (`auto` then uses
//! default costs instead of measuring) and hashers all work; `hash_many`
//! (which returns a `Vec`), the environment variables, `io::Write` and the
//! [`HashService`] (threads) need `std`.
//!
//! ```
//! use mbhash_core::{alg, hash_many, Sha256};
//! use digest::Digest;
//! let many = hash_many::<alg::Sha256Alg>(&[b"abc", b"def"]);
//! assert_eq!(many[0], <[u8; 32]>::from(Sha256::digest(b"abc")));
//! ```

#![cfg_attr(docsrs, feature(doc_cfg))]
#![cfg_attr(not(any(feature = "std", test)), no_std)]
#![deny(unsafe_code)]

pub mod alg;
/// The run-time algorithm ids and digests ([`alg::algo`]), at their
/// earlier path.
pub use alg::algo;
pub mod block_api;
mod buffer;
pub mod crc;
/// CRC32C's own API ([`crc::crc32c`]), at its earlier path.
pub use crc::crc32c;
pub mod engine;
#[cfg(all(feature = "std", unix))]
pub mod files;
mod hasher;
pub mod lanes;
pub mod manager;
mod many;
pub mod pool;
#[cfg(feature = "std")]
pub mod race;
#[cfg(feature = "std")]
pub mod s3;
mod select;
#[cfg(feature = "std")]
pub mod service;
#[cfg(feature = "std")]
pub mod verity;

/// The RustCrypto `digest` crate, re-exported as `sha2` does, so that
/// `use mbhash::{Digest, Sha256};` reads as it does with `sha2`.
pub use digest::{self, Digest};

pub use alg::Algo;
pub use buffer::BlockBuffer;
pub use hasher::{StreamHasher, StreamHasherCore};
pub use manager::{Context, ErrorKind, Flags, JobManager, Status, SubmitError};

/// Every algorithm's marker, hasher, manager and context at the crate root,
/// from the catalogue ([`for_each_algorithm!`]).
macro_rules! reexports {
    ($($v:ident $t:ident $family:ident $hasher:ident $manager:ident $context:ident $name:literal $tag:literal;)*) => {
        pub use alg::{$($t),*};
        pub use hasher::{$($hasher),*};
        pub use manager::{$($manager, $context),*};
    };
}

for_each_algorithm!(@names reexports);
#[cfg(feature = "std")]
pub use many::hash_many;
pub use many::{hash_many_into, hash_many_with};
pub use pool::Pool;
#[cfg(feature = "std")]
pub use service::HashService;
