//! Configuring and starting a [`HashService`].

use std::any::Any;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize};

use crossbeam_channel::bounded;
use parking_lot::Mutex;

use super::HashService;
use super::algo::Engines;
use super::error::BuildError;
use super::queue::{Counters, Inner};
use super::worker::Worker;
use crate::alg::{Algorithm, Family};
use crate::engine::{Sha256Engine, Sha512Engine};

/// Configures and starts a [`HashService`].
#[derive(Clone, Debug)]
pub struct Builder {
    workers: Option<usize>,
    queue_capacity: usize,
    max_batch_jobs: usize,
    max_batch_bytes: usize,
    sha256: Option<Sha256Engine>,
    sha512: Option<Sha512Engine>,
    /// Refuse to build when the engine environment variable is invalid.
    pub(super) check_env: bool,
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
            check_env: true,
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

    /// The engine of `A`'s family: [`Builder::sha256_engine`] or
    /// [`Builder::sha512_engine`], for code generic over the algorithm.
    pub fn engine_of<A: Algorithm>(mut self, engine: <A::Family as Family>::Engine) -> Self {
        let engine: &dyn Any = &engine;
        if let Some(e) = engine.downcast_ref::<Sha256Engine>() {
            self.sha256 = Some(*e);
        } else if let Some(e) = engine.downcast_ref::<Sha512Engine>() {
            self.sha512 = Some(*e);
        } else {
            // The families are sealed: each has one of these engines.
            unreachable!("a family without a service engine");
        }
        self
    }

    /// Whether [`Builder::build`] refuses an invalid engine environment
    /// variable of a family given no engine (default: true). With false,
    /// such a family runs `auto`, as in [`HashService::new`]: for a caller
    /// that hashes one family and has checked its engine itself.
    pub fn check_env(mut self, check: bool) -> Self {
        self.check_env = check;
        self
    }

    /// Starts the workers.
    ///
    /// # Errors
    /// An invalid engine environment variable (when no engine was given), or
    /// a thread that cannot be spawned.
    pub fn build(self) -> Result<HashService, BuildError> {
        // Without a given engine, the workers follow the default engine
        // (checked here, as configured by the environment).
        if self.check_env {
            if self.sha256.is_none() {
                Sha256Engine::try_configured().map_err(BuildError::Engine)?;
            }
            if self.sha512.is_none() {
                Sha512Engine::try_configured().map_err(BuildError::Engine)?;
            }
        }
        let engines = Engines {
            sha256: self.sha256,
            sha512: self.sha512,
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
