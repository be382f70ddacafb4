//! S3 ETags: the MD5 of an object, or of its multipart upload's parts,
//! computed with the parts as independent jobs in lanes.
//!
//! An object uploaded in one `PutObject` has the hex MD5 of its bytes as
//! its ETag. An object uploaded in `N` parts has
//! `hex(MD5(MD5(part 1) || ... || MD5(part N)))-N`. Which of the two an
//! upload is, and the size of its parts, are the uploader's choice; the
//! AWS CLI (`aws s3 cp`, through s3transfer) chooses so:
//!
//! * an object of `size >= multipart_threshold` (8 MiB by default) is
//!   uploaded in parts, a smaller one in one request ([`etag`]'s
//!   `threshold`);
//! * its parts are `multipart_chunksize` bytes (8 MiB by default), the last
//!   one the rest; the chunk size is first doubled until the object has at
//!   most 10,000 parts, then held to S3's limits, 5 MiB to 5 GiB
//!   ([`aws_cli_part_size`]).
//!
//! An empty object has no parts to upload: its ETag is the MD5 of nothing
//! whatever the threshold.

use std::fs::File;
use std::io::{self, Read};
use std::path::Path;

use crate::alg::Md5Alg;
use crate::{Digest, Md5};

/// The AWS CLI's default `multipart_threshold`: 8 MiB.
pub const DEFAULT_THRESHOLD: u64 = 8 << 20;
/// The AWS CLI's default `multipart_chunksize`: 8 MiB.
pub const DEFAULT_PART_SIZE: u64 = 8 << 20;
/// The fewest bytes S3 takes in a part other than the last: 5 MiB.
pub const MIN_PART_SIZE: u64 = 5 << 20;
/// The most bytes S3 takes in one part: 5 GiB.
pub const MAX_PART_SIZE: u64 = 5 << 30;
/// The most parts of one multipart upload: 10,000.
pub const MAX_PARTS: u64 = 10_000;

/// How many parts are hashed together: as many as the widest MD5 kernel
/// has lanes.
const BATCH_PARTS: usize = 16;
/// The most bytes of parts held at once (a batch has fewer parts when
/// they are large; at least one).
const BATCH_BYTES: u64 = 128 << 20;

/// The part size the AWS CLI uploads an object of `size` bytes with,
/// given its `multipart_chunksize` (s3transfer's `ChunksizeAdjuster`):
/// doubled until there are at most [`MAX_PARTS`] parts, then held to
/// [`MIN_PART_SIZE`]..=[`MAX_PART_SIZE`].
///
/// ```
/// use mbhash_core::s3::aws_cli_part_size;
/// assert_eq!(aws_cli_part_size(100 << 20, 8 << 20), 8 << 20);
/// assert_eq!(aws_cli_part_size(100 << 20, 1 << 20), 5 << 20);
/// // 10,001 parts of 8 MiB are 5,001 of 16 MiB.
/// assert_eq!(aws_cli_part_size(10_001 * (8 << 20), 8 << 20), 16 << 20);
/// ```
pub fn aws_cli_part_size(size: u64, chunksize: u64) -> u64 {
    let mut part = chunksize.max(1);
    while size.div_ceil(part) > MAX_PARTS {
        part = part.saturating_mul(2);
    }
    part.clamp(MIN_PART_SIZE, MAX_PART_SIZE)
}

/// The ETag of the bytes of `reader` uploaded with parts of exactly
/// `part_size` bytes (the last one the rest) if there are at least
/// `threshold` of them, else in one request: lower-case hex, with `-N`
/// for `N` parts. No part-size limit of S3 is applied (see
/// [`aws_cli_part_size`] for the AWS CLI's).
///
/// Parts are read in batches of up to 16 (at most 128 MiB of them, at
/// least one part) and hashed as independent jobs of one
/// [`hash_many`](crate::hash_many) call.
///
/// # Errors
/// The reader's errors; `InvalidInput` if `part_size` is 0.
///
/// ```
/// use mbhash_core::s3::etag;
/// // Below the threshold: the MD5 of the bytes.
/// assert_eq!(etag(&b"abc"[..], 8 << 20, 8 << 20).unwrap(), "900150983cd24fb0d6963f7d28e17f72");
/// // At the threshold: one part.
/// assert_eq!(etag(&b"abc"[..], 2, 3).unwrap().rsplit('-').next(), Some("2"));
/// ```
pub fn etag<R: Read>(mut reader: R, part_size: u64, threshold: u64) -> io::Result<String> {
    if part_size == 0 {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "the part size must be at least one byte",
        ));
    }
    let per_batch = (BATCH_BYTES / part_size).clamp(1, BATCH_PARTS as u64) as usize;
    let part_len = usize::try_from(part_size).map_err(|_| {
        io::Error::new(
            io::ErrorKind::InvalidInput,
            "the part size does not fit in memory",
        )
    })?;
    // The whole object's MD5, kept while it may end below the threshold.
    let mut whole = Some(Md5::new());
    let mut total = 0u64;
    let mut parts = 0u64;
    let mut of_parts = Md5::new();
    let mut buffers: Vec<Vec<u8>> = Vec::new();
    loop {
        let mut filled = 0;
        let mut eof = false;
        while filled < per_batch && !eof {
            if buffers.len() == filled {
                buffers.push(Vec::with_capacity(part_len.min(1 << 20)));
            }
            let buf = &mut buffers[filled];
            buf.clear();
            let n = (&mut reader).take(part_size).read_to_end(buf)?;
            eof = (n as u64) < part_size;
            if n > 0 {
                filled += 1;
                total += n as u64;
                if let Some(h) = whole.as_mut() {
                    if total < threshold {
                        h.update(&buf[..n]);
                    } else {
                        whole = None;
                    }
                }
            }
        }
        let batch: Vec<&[u8]> = buffers[..filled].iter().map(Vec::as_slice).collect();
        for d in crate::hash_many::<Md5Alg>(&batch) {
            of_parts.update(d);
        }
        parts += filled as u64;
        if eof {
            break;
        }
    }
    if total == 0 {
        return Ok(hex(&Md5::digest(b"")));
    }
    if let Some(h) = whole
        && total < threshold
    {
        return Ok(hex(&h.finalize()));
    }
    Ok(format!("{}-{parts}", hex(&of_parts.finalize())))
}

/// [`etag`] of the file at `path`.
///
/// # Errors
/// Opening or reading the file; `InvalidInput` if `part_size` is 0.
pub fn etag_file(path: &Path, part_size: u64, threshold: u64) -> io::Result<String> {
    etag(File::open(path)?, part_size, threshold)
}

/// The ETag the AWS CLI's upload of the file at `path` gets with its
/// `multipart_chunksize` and `multipart_threshold`: [`etag`] with the part
/// size of [`aws_cli_part_size`] for the file's size (its length when
/// opened; a file that is not a regular file is read to its end with
/// `chunksize` itself, as s3transfer reads a stream of unknown size).
///
/// # Errors
/// Opening or reading the file; `InvalidInput` if `chunksize` is 0.
pub fn aws_cli_etag_file(path: &Path, chunksize: u64, threshold: u64) -> io::Result<String> {
    let file = File::open(path)?;
    let meta = file.metadata()?;
    if chunksize == 0 {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "the part size must be at least one byte",
        ));
    }
    let part = if meta.is_file() {
        aws_cli_part_size(meta.len(), chunksize)
    } else {
        chunksize.clamp(MIN_PART_SIZE, MAX_PART_SIZE)
    };
    etag(file, part, threshold)
}

fn hex(bytes: &[u8]) -> String {
    use std::fmt::Write;
    bytes.iter().fold(String::new(), |mut s, b| {
        let _ = write!(s, "{b:02x}");
        s
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The definition, written out with the `md-5` crate's hasher (the
    /// test oracle).
    fn reference(data: &[u8], part: usize, threshold: usize) -> String {
        let md5 = |d: &[u8]| mbhash_test_support::oracle("md5", d);
        if data.is_empty() || data.len() < threshold {
            return hex(&md5(data));
        }
        let mut cat = Vec::new();
        for p in data.chunks(part) {
            cat.extend_from_slice(&md5(p));
        }
        format!("{}-{}", hex(&md5(&cat)), data.len().div_ceil(part))
    }

    #[test]
    fn part_counts_and_thresholds() {
        let data = mbhash_test_support::Rng::new(26).bytes(300_001);
        for (len, part, threshold) in [
            (0, 10, 0),
            (0, 10, 5),
            (1, 10, 1),
            (1, 10, 2),
            (100, 100, 100), // one part, at the threshold
            (100, 100, 101), // below it
            (101, 100, 100), // two parts, the last of 1 byte
            (101, 100, 101), // at it
            (101, 100, 102),
            (1000, 1, 1),
            (300_001, 30, 300_001), // 10,001 parts
            (300_000, 30, 0),       // 10,000 parts
            (300_000, 300_000, 1),
            (300_001, 4096, 8),
        ] {
            let d = &data[..len];
            let got = etag(d, part as u64, threshold as u64).unwrap();
            assert_eq!(
                got,
                reference(d, part, threshold),
                "{len} {part} {threshold}"
            );
        }
        assert!(etag(&b"x"[..], 0, 0).is_err());
    }

    /// Batches of one large part at a time (parts over the batch bound).
    #[test]
    fn large_parts_one_per_batch() {
        let data = vec![7u8; (BATCH_BYTES as usize) + 3];
        let part = BATCH_BYTES as usize / 2 + 1;
        assert_eq!(
            etag(&data[..], part as u64, 1).unwrap(),
            reference(&data, part, 1)
        );
    }

    #[test]
    fn aws_cli_adjusts_as_s3transfer() {
        let mib = 1u64 << 20;
        assert_eq!(aws_cli_part_size(0, 8 * mib), 8 * mib);
        assert_eq!(aws_cli_part_size(10_000 * 8 * mib, 8 * mib), 8 * mib);
        assert_eq!(aws_cli_part_size(10_000 * 8 * mib + 1, 8 * mib), 16 * mib);
        assert_eq!(aws_cli_part_size(10 * mib, 1), 5 * mib);
        assert_eq!(aws_cli_part_size(10 * mib, 6 << 30), 5 << 30);
        // Doubling first, then the limits: 1-byte chunks of a 1 GiB file
        // double to 131,072 (8,192 parts), then rise to 5 MiB.
        assert_eq!(aws_cli_part_size(1 << 30, 1), 5 * mib);
    }
}
