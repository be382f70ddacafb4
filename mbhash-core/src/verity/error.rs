//! What can go wrong building or verifying a tree.

use std::fmt;
use std::io;

use crate::engine::EngineError;

/// An error building or verifying a tree: bad parameters, a hash image that
/// does not fit them, or an I/O error. A tree that was read and found
/// corrupt is not an error but a [`Report`](super::Report).
#[derive(Debug)]
#[non_exhaustive]
pub enum VerityError {
    /// A block size that is not a power of two or is out of range.
    BlockSize {
        /// What the size is of (`"block"`, `"data block"`, `"hash block"`).
        what: &'static str,
        /// The size given.
        size: u64,
        /// Smallest allowed.
        min: u64,
        /// Largest allowed.
        max: u64,
    },
    /// A salt longer than the format allows.
    SaltTooLong {
        /// Its length.
        len: usize,
        /// The format's limit.
        max: usize,
    },
    /// An algorithm the format (or the engine) does not support.
    Algorithm(String),
    /// A dm-verity format version other than 0 and 1.
    Version(u32),
    /// A root hash whose length is not the algorithm's digest length.
    RootHashLength {
        /// Its length.
        len: usize,
        /// The digest length.
        expected: usize,
    },
    /// The data has no whole block (dm-verity) or fewer than asked for.
    DataSize(String),
    /// The hash image is shorter than its tree needs.
    Truncated {
        /// Bytes the tree needs.
        need: u64,
        /// Bytes there are.
        have: u64,
    },
    /// A dm-verity superblock that is missing, corrupt or does not match
    /// the parameters given.
    Superblock(String),
    /// The tree would have more levels than the format allows.
    TooManyLevels,
    /// A hash offset that is not a multiple of 512 bytes.
    HashOffset(u64),
    /// A stored tree longer than the data's tree: bytes after it.
    TrailingData {
        /// Bytes the tree has.
        need: u64,
        /// Bytes there are.
        have: u64,
    },
    /// An fs-verity descriptor that is not one (bad version, algorithm,
    /// block size, salt size or nonzero reserved bytes).
    Descriptor(String),
    /// The value given as the fs-verity file digest is the tree's root hash
    /// (the hash of its top block), not the digest of the descriptor.
    RootNotDigest,
    /// The engine named by the environment is unknown or unsupported.
    Engine(EngineError),
    /// Reading the data or the tree, or writing the tree.
    Io(io::Error),
}

impl fmt::Display for VerityError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            VerityError::BlockSize {
                what,
                size,
                min,
                max,
            } => write!(
                f,
                "invalid {what} size {size}: must be a power of 2 from {min} to {max}"
            ),
            VerityError::SaltTooLong { len, max } => {
                write!(f, "salt too long: {len} bytes (at most {max})")
            }
            VerityError::Algorithm(name) => write!(f, "unsupported hash algorithm '{name}'"),
            VerityError::Version(v) => write!(f, "unsupported format version {v} (0 or 1)"),
            VerityError::RootHashLength { len, expected } => write!(
                f,
                "root hash has {len} bytes, the algorithm's digest has {expected}"
            ),
            VerityError::DataSize(msg) => f.write_str(msg),
            VerityError::Truncated { need, have } => write!(
                f,
                "hash image truncated: the tree needs {need} bytes, there are {have}"
            ),
            VerityError::Superblock(msg) => write!(f, "verity superblock: {msg}"),
            VerityError::TooManyLevels => f.write_str("too many tree levels"),
            VerityError::HashOffset(o) => {
                write!(f, "invalid hash offset {o}: must be a multiple of 512")
            }
            VerityError::TrailingData { need, have } => write!(
                f,
                "tree file has {} bytes after its {need}-byte tree ({have} bytes)",
                have - need
            ),
            VerityError::Descriptor(msg) => write!(f, "fs-verity descriptor: {msg}"),
            VerityError::RootNotDigest => f.write_str(
                "the hash given is the Merkle tree's root hash, not the file digest \
                 (as `verity digest` prints it; `verity digest --print-root` prints the root)",
            ),
            VerityError::Engine(e) => write!(f, "{e}"),
            VerityError::Io(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for VerityError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            VerityError::Io(e) => Some(e),
            _ => None,
        }
    }
}

impl From<io::Error> for VerityError {
    fn from(e: io::Error) -> Self {
        VerityError::Io(e)
    }
}

impl From<EngineError> for VerityError {
    fn from(e: EngineError) -> Self {
        VerityError::Engine(e)
    }
}
