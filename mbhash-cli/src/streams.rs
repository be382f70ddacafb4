//! Many inputs hashed at once as independent streams of the job manager.
//!
//! `J` worker threads take jobs from one shared queue. Each keeps up to a
//! few lanes' worth of inputs open and works in rounds: it reads the next
//! chunk of every open input into that input's own buffer, submits every
//! chunk to a job manager made for the round (`FIRST`, `UPDATE`, `LAST`, or
//! `ENTIRE` for an input read whole), flushes it and drops it. The contexts
//! outlive the round; finished inputs are replaced from the queue. Results go
//! to the calling thread, which hands them on in job order, holding back only
//! the ones that finish early (at most a window of jobs is taken ahead of the
//! oldest one not yet handed on). Memory is bounded by `J * streams * chunk`
//! plus the window, whatever the number and sizes of the inputs.
//!
//! A run of a single input has nothing to put beside it: it is one stream
//! on the one-stream kernel, with a reader thread filling buffers while the
//! calling thread hashes the previous one.

use std::collections::VecDeque;
use std::io::{self, Read};
use std::num::NonZeroU64;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::mpsc;
use std::sync::{Condvar, Mutex};

use mbhash_core::alg::{Algorithm, Family};
use mbhash_core::engine::LaneEngine;
use mbhash_core::{Context, Flags, Hasher, JobManager};

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
    Stdin(io::Stdin),
    Empty,
}

impl Reader {
    fn file(&self) -> Option<&files::Opened> {
        match self {
            Reader::File(f) => Some(f),
            _ => None,
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

/// Fills `buf` from `r` until it is full or the input ends; returns the
/// bytes read and whether the input ended, or the bytes read before the
/// error and the error.
fn fill(r: &mut impl Read, buf: &mut [u8]) -> Result<(usize, bool), (usize, io::Error)> {
    let mut n = 0;
    while n < buf.len() {
        match r.read(&mut buf[n..]) {
            Ok(0) => return Ok((n, true)),
            Ok(k) => n += k,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err((n, e)),
        }
    }
    Ok((n, false))
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
pub trait Job: Send {
    /// The input to hash; `None` for a job that only marks a place in the
    /// output (it is handed back in order with no outcome).
    fn source(&self) -> Option<&Source>;
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
pub type Outcome<A> = Option<io::Result<Hashed<<A as Algorithm>::Output>>>;

/// How the work is spread.
#[derive(Debug, Clone, Copy)]
pub struct Settings {
    /// Worker threads (at least 1).
    pub threads: usize,
    /// Bytes read per input per round.
    pub chunk: usize,
    /// Bytes per read of a lone input (fewer hand-overs between the reader
    /// and the hashing thread).
    pub one_stream_chunk: usize,
    /// Inputs a worker keeps open, per lane of the engine.
    pub streams_per_lane: usize,
    /// Drop each file's pages from the page cache once hashed.
    pub no_cache: bool,
    /// Check whether each file changed while it was read.
    pub warn_changed: bool,
}

impl Settings {
    /// Defaults for `threads` workers.
    pub fn new(threads: usize) -> Self {
        Settings {
            threads: threads.max(1),
            chunk: 256 << 10,
            one_stream_chunk: 1 << 20,
            streams_per_lane: 2,
            no_cache: false,
            warn_changed: false,
        }
    }
}

/// Hashes every job's input and calls `sink` with each job and its outcome,
/// in job order. `sink` returning an error stops the run and returns it.
pub fn run<A, T, I, F>(
    engine: EngineOf<A>,
    settings: Settings,
    jobs: I,
    progress: &Progress,
    mut sink: F,
) -> io::Result<()>
where
    A: Algorithm,
    T: Job,
    I: Iterator<Item = T> + Send,
    F: FnMut(T, Outcome<A>) -> io::Result<()>,
{
    // Look ahead a little: a run with a single input (among jobs with
    // nothing to hash, such as the lines around it in a checksum list) is
    // one stream.
    const LOOKAHEAD: usize = 64;
    let mut jobs = jobs.fuse();
    let mut prefix = Vec::new();
    let mut inputs = 0;
    let mut ended = true;
    for job in jobs.by_ref() {
        inputs += usize::from(job.source().is_some());
        prefix.push(job);
        if inputs > 1 || prefix.len() >= LOOKAHEAD {
            ended = false;
            break;
        }
    }
    if ended && inputs <= 1 {
        for job in prefix {
            let outcome = job
                .source()
                .map(|src| one_stream::<A>(engine, settings, src, progress));
            sink(job, outcome)?;
        }
        return Ok(());
    }
    many::<A, T, _, F>(
        engine,
        settings,
        prefix.into_iter().chain(jobs),
        progress,
        sink,
    )
}

/// Opens a source for the one-stream path.
fn open_one(src: &Source, settings: Settings) -> io::Result<Reader> {
    Ok(match src {
        Source::Stdin => Reader::Stdin(io::stdin()),
        Source::StdinAgain => Reader::Empty,
        Source::Path(p) => {
            match files::open(p, &files::Budget::new(1), true, settings.warn_changed) {
                files::Open::Done(f) => Reader::File(f),
                files::Open::Failed(e) => return Err(e),
                files::Open::Later => unreachable!("a waiting open is never put off"),
            }
        }
    })
}

/// One input on the one-stream kernel; with two threads or more, a reader
/// thread fills the next buffer while this one hashes.
fn one_stream<A: Algorithm>(
    engine: EngineOf<A>,
    settings: Settings,
    src: &Source,
    progress: &Progress,
) -> io::Result<Hashed<A::Output>> {
    const BUFFERS: usize = 3;
    let mut reader = open_one(src, settings)?;
    let mut hasher = Hasher::<A>::with_engine(engine);
    let chunk = settings.one_stream_chunk.max(1);
    let mut offset = 0u64;
    if settings.threads < 2 {
        let mut buf = vec![0u8; chunk];
        loop {
            let (n, end) =
                fill(&mut reader, &mut buf).map_err(|(n, e)| read_error(offset + n as u64, e))?;
            hasher.update(&buf[..n]);
            progress.add(n as u64);
            offset += n as u64;
            if settings.no_cache
                && let Some(f) = reader.file()
            {
                drop_pages(f, (!end).then_some(offset));
            }
            if end {
                return Ok(Hashed {
                    digest: hasher.finalize_reset_output(),
                    changed: settings.warn_changed && reader.file().is_some_and(changed),
                });
            }
        }
    }
    std::thread::scope(|s| {
        // A buffer, its bytes, and at the input's end whether it changed.
        type Filled = Result<(Vec<u8>, usize, Option<bool>), (usize, io::Error)>;
        let (full_tx, full_rx) = mpsc::sync_channel::<Filled>(BUFFERS);
        let (empty_tx, empty_rx) = mpsc::channel::<Vec<u8>>();
        for _ in 0..BUFFERS {
            empty_tx.send(vec![0u8; chunk]).expect("receiver alive");
        }
        s.spawn(move || {
            let mut read = 0u64;
            while let Ok(mut buf) = empty_rx.recv() {
                let msg = fill(&mut reader, &mut buf).map(|(n, end)| {
                    // The bytes are in `buf` now: the cache may let go.
                    read += n as u64;
                    if settings.no_cache
                        && let Some(f) = reader.file()
                    {
                        drop_pages(f, (!end).then_some(read));
                    }
                    let changed =
                        end.then(|| settings.warn_changed && reader.file().is_some_and(changed));
                    (buf, n, changed)
                });
                let stop = !matches!(msg, Ok((_, _, None)));
                if full_tx.send(msg).is_err() || stop {
                    return;
                }
            }
        });
        for msg in full_rx {
            let (buf, n, changed) = msg.map_err(|(n, e)| read_error(offset + n as u64, e))?;
            hasher.update(&buf[..n]);
            progress.add(n as u64);
            offset += n as u64;
            if let Some(changed) = changed {
                return Ok(Hashed {
                    digest: hasher.finalize_reset_output(),
                    changed,
                });
            }
            // The reader may have stopped; then the next receive ends the loop.
            let _ = empty_tx.send(buf);
        }
        Err(io::Error::other("reader thread stopped"))
    })
}

/// The queue of jobs the workers share.
struct Queue<I: Iterator> {
    state: Mutex<QueueState<I>>,
    wake: Condvar,
}

struct QueueState<I: Iterator> {
    jobs: I,
    /// Jobs taken from `jobs` but not yet handed out.
    ahead: VecDeque<I::Item>,
    exhausted: bool,
    /// Index of the next job handed out.
    next: u64,
    /// Jobs the caller has been handed, in order.
    delivered: u64,
    /// Jobs that may be out at once beyond `delivered`.
    window: u64,
    /// Workers with no input open.
    idle: usize,
    /// The caller stopped: workers finish at once.
    stop: bool,
}

enum Take<T> {
    Job(u64, T),
    /// Nothing for this worker now (it has inputs open).
    Later,
    /// No job will come.
    Done,
}

impl<I: Iterator> Queue<I> {
    /// The next job for a worker. A worker with inputs open (`busy`) never
    /// waits and leaves one job for each idle worker, so that a few large
    /// inputs spread over the threads; an idle worker waits for a job.
    fn take(&self, busy: bool, self_idle: bool) -> Take<I::Item> {
        let mut st = self.state.lock().unwrap_or_else(|e| e.into_inner());
        loop {
            if st.stop {
                return Take::Done;
            }
            if st.next < st.delivered + st.window {
                let others_idle = st.idle - usize::from(self_idle);
                let need = if busy { others_idle + 1 } else { 1 };
                while st.ahead.len() < need && !st.exhausted {
                    match st.jobs.next() {
                        Some(job) => st.ahead.push_back(job),
                        None => st.exhausted = true,
                    }
                }
                if st.ahead.len() >= need {
                    let job = st.ahead.pop_front().expect("counted");
                    let i = st.next;
                    st.next += 1;
                    return Take::Job(i, job);
                }
                if st.ahead.is_empty() && st.exhausted {
                    return Take::Done;
                }
            }
            if busy {
                return Take::Later;
            }
            st = self.wake.wait(st).unwrap_or_else(|e| e.into_inner());
        }
    }

    fn set_idle(&self, idle: bool) {
        let mut st = self.state.lock().unwrap_or_else(|e| e.into_inner());
        if idle {
            st.idle += 1;
        } else {
            st.idle -= 1;
        }
    }

    fn delivered(&self, n: u64) {
        let mut st = self.state.lock().unwrap_or_else(|e| e.into_inner());
        st.delivered = n;
        self.wake.notify_all();
    }

    fn stop(&self) {
        let mut st = self.state.lock().unwrap_or_else(|e| e.into_inner());
        st.stop = true;
        self.wake.notify_all();
    }

    fn stopped(&self) -> bool {
        self.state.lock().unwrap_or_else(|e| e.into_inner()).stop
    }
}

type Done<A, T> = (u64, T, Outcome<A>);

fn many<A, T, I, F>(
    engine: EngineOf<A>,
    settings: Settings,
    jobs: I,
    progress: &Progress,
    mut sink: F,
) -> io::Result<()>
where
    A: Algorithm,
    T: Job,
    I: Iterator<Item = T> + Send,
    F: FnMut(T, Outcome<A>) -> io::Result<()>,
{
    let streams = engine.lanes().max(1) * settings.streams_per_lane.max(1);
    let window = (4 * settings.threads * streams).max(1024) as u64;
    let queue = Queue {
        state: Mutex::new(QueueState {
            jobs,
            ahead: VecDeque::new(),
            exhausted: false,
            next: 0,
            delivered: 0,
            window,
            idle: settings.threads,
            stop: false,
        }),
        wake: Condvar::new(),
    };
    let (tx, rx) = mpsc::channel::<Done<A, T>>();
    let budget = Budget::from_limit();
    std::thread::scope(|s| {
        for _ in 0..settings.threads {
            let tx = tx.clone();
            let queue = &queue;
            let budget = budget.clone();
            s.spawn(move || {
                Worker::<A, T> {
                    engine,
                    settings,
                    budget,
                    chunk: settings.chunk.max(1),
                    max_streams: streams,
                    streams: Vec::with_capacity(streams),
                    pending: None,
                    spare: Vec::new(),
                }
                .run(queue, &tx, progress)
            });
        }
        drop(tx);

        // Hand results on in order; hold back those that come early.
        let mut held: VecDeque<Option<(T, Outcome<A>)>> = VecDeque::new();
        let mut delivered = 0u64;
        let mut result = Ok(());
        while let Ok((i, job, outcome)) = rx.recv() {
            if result.is_err() {
                continue;
            }
            let at = (i - delivered) as usize;
            if held.len() <= at {
                held.resize_with(at + 1, || None);
            }
            held[at] = Some((job, outcome));
            let before = delivered;
            while let Some(Some(_)) = held.front() {
                let (job, outcome) = held.pop_front().flatten().expect("checked");
                delivered += 1;
                if let Err(e) = sink(job, outcome) {
                    result = Err(e);
                    queue.stop();
                    break;
                }
            }
            if delivered != before {
                queue.delivered(delivered);
            }
        }
        result
    })
}

/// One open input.
struct Stream<A: Algorithm, T> {
    index: u64,
    job: T,
    reader: Reader,
    ctx: Context<A>,
    buf: Vec<u8>,
    len: usize,
    /// Bytes read before this round's chunk.
    offset: u64,
    started: bool,
    end: bool,
    error: Option<io::Error>,
}

struct Worker<A: Algorithm, T> {
    engine: EngineOf<A>,
    settings: Settings,
    budget: Arc<Budget>,
    chunk: usize,
    max_streams: usize,
    streams: Vec<Stream<A, T>>,
    /// A job taken whose file could not be opened yet for lack of a
    /// descriptor: opened first once this worker's round closed some.
    pending: Option<(u64, T)>,
    /// Buffers of finished inputs, for the next ones.
    spare: Vec<Vec<u8>>,
}

/// What became of an attempt to start a job.
enum Start {
    Started,
    /// Put off: no descriptor free.
    Later,
    /// The caller is gone.
    Gone,
}

impl<A: Algorithm, T: Job> Worker<A, T> {
    fn run<I: Iterator<Item = T>>(
        mut self,
        queue: &Queue<I>,
        tx: &mpsc::Sender<Done<A, T>>,
        progress: &Progress,
    ) {
        let mut idle = true;
        loop {
            // Open inputs up to the limit, the one put off first.
            let mut done = false;
            while self.streams.len() < self.max_streams {
                let (index, job) = match self.pending.take() {
                    Some(p) => p,
                    None => match queue.take(!self.streams.is_empty(), idle) {
                        Take::Job(index, job) => (index, job),
                        Take::Later => break,
                        Take::Done => {
                            done = true;
                            break;
                        }
                    },
                };
                match self.start(index, job, tx) {
                    Start::Started => {}
                    Start::Later => break,
                    Start::Gone => return,
                }
            }
            let now_idle = self.streams.is_empty();
            if now_idle != idle {
                queue.set_idle(now_idle);
                idle = now_idle;
            }
            if now_idle {
                if done && self.pending.is_none() {
                    return;
                }
                continue;
            }
            if queue.stopped() {
                return;
            }
            let bytes = self.round();
            progress.add(bytes);
            if !self.finish(tx) {
                return;
            }
        }
    }

    /// Opens a job's input and adds it to the open streams, or sends its
    /// outcome at once (no input, or the open failed).
    fn start(&mut self, index: u64, job: T, tx: &mpsc::Sender<Done<A, T>>) -> Start {
        let reader = match job.source() {
            None => None,
            Some(Source::Stdin) => Some(Ok(Reader::Stdin(io::stdin()))),
            Some(Source::StdinAgain) => Some(Ok(Reader::Empty)),
            Some(Source::Path(p)) => {
                // With nothing open, wait for a descriptor: others free
                // theirs. With inputs open, never wait (they hold ours).
                let wait = self.streams.is_empty();
                match files::open(p, &self.budget, wait, self.settings.warn_changed) {
                    files::Open::Done(f) => Some(Ok(Reader::File(f))),
                    files::Open::Failed(e) => Some(Err(e)),
                    files::Open::Later => {
                        self.pending = Some((index, job));
                        return Start::Later;
                    }
                }
            }
        };
        match reader {
            None => {
                if tx.send((index, job, None)).is_err() {
                    return Start::Gone;
                }
            }
            Some(Err(e)) => {
                if tx.send((index, job, Some(Err(e)))).is_err() {
                    return Start::Gone;
                }
            }
            Some(Ok(reader)) => {
                let buf = self.spare.pop().unwrap_or_else(|| vec![0; self.chunk]);
                self.streams.push(Stream {
                    index,
                    job,
                    reader,
                    ctx: Context::new(),
                    buf,
                    len: 0,
                    offset: 0,
                    started: false,
                    end: false,
                    error: None,
                });
            }
        }
        Start::Started
    }

    /// Reads the next chunk of every open input and hashes them all;
    /// returns the bytes hashed.
    fn round(&mut self) -> u64 {
        let mut bytes = 0;
        for s in &mut self.streams {
            s.offset += s.len as u64;
            s.len = 0;
            match fill(&mut s.reader, &mut s.buf) {
                Ok((n, end)) => {
                    s.len = n;
                    s.end = end;
                    bytes += n as u64;
                    if self.settings.no_cache
                        && let Some(f) = s.reader.file()
                    {
                        drop_pages(f, (!end).then_some(s.offset + n as u64));
                    }
                }
                Err((n, e)) => s.error = Some(read_error(s.offset + n as u64, e)),
            }
        }
        let mut manager = JobManager::<A>::with_engine(self.engine);
        for s in &mut self.streams {
            let Stream {
                ctx,
                buf,
                len,
                started,
                end,
                error,
                ..
            } = s;
            if error.is_some() {
                continue;
            }
            let flags = match (*started, *end) {
                (false, true) => Flags::ENTIRE,
                (false, false) => Flags::FIRST,
                (true, false) => Flags::UPDATE,
                (true, true) => Flags::LAST,
            };
            *started = true;
            if let Err(e) = manager.submit(ctx, &buf[..*len], flags) {
                *error = Some(io::Error::other(e.kind().as_str()));
            }
        }
        while manager.flush().is_some() {}
        bytes
    }

    /// Sends the finished inputs' results (closing their files); false if
    /// the caller is gone.
    fn finish(&mut self, tx: &mpsc::Sender<Done<A, T>>) -> bool {
        let mut i = 0;
        while i < self.streams.len() {
            let s = &self.streams[i];
            if s.error.is_none() && !s.end {
                i += 1;
                continue;
            }
            let s = self.streams.swap_remove(i);
            let outcome = match s.error {
                Some(e) => Err(e),
                None => match s.ctx.digest() {
                    Some(digest) => Ok(Hashed {
                        digest,
                        changed: self.settings.warn_changed && s.reader.file().is_some_and(changed),
                    }),
                    None => Err(io::Error::other("stream did not complete")),
                },
            };
            drop(s.reader);
            self.spare.push(s.buf);
            if tx.send((s.index, s.job, Some(outcome))).is_err() {
                return false;
            }
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Gives `good` bytes, then fails as a bad disk sector does.
    struct Failing {
        good: usize,
    }

    impl Read for Failing {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            if self.good == 0 {
                return Err(io::Error::from_raw_os_error(5));
            }
            let n = buf.len().min(self.good).min(4000);
            self.good -= n;
            Ok(n)
        }
    }

    #[test]
    fn a_read_error_names_its_byte_offset() {
        let mut r = Failing { good: 10_000 };
        let mut buf = vec![0u8; 8192];
        assert_eq!(fill(&mut r, &mut buf).unwrap(), (8192, false));
        let (n, e) = fill(&mut r, &mut buf).unwrap_err();
        assert_eq!(n, 1808);
        let e = read_error(8192 + n as u64, e);
        assert_eq!(
            e.to_string(),
            "read error at byte 10000: Input/output error"
        );
        // At the first byte, the error as coreutils words it.
        let e = read_error(0, io::Error::from_raw_os_error(21));
        assert_eq!(names::describe(&e), "Is a directory");
    }
}
