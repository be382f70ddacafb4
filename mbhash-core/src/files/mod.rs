//! Many files hashed on a [`HashService`], their outcomes handed on in job
//! order: the one reader of files of the `mbhash` command line (`sum`,
//! `check`) and of Python's `hash_files`.
//!
//! Reader threads take the jobs in order, each with its place in the output
//! (a slot of [`service::ordered`]), open the input (one descriptor per
//! reader, from a [`Budget`] under `RLIMIT_NOFILE`) and read it into buffers
//! of a [`BufferPool`], which bounds the bytes read and not yet hashed. An
//! input that fits in one buffer joins the reader's batch, handed to the
//! service a batch at a time so that a worker finds many messages to put in
//! its lanes; a larger one is a service stream of chunks, read a chunk ahead
//! of the worker that hashes it. Each reply fills its job's slot on the
//! worker, and the calling thread hands the outcomes on in order. Reading
//! overlaps hashing, and memory is bounded by the pool and the window of
//! slots, whatever the number and sizes of the inputs.
//!
//! Each job names its algorithm (or takes the run's), so one run hashes a
//! list that mixes algorithms: a batch holds one algorithm's inputs.
//!
//! What may wait for ever is watched: a file is opened non-blocking (a FIFO
//! with no writer opens at once), and a FIFO, character device or socket is
//! read with `poll`, so a cancel ([`Run::check_every`], a sink's error) or a
//! job's time limit ([`Settings::timeout`]) stops its reader within 20 ms. A read of a regular file or of
//! standard input is not interrupted: the reader looks between reads.
//!
//! Standard input is the caller's: [`Source::Stdin`] is opened by the
//! function given to [`Run::stdin`], so a front end says what a closed or
//! unreadable standard input is.
//!
//! A reader thread that cannot be started is no error: the run goes on with
//! those that started, and with none, the calling thread reads the jobs
//! itself between the outcomes it hands on.
//!
//! ```
//! use mbhash_core::files::{Job, Run, Settings, Source};
//! use mbhash_core::{Algo, HashService};
//!
//! struct File(Source);
//! impl Job for File {
//!     fn source(&self) -> Option<&Source> {
//!         Some(&self.0)
//!     }
//! }
//!
//! let dir = std::env::temp_dir().join(format!("mbhash-files-doc-{}", std::process::id()));
//! std::fs::create_dir_all(&dir).unwrap();
//! std::fs::write(dir.join("a"), b"abc").unwrap();
//! let jobs = [dir.join("a"), dir.join("missing")].map(|p| File(Source::Path(p)));
//! let mut outcomes = Vec::new();
//! Run::new(HashService::builder(), Algo::Sha256, Settings::new(2))
//!     .run(jobs.into_iter(), |_job, outcome| {
//!         outcomes.push(outcome.unwrap().map(|h| h.digest));
//!         Ok(())
//!     })
//!     .unwrap();
//! assert_eq!(outcomes[0].as_ref().unwrap().as_bytes()[..4], [0xba, 0x78, 0x16, 0xbf]);
//! assert_eq!(outcomes[1].as_ref().unwrap_err().kind(), std::io::ErrorKind::NotFound);
//! std::fs::remove_dir_all(&dir).unwrap();
//! ```

mod budget;
mod input;
mod read;
mod threads;

use std::cell::RefCell;
use std::io::{self, Read};
use std::path::PathBuf;
use std::time::{Duration, Instant};

pub use budget::{Budget, Open, Opened, Permit, open, out_of_descriptors, retry};

use crate::Algo;
#[cfg(doc)]
use crate::HashService;
use crate::service::{self, BufferPool, Digest, InOrder, RecvTimeout};

/// Where an input's bytes come from.
#[derive(Debug, Clone)]
pub enum Source {
    /// Standard input, opened by the function given to [`Run::stdin`].
    Stdin,
    /// Standard input named again: it was read by an earlier job, so this
    /// one is the empty input (as in coreutils).
    StdinAgain,
    /// A file.
    Path(PathBuf),
}

/// A unit of work: maybe an input to hash, and whatever the caller needs to
/// report it.
pub trait Job: Send + 'static {
    /// The input to hash; `None` for a job that only marks a place in the
    /// output (it is handed back in order with no outcome).
    fn source(&self) -> Option<&Source>;

    /// The algorithm of the job's input; `None`: the run's.
    fn algo(&self) -> Option<Algo> {
        None
    }
}

/// A digest, and whether the file changed while it was read (only checked
/// with [`Settings::warn_changed`]).
#[derive(Debug)]
pub struct Hashed<D> {
    /// The digest.
    pub digest: D,
    /// The file's size or modification time changed while it was read.
    pub changed: bool,
}

/// What became of a job: `None` if it had no input, else the digest or the
/// error that stopped the reading. An input not read whole within
/// [`Settings::timeout`] is an error of kind [`io::ErrorKind::TimedOut`].
pub type Outcome = Option<io::Result<Hashed<Digest>>>;

/// A read that failed past an input's first byte: the error of the
/// outcome is of the system error's kind, with this inside it
/// ([`io::Error::get_ref`]), shown as "read error at byte N: ..."; the
/// system's error is its [`source`](std::error::Error::source).
#[derive(Debug)]
pub struct ReadError {
    /// The bytes read before the error.
    pub offset: u64,
    /// The system's error.
    pub error: io::Error,
}

impl std::fmt::Display for ReadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The system's text without its " (os error N)".
        let text = self.error.to_string();
        let text = match (self.error.raw_os_error(), text.rfind(" (os error ")) {
            (Some(_), Some(at)) => &text[..at],
            _ => &text,
        };
        write!(f, "read error at byte {}: {text}", self.offset)
    }
}

impl std::error::Error for ReadError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.error)
    }
}

/// Opens standard input for [`Source::Stdin`].
pub type OpenStdin = dyn Fn() -> io::Result<Box<dyn Read + Send>> + Sync;

/// How the work is spread.
#[derive(Debug, Clone, Copy)]
pub struct Settings {
    /// Hashing threads: the service's workers (at least 1).
    pub threads: usize,
    /// Reader threads (at least 1; fewer if some cannot be started).
    pub readers: usize,
    /// Bytes per read: an input of up to this many bytes is one job, a
    /// larger one a stream of chunks of this size.
    pub chunk: usize,
    /// Bytes of buffers read and not yet hashed, at most (buffers are
    /// counted by their capacity, a power of two).
    pub in_flight: usize,
    /// Jobs taken ahead of the oldest one not yet handed on, at most.
    pub window: usize,
    /// Small inputs a reader hands to the service at once, at most...
    pub batch_jobs: usize,
    /// ... and their bytes: a batch is sent once it has this many.
    pub batch_bytes: usize,
    /// Drop each file's pages from the page cache once hashed.
    pub no_cache: bool,
    /// Check whether each file changed while it was read.
    pub warn_changed: bool,
    /// The time an input may take from when its reader takes it up (its
    /// open, with a wait for a descriptor) to its last byte read; one that
    /// takes longer is a [`io::ErrorKind::TimedOut`] error of its job (a
    /// FIFO or device that never ends, a writer that never comes). Waits for
    /// a buffer of the pool count too. `None`: no limit.
    pub timeout: Option<Duration>,
}

impl Settings {
    /// Defaults for `threads` hashing threads.
    pub fn new(threads: usize) -> Self {
        let threads = threads.max(1);
        Settings {
            threads,
            readers: threads,
            chunk: 1 << 20,
            in_flight: threads.saturating_mul(8 << 20).clamp(4 << 20, 64 << 20),
            window: 4096,
            batch_jobs: 32,
            batch_bytes: 1 << 20,
            no_cache: false,
            warn_changed: false,
            timeout: None,
        }
    }
}

/// Called every so often on the calling thread while it waits
/// ([`Run::check_every`]); an error cancels the run.
pub type Check<'a> = &'a mut dyn FnMut() -> io::Result<()>;

/// A run of jobs: the service, the run's algorithm, the settings and the
/// caller's hooks.
pub struct Run<'a> {
    service: service::Builder,
    algo: Algo,
    settings: Settings,
    stdin: Option<&'a OpenStdin>,
    progress: Option<&'a (dyn Fn(u64) + Sync)>,
    check: Option<(Duration, Check<'a>)>,
    /// Reader threads to start at most (tests).
    spawn_limit: usize,
}

impl<'a> Run<'a> {
    /// A run on a service of `service` (its workers set from `settings`;
    /// the engines given with [`service::Builder::engine_of`], and a family
    /// given none runs its configured engine, which the caller has
    /// checked), hashing jobs that name no algorithm with `algo`.
    pub fn new(service: service::Builder, algo: Algo, settings: Settings) -> Self {
        Run {
            service,
            algo,
            settings,
            stdin: None,
            progress: None,
            check: None,
            spawn_limit: usize::MAX,
        }
    }

    /// Opens standard input for [`Source::Stdin`]; without it that source
    /// is an error of its job.
    pub fn stdin(mut self, open: &'a OpenStdin) -> Self {
        self.stdin = Some(open);
        self
    }

    /// Called with the bytes of each read, from the reader threads.
    pub fn progress(mut self, add: &'a (dyn Fn(u64) + Sync)) -> Self {
        self.progress = Some(add);
        self
    }

    /// Calls `check` on the calling thread at least every `every` while the
    /// run lasts (e.g. to look for a signal); its error cancels the run:
    /// the readers stop within a tick, the outcomes not yet handed on are
    /// dropped, and [`Run::run`] returns the error once every reader has
    /// finished.
    pub fn check_every(mut self, every: Duration, check: Check<'a>) -> Self {
        self.check = Some((every, check));
        self
    }

    /// Starts at most `n` reader threads, as if the others failed to start.
    #[cfg(test)]
    fn spawn_at_most(mut self, n: usize) -> Self {
        self.spawn_limit = n;
        self
    }

    /// Hashes every job's input and calls `sink` with each job and its
    /// outcome, in job order. `sink` returning an error stops the run and
    /// returns it.
    ///
    /// # Errors
    /// The service cannot be built (an engine variable, no worker thread),
    /// `sink`'s error, the check's error, or an outcome lost (a reader
    /// panicked).
    pub fn run<T, I, F>(self, jobs: I, mut sink: F) -> io::Result<()>
    where
        T: Job,
        I: Iterator<Item = T> + Send,
        F: FnMut(T, Outcome) -> io::Result<()>,
    {
        let Run {
            service,
            algo,
            settings,
            stdin,
            progress,
            check,
            spawn_limit,
        } = self;
        // Room for the run's buffers while its threads start (under an
        // address-space limit, starting threads until one fails would leave
        // none, or abort in the start of the last), and as many threads as
        // the system starts, shared between hashing and reading.
        let reserve = threads::Reserve::for_pool(settings.in_flight);
        let settings = Settings {
            in_flight: reserve.pool_limit(),
            ..settings
        };
        let (workers, reader_threads) = threads::split(settings.threads, settings.readers);
        let settings = Settings {
            readers: reader_threads,
            ..settings
        };
        let service = service
            .workers(workers)
            .check_env(false)
            .build()
            .map_err(io::Error::other)?;
        let readers = read::Readers::new(
            service,
            BufferPool::new(settings.in_flight),
            Budget::from_limit(),
            jobs,
            algo,
            settings,
            stdin,
            progress,
        );
        let waiter = RefCell::new(Waiter {
            check,
            last: Instant::now(),
            failed: None,
        });
        let r = readers.run(
            spawn_limit,
            &reserve,
            &mut |in_order, until| waiter.borrow_mut().deliver(in_order, &mut sink, until),
            &|| waiter.borrow_mut().tick_reading(),
        );
        // The check's error, seen by the calling thread as a reader, stopped
        // the run.
        match waiter.into_inner().failed {
            Some(e) => Err(e),
            None => r,
        }
    }
}

/// The calling thread's side: hands the outcomes on in order, calling the
/// check while it waits.
struct Waiter<'c> {
    check: Option<(Duration, Check<'c>)>,
    last: Instant,
    /// The check's error, when the calling thread read.
    failed: Option<io::Error>,
}

/// How far [`Waiter::deliver`] goes.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Until {
    /// To the end of the outcomes.
    End,
    /// One outcome.
    One,
}

impl Waiter<'_> {
    /// Calls the check if it is due.
    fn tick(&mut self) -> io::Result<()> {
        if let Some((every, check)) = &mut self.check
            && self.last.elapsed() >= *every
        {
            self.last = Instant::now();
            check()?;
        }
        Ok(())
    }

    /// Hands outcomes on in order (to the end, or one), until `sink`'s or
    /// the check's first error. `Ok(false)`: the outcomes ended.
    fn deliver<T, F>(
        &mut self,
        in_order: &InOrder<(T, Outcome)>,
        sink: &mut F,
        until: Until,
    ) -> io::Result<bool>
    where
        T: Job,
        F: FnMut(T, Outcome) -> io::Result<()>,
    {
        loop {
            self.tick()?;
            let item = match &self.check {
                None => in_order.recv(),
                Some((every, _)) => match in_order.recv_timeout(*every) {
                    Ok(item) => Some(item),
                    Err(RecvTimeout::Timeout) => continue,
                    Err(RecvTimeout::End) => None,
                },
            };
            let Some(item) = item else { return Ok(false) };
            let (job, outcome) = item
                .map_err(|service::Lost| io::Error::other("an input was lost: a reader failed"))?;
            sink(job, outcome)?;
            if until == Until::One {
                return Ok(true);
            }
        }
    }

    /// Calls the check if it is due, from the calling thread as a reader;
    /// false once it failed.
    fn tick_reading(&mut self) -> bool {
        if self.failed.is_none()
            && let Err(e) = self.tick()
        {
            self.failed = Some(e);
        }
        self.failed.is_none()
    }
}

#[cfg(test)]
mod tests;
