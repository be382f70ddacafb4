//! A threaded hashing service: submit owned buffers from any thread, get
//! digests back.
//!
//! [`HashService`] runs worker threads (by default one per available core).
//! Any thread submits a job: an [`Algo`] and an owned buffer (any
//! `AsRef<[u8]> + Send + 'static`: `Vec<u8>`, `Arc<[u8]>`, `bytes::Bytes`,
//! `Box<[u8]>`, a pooled buffer type of your own). The outcome comes back,
//! with the buffer, through a [`Handle`] ([`HashService::submit`], then
//! [`Handle::wait`]), a callback ([`HashService::submit_with`]) or a
//! channel you supply ([`HashService::submit_to`] and the [`Reply`] trait).
//! Batches go in with [`HashService::submit_batch`]. Every accepted job gets
//! exactly one [`Outcome`]: [`Done`] (the [`Digest`] and the buffer), or
//! [`Cancelled`] (the buffer and the [`Reason`]) if the service was shut
//! down with [`Shutdown::Cancel`] first, or if the buffer's `AsRef`
//! panicked.
//!
//! ```
//! use mbhash_core::service::{Algo, HashService};
//!
//! let service = HashService::builder().workers(2).build().unwrap();
//!
//! // A handle.
//! let done = service.submit(Algo::Sha256, b"abc".to_vec()).unwrap().wait().unwrap();
//! assert_eq!(done.digest, Algo::Sha256.digest(b"abc"));
//! assert_eq!(done.buf, b"abc"); // the buffer comes back
//!
//! // A channel (`submit_with` takes a callback instead).
//! let (tx, rx) = std::sync::mpsc::channel();
//! for i in 0..10u8 {
//!     service.submit_to(Algo::Sha512_256, vec![i; 1000], tx.clone()).unwrap();
//! }
//! for _ in 0..10 {
//!     let done = rx.recv().unwrap().unwrap();
//!     assert_eq!(done.digest, Algo::Sha512_256.digest(&done.buf));
//! }
//!
//! // A stream in several chunks, on one worker.
//! let mut stream = service.stream(Algo::Sha384);
//! stream.update(b"hello ".to_vec()).unwrap();
//! stream.update(std::sync::Arc::<[u8]>::from(&b"world"[..])).unwrap();
//! let digest = stream.finish().wait().unwrap().digest;
//! assert_eq!(digest, Algo::Sha384.digest(b"hello world"));
//!
//! // Finish every accepted job and join the workers (dropping does the same).
//! service.shutdown(mbhash_core::service::Shutdown::Finish);
//! ```
//!
//! # Scheduling
//!
//! The workers are work-conserving: a worker blocks on its queues only when
//! it has nothing to do. Otherwise it takes whatever is queued (up to
//! [`Builder::max_batch`]: 64 jobs or 4 MiB by default), puts the batch into
//! job managers scoped to it (one per algorithm present; the managers borrow
//! the batch's buffers, nothing is copied), flushes them, hands back every
//! outcome, and loops. It never waits for lanes to fill: a lone job runs at
//! once, on the one-stream path (SHA-NI where present); a few jobs run on the
//! thin-lane kernels the `auto` engine's plan picks per call; under load,
//! jobs queue up while a batch runs, so the next batch fills the lanes.
//!
//! Lone-request latency, measured on the project's development machine (2
//! cores of an AMD EPYC (Zen 5), shared with other work; release build;
//! 4 KiB requests sent one at a time; medians of 20,000):
//!
//! | SHA-256, 4 KiB | 1 worker | 2 workers |
//! |---|---|---|
//! | direct [`Hasher`](crate::Hasher) call ([`Algo::digest`]) | 2.1 us | 2.1 us |
//! | `submit` + `wait`, requests back to back | 6.5 us | 7-10 us |
//! | `submit` + `wait` after a pause (worker asleep) | 15 us | 15-37 us |
//!
//! For SHA-512/256 (direct: 6.9 us) the round trips were 11.3 us and 15 us
//! with one worker. A lone request costs its hash plus a hand-off between
//! threads (about 4 us while the worker is still awake, 13 us or more when
//! it, and then the caller, must be woken; the spread with two workers is
//! the scheduler of a loaded machine). It never waits for lanes to fill.
//! Under load the batches grow and the lanes fill: `mbhash bench --pipeline`
//! (8 writers of 128 KiB records, on the same machine) measured 0.28 CPU
//! seconds per GB of SHA-256 through the service against 0.51 for each
//! writer hashing with the `sha2` crate, and 0.34 against 1.17 for
//! SHA-512/256, with 12 jobs per batch on average.
//!
//! # Backpressure
//!
//! Queues are bounded ([`Builder::queue_capacity`]). [`HashService::submit`]
//! and its kin wait for room; the `try_` forms never wait and hand the
//! buffer back in [`Rejected::Full`].
//!
//! # Streams
//!
//! [`HashService::stream`] opens a multi-part stream pinned to one worker:
//! its chunks ([`Stream::update`]) are hashed in order, and
//! [`Stream::finish`] returns a handle to its digest. A chunk's buffer is
//! dropped on the worker once hashed (a pooled buffer type can return itself
//! to its pool in `Drop`). Dropping a stream unfinished discards it.
//!
//! # Shutdown and faults
//!
//! [`HashService::shutdown`] closes the service (later submits are
//! [`Rejected::ShutDown`]) and joins the workers after they have finished
//! every accepted job, or, with [`Shutdown::Cancel`], after they have handed
//! back the jobs they had not started as [`Cancelled`]. Dropping the service
//! shuts it down with [`Shutdown::Finish`]. The caller's code that runs on a
//! worker is contained: a reply (callback) that panics, or a buffer whose
//! `Drop` panics, is caught and counted ([`Stats::callback_panics`]); a
//! buffer whose `AsRef` panics fails its job ([`Reason::Panicked`]; for a
//! stream chunk, the stream's finish); the worker and every other job go
//! on. Replies run on the workers, so they should be short and must not wait
//! on the service (use the `try_` forms from a reply). Should hashing itself
//! ever panic (a bug), the jobs of that batch come back [`Cancelled`] rather
//! than be lost.

mod algo;
mod reply;
mod worker;

pub use crate::algo::{Algo, Digest, UnknownAlgo};
pub use reply::{Cancelled, Done, Handle, Outcome, Reason, Reply};

use core::fmt;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::thread::JoinHandle;

use crossbeam_channel::{Sender, TrySendError, bounded};
use parking_lot::Mutex;

use crate::engine::{EngineError, Sha256Engine, Sha512Engine};
use algo::Engines;
use reply::{Chunk, Finish, Job, Task};
use worker::{Msg, StreamOp, Worker};

/// Jobs per queue message from [`HashService::submit_batch`].
const BATCH_MSG_JOBS: usize = 16;

/// What [`HashService::shutdown`] does with accepted jobs not yet started.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Shutdown {
    /// Hash them all, then stop.
    Finish,
    /// Hand them back as [`Cancelled`], then stop. Jobs already being hashed
    /// still finish.
    Cancel,
}

/// A job the service did not accept, with its buffer.
pub enum Rejected<B> {
    /// The queue was full (only from the `try_` forms).
    Full(B),
    /// The service is shut down.
    ShutDown(B),
}

impl<B> Rejected<B> {
    /// The buffer that was submitted.
    pub fn into_inner(self) -> B {
        match self {
            Rejected::Full(b) | Rejected::ShutDown(b) => b,
        }
    }

    /// True for [`Rejected::Full`].
    pub fn is_full(&self) -> bool {
        matches!(self, Rejected::Full(_))
    }

    fn map<C>(self, f: impl FnOnce(B) -> C) -> Rejected<C> {
        match self {
            Rejected::Full(b) => Rejected::Full(f(b)),
            Rejected::ShutDown(b) => Rejected::ShutDown(f(b)),
        }
    }
}

impl<B> fmt::Debug for Rejected<B> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Rejected::Full(_) => f.write_str("Full(..)"),
            Rejected::ShutDown(_) => f.write_str("ShutDown(..)"),
        }
    }
}

impl<B> fmt::Display for Rejected<B> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Rejected::Full(_) => "the hash service's queue is full",
            Rejected::ShutDown(_) => "the hash service is shut down",
        })
    }
}

impl<B> std::error::Error for Rejected<B> {}

/// Counts since the service started. Each batch is counted when its replies
/// are about to run (callback panics once they ran); exact once
/// [`HashService::shutdown`] has returned.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// Jobs (and streams) that got a digest.
    pub completed: u64,
    /// Jobs (and streams) handed back as [`Cancelled`] at a shutdown
    /// ([`Reason::ShutDown`]).
    pub cancelled: u64,
    /// Jobs (and streams) that failed because the caller's buffer panicked
    /// ([`Reason::Panicked`]).
    pub failed: u64,
    /// Replies, and drops of buffers on a worker, that panicked (caught).
    pub callback_panics: u64,
    /// Batches the workers ran, counted once per algorithm in a batch (each
    /// is one set of job managers): `completed / batches` is the mean number
    /// of jobs that shared lanes.
    pub batches: u64,
}

#[derive(Default)]
struct Counters {
    completed: AtomicU64,
    cancelled: AtomicU64,
    failed: AtomicU64,
    callback_panics: AtomicU64,
    batches: AtomicU64,
}

/// Why a service could not start.
#[derive(Debug)]
pub enum BuildError {
    /// The configured engine (an environment variable) is invalid.
    Engine(EngineError),
    /// A worker thread could not be spawned.
    Spawn(std::io::Error),
}

impl fmt::Display for BuildError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BuildError::Engine(e) => write!(f, "hash service: {e}"),
            BuildError::Spawn(e) => write!(f, "hash service: cannot spawn a worker: {e}"),
        }
    }
}

impl std::error::Error for BuildError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            BuildError::Engine(e) => Some(e),
            BuildError::Spawn(e) => Some(e),
        }
    }
}

/// What the service, its streams and its workers share.
pub(crate) struct Inner {
    /// One-shot jobs: any worker takes them.
    shared: Sender<Msg>,
    /// Per worker: the steps of the streams pinned to it, then its stop.
    own: Vec<Sender<Msg>>,
    /// Set by shutdown: no send starts after it.
    closed: AtomicBool,
    /// Sends under way. Shutdown sets `closed`, waits for this to reach
    /// zero, and only then tells the workers to stop, so every accepted
    /// message is in a queue before the workers' last drain.
    sending: AtomicUsize,
    cancel: AtomicBool,
    workers: usize,
    next_stream: AtomicU64,
    max_batch_jobs: usize,
    max_batch_bytes: usize,
    stats: Counters,
}

/// Which queue a message goes to.
#[derive(Clone, Copy)]
enum Queue {
    Shared,
    Worker(usize),
}

/// A send under way (see [`Inner::sending`]).
struct Sending<'a>(&'a Inner);

impl Drop for Sending<'_> {
    fn drop(&mut self) {
        self.0.sending.fetch_sub(1, Ordering::SeqCst);
    }
}

impl Inner {
    /// Registers a send; `None` once closed.
    fn begin_send(&self) -> Option<Sending<'_>> {
        // SeqCst on both sides: either shutdown sees this send counted, or
        // this send sees `closed`.
        self.sending.fetch_add(1, Ordering::SeqCst);
        let sending = Sending(self);
        (!self.closed.load(Ordering::SeqCst)).then_some(sending)
    }

    /// Sends `msg`, waiting for room if `wait`; on refusal the message comes
    /// back with the reason.
    fn send(&self, queue: Queue, msg: Msg, wait: bool) -> Result<(), Rejected<Msg>> {
        let Some(_sending) = self.begin_send() else {
            return Err(Rejected::ShutDown(msg));
        };
        let tx = match queue {
            Queue::Shared => &self.shared,
            Queue::Worker(w) => &self.own[w],
        };
        if wait {
            tx.send(msg).map_err(|e| Rejected::ShutDown(e.into_inner()))
        } else {
            tx.try_send(msg).map_err(|e| match e {
                TrySendError::Full(m) => Rejected::Full(m),
                TrySendError::Disconnected(m) => Rejected::ShutDown(m),
            })
        }
    }

    /// Once closed: waits for the sends under way, then queues each
    /// worker's stop behind everything it was sent.
    fn stop_workers(&self) {
        while self.sending.load(Ordering::SeqCst) != 0 {
            // A send waiting for room: the workers are draining.
            std::thread::sleep(std::time::Duration::from_micros(50));
        }
        for tx in &self.own {
            let _ = tx.send(Msg::Stop);
        }
    }
}

/// Configures and starts a [`HashService`].
#[derive(Clone, Debug)]
pub struct Builder {
    workers: Option<usize>,
    queue_capacity: usize,
    max_batch_jobs: usize,
    max_batch_bytes: usize,
    sha256: Option<Sha256Engine>,
    sha512: Option<Sha512Engine>,
}

impl Default for Builder {
    fn default() -> Self {
        Builder {
            workers: None,
            queue_capacity: 1024,
            max_batch_jobs: 64,
            max_batch_bytes: 4 << 20,
            sha256: None,
            sha512: None,
        }
    }
}

impl Builder {
    /// Worker threads (at least 1). Default: the available cores.
    pub fn workers(mut self, n: usize) -> Self {
        self.workers = Some(n.max(1));
        self
    }

    /// Messages each queue holds (at least 1; default 1024): the shared
    /// queue of one-shot jobs, and each worker's queue of stream steps. A
    /// batch submit takes one place per 16 jobs.
    pub fn queue_capacity(mut self, n: usize) -> Self {
        self.queue_capacity = n.max(1);
        self
    }

    /// The most a worker takes into one batch: `jobs` jobs (at least 1) or
    /// about `bytes` bytes (it stops taking once it has that many), whichever
    /// comes first. Defaults: 64 jobs, 4 MiB. Larger batches fill lanes
    /// better; smaller ones hand back outcomes sooner.
    pub fn max_batch(mut self, jobs: usize, bytes: usize) -> Self {
        self.max_batch_jobs = jobs.max(1);
        self.max_batch_bytes = bytes.max(1);
        self
    }

    /// The engine for SHA-256 and SHA-224 (default: the configured one).
    pub fn sha256_engine(mut self, engine: Sha256Engine) -> Self {
        self.sha256 = Some(engine);
        self
    }

    /// The engine for the SHA-512 family (default: the configured one).
    pub fn sha512_engine(mut self, engine: Sha512Engine) -> Self {
        self.sha512 = Some(engine);
        self
    }

    /// Starts the workers.
    ///
    /// # Errors
    /// An invalid engine environment variable (when no engine was given), or
    /// a thread that cannot be spawned.
    pub fn build(self) -> Result<HashService, BuildError> {
        let engines = Engines {
            sha256: match self.sha256 {
                Some(e) => e,
                None => Sha256Engine::try_configured().map_err(BuildError::Engine)?,
            },
            sha512: match self.sha512 {
                Some(e) => e,
                None => Sha512Engine::try_configured().map_err(BuildError::Engine)?,
            },
        };
        let workers = self.workers.unwrap_or_else(|| {
            std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get)
        });
        let (shared_tx, shared_rx) = bounded(self.queue_capacity);
        let (own_tx, own_rx): (Vec<_>, Vec<_>) =
            (0..workers).map(|_| bounded(self.queue_capacity)).unzip();
        let inner = Arc::new(Inner {
            shared: shared_tx,
            own: own_tx,
            closed: AtomicBool::new(false),
            sending: AtomicUsize::new(0),
            cancel: AtomicBool::new(false),
            workers,
            next_stream: AtomicU64::new(0),
            max_batch_jobs: self.max_batch_jobs,
            max_batch_bytes: self.max_batch_bytes,
            stats: Counters::default(),
        });
        let service = HashService {
            inner: inner.clone(),
            threads: Mutex::new(Vec::with_capacity(workers)),
        };
        for (i, own) in own_rx.into_iter().enumerate() {
            let worker = Worker::new(inner.clone(), shared_rx.clone(), own, engines);
            let thread = std::thread::Builder::new()
                .name(format!("mbhash-{i}"))
                .spawn(move || worker.run())
                .map_err(BuildError::Spawn)?;
            service.threads.lock().push(thread);
        }
        Ok(service)
    }
}

/// Worker threads that hash jobs submitted from any thread.
///
/// See the [module documentation](self). The service is `Send + Sync`: share
/// it by reference (scoped threads) or in an `Arc`.
///
/// ```
/// use mbhash_core::service::{Algo, HashService};
///
/// let service = HashService::new();
/// // Owned buffers in, each back with its digest; here from four threads.
/// std::thread::scope(|s| {
///     for t in 0..4u8 {
///         let service = &service;
///         s.spawn(move || {
///             let handle = service.submit(Algo::Sha256, vec![t; 64 << 10]).unwrap();
///             let done = handle.wait().unwrap();
///             assert_eq!(done.digest, Algo::Sha256.digest(&done.buf));
///         });
///     }
/// });
/// ```
pub struct HashService {
    inner: Arc<Inner>,
    threads: Mutex<Vec<JoinHandle<()>>>,
}

impl fmt::Debug for HashService {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("HashService")
            .field("workers", &self.inner.workers)
            .field("shut_down", &self.is_shut_down())
            .field("stats", &self.stats())
            .finish()
    }
}

impl Default for HashService {
    fn default() -> Self {
        Self::new()
    }
}

impl HashService {
    /// A service with the default configuration (see [`Builder`]).
    ///
    /// An invalid engine environment variable means `auto` here, as in
    /// every infallible constructor ([`Builder::build`] returns it as an
    /// error).
    ///
    /// # Panics
    /// If a thread cannot be spawned ([`Builder::build`] returns it as an
    /// error).
    pub fn new() -> Self {
        let builder = Self::builder()
            .sha256_engine(Sha256Engine::configured())
            .sha512_engine(Sha512Engine::configured());
        match builder.build() {
            Ok(s) => s,
            Err(e) => panic!("{e}"),
        }
    }

    /// A [`Builder`] with the defaults.
    pub fn builder() -> Builder {
        Builder::default()
    }

    /// The number of worker threads.
    pub fn workers(&self) -> usize {
        self.inner.workers
    }

    /// Submits a job; waits for room in the queue. The handle's
    /// [`Handle::wait`] returns the outcome.
    ///
    /// # Errors
    /// [`Rejected::ShutDown`] with the buffer, once shut down.
    pub fn submit<B>(&self, algo: Algo, buf: B) -> Result<Handle<B>, Rejected<B>>
    where
        B: AsRef<[u8]> + Send + 'static,
    {
        let (handle, promise) = Handle::new();
        self.enqueue(algo, buf, promise, true).map(|()| handle)
    }

    /// Like [`HashService::submit`], but never waits.
    ///
    /// # Errors
    /// [`Rejected::Full`] or [`Rejected::ShutDown`], with the buffer.
    pub fn try_submit<B>(&self, algo: Algo, buf: B) -> Result<Handle<B>, Rejected<B>>
    where
        B: AsRef<[u8]> + Send + 'static,
    {
        let (handle, promise) = Handle::new();
        self.enqueue(algo, buf, promise, false).map(|()| handle)
    }

    /// Submits a job whose outcome goes to `callback`, run on the worker
    /// thread (see [`Reply`] for what a callback may do). Waits for room in
    /// the queue.
    ///
    /// # Errors
    /// [`Rejected::ShutDown`] with the buffer, once shut down (`callback` is
    /// dropped unused).
    pub fn submit_with<B, F>(&self, algo: Algo, buf: B, callback: F) -> Result<(), Rejected<B>>
    where
        B: AsRef<[u8]> + Send + 'static,
        F: FnOnce(Outcome<B>) + Send + 'static,
    {
        self.enqueue(algo, buf, callback, true)
    }

    /// Like [`HashService::submit_with`], but never waits.
    ///
    /// # Errors
    /// [`Rejected::Full`] or [`Rejected::ShutDown`], with the buffer
    /// (`callback` is dropped unused).
    pub fn try_submit_with<B, F>(&self, algo: Algo, buf: B, callback: F) -> Result<(), Rejected<B>>
    where
        B: AsRef<[u8]> + Send + 'static,
        F: FnOnce(Outcome<B>) + Send + 'static,
    {
        self.enqueue(algo, buf, callback, false)
    }

    /// Submits a job whose outcome goes to `reply`: the sending half of a
    /// channel you own, or anything else implementing [`Reply`]. Waits for
    /// room in the queue.
    ///
    /// # Errors
    /// [`Rejected::ShutDown`] with the buffer, once shut down (`reply` is
    /// dropped unused).
    pub fn submit_to<B, R>(&self, algo: Algo, buf: B, reply: R) -> Result<(), Rejected<B>>
    where
        B: AsRef<[u8]> + Send + 'static,
        R: Reply<B>,
    {
        self.enqueue(algo, buf, reply, true)
    }

    /// Like [`HashService::submit_to`], but never waits.
    ///
    /// # Errors
    /// [`Rejected::Full`] or [`Rejected::ShutDown`], with the buffer
    /// (`reply` is dropped unused).
    pub fn try_submit_to<B, R>(&self, algo: Algo, buf: B, reply: R) -> Result<(), Rejected<B>>
    where
        B: AsRef<[u8]> + Send + 'static,
        R: Reply<B>,
    {
        self.enqueue(algo, buf, reply, false)
    }

    /// Submits many jobs of one algorithm: fewer queue operations than one
    /// submit each, and the jobs reach the workers together. Waits for room.
    /// Returns a handle per buffer, in order.
    ///
    /// # Errors
    /// [`Rejected::ShutDown`] with every buffer, once shut down: a batch is
    /// accepted whole or not at all.
    pub fn submit_batch<B, I>(
        &self,
        algo: Algo,
        bufs: I,
    ) -> Result<Vec<Handle<B>>, Rejected<Vec<B>>>
    where
        B: AsRef<[u8]> + Send + 'static,
        I: IntoIterator<Item = B>,
    {
        let mut handles = Vec::new();
        let jobs = bufs.into_iter().map(|buf| {
            let (handle, promise) = Handle::new();
            handles.push(handle);
            Job {
                buf,
                reply: promise,
            }
        });
        self.enqueue_batch(algo, jobs)?;
        Ok(handles)
    }

    /// Submits many jobs of one algorithm, each outcome going to a clone of
    /// `callback`, run on a worker thread. Waits for room.
    ///
    /// # Errors
    /// As [`HashService::submit_batch`].
    pub fn submit_batch_with<B, I, F>(
        &self,
        algo: Algo,
        bufs: I,
        callback: F,
    ) -> Result<(), Rejected<Vec<B>>>
    where
        B: AsRef<[u8]> + Send + 'static,
        I: IntoIterator<Item = B>,
        F: FnOnce(Outcome<B>) + Clone + Send + 'static,
    {
        self.submit_batch_to(algo, bufs, callback)
    }

    /// Submits many jobs of one algorithm, each outcome going to a clone of
    /// `reply` (e.g. a channel's sender). Waits for room.
    ///
    /// # Errors
    /// As [`HashService::submit_batch`].
    pub fn submit_batch_to<B, I, R>(
        &self,
        algo: Algo,
        bufs: I,
        reply: R,
    ) -> Result<(), Rejected<Vec<B>>>
    where
        B: AsRef<[u8]> + Send + 'static,
        I: IntoIterator<Item = B>,
        R: Reply<B> + Clone,
    {
        let jobs = bufs.into_iter().map(|buf| Job {
            buf,
            reply: reply.clone(),
        });
        self.enqueue_batch(algo, jobs)
    }

    /// Opens a multi-part stream; all its steps run on one worker, in order.
    pub fn stream(&self, algo: Algo) -> Stream {
        let id = self.inner.next_stream.fetch_add(1, Ordering::Relaxed);
        Stream {
            inner: self.inner.clone(),
            id,
            worker: (id % self.inner.workers as u64) as usize,
            algo,
            open: true,
        }
    }

    /// Closes the service and joins its workers: with [`Shutdown::Finish`]
    /// after every accepted job is done, with [`Shutdown::Cancel`] after the
    /// jobs not yet started are handed back as [`Cancelled`]. Returns the
    /// final counts. Later submits are [`Rejected::ShutDown`]; a second call
    /// waits for the first.
    ///
    /// Called from a reply running on one of this service's workers, it
    /// closes the service and returns at once: the workers finish on their
    /// own (a later call from another thread joins them).
    pub fn shutdown(&self, mode: Shutdown) -> Stats {
        if mode == Shutdown::Cancel {
            self.inner.cancel.store(true, Ordering::SeqCst);
        }
        let first = !self.inner.closed.swap(true, Ordering::SeqCst);
        if worker::on_worker_of(&self.inner) {
            // Waiting here could wait for this very worker (a send waiting
            // for room in its queue): stop the workers from another thread.
            if first {
                let inner = self.inner.clone();
                let stopper = std::thread::Builder::new()
                    .name("mbhash-stop".into())
                    .spawn(move || inner.stop_workers());
                if stopper.is_err() {
                    self.inner.stop_workers();
                }
            }
            return self.stats();
        }
        if first {
            self.inner.stop_workers();
        }
        let mut threads = self.threads.lock();
        for thread in threads.drain(..) {
            // A worker does not panic: replies and hashing run under
            // catch_unwind.
            let _ = thread.join();
        }
        drop(threads);
        self.stats()
    }

    /// True once [`HashService::shutdown`] has been called.
    pub fn is_shut_down(&self) -> bool {
        self.inner.closed.load(Ordering::SeqCst)
    }

    /// The counts so far.
    pub fn stats(&self) -> Stats {
        let c = &self.inner.stats;
        Stats {
            completed: c.completed.load(Ordering::Relaxed),
            cancelled: c.cancelled.load(Ordering::Relaxed),
            failed: c.failed.load(Ordering::Relaxed),
            callback_panics: c.callback_panics.load(Ordering::Relaxed),
            batches: c.batches.load(Ordering::Relaxed),
        }
    }

    fn enqueue<B, R>(&self, algo: Algo, buf: B, reply: R, wait: bool) -> Result<(), Rejected<B>>
    where
        B: AsRef<[u8]> + Send + 'static,
        R: Reply<B>,
    {
        let task: Box<dyn Task> = Box::new(Job { buf, reply });
        self.inner
            .send(Queue::Shared, Msg::Job(algo, task), wait)
            .map_err(|rejected| {
                rejected.map(|msg| match msg {
                    Msg::Job(_, task) => job_buf::<B, R>(task),
                    _ => unreachable!("the message sent"),
                })
            })
    }

    fn enqueue_batch<B, R>(
        &self,
        algo: Algo,
        jobs: impl Iterator<Item = Job<B, R>>,
    ) -> Result<(), Rejected<Vec<B>>>
    where
        B: AsRef<[u8]> + Send + 'static,
        R: Reply<B>,
    {
        // One registered send for the whole batch: accepted whole or not
        // at all.
        let Some(_sending) = self.inner.begin_send() else {
            return Err(Rejected::ShutDown(jobs.map(|j| j.buf).collect()));
        };
        let mut jobs = jobs.peekable();
        while jobs.peek().is_some() {
            let tasks: Vec<Box<dyn Task>> = jobs
                .by_ref()
                .take(BATCH_MSG_JOBS)
                .map(|j| Box::new(j) as Box<dyn Task>)
                .collect();
            if let Err(e) = self.inner.shared.send(Msg::Jobs(algo, tasks)) {
                // Only if every worker is gone, which cannot happen before
                // shutdown (replies and hashing run under catch_unwind).
                let Msg::Jobs(_, tasks) = e.into_inner() else {
                    unreachable!("the message sent")
                };
                let mut bufs: Vec<B> = tasks.into_iter().map(job_buf::<B, R>).collect();
                bufs.extend(jobs.map(|j| j.buf));
                return Err(Rejected::ShutDown(bufs));
            }
        }
        Ok(())
    }
}

impl Drop for HashService {
    fn drop(&mut self) {
        self.shutdown(Shutdown::Finish);
    }
}

/// The buffer of a refused job.
fn job_buf<B, R>(task: Box<dyn Task>) -> B
where
    B: AsRef<[u8]> + Send + 'static,
    R: Reply<B>,
{
    match task.into_any().downcast::<Job<B, R>>() {
        Ok(job) => job.buf,
        Err(_) => unreachable!("a refused job has the type it was sent with"),
    }
}

/// A multi-part hash stream on a [`HashService`]: chunks go, in order, to
/// the one worker that holds the stream's state.
///
/// Dropping a stream without [`Stream::finish`] discards it.
pub struct Stream {
    inner: Arc<Inner>,
    id: u64,
    worker: usize,
    algo: Algo,
    open: bool,
}

impl fmt::Debug for Stream {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Stream")
            .field("algo", &self.algo)
            .field("worker", &self.worker)
            .finish_non_exhaustive()
    }
}

impl Stream {
    /// The stream's algorithm.
    pub fn algo(&self) -> Algo {
        self.algo
    }

    /// Appends `buf` to the stream; waits for room in the queue. The buffer
    /// is dropped on the worker once hashed.
    ///
    /// # Errors
    /// [`Rejected::ShutDown`] with the buffer, once the service is shut down.
    pub fn update<B>(&mut self, buf: B) -> Result<(), Rejected<B>>
    where
        B: AsRef<[u8]> + Send + 'static,
    {
        self.send_chunk(buf, true)
    }

    /// Like [`Stream::update`], but never waits.
    ///
    /// # Errors
    /// [`Rejected::Full`] or [`Rejected::ShutDown`], with the buffer; the
    /// stream is unchanged.
    pub fn try_update<B>(&mut self, buf: B) -> Result<(), Rejected<B>>
    where
        B: AsRef<[u8]> + Send + 'static,
    {
        self.send_chunk(buf, false)
    }

    /// Ends the stream; the handle's outcome holds the digest of every chunk
    /// in order. If the service was shut down first, the outcome is
    /// [`Cancelled`].
    pub fn finish(self) -> Handle<()> {
        let (handle, promise) = Handle::new();
        self.finish_to(promise);
        handle
    }

    /// Ends the stream; the outcome goes to `callback`, run on the worker. If
    /// the service is already shut down, `callback` gets [`Cancelled`] at
    /// once, on this thread.
    pub fn finish_with<F>(self, callback: F)
    where
        F: FnOnce(Outcome<()>) + Send + 'static,
    {
        self.finish_to(callback);
    }

    /// Ends the stream; the outcome goes to `reply` (e.g. a channel's
    /// sender). If the service is already shut down, `reply` gets
    /// [`Cancelled`] at once, on this thread.
    pub fn finish_to<R: Reply<()>>(mut self, reply: R) {
        self.open = false;
        let op = StreamOp::Finish(Box::new(Finish(reply)));
        if let Err(rejected) = self.send(op, true) {
            let task = match rejected.into_inner() {
                Msg::Stream {
                    op: StreamOp::Finish(task),
                    ..
                } => task,
                _ => unreachable!("the message sent"),
            };
            task.complete(Err(Reason::ShutDown));
        }
    }

    fn send_chunk<B>(&mut self, buf: B, wait: bool) -> Result<(), Rejected<B>>
    where
        B: AsRef<[u8]> + Send + 'static,
    {
        let chunk: Box<dyn Chunk> = Box::new(buf);
        self.send(StreamOp::Update(chunk), wait)
            .map_err(|rejected| {
                rejected.map(|msg| match msg {
                    Msg::Stream {
                        op: StreamOp::Update(chunk),
                        ..
                    } => match chunk.into_any().downcast::<B>() {
                        Ok(buf) => *buf,
                        Err(_) => unreachable!("a refused chunk has the type it was sent with"),
                    },
                    _ => unreachable!("the message sent"),
                })
            })
    }

    fn send(&self, op: StreamOp, wait: bool) -> Result<(), Rejected<Msg>> {
        let msg = Msg::Stream {
            id: self.id,
            algo: self.algo,
            op,
        };
        self.inner.send(Queue::Worker(self.worker), msg, wait)
    }
}

impl Drop for Stream {
    fn drop(&mut self) {
        if self.open {
            // On a worker (a reply dropping a stream), never wait for that
            // worker's own queue: at worst the state lingers until shutdown.
            let wait = !worker::on_worker_of(&self.inner);
            let _ = self.send(StreamOp::Abort, wait);
        }
    }
}
