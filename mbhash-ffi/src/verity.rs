//! fs-verity digests and dm-verity hash images over a buffer or a file
//! descriptor (`mbhash_core::verity`), byte-identical to fsverity-utils and
//! veritysetup.

use std::fs::File;
use std::os::fd::{BorrowedFd, RawFd};

use mbhash_core::Algo;
use mbhash_core::verity::{Input, NoTree, Options, TreeSink, VerityError, dmverity, fsverity};

use crate::alg::{AlgRaw, mbh_algorithm};
use crate::boundary::{boundary, bytes, mbh_result, non_null, write_out};

/// Bytes of an fs-verity descriptor.
pub const MBH_FSVERITY_DESCRIPTOR_LEN: usize = 256;
/// Bytes of a dm-verity superblock.
pub const MBH_DMVERITY_SUPERBLOCK_LEN: usize = 512;

/// What an fs-verity computation gives (digests in their first
/// `digest_len` bytes).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct mbh_fsverity_result {
    /// The Merkle tree's root hash.
    pub root_hash: [u8; 64],
    /// The file digest (the hash of the descriptor), as `fsverity digest`
    /// prints it.
    pub digest: [u8; 64],
    /// Bytes of `root_hash` and `digest`: 32 (SHA-256) or 64 (SHA-512).
    pub digest_len: usize,
    /// The descriptor, as `fsverity digest --out-descriptor` writes it.
    pub descriptor: [u8; MBH_FSVERITY_DESCRIPTOR_LEN],
    /// Bytes of the Merkle tree (`--out-merkle-tree`).
    pub tree_len: u64,
}

/// The parameters of a dm-verity hash image (`veritysetup format`'s
/// options).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct mbh_dmverity_params {
    /// `MBH_SHA256`, `MBH_SHA512`, `MBH_SHA224`, `MBH_SHA384`,
    /// `MBH_SHA512_256` or `MBH_SHA512_224`.
    pub alg: mbh_algorithm,
    /// 1 (salt before each block) or 0 (Chrome OS: salt after it).
    pub version: u32,
    /// Bytes per data block: a power of 2 from 512 to 524288.
    pub data_block_size: u32,
    /// Bytes per hash block: a power of 2 from 512 to 524288.
    pub hash_block_size: u32,
    /// The salt (NULL only with `salt_len` 0).
    pub salt: *const u8,
    /// Bytes of salt, at most 256.
    pub salt_len: usize,
    /// Nonzero: the image starts with a 512-byte superblock.
    pub superblock: u32,
    /// The superblock's UUID.
    pub uuid: [u8; 16],
    /// Data blocks covered; 0: every whole block of the data.
    pub data_blocks: u64,
}

/// What a dm-verity computation gives.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct mbh_dmverity_result {
    /// The root hash, in its first `root_hash_len` bytes.
    pub root_hash: [u8; 64],
    /// Bytes of the root hash (the algorithm's digest length).
    pub root_hash_len: usize,
    /// Data blocks covered.
    pub data_blocks: u64,
    /// Hash blocks of the tree (not counting the superblock's).
    pub hash_blocks: u64,
    /// Bytes of the hash image.
    pub image_len: u64,
}

fn error(e: &VerityError) -> mbh_result {
    match e {
        VerityError::BlockSize { .. }
        | VerityError::SaltTooLong { .. }
        | VerityError::Algorithm(_)
        | VerityError::Version(_)
        | VerityError::RootHashLength { .. }
        | VerityError::HashOffset(_)
        | VerityError::RootNotDigest
        | VerityError::TooManyLevels => mbh_result::MBH_INVALID_PARAMETER,
        VerityError::DataSize(_)
        | VerityError::Truncated { .. }
        | VerityError::TrailingData { .. }
        | VerityError::Descriptor(_)
        | VerityError::Superblock(_) => mbh_result::MBH_BAD_IMAGE,
        VerityError::Engine(_) => mbh_result::MBH_UNSUPPORTED_ENGINE,
        VerityError::Io(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => {
            mbh_result::MBH_BAD_IMAGE
        }
        _ => mbh_result::MBH_IO_ERROR,
    }
}

fn hash_alg(alg: mbh_algorithm) -> Result<Algo, mbh_result> {
    Algo::from_raw(alg)
}

/// A file for `fd`, duplicated: the caller's descriptor stays open, and
/// only positional reads and writes are made (its offset is kept).
fn dup(fd: RawFd) -> Result<File, mbh_result> {
    if fd < 0 {
        return Err(mbh_result::MBH_INVALID_PARAMETER);
    }
    // SAFETY: the caller's contract: `fd` is an open descriptor for the
    // duration of the call. It is only duplicated here.
    let borrowed = unsafe { BorrowedFd::borrow_raw(fd) };
    borrowed
        .try_clone_to_owned()
        .map(File::from)
        .map_err(|_| mbh_result::MBH_IO_ERROR)
}

fn jobs(n: u32) -> usize {
    if n == 0 {
        std::thread::available_parallelism().map_or(1, |n| n.get())
    } else {
        n as usize
    }
}

/// # Safety
/// `salt` is NULL or readable for `salt_len` bytes.
unsafe fn fs_params(
    alg: mbh_algorithm,
    block_size: u32,
    salt: *const u8,
    salt_len: usize,
) -> Result<fsverity::Params, mbh_result> {
    // SAFETY: forwarded contract.
    let salt = unsafe { bytes(salt, salt_len) }?;
    fsverity::Params::new(hash_alg(alg)?, block_size as usize, salt).map_err(|e| error(&e))
}

fn fs_result(r: &fsverity::FsVerity) -> mbh_fsverity_result {
    let mut out = mbh_fsverity_result {
        root_hash: [0; 64],
        digest: [0; 64],
        digest_len: r.digest.len(),
        descriptor: r.descriptor,
        tree_len: r.tree_len,
    };
    out.root_hash[..r.root_hash.len()].copy_from_slice(&r.root_hash);
    out.digest[..r.digest.len()].copy_from_slice(&r.digest);
    out
}

/// The fs-verity root hash, descriptor and file digest of `data_len` bytes
/// at `data`, as `fsverity digest` computes them: `alg` `MBH_SHA256` or
/// `MBH_SHA512`, `block_size` a power of 2 from 1024 to 65536, a salt of at
/// most 32 bytes (NULL only with `salt_len` 0). `MBH_INVALID_PARAMETER` for
/// anything out of range.
///
/// # Safety
/// `salt` and `data` are NULL or readable for their lengths; `out` is NULL
/// or writable for an `mbh_fsverity_result`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mbh_fsverity_digest(
    alg: mbh_algorithm,
    block_size: u32,
    salt: *const u8,
    salt_len: usize,
    data: *const u8,
    data_len: usize,
    out: *mut mbh_fsverity_result,
) -> mbh_result {
    boundary(|| {
        non_null(out)?;
        // SAFETY: forwarded contract.
        let params = unsafe { fs_params(alg, block_size, salt, salt_len) }?;
        // SAFETY: forwarded contract.
        let data = unsafe { bytes(data, data_len) }?;
        let r = fsverity::build(
            &params,
            Input::Bytes(data),
            &mut NoTree,
            &Options::default(),
        )
        .map_err(|e| error(&e))?;
        // SAFETY: non-NULL and writable (the caller's contract).
        unsafe { write_out(out, fs_result(&r)) };
        Ok(())
    })
}

/// Like `mbh_fsverity_digest`, over the whole file open at `data_fd`
/// (positional reads: its offset is unchanged), on `jobs` threads (0: one
/// per CPU). With `tree_fd` >= 0 the Merkle tree is also written there from
/// offset 0, as `fsverity digest --out-merkle-tree` writes it.
/// `MBH_IO_ERROR` if a read or write fails.
///
/// # Safety
/// `salt` is NULL or readable for `salt_len` bytes; `data_fd` (and
/// `tree_fd` if >= 0) are open descriptors; `out` is NULL or writable for an
/// `mbh_fsverity_result`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mbh_fsverity_digest_fd(
    alg: mbh_algorithm,
    block_size: u32,
    salt: *const u8,
    salt_len: usize,
    data_fd: RawFd,
    tree_fd: RawFd,
    jobs: u32,
    out: *mut mbh_fsverity_result,
) -> mbh_result {
    boundary(|| {
        non_null(out)?;
        // SAFETY: forwarded contract.
        let params = unsafe { fs_params(alg, block_size, salt, salt_len) }?;
        let data = dup(data_fd)?;
        let mut tree = (tree_fd >= 0).then(|| dup(tree_fd)).transpose()?;
        let sink: &mut dyn TreeSink = match tree.as_mut() {
            Some(t) => t,
            None => &mut NoTree,
        };
        let opts = Options {
            jobs: self::jobs(jobs),
            progress: None,
        };
        let r = fsverity::build(&params, Input::File(&data), sink, &opts).map_err(|e| error(&e))?;
        // SAFETY: non-NULL and writable (the caller's contract).
        unsafe { write_out(out, fs_result(&r)) };
        Ok(())
    })
}

/// # Safety
/// `p` is non-NULL and readable; its salt is NULL or readable for its
/// length.
unsafe fn dm_params(p: *const mbh_dmverity_params) -> Result<dmverity::Params, mbh_result> {
    // SAFETY: the caller's contract.
    let p = unsafe { &*p };
    // SAFETY: the caller's contract.
    let salt = unsafe { bytes(p.salt, p.salt_len) }?;
    let mut params = dmverity::Params::new(
        hash_alg(p.alg)?,
        p.version,
        p.data_block_size as usize,
        p.hash_block_size as usize,
        salt,
    )
    .map_err(|e| error(&e))?;
    params.superblock = p.superblock != 0;
    params.uuid = p.uuid;
    params.data_blocks = (p.data_blocks != 0).then_some(p.data_blocks);
    Ok(params)
}

fn dm_result(r: &dmverity::Formatted) -> mbh_dmverity_result {
    let mut out = mbh_dmverity_result {
        root_hash: [0; 64],
        root_hash_len: r.root_hash.len(),
        data_blocks: r.data_blocks,
        hash_blocks: r.hash_blocks,
        image_len: r.hash_image_len,
    };
    out.root_hash[..r.root_hash.len()].copy_from_slice(&r.root_hash);
    out
}

/// Bytes of the hash image of `data_len` bytes of data under `params`
/// (into `*out_len`), for sizing the buffer of `mbh_dmverity_format`.
/// `MBH_BAD_IMAGE` if the data has no whole block (or fewer than
/// `params->data_blocks`).
///
/// # Safety
/// `params` is NULL or readable, its salt NULL or readable for its length;
/// `out_len` is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mbh_dmverity_image_len(
    params: *const mbh_dmverity_params,
    data_len: u64,
    out_len: *mut u64,
) -> mbh_result {
    boundary(|| {
        non_null(params)?;
        non_null(out_len)?;
        // SAFETY: forwarded contract.
        let p = unsafe { dm_params(params) }?;
        let blocks = p.blocks_of(data_len).map_err(|e| error(&e))?;
        let len = dmverity::image_len(&p, blocks).map_err(|e| error(&e))?;
        // SAFETY: non-NULL and writable (the caller's contract).
        unsafe { write_out(out_len, len) };
        Ok(())
    })
}

/// Writes the dm-verity hash image of `data_len` bytes at `data` to
/// `image` (`image_len` bytes, at least what `mbh_dmverity_image_len`
/// gives, else `MBH_BUFFER_TOO_SMALL`), laid out as `veritysetup format`
/// writes it, and its root hash and sizes to `*out`. `image` may be NULL
/// with `image_len` 0 for the root hash alone.
///
/// # Safety
/// `params` as for `mbh_dmverity_image_len`; `data` NULL or readable for
/// `data_len` bytes; `image` NULL or writable for `image_len` bytes,
/// overlapping nothing else; `out` NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mbh_dmverity_format(
    params: *const mbh_dmverity_params,
    data: *const u8,
    data_len: usize,
    image: *mut u8,
    image_len: usize,
    out: *mut mbh_dmverity_result,
) -> mbh_result {
    boundary(|| {
        non_null(params)?;
        non_null(out)?;
        // SAFETY: forwarded contract.
        let p = unsafe { dm_params(params) }?;
        // SAFETY: forwarded contract.
        let data = unsafe { bytes(data, data_len) }?;
        let blocks = p.blocks_of(data.len() as u64).map_err(|e| error(&e))?;
        let need = dmverity::image_len(&p, blocks).map_err(|e| error(&e))?;
        let opts = Options::default();
        let r = if image_len == 0 {
            dmverity::format(&p, Input::Bytes(data), &mut NoTree, &opts)
        } else {
            non_null(image)?;
            if (image_len as u64) < need {
                return Err(mbh_result::MBH_BUFFER_TOO_SMALL);
            }
            // Built in Rust memory and copied, so that `image` is written
            // only on success.
            let mut built: Vec<u8> = Vec::new();
            let r = dmverity::format(&p, Input::Bytes(data), &mut built, &opts);
            if r.is_ok() {
                built.resize(need as usize, 0);
                // SAFETY: non-NULL, writable for `image_len >= need` bytes
                // and overlapping `data` nowhere (the caller's contract).
                let dst = unsafe { core::slice::from_raw_parts_mut(image, need as usize) };
                dst.copy_from_slice(&built);
            }
            r
        }
        .map_err(|e| error(&e))?;
        // SAFETY: non-NULL and writable (the caller's contract).
        unsafe { write_out(out, dm_result(&r)) };
        Ok(())
    })
}

/// Like `mbh_dmverity_format`, over the file open at `data_fd`, writing the
/// image to `hash_fd` from offset 0 (positional writes; it is not
/// truncated), on `jobs` threads (0: one per CPU). With `hash_fd` < 0 only
/// the root hash is computed.
///
/// # Safety
/// `params` as for `mbh_dmverity_image_len`; `data_fd` (and `hash_fd` if
/// >= 0) are open descriptors; `out` NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mbh_dmverity_format_fd(
    params: *const mbh_dmverity_params,
    data_fd: RawFd,
    hash_fd: RawFd,
    jobs: u32,
    out: *mut mbh_dmverity_result,
) -> mbh_result {
    boundary(|| {
        non_null(params)?;
        non_null(out)?;
        // SAFETY: forwarded contract.
        let p = unsafe { dm_params(params) }?;
        let data = dup(data_fd)?;
        let mut image = (hash_fd >= 0).then(|| dup(hash_fd)).transpose()?;
        let sink: &mut dyn TreeSink = match image.as_mut() {
            Some(f) => f,
            None => &mut NoTree,
        };
        let opts = Options {
            jobs: self::jobs(jobs),
            progress: None,
        };
        let r = dmverity::format(&p, Input::File(&data), sink, &opts).map_err(|e| error(&e))?;
        // SAFETY: non-NULL and writable (the caller's contract).
        unsafe { write_out(out, dm_result(&r)) };
        Ok(())
    })
}

/// Verifies the data at `data_fd` against the hash image at `hash_fd` and
/// `root_hash` (`root_hash_len` bytes, the algorithm's digest length, else
/// `MBH_INVALID_PARAMETER`), as `veritysetup verify`, on `jobs` threads (0:
/// one per CPU). With `params->superblock` set, the image's superblock must
/// match `params` (`MBH_BAD_IMAGE` otherwise). `MBH_OK` means the check
/// ran: `*bad_data_blocks` and `*bad_hash_blocks` get the number of corrupt
/// data blocks and inconsistent hash blocks (root hash mismatch of a tree
/// with no hash block counts as a bad data block); both 0: verified.
///
/// # Safety
/// `params` as for `mbh_dmverity_image_len`; `root_hash` NULL or readable
/// for `root_hash_len` bytes; the descriptors open; the two counts NULL or
/// writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mbh_dmverity_verify_fd(
    params: *const mbh_dmverity_params,
    data_fd: RawFd,
    hash_fd: RawFd,
    root_hash: *const u8,
    root_hash_len: usize,
    jobs: u32,
    bad_data_blocks: *mut u64,
    bad_hash_blocks: *mut u64,
) -> mbh_result {
    boundary(|| {
        non_null(params)?;
        non_null(bad_data_blocks)?;
        non_null(bad_hash_blocks)?;
        // SAFETY: forwarded contract.
        let p = unsafe { dm_params(params) }?;
        // SAFETY: forwarded contract.
        let root = unsafe { bytes(root_hash, root_hash_len) }?;
        let data = dup(data_fd)?;
        let image = dup(hash_fd)?;
        let opts = Options {
            jobs: self::jobs(jobs),
            progress: None,
        };
        let report =
            dmverity::verify(&p, Input::File(&data), &image, root, &opts).map_err(|e| error(&e))?;
        let data_bad = report.bad_data_blocks.len() as u64 + u64::from(report.root_mismatch);
        // SAFETY: non-NULL and writable (the caller's contract).
        unsafe {
            write_out(bad_data_blocks, data_bad);
            write_out(bad_hash_blocks, report.bad_hash_blocks.len() as u64);
        }
        Ok(())
    })
}
