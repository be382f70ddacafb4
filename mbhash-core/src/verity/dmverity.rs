//! dm-verity: the hash image of a block device (or image file), as
//! cryptsetup's `veritysetup format` writes it and the kernel's dm-verity
//! target reads it.
//!
//! * The data is `data_blocks` whole blocks of `data_block_size` (a partial
//!   block at the end is not covered).
//! * A hash block holds `2^floor(log2(hash_block_size / digest_len))`
//!   hashes; in format 1 each sits in a slot of the next power of two of
//!   the digest length (zero-padded), in format 0 (Chrome OS) they are
//!   packed; the rest of the block is zeros.
//! * Format 1 hashes `salt || block`, format 0 `block || salt`.
//! * The image is an optional 512-byte superblock (its own hash block),
//!   then the levels, top first. The root hash is the hash of the top block
//!   (of the one data block if there is just one).
//! * The image may start at a byte offset of the hash device
//!   ([`Params::hash_offset`], veritysetup's `--hash-offset`, a multiple of
//!   512): the superblock is there, and the tree at the next hash block
//!   boundary after it (without a superblock: at the hash block boundary at
//!   or below the offset, as veritysetup places it). Only the superblock's
//!   512 bytes and the tree are written: other bytes of the device stay as
//!   they were.

use crate::Algo;

use super::batch::Salted;
use super::tree::{self, Shape};
use super::{
    Input, Options, Report, TreeSink, TreeSource, VerityError, check_block_size, check_root_hash,
};
use crate::engine::HashAlgorithm;

/// Bytes of the superblock.
pub const SUPERBLOCK_LEN: usize = 512;
/// Longest salt.
pub const MAX_SALT: usize = 256;
/// Smallest block size.
pub const MIN_BLOCK: usize = 512;
/// Largest block size.
pub const MAX_BLOCK: usize = 512 * 1024;
/// Most tree levels (as cryptsetup).
const MAX_LEVELS: usize = 63;
const SIGNATURE: &[u8; 8] = b"verity\0\0";

/// The parameters of a dm-verity hash image.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Params {
    alg: Algo,
    version: u32,
    data_block_size: usize,
    hash_block_size: usize,
    salt: Vec<u8>,
    /// Write (or expect) the superblock.
    pub superblock: bool,
    /// The superblock's UUID.
    pub uuid: [u8; 16],
    /// Data blocks covered; `None`: every whole block of the data.
    pub data_blocks: Option<u64>,
    /// Byte offset of the image on the hash device (a multiple of 512).
    pub hash_offset: u64,
}

impl Params {
    /// Checked parameters: format `version` 0 or 1, power-of-two block sizes
    /// from 512 bytes to 512 KiB, a salt of at most 256 bytes. With a
    /// superblock, a zero UUID, covering every whole data block.
    ///
    /// # Errors
    /// If one of them is out of range.
    pub fn new(
        alg: Algo,
        version: u32,
        data_block_size: usize,
        hash_block_size: usize,
        salt: &[u8],
    ) -> Result<Params, VerityError> {
        if version > 1 {
            return Err(VerityError::Version(version));
        }
        let (min, max) = (MIN_BLOCK as u64, MAX_BLOCK as u64);
        check_block_size("data block", data_block_size, min, max)?;
        check_block_size("hash block", hash_block_size, min, max)?;
        if salt.len() > MAX_SALT {
            return Err(VerityError::SaltTooLong {
                len: salt.len(),
                max: MAX_SALT,
            });
        }
        Ok(Params {
            alg,
            version,
            data_block_size,
            hash_block_size,
            salt: salt.to_vec(),
            superblock: true,
            uuid: [0; 16],
            data_blocks: None,
            hash_offset: 0,
        })
    }

    /// The parameters a superblock records (with the superblock on).
    ///
    /// # Errors
    /// If its values are out of range.
    pub fn from_superblock(sb: &Superblock) -> Result<Params, VerityError> {
        let mut p = Params::new(
            sb.alg,
            sb.hash_type,
            sb.data_block_size as usize,
            sb.hash_block_size as usize,
            &sb.salt,
        )?;
        p.uuid = sb.uuid;
        p.data_blocks = Some(sb.data_blocks);
        Ok(p)
    }

    /// The hash algorithm.
    pub fn alg(&self) -> Algo {
        self.alg
    }

    /// Format version: 1 (normal) or 0 (Chrome OS).
    pub fn version(&self) -> u32 {
        self.version
    }

    /// Bytes per data block.
    pub fn data_block_size(&self) -> usize {
        self.data_block_size
    }

    /// Bytes per hash block.
    pub fn hash_block_size(&self) -> usize {
        self.hash_block_size
    }

    /// The salt.
    pub fn salt(&self) -> &[u8] {
        &self.salt
    }

    /// Byte offset of the tree on the hash device: with a superblock, the
    /// first hash block boundary at or after its end; without, the hash
    /// block boundary at or below [`Params::hash_offset`] (as veritysetup
    /// and the kernel's hash start block).
    pub fn tree_offset(&self) -> u64 {
        let hb = self.hash_block_size as u64;
        if self.superblock {
            (self.hash_offset + SUPERBLOCK_LEN as u64).next_multiple_of(hb)
        } else {
            self.hash_offset / hb * hb
        }
    }

    /// Checks [`Params::hash_offset`]: a multiple of 512, as veritysetup
    /// takes it.
    ///
    /// # Errors
    /// [`VerityError::HashOffset`] otherwise.
    pub fn check_hash_offset(&self) -> Result<(), VerityError> {
        if self.hash_offset.is_multiple_of(512) {
            Ok(())
        } else {
            Err(VerityError::HashOffset(self.hash_offset))
        }
    }

    /// Data blocks covered by data of `data_len` bytes.
    ///
    /// # Errors
    /// If there is no whole block, or fewer than [`Params::data_blocks`].
    pub fn blocks_of(&self, data_len: u64) -> Result<u64, VerityError> {
        let whole = data_len / self.data_block_size as u64;
        let n = self.data_blocks.unwrap_or(whole);
        if n == 0 {
            return Err(VerityError::DataSize(format!(
                "data of {data_len} bytes has no whole {}-byte block",
                self.data_block_size
            )));
        }
        if n > whole {
            return Err(VerityError::DataSize(format!(
                "data of {data_len} bytes has {whole} blocks of {} bytes, not {n}",
                self.data_block_size
            )));
        }
        Ok(n)
    }

    fn shape(&self, data_blocks: u64) -> Result<Shape, VerityError> {
        let d = self.alg.output_len();
        let per_block = 1usize << (self.hash_block_size / d).ilog2();
        let stride = if self.version == 1 {
            d.next_power_of_two()
        } else {
            d
        };
        let data_len = data_blocks
            .checked_mul(self.data_block_size as u64)
            .ok_or(VerityError::TooManyLevels)?;
        Shape {
            data_block: self.data_block_size,
            hash_block: self.hash_block_size,
            digest: d,
            stride,
            per_block,
            data_len,
            data_blocks,
            levels: Vec::new(),
            level_offset: Vec::new(),
        }
        .leveled(MAX_LEVELS)
    }

    fn salted<A: HashAlgorithm>(&self) -> Result<Salted<A>, VerityError> {
        if self.version == 1 {
            Salted::new(&self.salt, &[])
        } else {
            Salted::new(&[], &self.salt)
        }
    }

    /// The superblock of a tree over `data_blocks` blocks.
    pub fn superblock_for(&self, data_blocks: u64) -> Superblock {
        Superblock {
            hash_type: self.version,
            uuid: self.uuid,
            alg: self.alg,
            data_block_size: self.data_block_size as u32,
            hash_block_size: self.hash_block_size as u32,
            data_blocks,
            salt: self.salt.clone(),
        }
    }
}

/// The 512-byte superblock at the start of a hash image.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Superblock {
    /// Format: 1 normal, 0 Chrome OS.
    pub hash_type: u32,
    /// The image's UUID.
    pub uuid: [u8; 16],
    /// The hash algorithm.
    pub alg: Algo,
    /// Bytes per data block.
    pub data_block_size: u32,
    /// Bytes per hash block.
    pub hash_block_size: u32,
    /// Data blocks covered.
    pub data_blocks: u64,
    /// The salt.
    pub salt: Vec<u8>,
}

impl Superblock {
    /// The on-disk bytes (little-endian fields, zero padding).
    pub fn to_bytes(&self) -> [u8; SUPERBLOCK_LEN] {
        let mut b = [0u8; SUPERBLOCK_LEN];
        b[0..8].copy_from_slice(SIGNATURE);
        b[8..12].copy_from_slice(&1u32.to_le_bytes());
        b[12..16].copy_from_slice(&self.hash_type.to_le_bytes());
        b[16..32].copy_from_slice(&self.uuid);
        let name = self.alg.name().as_bytes();
        b[32..32 + name.len()].copy_from_slice(name);
        b[64..68].copy_from_slice(&self.data_block_size.to_le_bytes());
        b[68..72].copy_from_slice(&self.hash_block_size.to_le_bytes());
        b[72..80].copy_from_slice(&self.data_blocks.to_le_bytes());
        b[80..82].copy_from_slice(&(self.salt.len() as u16).to_le_bytes());
        b[88..88 + self.salt.len()].copy_from_slice(&self.salt);
        b
    }

    /// Parses a superblock.
    ///
    /// # Errors
    /// A bad signature or version, an unknown algorithm, block sizes or a
    /// salt size out of range.
    pub fn parse(b: &[u8; SUPERBLOCK_LEN]) -> Result<Superblock, VerityError> {
        let bad = |m: String| Err(VerityError::Superblock(m));
        let u32_at = |i: usize| u32::from_le_bytes(b[i..i + 4].try_into().expect("4 bytes"));
        if &b[0..8] != SIGNATURE {
            return bad("no verity signature (not a hash image with a superblock?)".into());
        }
        if u32_at(8) != 1 {
            return bad(format!("unsupported superblock version {}", u32_at(8)));
        }
        let hash_type = u32_at(12);
        if hash_type > 1 {
            return bad(format!("unsupported hash type {hash_type}"));
        }
        let name_bytes = &b[32..64];
        let end = name_bytes.iter().position(|&c| c == 0).unwrap_or(32);
        let name = String::from_utf8_lossy(&name_bytes[..end]).into_owned();
        let Some(alg) = Algo::from_name(&name) else {
            return bad(format!("unsupported hash algorithm '{name}'"));
        };
        let salt_len = u16::from_le_bytes([b[80], b[81]]) as usize;
        if salt_len > MAX_SALT {
            return bad(format!("salt size {salt_len} over {MAX_SALT}"));
        }
        let sb = Superblock {
            hash_type,
            uuid: b[16..32].try_into().expect("16 bytes"),
            alg,
            data_block_size: u32_at(64),
            hash_block_size: u32_at(68),
            data_blocks: u64::from_le_bytes(b[72..80].try_into().expect("8 bytes")),
            salt: b[88..88 + salt_len].to_vec(),
        };
        for (what, size) in [
            ("data block", sb.data_block_size),
            ("hash block", sb.hash_block_size),
        ] {
            check_block_size(what, size as usize, MIN_BLOCK as u64, MAX_BLOCK as u64)
                .map_err(|e| VerityError::Superblock(e.to_string()))?;
        }
        Ok(sb)
    }

    /// Reads and parses the superblock at the start of a hash image.
    ///
    /// # Errors
    /// An image shorter than a superblock, an I/O error, or a bad superblock.
    pub fn read(image: &dyn TreeSource) -> Result<Superblock, VerityError> {
        Superblock::read_at(image, 0)
    }

    /// Reads and parses the superblock at byte `offset` of a hash device
    /// ([`Params::hash_offset`]).
    ///
    /// # Errors
    /// A device that ends before the superblock does, an I/O error, or a
    /// bad superblock.
    pub fn read_at(image: &dyn TreeSource, offset: u64) -> Result<Superblock, VerityError> {
        let have = image.size()?;
        if have < offset.saturating_add(SUPERBLOCK_LEN as u64) {
            return Err(VerityError::Superblock(if offset == 0 {
                format!("hash image of {have} bytes is too short for a superblock")
            } else {
                format!(
                    "hash image of {have} bytes is too short for a superblock at offset {offset}"
                )
            }));
        }
        let mut b = [0u8; SUPERBLOCK_LEN];
        image.read_exact_at(offset, &mut b)?;
        Superblock::parse(&b)
    }
}

/// What [`format()`] wrote.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Formatted {
    /// The root hash.
    pub root_hash: Vec<u8>,
    /// Data blocks covered.
    pub data_blocks: u64,
    /// Hash blocks of the tree (not counting the superblock's).
    pub hash_blocks: u64,
    /// Bytes of the hash image, from the start of the hash device (with
    /// [`Params::hash_offset`], where the image ends on it).
    pub hash_image_len: u64,
    /// Tree levels.
    pub levels: usize,
}

/// Bytes of the hash image for `data_blocks` blocks, from the start of the
/// hash device (where it ends with [`Params::hash_offset`]).
///
/// # Errors
/// If the tree would have too many levels.
pub fn image_len(params: &Params, data_blocks: u64) -> Result<u64, VerityError> {
    Ok(params.tree_offset() + params.shape(data_blocks)?.tree_len())
}

/// Writes the hash image of `input` to `image` (the superblock, if on, at
/// [`Params::hash_offset`], then the tree, top level first), as
/// `veritysetup format` does: nothing else of `image` is written.
///
/// # Errors
/// No whole data block, reading the data, writing the image, an engine
/// misconfigured through the environment.
pub fn format(
    params: &Params,
    input: Input<'_>,
    image: &mut dyn TreeSink,
    opts: &Options<'_>,
) -> Result<Formatted, VerityError> {
    crate::with_algo!(params.alg, A => format_with::<A>(params, input, image, opts))
}

fn format_with<A: HashAlgorithm>(
    params: &Params,
    input: Input<'_>,
    image: &mut dyn TreeSink,
    opts: &Options<'_>,
) -> Result<Formatted, VerityError> {
    params.check_hash_offset()?;
    let data_blocks = params.blocks_of(input.size()?)?;
    let shape = params.shape(data_blocks)?;
    let base = params.tree_offset();
    if params.superblock {
        let sb = params.superblock_for(data_blocks).to_bytes();
        image.write_at(params.hash_offset, &sb)?;
    }
    let root = tree::build(&shape, &params.salted::<A>()?, input, image, base, opts)?;
    Ok(Formatted {
        root_hash: root,
        data_blocks,
        hash_blocks: shape.hash_blocks(),
        hash_image_len: base + shape.tree_len(),
        levels: shape.levels.len(),
    })
}

/// Verifies `input` against the hash image `image` and `root_hash`, as
/// `veritysetup verify` does, but reporting every bad block.
///
/// With [`Params::superblock`] on, the image's superblock must agree with
/// `params` (algorithm, format, block sizes, salt and, if set, the data
/// block count); [`Superblock::read`] and [`Params::from_superblock`] give
/// parameters from the image itself.
///
/// # Errors
/// A root hash of the wrong length, a missing or mismatching superblock, a
/// truncated image, data shorter than the blocks covered, an I/O error.
/// Corruption is reported in the [`Report`], not as an error.
pub fn verify(
    params: &Params,
    input: Input<'_>,
    image: &dyn TreeSource,
    root_hash: &[u8],
    opts: &Options<'_>,
) -> Result<Report, VerityError> {
    check_root_hash(params.alg, root_hash)?;
    crate::with_algo!(params.alg, A => verify_with::<A>(params, input, image, root_hash, opts))
}

fn verify_with<A: HashAlgorithm>(
    params: &Params,
    input: Input<'_>,
    image: &dyn TreeSource,
    root_hash: &[u8],
    opts: &Options<'_>,
) -> Result<Report, VerityError> {
    params.check_hash_offset()?;
    let mut params = params.clone();
    if params.superblock {
        let sb = Superblock::read_at(image, params.hash_offset)?;
        let mismatch = |what: &str, theirs: String, ours: String| {
            Err(VerityError::Superblock(format!(
                "its {what} is {theirs}, not {ours}"
            )))
        };
        if sb.alg != params.alg {
            return mismatch("hash algorithm", sb.alg.to_string(), params.alg.to_string());
        }
        if sb.hash_type != params.version {
            return mismatch(
                "hash type",
                sb.hash_type.to_string(),
                params.version.to_string(),
            );
        }
        if sb.data_block_size as usize != params.data_block_size {
            return mismatch(
                "data block size",
                sb.data_block_size.to_string(),
                params.data_block_size.to_string(),
            );
        }
        if sb.hash_block_size as usize != params.hash_block_size {
            return mismatch(
                "hash block size",
                sb.hash_block_size.to_string(),
                params.hash_block_size.to_string(),
            );
        }
        if sb.salt != params.salt {
            return mismatch("salt", super::to_hex(&sb.salt), super::to_hex(&params.salt));
        }
        match params.data_blocks {
            Some(n) if n != sb.data_blocks => {
                return mismatch(
                    "data block count",
                    sb.data_blocks.to_string(),
                    n.to_string(),
                );
            }
            _ => params.data_blocks = Some(sb.data_blocks),
        }
    }
    let data_blocks = params.blocks_of(input.size()?)?;
    let shape = params.shape(data_blocks)?;
    tree::verify(
        &shape,
        &params.salted::<A>()?,
        input,
        image,
        params.tree_offset(),
        root_hash,
        opts,
    )
}
