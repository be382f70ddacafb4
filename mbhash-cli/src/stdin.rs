//! Standard input as coreutils reads it: a descriptor 0 that was closed at
//! start, or open for writing only, is a read error ("Bad file
//! descriptor") at the operand that reads it, never an empty input.
//!
//! The standard library's `Stdin` takes a read that fails with `EBADF` for
//! the end of the input, and a descriptor closed at start has been
//! reopened on `/dev/null` before `main`; so the state comes from
//! [`startup`], and the bytes from `read(2)` on descriptor 0 itself.

use std::io::{self, Read};
use std::os::fd::AsFd;
use std::sync::atomic::{AtomicBool, Ordering};

use crate::startup::{self, Access, Std};

/// Set once an operand or a list named standard input.
static READ: AtomicBool = AtomicBool::new(false);

/// `EBADF`, as `read(2)` on a descriptor not open for reading fails.
fn bad_descriptor() -> io::Error {
    io::Error::from_raw_os_error(rustix::io::Errno::BADF.raw_os_error())
}

/// Standard input, read with `read(2)` (errors as they are).
#[derive(Debug)]
pub struct Stdin(io::Stdin);

/// Opens standard input for an operand `-` (or a list `-`): `EBADF` if
/// descriptor 0 was closed at start or not open for reading.
pub fn open() -> io::Result<Stdin> {
    READ.store(true, Ordering::Relaxed);
    match startup::access(Std::Input) {
        Some(a) if !a.reads() => Err(bad_descriptor()),
        _ => Ok(Stdin(io::stdin())),
    }
}

impl Read for Stdin {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        loop {
            match rustix::io::read(self.0.as_fd(), &mut *buf) {
                Err(rustix::io::Errno::INTR) => {}
                r => return r.map_err(io::Error::from),
            }
        }
    }
}

/// The error coreutils reports last ("standard input: Bad file
/// descriptor"), when it closes a standard input it read: one that was
/// closed at start.
pub fn close_error() -> Option<io::Error> {
    let read = READ.load(Ordering::Relaxed);
    (read && startup::access(Std::Input) == Some(Access::Closed)).then(bad_descriptor)
}
