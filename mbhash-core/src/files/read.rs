//! The readers: jobs taken in order, read into pooled buffers, handed to
//! the service in batches or streams.

use std::io;
use std::num::NonZeroU64;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError, TryLockError};
use std::time::Instant;

use super::budget::{self, Budget, Opened};
use super::input::{Input, Stop, Watched};
use super::threads;
use super::{Hashed, Job, OpenStdin, Outcome, ReadError, Settings, Source, Until};
use crate::Algo;
use crate::service::{self, BufferPool, HashService, InOrder, PoolBuf, Sequencer, Slot};

/// A job's place in the output.
type Place<T> = Slot<(T, Outcome)>;

/// Hands outcomes on, on the calling thread (see [`super::Waiter::deliver`]).
pub(super) type Deliver<'d, T> = dyn FnMut(&InOrder<(T, Outcome)>, Until) -> io::Result<bool> + 'd;

/// What the reader threads share.
pub(super) struct Readers<'a, I: Iterator> {
    service: HashService,
    pool: BufferPool,
    budget: Arc<Budget>,
    jobs: Mutex<std::iter::Fuse<I>>,
    /// The caller stopped: readers finish at once.
    stop: AtomicBool,
    /// The algorithm of jobs that name none.
    algo: Algo,
    settings: Settings,
    stdin: Option<&'a OpenStdin>,
    progress: Option<&'a (dyn Fn(u64) + Sync)>,
}

/// A small input read whole, waiting in its reader's batch: the service's
/// job (its bytes are the buffer's), with what its reply needs.
struct Pending<T> {
    buf: PoolBuf,
    job: T,
    place: Place<T>,
    changed: bool,
}

impl<T> AsRef<[u8]> for Pending<T> {
    fn as_ref(&self) -> &[u8] {
        &self.buf
    }
}

/// The reply to a job of a batch, on the worker: the buffer goes back to
/// the pool, the outcome to the job's place.
fn reply<T>(outcome: service::Outcome<Pending<T>>) {
    let (pending, digest) = match outcome {
        Ok(done) => (done.buf, Ok(done.digest)),
        Err(cancelled) => {
            let why = io::Error::other(cancelled.to_string());
            (cancelled.into_inner(), Err(why))
        }
    };
    let Pending {
        buf,
        job,
        place,
        changed,
    } = pending;
    drop(buf);
    place.fill((job, Some(digest.map(|digest| Hashed { digest, changed }))));
}

/// A reader's batch of small inputs of one algorithm, read and not yet
/// handed to the service.
struct Batch<T> {
    algo: Algo,
    items: Vec<Pending<T>>,
    bytes: usize,
}

/// A read error at byte `offset` of an input: the offset is named past the
/// first byte (at the first byte the error is the system's as it is, e.g.
/// "Is a directory"), the system's error kept as the source ([`ReadError`]).
pub(super) fn read_error(offset: u64, e: io::Error) -> io::Error {
    if offset == 0 {
        return e;
    }
    io::Error::new(e.kind(), ReadError { offset, error: e })
}

/// The error of a read that was stopped.
fn stopped(stop: Stop, settings: &Settings) -> io::Error {
    match stop {
        Stop::Cancelled => io::Error::other("cancelled"),
        Stop::TimedOut => io::Error::new(
            io::ErrorKind::TimedOut,
            format!(
                "not read within the time limit ({} s)",
                settings.timeout.unwrap_or_default().as_secs_f64()
            ),
        ),
    }
}

/// True if the file's size or modification time changed since it was
/// opened. Only for regular files: a FIFO's or a device's times move as
/// it is written, which is no change of what was read.
fn changed(opened: &Opened) -> bool {
    let before = &opened.meta;
    if !before.is_file() {
        return false;
    }
    match opened.file.metadata() {
        Ok(now) => now.len() != before.len() || now.modified().ok() != before.modified().ok(),
        Err(_) => true,
    }
}

/// Drops the cached pages of the first `upto` bytes of a file
/// (`no_cache`): they were read and will not be read again. The range
/// starts at 0 each time: the kernel drops only the page-cache folios that
/// lie wholly inside it (large folios straddle any chunk boundary), and
/// skips the ones already gone at little cost. `None`: the whole file, at
/// its end.
fn drop_pages(opened: &Opened, upto: Option<u64>) {
    let len = match upto {
        Some(n) => match NonZeroU64::new(n) {
            Some(n) => Some(n),
            None => return,
        },
        None => None,
    };
    // Advice only: a file system that does not take it loses nothing.
    let _ = rustix::fs::fadvise(&opened.file, 0, len, rustix::fs::Advice::DontNeed);
}

/// The service refused a job: only once it is shut down, which this module
/// does only after its readers are gone.
fn refused() -> io::Error {
    io::Error::other("the hash service refused the input")
}

impl<'a, I> Readers<'a, I>
where
    I: Iterator + Send,
    I::Item: Job,
{
    #[allow(clippy::too_many_arguments)]
    pub(super) fn new(
        service: HashService,
        pool: BufferPool,
        budget: Arc<Budget>,
        jobs: I,
        algo: Algo,
        settings: Settings,
        stdin: Option<&'a OpenStdin>,
        progress: Option<&'a (dyn Fn(u64) + Sync)>,
    ) -> Self {
        Readers {
            service,
            pool,
            budget,
            jobs: Mutex::new(jobs.fuse()),
            stop: AtomicBool::new(false),
            algo,
            settings,
            stdin,
            progress,
        }
    }

    /// Starts up to `settings.readers` reader threads (at most
    /// `spawn_limit`), hands the outcomes on with `deliver` on the calling
    /// thread, and returns once every reader has finished. With no reader
    /// thread started, the calling thread reads the jobs itself, handing an
    /// outcome on whenever it needs a place (`go_on`: whether it is to go
    /// on reading).
    pub(super) fn run(
        &self,
        spawn_limit: usize,
        reserve: &threads::Reserve,
        deliver: &mut Deliver<'_, I::Item>,
        go_on: &dyn Fn() -> bool,
    ) -> io::Result<()> {
        let (seq, in_order) = service::ordered::<(I::Item, Outcome)>(self.settings.window);
        std::thread::scope(|s| {
            // As many readers as start (a thread that cannot be started, or
            // no room for one: the run goes on with those that did); they
            // begin once the reserve for the buffers is given back.
            let wanted = self.settings.readers.min(spawn_limit);
            let started = threads::spawn_scoped(s, "mbhash-reader", wanted, Some(reserve), || {
                let seq = seq.clone();
                move || {
                    let go_on = || !self.stop.load(Ordering::Relaxed);
                    self.read_jobs(&seq, &mut || seq.slot(), &go_on);
                }
            });
            reserve.release();
            let r = if started > 0 {
                drop(seq);
                deliver(&in_order, Until::End).map(drop)
            } else {
                self.caller_reads(seq, &in_order, deliver, go_on)
            };
            if r.is_err() {
                // The readers stop at their next read, tick or job.
                self.stop.store(true, Ordering::Relaxed);
            }
            // Readers waiting for a place stop.
            drop(in_order);
            r
        })
    }

    /// The calling thread reads the jobs itself: when the window is full it
    /// hands on the oldest outcome, then goes on.
    fn caller_reads(
        &self,
        seq: Sequencer<(I::Item, Outcome)>,
        in_order: &InOrder<(I::Item, Outcome)>,
        deliver: &mut Deliver<'_, I::Item>,
        go_on: &dyn Fn() -> bool,
    ) -> io::Result<()> {
        let go_on = || !self.stop.load(Ordering::Relaxed) && go_on();
        let mut failed = None;
        self.read_jobs(
            &seq,
            &mut || loop {
                if let Some(place) = seq.try_slot() {
                    return Some(place);
                }
                // The batch was sent: the oldest outcome comes.
                match deliver(in_order, Until::One) {
                    Ok(true) => {}
                    Ok(false) => return None,
                    Err(e) => {
                        failed = Some(e);
                        self.stop.store(true, Ordering::Relaxed);
                        return None;
                    }
                }
            },
            &go_on,
        );
        drop(seq);
        match failed {
            Some(e) => Err(e),
            // Stopped (the caller's check failed): the run's error is the
            // caller's.
            None if !go_on() => Ok(()),
            None => deliver(in_order, Until::End).map(drop),
        }
    }

    /// Takes jobs in order, each with its place (from `slot`, called after
    /// the batch was sent, when no place is free now), and reads them,
    /// until there are no more or `go_on` says stop.
    ///
    /// Small inputs are handed to the service a batch at a time, so that a
    /// worker finds many to put side by side. Before any wait (for the
    /// jobs, a place, a buffer, or an input that is not a regular file) the
    /// batch is sent: what others wait for is never held back by a waiting
    /// reader.
    fn read_jobs(
        &self,
        seq: &Sequencer<(I::Item, Outcome)>,
        slot: &mut dyn FnMut() -> Option<Place<I::Item>>,
        go_on: &dyn Fn() -> bool,
    ) {
        let mut batch = Batch {
            algo: self.algo,
            items: Vec::with_capacity(self.settings.batch_jobs),
            bytes: 0,
        };
        while go_on() {
            let next = {
                let mut jobs = match self.jobs.try_lock() {
                    Ok(jobs) => jobs,
                    Err(TryLockError::Poisoned(e)) => e.into_inner(),
                    Err(TryLockError::WouldBlock) => {
                        self.send(&mut batch);
                        self.jobs.lock().unwrap_or_else(PoisonError::into_inner)
                    }
                };
                jobs.next().and_then(|job| {
                    let place = seq.try_slot().or_else(|| {
                        self.send(&mut batch);
                        slot()
                    })?;
                    Some((job, place))
                })
            };
            let Some((job, place)) = next else { break };
            self.read(job, place, &mut batch, go_on);
        }
        self.send(&mut batch);
    }

    /// Hands the batch to the service.
    fn send(&self, batch: &mut Batch<I::Item>) {
        batch.bytes = 0;
        if batch.items.is_empty() {
            return;
        }
        // Refused only once shut down, which is after the readers are gone
        // (the replies, with the places, would be dropped: received lost).
        let _ = self
            .service
            .submit_batch_to(batch.algo, batch.items.drain(..), reply::<I::Item>);
    }

    /// A buffer from the pool; the batch is sent first if it must wait.
    fn buffer(&self, want: usize, batch: &mut Batch<I::Item>) -> PoolBuf {
        self.pool.try_take(want).unwrap_or_else(|| {
            self.send(batch);
            self.pool.take(want)
        })
    }

    /// Opens a source.
    fn open(&self, src: &Source) -> io::Result<Input> {
        Ok(match src {
            Source::Stdin => match self.stdin {
                Some(open) => Input::Stdin(open()?),
                None => {
                    return Err(io::Error::new(
                        io::ErrorKind::Unsupported,
                        "standard input is not an input here",
                    ));
                }
            },
            // At its end, if it can be read at all (a standard input
            // closed at start is an error at every operand naming it).
            Source::StdinAgain => match self.stdin {
                Some(open) => open().map(|_| Input::Empty)?,
                None => Input::Empty,
            },
            // A reader holds one file at a time: it may wait for a
            // descriptor, the others free theirs.
            Source::Path(p) => match budget::open(p, &self.budget, true) {
                budget::Open::Done(f) => Input::File(f),
                budget::Open::Failed(e) => return Err(e),
                budget::Open::Later => unreachable!("a waiting open is never put off"),
            },
        })
    }

    /// Reads a job's input into pooled buffers: an input that fits in one
    /// joins the batch, a larger one is a stream of the service. The
    /// outcome goes to the job's place.
    fn read(
        &self,
        job: I::Item,
        place: Place<I::Item>,
        batch: &mut Batch<I::Item>,
        go_on: &dyn Fn() -> bool,
    ) {
        let settings = &self.settings;
        let deadline = settings.timeout.map(|t| Instant::now() + t);
        let opened = job.source().map(|src| self.open(src));
        let mut input = match opened {
            None => return place.fill((job, None)),
            Some(Err(e)) => return place.fill((job, Some(Err(e)))),
            Some(Ok(r)) => r,
        };
        // A batch holds one algorithm's inputs.
        let algo = job.algo().unwrap_or(self.algo);
        if algo != batch.algo {
            self.send(batch);
            batch.algo = algo;
        }
        let chunk = settings.chunk.max(1);
        // A regular file's buffers are sized to what is left of it (and a
        // byte more, to see its end in the same read). Anything else may
        // keep the reader waiting: the batch goes first.
        let size = input.size();
        if size.is_none() {
            self.send(batch);
        }
        let mut stream: Option<service::Stream> = None;
        let mut offset = 0u64;
        loop {
            let want = size.map_or(chunk, |len| {
                len.saturating_sub(offset)
                    .saturating_add(1)
                    .min(chunk as u64) as usize
            });
            let mut buf = self.buffer(want, batch);
            let room = buf.room();
            let mut watched = Watched {
                input: &mut input,
                check: go_on,
                deadline,
                stopped: None,
            };
            let read = buf.fill_from(&mut watched);
            let stop = watched.stopped.take();
            let n = buf.len();
            if let Some(add) = self.progress {
                add(n as u64);
            }
            if let Err(e) = read {
                // A stream dropped unfinished is discarded.
                drop(stream);
                let e = match stop {
                    Some(stop) => stopped(stop, settings),
                    None => read_error(offset + n as u64, e),
                };
                return place.fill((job, Some(Err(e))));
            }
            offset += n as u64;
            let end = n < room;
            if settings.no_cache
                && let Some(f) = input.file()
            {
                drop_pages(f, (!end).then_some(offset));
            }
            if end {
                let changed = settings.warn_changed && input.file().is_some_and(changed);
                // Closed before the hash is done: the descriptor is free.
                drop(input);
                let Some(mut stream) = stream else {
                    batch.bytes += buf.len();
                    batch.items.push(Pending {
                        buf,
                        job,
                        place,
                        changed,
                    });
                    if batch.items.len() >= settings.batch_jobs
                        || batch.bytes >= settings.batch_bytes
                    {
                        self.send(batch);
                    }
                    return;
                };
                if !buf.is_empty() && stream.update(buf).is_err() {
                    return place.fill((job, Some(Err(refused()))));
                }
                stream.finish_to(move |o: service::Outcome<()>| {
                    let outcome = o
                        .map(|done| Hashed {
                            digest: done.digest,
                            changed,
                        })
                        .map_err(|cancelled| io::Error::other(cancelled.to_string()));
                    place.fill((job, Some(outcome)));
                });
                return;
            }
            let s = stream.get_or_insert_with(|| {
                // A large input keeps the reader a while: the batch goes
                // first.
                self.send(batch);
                self.service.stream(algo)
            });
            if s.update(buf).is_err() {
                // Refused only once shut down.
                return place.fill((job, Some(Err(refused()))));
            }
            // Cancelled, or out of time, between chunks (a regular file's
            // reads are not watched within).
            if let Some(stop) = super::input::should_stop(go_on, deadline) {
                return place.fill((job, Some(Err(stopped(stop, settings)))));
            }
        }
    }
}
