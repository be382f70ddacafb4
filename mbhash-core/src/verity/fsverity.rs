//! fs-verity: the Merkle tree, descriptor and file digest of a file, as the
//! Linux kernel computes them (`Documentation/filesystems/fsverity.rst`)
//! and fsverity-utils' `fsverity digest` prints them.
//!
//! * Data blocks and tree blocks have one size (1 KiB to 64 KiB); the last
//!   data block is zero-padded; hashes are packed `block_size / digest_len`
//!   to a block, the rest of the block zeros.
//! * The salt, zero-padded to the hash's block size (64 or 128 bytes), is
//!   hashed before every block.
//! * The root hash is the hash of the top tree block (of the data block if
//!   there is one; all zeros for an empty file).
//! * The 256-byte descriptor holds version 1, the algorithm number, log2 of
//!   the block size, the salt size, the data size (little-endian), the root
//!   hash and the salt; the file digest is the hash of the descriptor.
//! * The tree file (`--out-merkle-tree`) holds the levels top first.
//!
//! Verification ([`verify`], [`verify_descriptor`]) is against the file
//! digest, as the kernel enables a file and `fsverity digest` prints it:
//! the descriptor (given, or rebuilt from the parameters, the data's size
//! and the stored tree's top) must hash to it, so that a change of the
//! data's length, even by zero bytes inside the last block, is found.
//! [`verify_root`] checks the tree alone against a root hash.

use crate::Algo;

use super::batch::Salted;
use super::tree::{self, Shape};
use super::{
    Input, Options, Report, TreeSink, TreeSource, VerityError, check_block_size, check_root_hash,
};
use crate::engine::HashAlgorithm;

/// Bytes of the descriptor's root hash field (the digest, zero-padded).
const ROOT_FIELD: usize = 64;

/// Bytes of a descriptor.
pub const DESCRIPTOR_LEN: usize = 256;
/// Longest salt.
pub const MAX_SALT: usize = 32;
/// Smallest block size.
pub const MIN_BLOCK: usize = 1024;
/// Largest block size.
pub const MAX_BLOCK: usize = 65536;
/// Most tree levels (as fsverity-utils).
const MAX_LEVELS: usize = 64;

/// The parameters of an fs-verity tree.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Params {
    alg: Algo,
    block_size: usize,
    salt: Vec<u8>,
}

impl Params {
    /// Checked parameters: SHA-256 or SHA-512, a power-of-two block size
    /// from 1 KiB to 64 KiB, a salt of at most 32 bytes.
    ///
    /// # Errors
    /// If one of them is out of range.
    pub fn new(alg: Algo, block_size: usize, salt: &[u8]) -> Result<Params, VerityError> {
        if alg_number(alg).is_none() {
            return Err(VerityError::Algorithm(alg.name().into()));
        }
        check_block_size("block", block_size, MIN_BLOCK as u64, MAX_BLOCK as u64)?;
        if salt.len() > MAX_SALT {
            return Err(VerityError::SaltTooLong {
                len: salt.len(),
                max: MAX_SALT,
            });
        }
        Ok(Params {
            alg,
            block_size,
            salt: salt.to_vec(),
        })
    }

    /// The hash algorithm.
    pub fn alg(&self) -> Algo {
        self.alg
    }

    /// The block size.
    pub fn block_size(&self) -> usize {
        self.block_size
    }

    /// The salt.
    pub fn salt(&self) -> &[u8] {
        &self.salt
    }

    fn shape(&self, data_size: u64) -> Result<Shape, VerityError> {
        let d = self.alg.output_len();
        Shape {
            data_block: self.block_size,
            hash_block: self.block_size,
            digest: d,
            stride: d,
            per_block: self.block_size / d,
            data_len: data_size,
            data_blocks: data_size.div_ceil(self.block_size as u64),
            levels: Vec::new(),
            level_offset: Vec::new(),
        }
        .leveled(MAX_LEVELS)
    }

    fn salted<A: HashAlgorithm>(&self) -> Result<Salted<A>, VerityError> {
        let mut padded = self.salt.clone();
        // SHA-256's compression block is 64 bytes, SHA-512's 128.
        let block = if self.alg == Algo::Sha256 { 64 } else { 128 };
        padded.resize(self.salt.len().next_multiple_of(block), 0);
        Salted::new(&padded, &[])
    }

    /// Bytes of the Merkle tree over `data_size` bytes.
    ///
    /// # Errors
    /// If the tree would have too many levels.
    pub fn tree_len(&self, data_size: u64) -> Result<u64, VerityError> {
        Ok(self.shape(data_size)?.tree_len())
    }

    /// The descriptor of `data_size` bytes with `root_hash`.
    pub fn descriptor(&self, data_size: u64, root_hash: &[u8]) -> [u8; DESCRIPTOR_LEN] {
        let mut d = [0u8; DESCRIPTOR_LEN];
        d[0] = 1;
        d[1] = alg_number(self.alg).expect("checked by Params::new");
        d[2] = self.block_size.trailing_zeros() as u8;
        d[3] = self.salt.len() as u8;
        // d[4..8]: signature size, 0 for the digest.
        d[8..16].copy_from_slice(&data_size.to_le_bytes());
        d[16..16 + root_hash.len()].copy_from_slice(root_hash);
        d[80..80 + self.salt.len()].copy_from_slice(&self.salt);
        d
    }
}

/// The algorithm's number in fs-verity (`FS_VERITY_HASH_ALG_*`): SHA-256
/// 1, SHA-512 2, no other.
pub const fn alg_number(alg: Algo) -> Option<u8> {
    match alg {
        Algo::Sha256 => Some(1),
        Algo::Sha512 => Some(2),
        _ => None,
    }
}

/// What [`build`] computes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FsVerity {
    /// The algorithm.
    pub alg: Algo,
    /// The Merkle tree's root hash.
    pub root_hash: Vec<u8>,
    /// The descriptor (what `--out-descriptor` writes).
    pub descriptor: [u8; DESCRIPTOR_LEN],
    /// The file digest: the hash of the descriptor.
    pub digest: Vec<u8>,
    /// Bytes of data.
    pub data_size: u64,
    /// Bytes of the Merkle tree written.
    pub tree_len: u64,
}

impl FsVerity {
    /// The digest as the kernel's built-in signatures sign it
    /// (`fsverity digest --for-builtin-sig`): `"FSVerity"`, the algorithm
    /// number and digest length (16-bit little-endian), the digest.
    pub fn formatted_digest(&self) -> Vec<u8> {
        let mut v = b"FSVerity".to_vec();
        let number = u16::from(alg_number(self.alg).expect("an fs-verity algorithm"));
        v.extend_from_slice(&number.to_le_bytes());
        v.extend_from_slice(&(self.digest.len() as u16).to_le_bytes());
        v.extend_from_slice(&self.digest);
        v
    }
}

/// Builds the tree over `input`, writing it to `tree` (offset 0 = the top
/// level, as `fsverity digest --out-merkle-tree` writes it).
///
/// # Errors
/// Reading the data (shorter than its length is an error), writing the
/// tree, or an engine misconfigured through the environment.
pub fn build(
    params: &Params,
    input: Input<'_>,
    tree: &mut dyn TreeSink,
    opts: &Options<'_>,
) -> Result<FsVerity, VerityError> {
    crate::with_algo!(params.alg, A => build_with::<A>(params, input, tree, opts))
}

fn build_with<A: HashAlgorithm>(
    params: &Params,
    input: Input<'_>,
    tree: &mut dyn TreeSink,
    opts: &Options<'_>,
) -> Result<FsVerity, VerityError> {
    let size = input.size()?;
    let shape = params.shape(size)?;
    let root = tree::build(&shape, &params.salted::<A>()?, input, tree, 0, opts)?;
    let descriptor = params.descriptor(size, &root);
    let digest = crate::hash_many::<A>(&[&descriptor])[0].as_ref().to_vec();
    Ok(FsVerity {
        alg: params.alg,
        root_hash: root,
        descriptor,
        digest,
        data_size: size,
        tree_len: shape.tree_len(),
    })
}

/// A parsed descriptor (as [`build`] makes it and `--out-descriptor`
/// writes it).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Descriptor {
    /// Algorithm, block size and salt.
    pub params: Params,
    /// Bytes of data.
    pub data_size: u64,
    /// The Merkle tree's root hash.
    pub root_hash: Vec<u8>,
}

impl Descriptor {
    /// Parses the 256 bytes of a descriptor without a signature.
    ///
    /// # Errors
    /// [`VerityError::Descriptor`]: another length, a version other than
    /// 1, an unknown algorithm, a block size or salt size out of range, a
    /// signature size, or nonzero bytes where the format has zeros.
    pub fn parse(b: &[u8]) -> Result<Descriptor, VerityError> {
        let bad = |m: String| Err(VerityError::Descriptor(m));
        if b.len() != DESCRIPTOR_LEN {
            return bad(format!("{} bytes, not {DESCRIPTOR_LEN}", b.len()));
        }
        if b[0] != 1 {
            return bad(format!("unsupported version {}", b[0]));
        }
        let alg = match b[1] {
            1 => Algo::Sha256,
            2 => Algo::Sha512,
            n => return bad(format!("unknown hash algorithm number {n}")),
        };
        let log = u32::from(b[2]);
        let block_size = 1usize.checked_shl(log).filter(|_| log < 32).unwrap_or(0);
        let salt_len = usize::from(b[3]);
        if salt_len > MAX_SALT {
            return bad(format!("salt size {salt_len} over {MAX_SALT}"));
        }
        if b[4..8] != [0; 4] {
            return bad("it has a signature size (a signed file's descriptor?)".into());
        }
        let d = alg.output_len();
        let zero = |r: core::ops::Range<usize>| b[r].iter().all(|&x| x == 0);
        if !zero(16 + d..16 + ROOT_FIELD) || !zero(80 + salt_len..DESCRIPTOR_LEN) {
            return bad("nonzero bytes past the root hash or salt".into());
        }
        let params = Params::new(alg, block_size, &b[80..80 + salt_len])
            .map_err(|e| VerityError::Descriptor(e.to_string()))?;
        Ok(Descriptor {
            params,
            data_size: u64::from_le_bytes(b[8..16].try_into().expect("8 bytes")),
            root_hash: b[16..16 + d].to_vec(),
        })
    }
}

/// What verification against a file digest found.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FsReport {
    /// Blocks of the data and the stored tree found inconsistent (against
    /// the descriptor's root hash, or with no descriptor against the root
    /// the stored tree gives, so that only the blocks disagreeing with it
    /// are listed).
    pub blocks: Report,
    /// The descriptor (given, or rebuilt from the parameters, the data's
    /// length and the stored tree's top) does not hash to the file digest
    /// given: the data's length or content, the tree or the descriptor is
    /// not the one the digest was made of.
    pub digest_mismatch: bool,
    /// The data's length, where it differs from the descriptor's (the
    /// blocks are then not checked).
    pub size_mismatch: Option<u64>,
}

impl FsReport {
    /// True if the data, tree and descriptor are the ones of the digest.
    pub fn is_ok(&self) -> bool {
        self.blocks.is_ok() && !self.digest_mismatch && self.size_mismatch.is_none()
    }
}

/// Verifies `input` and a stored Merkle tree (as [`build`] writes it)
/// against the file `digest` (as [`FsVerity::digest`] and `fsverity digest`
/// give it): the descriptor of the data's length and the stored tree's root
/// must hash to it, and every block must agree with the tree.
///
/// # Errors
/// A digest of the wrong length, a tree file of another length than the
/// data's tree ([`VerityError::Truncated`], [`VerityError::TrailingData`]),
/// the tree's root hash given for the digest
/// ([`VerityError::RootNotDigest`]), an I/O error. Corruption is reported
/// in the [`FsReport`], not as an error.
pub fn verify(
    params: &Params,
    input: Input<'_>,
    tree: &dyn TreeSource,
    digest: &[u8],
    opts: &Options<'_>,
) -> Result<FsReport, VerityError> {
    check_root_hash(params.alg, digest)?;
    crate::with_algo!(params.alg, A => verify_digest_with::<A>(params, None, input, tree, digest, opts))
}

/// Like [`verify`], with the descriptor (as `--out-descriptor` writes it)
/// giving the parameters, the data's length and the root hash: it must hash
/// to `digest`, and the data must have its length.
///
/// # Errors
/// As [`verify`], and a descriptor that does not parse
/// ([`Descriptor::parse`]).
pub fn verify_descriptor(
    descriptor: &[u8],
    input: Input<'_>,
    tree: &dyn TreeSource,
    digest: &[u8],
    opts: &Options<'_>,
) -> Result<FsReport, VerityError> {
    let desc = Descriptor::parse(descriptor)?;
    let params = desc.params.clone();
    check_root_hash(params.alg, digest)?;
    crate::with_algo!(params.alg, A => verify_digest_with::<A>(&params, Some(&desc), input, tree, digest, opts))
}

fn verify_digest_with<A: HashAlgorithm>(
    params: &Params,
    desc: Option<&Descriptor>,
    input: Input<'_>,
    tree: &dyn TreeSource,
    digest: &[u8],
    opts: &Options<'_>,
) -> Result<FsReport, VerityError> {
    let have_len = input.size()?;
    let size = desc.map_or(have_len, |d| d.data_size);
    let shape = params.shape(size)?;
    let salted = params.salted::<A>()?;
    let mut report = FsReport::default();
    let root = match desc {
        Some(d) => d.root_hash.clone(),
        None => {
            check_tree_len(&shape, tree)?;
            tree::stored_root(&shape, &salted, &input, tree, 0)?
        }
    };
    let descriptor = params.descriptor(size, &root);
    let computed = crate::hash_many::<A>(&[&descriptor])[0].as_ref().to_vec();
    if computed != digest {
        if digest == root.as_slice() {
            return Err(VerityError::RootNotDigest);
        }
        report.digest_mismatch = true;
    }
    if have_len != size {
        report.size_mismatch = Some(have_len);
        return Ok(report);
    }
    check_tree_len(&shape, tree)?;
    report.blocks = tree::verify(&shape, &salted, input, tree, 0, &root, opts)?;
    Ok(report)
}

/// A tree file must hold the data's tree and nothing after it.
fn check_tree_len(shape: &Shape, tree: &dyn TreeSource) -> Result<(), VerityError> {
    let (need, have) = (shape.tree_len(), tree.size()?);
    if have < need {
        Err(VerityError::Truncated { need, have })
    } else if have > need {
        Err(VerityError::TrailingData { need, have })
    } else {
        Ok(())
    }
}

/// Verifies `input` against a stored Merkle tree (as [`build`] writes it)
/// and its root hash (the tree alone: not the data's length, which only the
/// file digest covers; [`verify`] checks that).
///
/// # Errors
/// A root hash of the wrong length, a tree shorter than the data needs, an
/// I/O error. Corruption is reported in the [`Report`], not as an error.
pub fn verify_root(
    params: &Params,
    input: Input<'_>,
    tree: &dyn TreeSource,
    root_hash: &[u8],
    opts: &Options<'_>,
) -> Result<Report, VerityError> {
    check_root_hash(params.alg, root_hash)?;
    crate::with_algo!(params.alg, A => verify_root_with::<A>(params, input, tree, root_hash, opts))
}

fn verify_root_with<A: HashAlgorithm>(
    params: &Params,
    input: Input<'_>,
    tree: &dyn TreeSource,
    root_hash: &[u8],
    opts: &Options<'_>,
) -> Result<Report, VerityError> {
    let shape = params.shape(input.size()?)?;
    tree::verify(
        &shape,
        &params.salted::<A>()?,
        input,
        tree,
        0,
        root_hash,
        opts,
    )
}
