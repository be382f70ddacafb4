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
use std::fs::File;
use std::io::{self, Read};
use std::path::PathBuf;
use std::sync::mpsc;
use std::sync::{Condvar, Mutex};

use mbhash_core::alg::{Algorithm, Family};
use mbhash_core::engine::LaneEngine;
use mbhash_core::{Context, Flags, Hasher, JobManager};

use crate::progress::Progress;

/// The engine type of an algorithm.
pub type EngineOf<A> = <<A as Algorithm>::Family as Family>::Engine;

/// Where an input's bytes come from.
#[derive(Debug, Clone)]
pub enum Source {
    /// Standard input.
    Stdin,
    /// A file.
    Path(PathBuf),
}

impl Source {
    fn open(&self) -> io::Result<Reader> {
        match self {
            Source::Stdin => Ok(Reader::Stdin(io::stdin())),
            Source::Path(p) => File::open(p).map(Reader::File),
        }
    }
}

enum Reader {
    File(File),
    Stdin(io::Stdin),
}

impl Read for Reader {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match self {
            Reader::File(f) => f.read(buf),
            Reader::Stdin(s) => s.read(buf),
        }
    }
}

/// Fills `buf` from `r` until it is full or the input ends; returns the
/// bytes read and whether the input ended.
fn fill(r: &mut impl Read, buf: &mut [u8]) -> io::Result<(usize, bool)> {
    let mut n = 0;
    while n < buf.len() {
        match r.read(&mut buf[n..]) {
            Ok(0) => return Ok((n, true)),
            Ok(k) => n += k,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok((n, false))
}

/// A unit of work: maybe an input to hash, and whatever the caller needs to
/// report it.
pub trait Job: Send {
    /// The input to hash; `None` for a job that only marks a place in the
    /// output (it is handed back in order with no outcome).
    fn source(&self) -> Option<&Source>;
}

/// What became of a job: `None` if it had no input, else the digest or the
/// error that stopped the reading.
pub type Outcome<A> = Option<io::Result<<A as Algorithm>::Output>>;

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
}

impl Settings {
    /// Defaults for `threads` workers.
    pub fn new(threads: usize) -> Self {
        Settings {
            threads: threads.max(1),
            chunk: 256 << 10,
            one_stream_chunk: 1 << 20,
            streams_per_lane: 2,
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

/// One input on the one-stream kernel; with two threads or more, a reader
/// thread fills the next buffer while this one hashes.
fn one_stream<A: Algorithm>(
    engine: EngineOf<A>,
    settings: Settings,
    src: &Source,
    progress: &Progress,
) -> io::Result<A::Output> {
    const BUFFERS: usize = 3;
    let mut reader = src.open()?;
    let mut hasher = Hasher::<A>::with_engine(engine);
    let chunk = settings.one_stream_chunk.max(1);
    if settings.threads < 2 {
        let mut buf = vec![0u8; chunk];
        loop {
            let (n, end) = fill(&mut reader, &mut buf)?;
            hasher.update(&buf[..n]);
            progress.add(n as u64);
            if end {
                return Ok(hasher.finalize_reset_output());
            }
        }
    }
    std::thread::scope(|s| {
        let (full_tx, full_rx) = mpsc::sync_channel::<io::Result<(Vec<u8>, usize, bool)>>(BUFFERS);
        let (empty_tx, empty_rx) = mpsc::channel::<Vec<u8>>();
        for _ in 0..BUFFERS {
            empty_tx.send(vec![0u8; chunk]).expect("receiver alive");
        }
        s.spawn(move || {
            while let Ok(mut buf) = empty_rx.recv() {
                let msg = fill(&mut reader, &mut buf).map(|(n, end)| (buf, n, end));
                let stop = !matches!(msg, Ok((_, _, false)));
                if full_tx.send(msg).is_err() || stop {
                    return;
                }
            }
        });
        for msg in full_rx {
            let (buf, n, end) = msg?;
            hasher.update(&buf[..n]);
            progress.add(n as u64);
            if end {
                return Ok(hasher.finalize_reset_output());
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
    std::thread::scope(|s| {
        for _ in 0..settings.threads {
            let tx = tx.clone();
            let queue = &queue;
            s.spawn(move || {
                Worker::<A, T> {
                    engine,
                    chunk: settings.chunk.max(1),
                    max_streams: streams,
                    streams: Vec::with_capacity(streams),
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
    started: bool,
    end: bool,
    error: Option<io::Error>,
}

struct Worker<A: Algorithm, T> {
    engine: EngineOf<A>,
    chunk: usize,
    max_streams: usize,
    streams: Vec<Stream<A, T>>,
    /// Buffers of finished inputs, for the next ones.
    spare: Vec<Vec<u8>>,
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
            // Open inputs up to the limit.
            let mut done = false;
            while self.streams.len() < self.max_streams {
                match queue.take(!self.streams.is_empty(), idle) {
                    Take::Job(index, job) => {
                        let opened = job.source().map(Source::open);
                        match opened {
                            None => {
                                if tx.send((index, job, None)).is_err() {
                                    return;
                                }
                            }
                            Some(Err(e)) => {
                                if tx.send((index, job, Some(Err(e)))).is_err() {
                                    return;
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
                                    started: false,
                                    end: false,
                                    error: None,
                                });
                            }
                        }
                    }
                    Take::Later => break,
                    Take::Done => {
                        done = true;
                        break;
                    }
                }
            }
            let now_idle = self.streams.is_empty();
            if now_idle != idle {
                queue.set_idle(now_idle);
                idle = now_idle;
            }
            if now_idle {
                if done {
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

    /// Reads the next chunk of every open input and hashes them all;
    /// returns the bytes hashed.
    fn round(&mut self) -> u64 {
        let mut bytes = 0;
        for s in &mut self.streams {
            match fill(&mut s.reader, &mut s.buf) {
                Ok((n, end)) => {
                    s.len = n;
                    s.end = end;
                    bytes += n as u64;
                }
                Err(e) => s.error = Some(e),
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

    /// Sends the finished inputs' results; false if the caller is gone.
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
                None => s
                    .ctx
                    .digest()
                    .ok_or_else(|| io::Error::other("stream did not complete")),
            };
            self.spare.push(s.buf);
            if tx.send((s.index, s.job, Some(outcome))).is_err() {
                return false;
            }
        }
        true
    }
}
