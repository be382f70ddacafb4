//! A threaded hashing service: submit owned buffers from any thread, get
//! digests back.
//!
//! [`HashService`] runs worker threads (by default one per available core).
//! Any thread submits a job: an [`Algo`] and an owned buffer (any
//! `AsRef<[u8]> + Send + 'static`: `Vec<u8>`, `Arc<[u8]>`, `bytes::Bytes`,
//! `Box<[u8]>`, a pooled buffer type of your own). The outcome comes back,
//! with the buffer, through a [`Handle`] ([`HashService::submit`], then
//! [`Handle::wait`]), or a [`Reply`] ([`HashService::submit_to`]): a
//! callback run on the worker, or a channel you supply.
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
//! // A channel (or a callback: `submit_to` takes any `Reply`).
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
//! | direct [`StreamHasher`](crate::StreamHasher) call ([`Algo::digest`]) | 2.1 us | 2.1 us |
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
//! # Bounded memory and results in order
//!
//! A caller that reads its data (files, sockets) faster than the workers
//! hash it bounds what is in flight with a [`BufferPool`]: its
//! [`BufferPool::take`] waits while the buffers out hold the pool's limit,
//! and each [`PoolBuf`] goes back when dropped (a stream chunk once hashed;
//! a job's buffer when the caller drops it, e.g. in its reply). Outcomes
//! that must come out in the order of the jobs (a list of files) go through
//! [`ordered`]: a [`Slot`] taken in order is the job's reply, and
//! [`InOrder`] hands the outcomes on in slot order, holding back at most a
//! window of them. `mbhash sum` is built this way: reader threads fill
//! pooled buffers, a file that fits in one buffer is one job, a larger one
//! a stream, and the digests are printed in operand order.
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
//! on the service (use the `try_` forms from a reply; [`on_worker_thread`]
//! tells a caller that it is on a worker, as the C library's blocking submit
//! checks). Should hashing itself
//! ever panic (a bug), the jobs of that batch come back [`Cancelled`] rather
//! than be lost.

mod algo;
mod builder;
mod error;
mod ordered;
mod pool;
mod queue;
mod reply;
mod stream;
mod worker;

pub use crate::algo::{Algo, Digest, UnknownAlgo};
pub use builder::{Builder, THREAD_ROOM, room_for_a_thread};
pub use error::{BuildError, Rejected};
pub use ordered::{InOrder, Lost, RecvTimeout, Sequencer, Slot, ordered};
pub use pool::{BufferPool, PoolBuf};
pub use queue::{Shutdown, Stats};
pub use reply::{Cancelled, Done, Handle, Outcome, Reason, Reply};
pub use stream::Stream;
pub use worker::on_worker_thread;

use core::fmt;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::thread::JoinHandle;

use parking_lot::Mutex;

use queue::{Inner, Queue};
use reply::{Job, Task};
use worker::Msg;

/// Jobs per queue message from [`HashService::submit_batch`].
const BATCH_MSG_JOBS: usize = 16;

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
    pub(crate) inner: Arc<Inner>,
    pub(crate) threads: Mutex<Vec<JoinHandle<()>>>,
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
    /// With fewer worker threads than cores if the system would not start
    /// them, or none (see [`Builder::workers`]).
    pub fn new() -> Self {
        let mut builder = Self::builder();
        builder.check_env = false;
        match builder.build() {
            Ok(s) => s,
            Err(e) => panic!("{e}"),
        }
    }

    /// A [`Builder`] with the defaults.
    pub fn builder() -> Builder {
        Builder::default()
    }

    /// The number of worker threads: those asked for
    /// ([`Builder::workers`]), or fewer if the system would not start them
    /// all; 0 if it started none: jobs are then hashed on the threads that
    /// submit them.
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

    /// Submits a job whose outcome goes to `reply`: a callback
    /// `FnOnce(Outcome<B>)` run on the worker thread, the sending half of a
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
    /// `reply` (a channel's sender, or a callback run on a worker). Waits
    /// for room.
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
            worker: (id % self.inner.own.len() as u64) as usize,
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
        // Without threads: what is left, then the worker (which holds the
        // service's state) goes.
        let mut inline = self.inner.inline.lock();
        if let Some(worker) = inline.as_mut() {
            worker.drain();
        }
        *inline = None;
        drop(inline);
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
        drop(_sending);
        self.inner.run_inline();
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
