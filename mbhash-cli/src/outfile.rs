//! Output files of `mbhash verity`, written as the tools they match write
//! theirs, and never left half-written by a failed run.
//!
//! * The path is followed through symbolic links: the file written is the
//!   link's target (veritysetup and fsverity-utils open the path as given).
//! * A file that does not exist is made as a temporary beside the resolved
//!   path, with the tool's mode (veritysetup: 0600; fsverity-utils: 0666;
//!   both less the umask), and renamed there once complete.
//! * A file or device that exists is written in place, as the tools do: its
//!   inode, mode and owner stay, and so does every byte not written (a hash
//!   image is not truncated; `Truncate::Yes` cuts the file to the output's
//!   length, as fsverity-utils' `fopen(.., "wb")` and veritysetup's root
//!   hash file do). The writes are staged in an unlinked temporary (beside
//!   the target, or in the temporary directory where that directory is not
//!   writable) and copied into place only once the output is complete.

use std::fs::{File, OpenOptions};
use std::io;
use std::os::unix::fs::{FileExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

use mbhash_core::verity::TreeSink;

/// Symbolic links followed at most (as the kernel's limit).
const MAX_LINKS: usize = 40;
/// Bytes copied from the stage at a time.
const COPY_CHUNK: usize = 1 << 20;

/// Whether an existing file is cut to the output's length.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Truncate {
    /// Keep the bytes after the output (a hash device).
    No,
    /// Cut the file where the output ends.
    Yes,
}

/// Why an output cannot be opened.
pub enum OpenError {
    /// The path is a symbolic link to nothing (veritysetup refuses it as a
    /// hash device that does not exist).
    Dangling(PathBuf),
    /// Anything else, with its message.
    Other(String),
}

/// An output being written.
pub struct Output {
    path: PathBuf,
    kind: Kind,
    truncate: Truncate,
}

enum Kind {
    New {
        file: File,
        temp: PathBuf,
        dest: PathBuf,
    },
    InPlace {
        target: File,
        stage: File,
        /// Byte ranges written to the stage.
        ranges: Vec<(u64, u64)>,
    },
}

/// `path` with its symbolic links followed, also when the last one points
/// at nothing (its target is then the path to create).
pub fn resolve(path: &Path) -> io::Result<PathBuf> {
    let mut p = path.to_path_buf();
    for _ in 0..MAX_LINKS {
        match std::fs::symlink_metadata(&p) {
            Ok(m) if m.file_type().is_symlink() => {
                let target = std::fs::read_link(&p)?;
                p = match p.parent() {
                    Some(dir) if target.is_relative() => dir.join(target),
                    _ => target,
                };
            }
            _ => return Ok(p),
        }
    }
    Err(io::Error::other("too many levels of symbolic links"))
}

fn dir_of(p: &Path) -> &Path {
    match p.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    }
}

impl Output {
    /// Opens `path` for output. `new_mode` is the mode of a file made new
    /// (less the umask); `dangling_ok` whether a link to nothing is
    /// followed to create its target.
    pub fn open(
        path: &Path,
        new_mode: u32,
        truncate: Truncate,
        dangling_ok: bool,
    ) -> Result<Output, OpenError> {
        let shown = path.display();
        let other = |e: io::Error| OpenError::Other(format!("cannot open '{shown}': {e}"));
        let dest = resolve(path).map_err(other)?;
        let kind = match std::fs::metadata(&dest) {
            Ok(m) if m.is_dir() => {
                return Err(OpenError::Other(format!("'{shown}' is a directory")));
            }
            Ok(m) => {
                let target = OpenOptions::new().write(true).open(&dest).map_err(other)?;
                let stage = stage_for(&dest, m.is_file()).map_err(|e| {
                    OpenError::Other(format!("cannot make a temporary file for '{shown}': {e}"))
                })?;
                Kind::InPlace {
                    target,
                    stage,
                    ranges: Vec::new(),
                }
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                if dest != path && !dangling_ok {
                    return Err(OpenError::Dangling(dest));
                }
                let name = dest.file_name().unwrap_or_default().to_string_lossy();
                let temp = dir_of(&dest).join(format!(".{name}.mbhash-{}.tmp", std::process::id()));
                let file = OpenOptions::new()
                    .write(true)
                    .read(true)
                    .create_new(true)
                    .mode(new_mode)
                    .open(&temp)
                    .map_err(|e| OpenError::Other(format!("cannot create '{shown}': {e}")))?;
                Kind::New { file, temp, dest }
            }
            Err(e) => return Err(other(e)),
        };
        Ok(Output {
            path: path.to_path_buf(),
            kind,
            truncate,
        })
    }

    /// Finishes the output, `len` bytes long (for a new file, or an
    /// existing one with `Truncate::Yes`): syncs it and renames a new file
    /// into place, or copies the staged bytes into the existing one.
    pub fn commit(mut self, len: u64) -> Result<(), String> {
        let what = |e: io::Error| format!("cannot write '{}': {e}", self.path.display());
        match &mut self.kind {
            Kind::New { file, temp, dest } => {
                file.set_len(len).map_err(what)?;
                file.sync_all().map_err(what)?;
                std::fs::rename(&*temp, &*dest).map_err(what)?;
                // Renamed: nothing left to remove.
                temp.clear();
            }
            Kind::InPlace {
                target,
                stage,
                ranges,
            } => {
                ranges.sort_unstable();
                let mut buf = vec![0u8; COPY_CHUNK];
                let mut done = 0u64;
                for &(start, end) in ranges.iter() {
                    let mut at = start.max(done);
                    while at < end {
                        let n = ((end - at) as usize).min(COPY_CHUNK);
                        stage.read_exact_at(&mut buf[..n], at).map_err(what)?;
                        target.write_all_at(&buf[..n], at).map_err(what)?;
                        at += n as u64;
                    }
                    done = done.max(end);
                }
                if self.truncate == Truncate::Yes {
                    target.set_len(len).map_err(what)?;
                }
                target.sync_all().map_err(what)?;
            }
        }
        Ok(())
    }
}

/// An unlinked temporary file for the writes to `dest`: beside a regular
/// file (on its file system), else (a device, a directory that is not
/// writable) in the temporary directory.
fn stage_for(dest: &Path, regular: bool) -> io::Result<File> {
    let name = format!(".mbhash-stage-{}.tmp", std::process::id());
    let mut last = None;
    let beside = regular.then(|| dir_of(dest).to_path_buf());
    for dir in beside.into_iter().chain([std::env::temp_dir()]) {
        let p = dir.join(&name);
        match OpenOptions::new()
            .read(true)
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(&p)
        {
            Ok(f) => {
                std::fs::remove_file(&p)?;
                return Ok(f);
            }
            Err(e) => last = Some(e),
        }
    }
    Err(last.expect("a directory tried"))
}

impl Drop for Output {
    fn drop(&mut self) {
        if let Kind::New { temp, .. } = &self.kind
            && !temp.as_os_str().is_empty()
        {
            let _ = std::fs::remove_file(temp);
        }
    }
}

impl TreeSink for Output {
    fn write_at(&mut self, offset: u64, data: &[u8]) -> io::Result<()> {
        match &mut self.kind {
            Kind::New { file, .. } => file.write_all_at(data, offset),
            Kind::InPlace { stage, ranges, .. } => {
                stage.write_all_at(data, offset)?;
                let end = offset + data.len() as u64;
                match ranges.last_mut() {
                    Some(last) if last.1 == offset => last.1 = end,
                    _ => ranges.push((offset, end)),
                }
                Ok(())
            }
        }
    }
}
