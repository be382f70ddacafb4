//! Many inputs hashed on the core's hash service, their outcomes handed
//! on in job order.
//!
//! Reader threads take the jobs in order, each with its place in the output
//! (a slot of [`service::ordered`]), open the input and read it into buffers
//! of a [`BufferPool`], which bounds the bytes read and not yet hashed. An
//! input that fits in one buffer is one job of the [`HashService`]; a larger
//! one is a service stream of chunks. The service's workers put whatever is
//! queued into the lanes of their job managers; each reply fills its job's
//! slot, and the calling thread hands the outcomes on in order. So reading
//! overlaps hashing (the readers read the next inputs while the workers hash
//! the last ones; a lone large input is read a chunk ahead of the worker that
//! hashes it on the one-stream kernel), and memory is bounded by the pool and
//! the window of slots, whatever the number and sizes of the inputs.
//!
//! Each job names its algorithm (or takes the run's), so one service hashes
//! a list that mixes algorithms: a batch holds one algorithm's inputs, and
//! is sent when the next input is of another.

use std::io::{self, Read};
use std::num::NonZeroU64;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, PoisonError, TryLockError};

use mbhash_core::Algo;
use mbhash_core::alg::{Algorithm, Family};
use mbhash_core::service::{
    self, BufferPool, Digest, HashService, InOrder, PoolBuf, Sequencer, Slot,
};

use crate::files::{self, Budget};
use crate::names;
use crate::progress::Progress;

/// The engine type of an algorithm.
pub type EngineOf<A> = <<A as Algorithm>::Family as Family>::Engine;

/// Where an input's bytes come from.
#[derive(Debug, Clone)]
pub enum Source {
    /// Standard input.
    Stdin,
    /// Standard input named again: it was read by an earlier operand, so
    /// this one is the empty input (as in coreutils).
    StdinAgain,
    /// A file.
    Path(PathBuf),
}

/// Hands out standard input to the first operand that names it; the later
/// ones get [`Source::StdinAgain`].
#[derive(Debug, Default)]
pub struct StdinOnce {
    taken: bool,
}

impl StdinOnce {
    /// The source for an operand `-`.
    pub fn take(&mut self) -> Source {
        if std::mem::replace(&mut self.taken, true) {
            Source::StdinAgain
        } else {
            Source::Stdin
        }
    }

    /// Marks standard input as read (by a checksum list).
    pub fn mark(&mut self) {
        self.taken = true;
    }
}

enum Reader {
    File(files::Opened),
    Stdin(crate::stdin::Stdin),
    Empty,
}

impl Reader {
    fn file(&self) -> Option<&files::Opened> {
        match self {
            Reader::File(f) => Some(f),
            _ => None,
        }
    }

    /// The bytes a regular file holds now; `None` for anything else.
    fn size(&self) -> Option<u64> {
        match self {
            Reader::File(f) => match &f.meta {
                Some(m) => m.is_file().then_some(m.len()),
                None => f
                    .file
                    .metadata()
                    .ok()
                    .filter(|m| m.is_file())
                    .map(|m| m.len()),
            },
            Reader::Stdin(_) => None,
            Reader::Empty => Some(0),
        }
    }
}

impl Read for Reader {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match self {
            Reader::File(f) => f.file.read(buf),
            Reader::Stdin(s) => s.read(buf),
            Reader::Empty => Ok(0),
        }
    }
}

/// A read error at byte `offset` of an input: the offset is named past the
/// first byte (at the first byte the message is coreutils', e.g. "Is a
/// directory").
fn read_error(offset: u64, e: io::Error) -> io::Error {
    if offset == 0 {
        return e;
    }
    io::Error::new(
        e.kind(),
        format!("read error at byte {offset}: {}", names::describe(&e)),
    )
}

/// True if the file's size or modification time changed since it was
/// opened. Only for regular files: a FIFO's or a device's times move as
/// it is written, which is no change of what was read.
fn changed(opened: &files::Opened) -> bool {
    let Some(before) = opened.meta.as_ref().filter(|m| m.is_file()) else {
        return false;
    };
    match opened.file.metadata() {
        Ok(now) => now.len() != before.len() || now.modified().ok() != before.modified().ok(),
        Err(_) => true,
    }
}

/// Drops the cached pages of the first `upto` bytes of a file
/// (`--no-cache`): they were read and will not be read again. The range
/// starts at 0 each time: the kernel drops only the page-cache folios that lie
/// wholly inside it (large folios straddle any chunk boundary), and skips the
/// ones already gone at little cost. `None`: the whole file, at its end.
fn drop_pages(opened: &files::Opened, upto: Option<u64>) {
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
/// error that stopped the reading.
pub type Outcome = Option<io::Result<Hashed<Digest>>>;

/// How the work is spread.
#[derive(Debug, Clone, Copy)]
pub struct Settings {
    /// Hashing threads: the service's workers (at least 1).
    pub threads: usize,
    /// Reader threads; 0: the calling thread reads every input, then
    /// hands the outcomes on (when the system starts no thread for it).
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
        }
    }
}

/// Hashes every job's input, in its algorithm or else `algo`, and calls
/// `sink` with each job and its outcome, in job order. `sink` returning an
/// error stops the run and returns it.
///
/// `service` says the engines (given with [`service::Builder::engine_of`]);
/// a family given none runs `auto`: the caller has checked the engines of
/// the families its jobs use.
pub fn run<T, I, F>(
    service: service::Builder,
    algo: Algo,
    settings: Settings,
    jobs: I,
    progress: &Progress,
    mut sink: F,
) -> io::Result<()>
where
    T: Job,
    I: Iterator<Item = T> + Send,
    F: FnMut(T, Outcome) -> io::Result<()>,
{
    // Room for the run's buffers once its threads have started.
    let reserve = crate::threads::Reserve::for_pool(settings.in_flight);
    let settings = Settings {
        in_flight: reserve.pool_limit(),
        ..settings
    };
    // As many threads as the system starts (maybe none).
    let (workers, reader_threads) = crate::threads::split(settings.threads, settings.readers);
    let service = service
        .workers(workers)
        .check_env(false)
        .build()
        .map_err(io::Error::other)?;
    let readers = Readers {
        service,
        pool: BufferPool::new(settings.in_flight),
        budget: Budget::from_limit(),
        jobs: Mutex::new(jobs.fuse()),
        stop: AtomicBool::new(false),
        algo,
        settings,
        progress,
    };
    let (seq, in_order) = service::ordered::<(T, Outcome)>(settings.window);
    std::thread::scope(|s| {
        let readers = &readers;
        // As many readers as start.
        let gate = Some(&reserve);
        let started = crate::threads::spawn_scoped(s, "mbhash-read", reader_threads, gate, || {
            let seq = seq.clone();
            move || readers.run(&seq)
        });
        reserve.release();
        if started == 0 {
            // No thread to read: this one reads every input first.
            in_order.hold_all();
            readers.run(&seq);
        }
        drop(seq);
        let r = deliver::<T, F>(in_order, &mut sink);
        if r.is_err() {
            // The readers stop at their next read or job.
            readers.stop.store(true, Ordering::Relaxed);
        }
        r
    })
}

/// Hands the outcomes on in order, until the end or `sink`'s first error.
/// Returning drops `in_order`: readers waiting for a slot stop.
fn deliver<T, F>(in_order: InOrder<(T, Outcome)>, sink: &mut F) -> io::Result<()>
where
    T: Job,
    F: FnMut(T, Outcome) -> io::Result<()>,
{
    for item in in_order {
        let (job, outcome) =
            item.map_err(|service::Lost| io::Error::other("an input was lost: a reader failed"))?;
        sink(job, outcome)?;
    }
    Ok(())
}

/// What the reader threads share.
struct Readers<'a, I: Iterator> {
    service: HashService,
    pool: BufferPool,
    budget: Arc<Budget>,
    jobs: Mutex<std::iter::Fuse<I>>,
    /// The caller stopped: readers finish at once.
    stop: AtomicBool,
    /// The algorithm of jobs that name none.
    algo: Algo,
    settings: Settings,
    progress: &'a Progress,
}

/// A job's place in the output.
type Place<T> = Slot<(T, Outcome)>;

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

impl<I> Readers<'_, I>
where
    I: Iterator,
    I::Item: Job,
{
    /// Takes jobs in order, each with its place, and reads them, until
    /// there are no more or the caller stopped.
    ///
    /// Small inputs are handed to the service a batch at a time, so that a
    /// worker finds many to put side by side. Before any wait (for the
    /// jobs, a place, a buffer, or an input that is not a regular file) the
    /// batch is sent: what others wait for is never held back by a waiting
    /// reader.
    fn run(&self, seq: &Sequencer<(I::Item, Outcome)>) {
        let mut batch = Batch {
            algo: self.algo,
            items: Vec::with_capacity(self.settings.batch_jobs),
            bytes: 0,
        };
        while !self.stop.load(Ordering::Relaxed) {
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
                        seq.slot()
                    })?;
                    Some((job, place))
                })
            };
            let Some((job, place)) = next else { break };
            self.read(job, place, &mut batch);
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
    fn open(&self, src: &Source) -> io::Result<Reader> {
        Ok(match src {
            Source::Stdin => Reader::Stdin(crate::stdin::open()?),
            // At its end, if it can be read at all.
            Source::StdinAgain => crate::stdin::open().map(|_| Reader::Empty)?,
            // A reader holds one file at a time: it may wait for a
            // descriptor, the others free theirs.
            Source::Path(p) => match files::open(p, &self.budget, true, self.settings.warn_changed)
            {
                files::Open::Done(f) => Reader::File(f),
                files::Open::Failed(e) => return Err(e),
                files::Open::Later => unreachable!("a waiting open is never put off"),
            },
        })
    }

    /// Reads a job's input into pooled buffers: an input that fits in one
    /// joins the batch, a larger one is a stream of the service. The
    /// outcome goes to the job's place.
    fn read(&self, job: I::Item, place: Place<I::Item>, batch: &mut Batch<I::Item>) {
        let opened = job.source().map(|src| self.open(src));
        let mut reader = match opened {
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
        let settings = &self.settings;
        let chunk = settings.chunk.max(1);
        // A regular file's buffers are sized to what is left of it (and a
        // byte more, to see its end in the same read). Anything else may
        // keep the reader waiting: the batch goes first.
        let size = reader.size();
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
            let read = buf.fill_from(&mut reader);
            let n = buf.len();
            self.progress.add(n as u64);
            if let Err(e) = read {
                // A stream dropped unfinished is discarded.
                drop(stream);
                return place.fill((job, Some(Err(read_error(offset + n as u64, e)))));
            }
            offset += n as u64;
            let end = n < room;
            if settings.no_cache
                && let Some(f) = reader.file()
            {
                drop_pages(f, (!end).then_some(offset));
            }
            if end {
                let changed = settings.warn_changed && reader.file().is_some_and(changed);
                // Closed before the hash is done: the descriptor is free.
                drop(reader);
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
            if s.update(buf).is_err() || self.stop.load(Ordering::Relaxed) {
                // Refused only once shut down; the caller stopped.
                return place.fill((job, Some(Err(refused()))));
            }
        }
    }
}

/// The service refused a job: only once it is shut down, which this module
/// does only after its readers are gone.
fn refused() -> io::Error {
    io::Error::other("the hash service refused the input")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_read_error_names_its_byte_offset() {
        let mut r = mbhash_test_support::Failing {
            good: 10_000,
            max_read: 4000,
        };
        let pool = BufferPool::new(1 << 20);
        let mut buf = pool.take(8192);
        assert_eq!(buf.fill_from(&mut r).unwrap(), 8192);
        assert!(buf.is_full());
        let mut buf = pool.take(8192);
        let e = buf.fill_from(&mut r).unwrap_err();
        assert_eq!(buf.len(), 1808);
        let e = read_error(8192 + buf.len() as u64, e);
        assert_eq!(
            e.to_string(),
            "read error at byte 10000: Input/output error"
        );
        // At the first byte, the error as coreutils words it.
        let e = read_error(0, io::Error::from_raw_os_error(21));
        assert_eq!(names::describe(&e), "Is a directory");
    }

    /// A job of the tests: its number, and maybe a file.
    struct Numbered(usize, Option<Source>);

    impl Job for Numbered {
        fn source(&self) -> Option<&Source> {
            self.1.as_ref()
        }
    }

    /// Files around the chunk size and many small ones, jobs with nothing
    /// to hash between them, a missing file; tiny pool, window and batches
    /// so that every wait is met: every outcome once, in job order, each
    /// the oracle's digest.
    #[test]
    fn outcomes_in_job_order_under_tight_bounds() {
        let tmp = mbhash_test_support::TempDir::new("mbhash-streams", "order");
        let chunk = 8192;
        let mut rng = mbhash_test_support::Rng::new(5);
        let mut sizes = vec![0, 1, chunk - 1, chunk, chunk + 1, 3 * chunk + 5, 40_000];
        sizes.extend((0..200).map(|_| rng.below(3 * chunk)));
        let mut expected = Vec::new();
        let mut jobs = Vec::new();
        for (i, len) in sizes.into_iter().enumerate() {
            let data = rng.bytes(len);
            let path = tmp.0.join(format!("f{i}"));
            std::fs::write(&path, &data).unwrap();
            jobs.push(Numbered(jobs.len(), Some(Source::Path(path))));
            expected.push(Some(mbhash_test_support::oracle("sha256", &data)));
            if i % 5 == 0 {
                jobs.push(Numbered(jobs.len(), None));
                expected.push(None);
            }
        }
        jobs.push(Numbered(
            jobs.len(),
            Some(Source::Path(tmp.0.join("missing"))),
        ));
        expected.push(Some(Vec::new()));
        let settings = Settings {
            readers: 3,
            chunk,
            in_flight: 16 << 10,
            window: 3,
            batch_jobs: 4,
            batch_bytes: 20_000,
            ..Settings::new(2)
        };
        let mut seen = 0;
        run(
            HashService::builder(),
            Algo::Sha256,
            settings,
            jobs.into_iter(),
            &Progress::hidden(),
            |job, outcome| {
                assert_eq!(job.0, seen, "in job order");
                match (outcome, &expected[seen]) {
                    (None, None) => {}
                    (Some(Ok(h)), Some(want)) => {
                        assert_eq!(h.digest.as_bytes(), &want[..], "job {seen}")
                    }
                    (Some(Err(e)), Some(want)) if want.is_empty() => {
                        assert_eq!(e.kind(), io::ErrorKind::NotFound);
                    }
                    (o, _) => panic!("job {seen}: {o:?}"),
                }
                seen += 1;
                Ok(())
            },
        )
        .unwrap();
        assert_eq!(seen, expected.len(), "every job once");
    }

    /// A sink's error stops the run and is returned; nothing waits forever.
    #[test]
    fn a_sink_error_stops_the_run() {
        let tmp = mbhash_test_support::TempDir::new("mbhash-streams", "stop");
        let big = tmp.0.join("big");
        std::fs::write(&big, vec![1u8; 1 << 20]).unwrap();
        let jobs = (0..500).map(|i| Numbered(i, Some(Source::Path(big.clone()))));
        let settings = Settings {
            chunk: 4096,
            in_flight: 16 << 10,
            window: 4,
            ..Settings::new(2)
        };
        let mut calls = 0;
        let service = HashService::builder();
        let r = run(
            service,
            Algo::Sha256,
            settings,
            jobs,
            &Progress::hidden(),
            |_, _| {
                calls += 1;
                if calls == 3 {
                    return Err(io::Error::other("sink full"));
                }
                Ok(())
            },
        );
        assert_eq!(r.unwrap_err().to_string(), "sink full");
        assert_eq!(calls, 3);
    }
}
