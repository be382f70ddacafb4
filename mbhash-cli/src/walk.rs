//! The inputs named on the command line, with `-r` recursing into
//! directories.
//!
//! Files under a directory come in the order of `find DIR -type f | LC_ALL=C
//! sort`: depth first, the entries of a directory sorted by the bytes of
//! their names as if a directory's name ended in `/`. Symbolic links to
//! files are hashed; links to directories are not followed (no cycles), and
//! broken links, link loops and other special files (FIFOs, sockets,
//! devices) are skipped, each with a warning. Directories are read one at a
//! time, as the walk reaches them; one that cannot be read (or read to its
//! end) is one error, and the walk goes on with what it could read.

use std::ffi::OsString;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use crate::names;
use crate::streams::{Job, Source, StdinOnce};
use mbhash_core::files;

/// One input to report.
#[derive(Debug)]
pub struct Input {
    /// The name as printed (the argument, or a path under it).
    pub name: Vec<u8>,
    /// What to hash, or why there is nothing to hash.
    pub what: What,
}

/// What an input is.
#[derive(Debug)]
pub enum What {
    /// Bytes to hash.
    Hash(Source),
    /// A directory that could not be read (or not to its end).
    Failed(io::Error),
    /// An entry `-r` does not hash, and why.
    Skipped(&'static str),
}

impl Job for Input {
    fn source(&self) -> Option<&Source> {
        match &self.what {
            What::Hash(s) => Some(s),
            _ => None,
        }
    }
}

impl Input {
    fn file(path: PathBuf) -> Self {
        Input {
            name: names::bytes(path.as_os_str()).into_owned(),
            what: What::Hash(Source::Path(path)),
        }
    }

    fn failed(path: &Path, err: io::Error) -> Self {
        Input {
            name: names::bytes(path.as_os_str()).into_owned(),
            what: What::Failed(err),
        }
    }

    fn skipped(path: &Path, why: &'static str) -> Self {
        Input {
            name: names::bytes(path.as_os_str()).into_owned(),
            what: What::Skipped(why),
        }
    }
}

/// The inputs of `args` (`-` is standard input), in order.
#[derive(Debug)]
pub struct Walk {
    args: std::vec::IntoIter<OsString>,
    recursive: bool,
    /// Open directories, innermost last: entries still to visit, in
    /// reverse order (popped from the end).
    stack: Vec<Vec<Entry>>,
    stdin: StdinOnce,
}

#[derive(Debug)]
struct Entry {
    path: PathBuf,
    kind: Kind,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    File,
    Dir,
    /// Not hashed: reported with this reason.
    Skip(&'static str),
}

/// The kind of a directory entry that is not a file or a directory.
fn special(t: fs::FileType) -> &'static str {
    use std::os::unix::fs::FileTypeExt;
    if t.is_fifo() {
        "FIFO"
    } else if t.is_socket() {
        "socket"
    } else if t.is_block_device() {
        "block device"
    } else if t.is_char_device() {
        "character device"
    } else {
        "not a regular file"
    }
}

/// What a symbolic link leads to.
fn link_kind(path: &Path) -> Result<Kind, io::Error> {
    match files::retry(|| fs::metadata(path)) {
        Ok(m) if m.is_file() => Ok(Kind::File),
        Ok(m) if m.is_dir() => Ok(Kind::Skip("symbolic link to a directory")),
        Ok(m) => Ok(Kind::Skip(special(m.file_type()))),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(Kind::Skip("broken symbolic link")),
        Err(e) if e.raw_os_error() == Some(rustix::io::Errno::LOOP.raw_os_error()) => {
            Ok(Kind::Skip("symbolic link loop"))
        }
        Err(e) => Err(e),
    }
}

impl Walk {
    /// Walks `args`; directories are entered only if `recursive`.
    pub fn new(args: Vec<OsString>, recursive: bool) -> Self {
        Walk {
            args: args.into_iter(),
            recursive,
            stack: Vec::new(),
            stdin: StdinOnce::default(),
        }
    }

    /// Reads a directory's entries, sorted, onto the stack; an error is
    /// returned as an input to report, after the entries read before it
    /// are put on the stack (they are still walked).
    fn enter(&mut self, dir: &Path) -> Option<Input> {
        let mut entries = Vec::new();
        let mut error = None;
        let read = match files::retry(|| fs::read_dir(dir)) {
            Ok(r) => r,
            Err(e) => return Some(Input::failed(dir, e)),
        };
        for item in read {
            let item = match item {
                Ok(i) => i,
                Err(e) => {
                    error = Some(Input::failed(dir, e));
                    break;
                }
            };
            let path = dir.join(item.file_name());
            let kind = match item.file_type() {
                Ok(t) if t.is_dir() => Kind::Dir,
                Ok(t) if t.is_file() => Kind::File,
                // A link that cannot be followed for another reason, or an
                // entry of unknown type: opening it reports the error in
                // its place.
                Ok(t) if t.is_symlink() => link_kind(&path).unwrap_or(Kind::File),
                Ok(t) => Kind::Skip(special(t)),
                Err(_) => Kind::File,
            };
            entries.push((sort_key(&item.file_name(), kind), Entry { path, kind }));
        }
        entries.sort_unstable_by(|a, b| b.0.cmp(&a.0));
        self.stack
            .push(entries.into_iter().map(|(_, entry)| entry).collect());
        error
    }
}

/// A directory sorts as its name followed by `/`, as its paths do in a
/// sorted listing of the whole tree.
fn sort_key(name: &std::ffi::OsStr, kind: Kind) -> Vec<u8> {
    let mut key = names::bytes(name).into_owned();
    if kind == Kind::Dir {
        key.push(b'/');
    }
    key
}

impl Iterator for Walk {
    type Item = Input;

    fn next(&mut self) -> Option<Input> {
        loop {
            if let Some(top) = self.stack.last_mut() {
                match top.pop() {
                    Some(Entry {
                        path,
                        kind: Kind::File,
                    }) => return Some(Input::file(path)),
                    Some(Entry {
                        path,
                        kind: Kind::Skip(why),
                    }) => return Some(Input::skipped(&path, why)),
                    Some(Entry {
                        path,
                        kind: Kind::Dir,
                    }) => {
                        if let Some(err) = self.enter(&path) {
                            return Some(err);
                        }
                    }
                    None => {
                        self.stack.pop();
                    }
                }
                continue;
            }
            let arg = self.args.next()?;
            if arg == "-" {
                return Some(Input {
                    name: b"-".to_vec(),
                    what: What::Hash(self.stdin.take()),
                });
            }
            let path = PathBuf::from(arg);
            if self.recursive && fs::metadata(&path).is_ok_and(|m| m.is_dir()) {
                if let Some(err) = self.enter(&path) {
                    return Some(err);
                }
                continue;
            }
            return Some(Input::file(path));
        }
    }
}

/// Adds up the sizes of the files `args` names (for a progress bar's ETA);
/// `None` if standard input is among them or `cancelled()` turns true.
pub fn total_size(args: &[OsString], recursive: bool, cancelled: &dyn Fn() -> bool) -> Option<u64> {
    let mut total = 0u64;
    for input in Walk::new(args.to_vec(), recursive) {
        if cancelled() {
            return None;
        }
        match input.what {
            What::Hash(Source::Stdin) => return None,
            What::Hash(Source::Path(p)) => total += fs::metadata(p).map(|m| m.len()).unwrap_or(0),
            What::Hash(Source::StdinAgain) | What::Failed(_) | What::Skipped(_) => {}
        }
    }
    Some(total)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn directories_sort_as_if_followed_by_a_slash() {
        let dir = sort_key("a".as_ref(), Kind::Dir);
        let file = sort_key("a.txt".as_ref(), Kind::File);
        let dash = sort_key("a-b".as_ref(), Kind::File);
        // "a.txt" < "a/..." and "a-b" < "a/..." as in `sort` of full paths.
        assert!(file < dir);
        assert!(dash < dir);
        assert!(sort_key("a".as_ref(), Kind::File) < file);
    }
}
