//! An open input, read in a way a cancel or a time limit can stop.

use std::io::{self, Read};
use std::time::{Duration, Instant};

use rustix::event::{PollFd, PollFlags, Timespec};

use super::budget::Opened;

/// How long a read of a pollable input waits before it looks again at the
/// cancel and the time limit: the delay of a cancel seen by a waiting read.
pub(super) const TICK: Duration = Duration::from_millis(20);

/// Where an input's bytes come from.
pub(super) enum Input {
    /// A file of the path of a job.
    File(Opened),
    /// Standard input, as the caller opened it.
    Stdin(Box<dyn Read + Send>),
    /// Nothing: the empty input.
    Empty,
}

impl Input {
    pub(super) fn file(&self) -> Option<&Opened> {
        match self {
            Input::File(f) => Some(f),
            _ => None,
        }
    }

    /// The bytes a regular file holds now; `None` for anything else.
    pub(super) fn size(&self) -> Option<u64> {
        match self {
            Input::File(f) => f.meta.is_file().then_some(f.meta.len()),
            Input::Stdin(_) => None,
            Input::Empty => Some(0),
        }
    }
}

/// Why a read stopped before the end.
pub(super) enum Stop {
    /// The run was cancelled.
    Cancelled,
    /// The job's time ran out.
    TimedOut,
}

/// An input being read, with what may stop the reading: `check` says
/// whether to go on (it is asked before each read and each `TICK` of a
/// wait), `deadline` when the job's time is up.
pub(super) struct Watched<'a> {
    pub(super) input: &'a mut Input,
    pub(super) check: &'a dyn Fn() -> bool,
    pub(super) deadline: Option<Instant>,
    /// Set when a read was stopped.
    pub(super) stopped: Option<Stop>,
}

impl Watched<'_> {
    fn stop(&mut self, stop: Stop) -> io::Error {
        self.stopped = Some(stop);
        // Not `Interrupted`: readers retry those.
        io::Error::other("stopped")
    }
}

/// Whether to stop: the run was cancelled or the time is up.
pub(super) fn should_stop(check: &dyn Fn() -> bool, deadline: Option<Instant>) -> Option<Stop> {
    if !check() {
        Some(Stop::Cancelled)
    } else if deadline.is_some_and(|d| Instant::now() >= d) {
        Some(Stop::TimedOut)
    } else {
        None
    }
}

/// Reads a pollable input: waits until it is readable (data, or its peer
/// gone), a `TICK` at a time, looking at the cancel and the deadline
/// between waits.
///
/// The file is non-blocking. On Linux, `poll` on a FIFO opened before any
/// writer reports nothing until a writer has written or come and gone, so
/// a read after it sees data or the true end, never the end-of-file that a
/// FIFO without a writer reads as. A device or socket is read when it has
/// data.
fn read_pollable(
    f: &mut Opened,
    buf: &mut [u8],
    check: &dyn Fn() -> bool,
    deadline: Option<Instant>,
) -> Result<io::Result<usize>, Stop> {
    loop {
        let mut wait = TICK;
        if let Some(d) = deadline {
            wait = wait.min(d.saturating_duration_since(Instant::now()));
        }
        let timeout = match Timespec::try_from(wait) {
            Ok(t) => t,
            Err(e) => return Ok(Err(io::Error::other(e))),
        };
        let mut fds = [PollFd::new(&f.file, PollFlags::IN)];
        let ready = match rustix::event::poll(&mut fds, Some(&timeout)) {
            Ok(n) => n > 0,
            Err(rustix::io::Errno::INTR) => false,
            Err(e) => return Ok(Err(e.into())),
        };
        if ready {
            match f.file.read(buf) {
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {}
                r => return Ok(r),
            }
        }
        if let Some(stop) = should_stop(check, deadline) {
            return Err(stop);
        }
    }
}

impl Read for Watched<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if let Some(stop) = should_stop(self.check, self.deadline) {
            return Err(self.stop(stop));
        }
        let (check, deadline) = (self.check, self.deadline);
        match &mut *self.input {
            Input::File(f) if f.pollable() => match read_pollable(f, buf, check, deadline) {
                Ok(r) => r,
                Err(stop) => Err(self.stop(stop)),
            },
            Input::File(f) => f.file.read(buf),
            Input::Stdin(s) => s.read(buf),
            Input::Empty => Ok(0),
        }
    }
}
