//! Where the data comes from and where the tree goes.

use std::fs::File;
use std::io::{self, Read};
use std::os::unix::fs::FileExt;

/// The data a tree is built over.
pub enum Input<'a> {
    /// A file, read with positional reads from offset 0 (threads can share
    /// it: the fast path).
    File(&'a File),
    /// Bytes in memory.
    Bytes(&'a [u8]),
    /// Any reader, read front to back by one thread, with its length (the
    /// tree's shape depends on it): it must give at least that many bytes.
    Reader(&'a mut dyn Read, u64),
}

impl Input<'_> {
    /// The data's length in bytes.
    ///
    /// # Errors
    /// If a file's metadata cannot be read.
    pub fn size(&self) -> io::Result<u64> {
        match self {
            Input::File(f) => {
                let meta = f.metadata()?;
                if meta.is_file() {
                    return Ok(meta.len());
                }
                // A block device's metadata says 0: seek to its end, then
                // back (the offset may be shared with the caller's).
                let mut f: &File = f;
                let here = io::Seek::stream_position(&mut f)?;
                let end = io::Seek::seek(&mut f, io::SeekFrom::End(0))?;
                io::Seek::seek(&mut f, io::SeekFrom::Start(here))?;
                Ok(end)
            }
            Input::Bytes(b) => Ok(<[u8]>::len(b) as u64),
            Input::Reader(_, n) => Ok(*n),
        }
    }
}

impl std::fmt::Debug for Input<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Input::File(file) => f.debug_tuple("File").field(file).finish(),
            Input::Bytes(b) => write!(f, "Bytes({} bytes)", <[u8]>::len(b)),
            Input::Reader(_, n) => write!(f, "Reader({n} bytes)"),
        }
    }
}

/// Positional reads of data that threads can share.
pub(crate) enum Positional<'a> {
    File(&'a File),
    Bytes(&'a [u8]),
}

impl Positional<'_> {
    /// Fills `buf` from `offset`; an error if the data ends first.
    pub(crate) fn read_exact_at(&self, offset: u64, buf: &mut [u8]) -> io::Result<()> {
        match self {
            Positional::File(f) => FileExt::read_exact_at(*f, buf, offset),
            Positional::Bytes(b) => {
                let start = usize::try_from(offset).map_err(|_| short())?;
                let src = start
                    .checked_add(buf.len())
                    .and_then(|end| b.get(start..end))
                    .ok_or_else(short)?;
                buf.copy_from_slice(src);
                Ok(())
            }
        }
    }
}

fn short() -> io::Error {
    io::Error::new(io::ErrorKind::UnexpectedEof, "data shorter than its length")
}

/// Where a tree is written: block-aligned pieces at byte offsets, in no
/// particular order (the top level is stored first but finished last).
pub trait TreeSink {
    /// Writes `data` at `offset`.
    ///
    /// # Errors
    /// Any I/O error, which stops the build.
    fn write_at(&mut self, offset: u64, data: &[u8]) -> io::Result<()>;
}

/// Discards the tree (only the root hash is wanted).
#[derive(Clone, Copy, Debug, Default)]
pub struct NoTree;

impl TreeSink for NoTree {
    fn write_at(&mut self, _offset: u64, _data: &[u8]) -> io::Result<()> {
        Ok(())
    }
}

impl TreeSink for File {
    fn write_at(&mut self, offset: u64, data: &[u8]) -> io::Result<()> {
        self.write_all_at(data, offset)
    }
}

impl TreeSink for Vec<u8> {
    fn write_at(&mut self, offset: u64, data: &[u8]) -> io::Result<()> {
        let start = usize::try_from(offset)
            .map_err(|_| io::Error::new(io::ErrorKind::OutOfMemory, "tree too large"))?;
        let end = start + data.len();
        if self.len() < end {
            self.resize(end, 0);
        }
        self[start..end].copy_from_slice(data);
        Ok(())
    }
}

/// A stored tree (or hash image) to verify against: positional reads.
pub trait TreeSource {
    /// Its length in bytes.
    ///
    /// # Errors
    /// Any I/O error.
    fn size(&self) -> io::Result<u64>;
    /// Fills `buf` from `offset`.
    ///
    /// # Errors
    /// Any I/O error, or fewer bytes than `buf` holds.
    fn read_exact_at(&self, offset: u64, buf: &mut [u8]) -> io::Result<()>;
}

impl TreeSource for File {
    fn size(&self) -> io::Result<u64> {
        Ok(self.metadata()?.len())
    }
    fn read_exact_at(&self, offset: u64, buf: &mut [u8]) -> io::Result<()> {
        FileExt::read_exact_at(self, buf, offset)
    }
}

impl TreeSource for &[u8] {
    fn size(&self) -> io::Result<u64> {
        Ok(<[u8]>::len(self) as u64)
    }
    fn read_exact_at(&self, offset: u64, buf: &mut [u8]) -> io::Result<()> {
        Positional::Bytes(self).read_exact_at(offset, buf)
    }
}

impl TreeSource for Vec<u8> {
    fn size(&self) -> io::Result<u64> {
        Ok(<[u8]>::len(self) as u64)
    }
    fn read_exact_at(&self, offset: u64, buf: &mut [u8]) -> io::Result<()> {
        Positional::Bytes(self).read_exact_at(offset, buf)
    }
}
