//! Configuring and starting a [`HashService`].

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize};

use crossbeam_channel::{bounded, unbounded};
use parking_lot::Mutex;

use super::HashService;
use super::algo::Engines;
use super::error::BuildError;
use super::queue::{Counters, Inner};
use super::worker::Worker;
use crate::engine::{AnyEngine, LaneEngine, Sha256Engine, Sha512Engine};
use crate::engine::{FamilyEngine, HashAlgorithm};

/// A worker thread's stack.
const STACK: usize = 2 << 20;

/// Address space that must be free for a worker thread to be started: its
/// stack, and as much again for what the thread maps as it starts (the
/// standard library's signal stack: a thread that cannot map it aborts
/// the process, so a thread is only started with room for it).
pub const THREAD_ROOM: usize = 2 * STACK;

/// True if [`THREAD_ROOM`] bytes of address space are free now: under
/// `RLIMIT_AS` (Linux), the limit less what the process maps; and
/// [`THREAD_ROOM`] bytes can be allocated (and are given back).
pub fn room_for_a_thread() -> bool {
    #[cfg(target_os = "linux")]
    if address_space_left().is_some_and(|left| left < THREAD_ROOM as u64) {
        return false;
    }
    Vec::<u8>::new().try_reserve_exact(THREAD_ROOM).is_ok()
}

/// The address space left under `RLIMIT_AS`: the limit less the process's
/// `VmSize`; `None` without a limit or without `/proc`. The allocation
/// alone does not tell: the allocator may serve it from memory it already
/// holds (glibc raises its mmap threshold after a large block is freed, so
/// the probe's own block comes back from the heap), and say there is room
/// where a new thread's stack or signal stack cannot be mapped.
#[cfg(target_os = "linux")]
fn address_space_left() -> Option<u64> {
    let limit = rustix::process::getrlimit(rustix::process::Resource::As).current?;
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let kib: u64 = status
        .lines()
        .find_map(|l| l.strip_prefix("VmSize:"))?
        .trim()
        .strip_suffix("kB")?
        .trim()
        .parse()
        .ok()?;
    Some(limit.saturating_sub(kib.saturating_mul(1024)))
}

/// Configures and starts a [`HashService`].
#[derive(Clone, Debug)]
pub struct Builder {
    workers: Option<usize>,
    queue_capacity: usize,
    max_batch_jobs: usize,
    max_batch_bytes: usize,
    engines: Engines,
    /// Refuse to build when the engine environment variable is invalid.
    pub(super) check_env: bool,
    /// Tests: spawning worker `i` fails for every `i` at or past this.
    #[cfg(test)]
    fail_spawn_from: Option<usize>,
}

impl Default for Builder {
    fn default() -> Self {
        Builder {
            workers: None,
            queue_capacity: 1024,
            max_batch_jobs: 64,
            max_batch_bytes: 4 << 20,
            engines: Engines::default(),
            check_env: true,
            #[cfg(test)]
            fail_spawn_from: None,
        }
    }
}

impl Builder {
    /// Worker threads, at most (at least 1). Default: the available cores.
    ///
    /// [`Builder::build`] starts as many of them as the system lets it: a
    /// thread that cannot be spawned (`RLIMIT_NPROC`, the kernel's thread
    /// limit, or less than [`THREAD_ROOM`] of address space left under
    /// `RLIMIT_AS`) leaves the service with the workers started before it,
    /// which serve every submit and stream as `n` would, with less
    /// parallelism. If not one starts, the service has no thread: each
    /// submit (and stream step) hashes what is queued on the submitting
    /// thread before it returns (a reply then runs on that thread; one that
    /// submits is served after it returns), and the queues never fill (the
    /// `try_` forms are never [`Rejected::Full`](super::Rejected::Full)).
    /// [`HashService::workers`] says how many threads run (0 for none).
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
    pub fn sha256_engine(self, engine: Sha256Engine) -> Self {
        self.engine(engine.into_any())
    }

    /// The engine for the SHA-512 family (default: the configured one).
    pub fn sha512_engine(self, engine: Sha512Engine) -> Self {
        self.engine(engine.into_any())
    }

    /// The engine for its family (default: the family's configured one).
    pub fn engine(mut self, engine: AnyEngine) -> Self {
        self.engines.set(engine);
        self
    }

    /// The engine of `A`'s family, for code generic over the algorithm.
    pub fn engine_of<A: HashAlgorithm>(self, engine: <A::Family as FamilyEngine>::Engine) -> Self {
        self.engine(engine.into_any())
    }

    /// Whether [`Builder::build`] refuses an invalid engine environment
    /// variable of a family given no engine (default: true). With false,
    /// such a family runs `auto`, as in [`HashService::new`]: for a caller
    /// that hashes one family and has checked its engine itself.
    pub fn check_env(mut self, check: bool) -> Self {
        self.check_env = check;
        self
    }

    /// Starts the workers: as many as asked, or as many as could be spawned
    /// before the first that could not, maybe none (see
    /// [`Builder::workers`]).
    ///
    /// # Errors
    /// An invalid engine environment variable (when no engine was given).
    pub fn build(self) -> Result<HashService, BuildError> {
        // Without a given engine, the workers follow the default engine
        // (checked here, as configured by the environment).
        if self.check_env {
            self.engines.check_env().map_err(BuildError::Engine)?;
        }
        let engines = self.engines;
        let asked = self.workers.unwrap_or_else(|| {
            std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get)
        });
        // The queues first (nothing is allocated once the threads may have
        // taken what the address space had left), then the threads, each
        // waiting for its worker: the queues of threads that did not start
        // are dropped, the stream placement is sized to those that did.
        let (shared_tx, shared_rx) = bounded(self.queue_capacity);
        let (mut own_tx, mut own_rx): (Vec<_>, Vec<_>) =
            (0..asked).map(|_| bounded(self.queue_capacity)).unzip();
        let (mut hand_over, waits): (Vec<_>, Vec<_>) =
            (0..asked).map(|_| bounded::<Worker>(1)).unzip();
        let mut threads = Vec::with_capacity(asked);
        for (i, rx) in waits.into_iter().enumerate() {
            match self.spawn(i, move || {
                // No worker comes only if the build failed: nothing to run.
                if let Ok(worker) = rx.recv() {
                    worker.run();
                }
            }) {
                Ok(thread) => threads.push(thread),
                // The first thread that cannot start: the later ones would
                // not either.
                Err(_) => break,
            }
        }
        let workers = threads.len();
        hand_over.truncate(workers);
        own_tx.truncate(workers);
        own_rx.truncate(workers);
        let (shared_tx, shared_rx) = if workers == 0 {
            // No thread: the submitting threads run the one worker after
            // each send, so a queue never waits (nor fills: unbounded).
            let (tx, rx) = unbounded();
            own_tx.push(tx);
            own_rx.push(rx);
            unbounded()
        } else {
            (shared_tx, shared_rx)
        };
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
            inline: Mutex::new(None),
            threadless: workers == 0,
        });
        if workers == 0 {
            let own = own_rx.pop().expect("the inline worker's queue");
            let worker = Worker::new(inner.clone(), shared_rx.clone(), own, engines);
            *inner.inline.lock() = Some(worker);
        }
        for (tx, own) in hand_over.into_iter().zip(own_rx) {
            let worker = Worker::new(inner.clone(), shared_rx.clone(), own, engines);
            // The thread waits for it: the send cannot fail.
            let _ = tx.send(worker);
        }
        Ok(HashService {
            inner,
            threads: Mutex::new(threads),
        })
    }

    /// Spawns worker thread `i`.
    fn spawn(
        &self,
        i: usize,
        f: impl FnOnce() + Send + 'static,
    ) -> std::io::Result<std::thread::JoinHandle<()>> {
        #[cfg(test)]
        if self.fail_spawn_from.is_some_and(|from| i >= from) {
            return Err(std::io::ErrorKind::WouldBlock.into());
        }
        if !room_for_a_thread() {
            return Err(std::io::ErrorKind::OutOfMemory.into());
        }
        // The thread says when it has started (its signal stack mapped, its
        // first allocation made) before the next is considered: room that
        // a thread is still about to take is not free for the next one.
        let (up, is_up) = std::sync::mpsc::sync_channel::<()>(1);
        let thread = std::thread::Builder::new()
            .name(format!("mbhash-{i}"))
            .stack_size(STACK)
            .spawn(move || {
                std::hint::black_box(Box::new(0u8));
                let _ = up.send(());
                f()
            })?;
        let _ = is_up.recv();
        Ok(thread)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::algo::Algo;

    /// Worker threads that cannot be spawned leave a service of the ones
    /// that started, which hashes jobs, batches and streams as a full one;
    /// with none started the build fails.
    #[test]
    fn fewer_workers_than_asked_still_serve() {
        for started in [1, 3] {
            let mut builder = Builder::default().workers(8);
            builder.fail_spawn_from = Some(started);
            let service = builder.build().unwrap();
            assert_eq!(service.workers(), started);
            let data: Vec<Vec<u8>> = (0..100u8).map(|i| vec![i; usize::from(i) * 37]).collect();
            let handles = service.submit_batch(Algo::Sha256, data.clone()).unwrap();
            for (h, d) in handles.into_iter().zip(&data) {
                assert_eq!(h.wait().unwrap().digest, Algo::Sha256.digest(d));
            }
            // More streams than workers: each pinned to one that runs.
            let streams: Vec<_> = (0..10u8)
                .map(|i| {
                    let mut s = service.stream(Algo::Sha512);
                    s.update(vec![i; 5000]).unwrap();
                    s.update(vec![i; 3]).unwrap();
                    (i, s.finish())
                })
                .collect();
            for (i, h) in streams {
                let mut want = vec![i; 5000];
                want.extend([i; 3]);
                assert_eq!(h.wait().unwrap().digest, Algo::Sha512.digest(&want));
            }
            let one = service.submit(Algo::Sha384, b"abc".to_vec()).unwrap();
            assert_eq!(one.wait().unwrap().digest, Algo::Sha384.digest(b"abc"));
            let stats = service.shutdown(crate::service::Shutdown::Finish);
            assert_eq!(stats.completed, 111);
        }
    }

    /// With no worker thread at all, the submitting threads hash: handles,
    /// batches, streams and callbacks (one that submits again) are all
    /// answered, from several threads at once; shutdown finishes or cancels
    /// what is left, and later submits are refused.
    #[test]
    fn no_worker_thread_hashes_on_the_submitting_threads() {
        use crate::service::{Outcome, Rejected, Shutdown};
        use std::sync::mpsc;
        let mut builder = Builder::default().workers(4).queue_capacity(2);
        builder.fail_spawn_from = Some(0);
        let service = builder.build().unwrap();
        assert_eq!(service.workers(), 0);
        std::thread::scope(|s| {
            for t in 0..3u8 {
                let service = &service;
                s.spawn(move || {
                    // More than the queue capacity: nothing waits for room.
                    let data: Vec<Vec<u8>> = (0..20u8)
                        .map(|i| vec![t ^ i; 100 + 97 * usize::from(i)])
                        .collect();
                    let handles = service.submit_batch(Algo::Sha256, data.clone()).unwrap();
                    for (h, d) in handles.into_iter().zip(&data) {
                        assert_eq!(h.wait().unwrap().digest, Algo::Sha256.digest(d));
                    }
                    let mut st = service.stream(Algo::Sha224);
                    for _ in 0..5 {
                        st.update(vec![t; 3000]).unwrap();
                    }
                    let d = st.finish().wait().unwrap().digest;
                    assert_eq!(d, Algo::Sha224.digest(&vec![t; 15_000]));
                });
            }
        });
        // A callback that submits again: served once the callback returns.
        let service = std::sync::Arc::new(service);
        let (tx, rx) = mpsc::channel();
        let svc = service.clone();
        let reply = move |o: Outcome<Vec<u8>>| {
            let done = o.unwrap();
            tx.send(done.digest).unwrap();
            let reply = move |o: Outcome<Vec<u8>>| tx.send(o.unwrap().digest).unwrap();
            svc.submit_to(Algo::Sha512, done.buf, reply).unwrap();
        };
        service
            .submit_to(Algo::Sha384, b"abc".to_vec(), reply)
            .unwrap();
        // Both answered before the submit returned.
        assert_eq!(rx.try_recv().unwrap(), Algo::Sha384.digest(b"abc"));
        assert_eq!(rx.try_recv().unwrap(), Algo::Sha512.digest(b"abc"));
        let stats = service.shutdown(Shutdown::Finish);
        assert_eq!(stats.completed, 3 * 21 + 2);
        assert!(matches!(
            service.submit(Algo::Sha256, vec![1u8]),
            Err(Rejected::ShutDown(_))
        ));
    }
}
