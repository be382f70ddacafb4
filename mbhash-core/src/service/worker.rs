//! A worker thread: drains its queues into batches and hashes each batch
//! through job managers scoped to it.

use std::cell::Cell;
use std::collections::HashSet;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;
use std::sync::atomic::Ordering;

use crossbeam_channel::{Receiver, select};

use super::Inner;
use super::algo::{Engines, ServiceAlgorithm, Streams};
use super::reply::{Chunk, Reason, Task};
use crate::StreamHasher;
use crate::algo::{Algo, Digest};
use crate::manager::{Context, Flags, JobManager, Status};

thread_local! {
    /// The service whose worker this thread is (its `Inner` address), or 0.
    static WORKER_OF: Cell<usize> = const { Cell::new(0) };
}

/// True if the calling thread is one of `inner`'s workers.
pub(crate) fn on_worker_of(inner: &Arc<Inner>) -> bool {
    WORKER_OF.with(Cell::get) == Arc::as_ptr(inner) as usize
}

/// True if the calling thread is a worker of any [`HashService`](super::HashService):
/// where its replies (callbacks) run, and where waiting for room in a
/// service's queue could wait for this very thread.
pub fn on_worker_thread() -> bool {
    WORKER_OF.with(Cell::get) != 0
}

/// A message on a worker queue.
pub(crate) enum Msg {
    /// One job, from `submit`.
    Job(Algo, Box<dyn Task>),
    /// Several jobs of one algorithm, from `submit_batch`.
    Jobs(Algo, Vec<Box<dyn Task>>),
    /// A step of a stream; stream steps go to the stream's own worker.
    Stream { id: u64, algo: Algo, op: StreamOp },
    /// The last message on a worker's own queue, sent once the service is
    /// closed and no send is under way: drain the shared queue and exit.
    Stop,
}

/// A step of a stream.
pub(crate) enum StreamOp {
    /// The next chunk.
    Update(Box<dyn Chunk>),
    /// The end: pad, finish and reply.
    Finish(Box<dyn Task>),
    /// The stream was dropped unfinished: forget it.
    Abort,
}

impl Msg {
    fn jobs(&self) -> usize {
        match self {
            Msg::Jobs(_, tasks) => tasks.len(),
            _ => 1,
        }
    }

    /// The bytes to hash, for the batch cap (a buffer whose `AsRef`
    /// panics counts 0 here; it fails when the batch is hashed).
    fn bytes(&self) -> usize {
        let len = |data: Option<&[u8]>| data.map_or(0, <[u8]>::len);
        match self {
            Msg::Job(_, t) => len(task_data(&**t)),
            Msg::Jobs(_, tasks) => tasks.iter().map(|t| len(task_data(&**t))).sum(),
            Msg::Stream {
                op: StreamOp::Update(c),
                ..
            } => len(chunk_data(&**c)),
            Msg::Stream { .. } | Msg::Stop => 0,
        }
    }
}

/// A task's bytes, or `None` if the caller's `AsRef` panicked (caught).
fn task_data(task: &dyn Task) -> Option<&[u8]> {
    catch_unwind(AssertUnwindSafe(|| task.data())).ok()
}

/// A chunk's bytes, or `None` if the caller's `AsRef` panicked (caught).
fn chunk_data(chunk: &dyn Chunk) -> Option<&[u8]> {
    catch_unwind(AssertUnwindSafe(|| chunk.bytes())).ok()
}

/// A batch entry of one algorithm.
enum Item {
    Job(Box<dyn Task>),
    Update(u64, Box<dyn Chunk>),
    Finish(u64, Box<dyn Task>),
    Abort(u64),
}

impl Item {
    fn stream(&self) -> Option<u64> {
        match self {
            Item::Job(_) => None,
            Item::Update(id, _) | Item::Finish(id, _) | Item::Abort(id) => Some(*id),
        }
    }
}

/// Counts of one batch, added to the service's statistics.
#[derive(Default)]
struct Tally {
    completed: u64,
    cancelled: u64,
    failed: u64,
    panics: u64,
}

pub(crate) struct Worker {
    inner: Arc<Inner>,
    shared: Receiver<Msg>,
    own: Receiver<Msg>,
    engines: Engines,
    streams: Streams,
    /// Streams whose state was lost to a panic (a chunk's `AsRef`, or a bug
    /// while hashing): their next steps are dropped and their finish fails.
    poisoned: HashSet<(Algo, u64)>,
    buckets: [Vec<Item>; Algo::ALL.len()],
}

impl Worker {
    pub(crate) fn new(
        inner: Arc<Inner>,
        shared: Receiver<Msg>,
        own: Receiver<Msg>,
        engines: Engines,
    ) -> Worker {
        Worker {
            inner,
            shared,
            own,
            engines,
            streams: Streams::default(),
            poisoned: HashSet::new(),
            buckets: Default::default(),
        }
    }

    /// Runs until told to stop, then drains the shared queue and returns.
    pub(crate) fn run(mut self) {
        WORKER_OF.with(|w| w.set(Arc::as_ptr(&self.inner) as usize));
        let mut batch = Vec::new();
        let mut stop = false;
        while !stop {
            // Block only when there is nothing at all to do. (The service
            // holds the senders until every worker is gone: a receive fails
            // only if it was dropped unstopped, a bug; stop then.)
            let first = select! {
                recv(self.own) -> m => m.unwrap_or(Msg::Stop),
                recv(self.shared) -> m => m.unwrap_or(Msg::Stop),
            };
            // Then take whatever else is queued, up to the caps, and run it
            // at once: lanes fill under load, a lone job runs alone.
            stop = self.fill(&mut batch, Some(first));
            self.process(&mut batch);
        }
        // Closed, and every send done: what is left in the shared queue is
        // all there will be. Other workers may take part of it.
        loop {
            self.fill(&mut batch, None);
            if batch.is_empty() {
                break;
            }
            self.process(&mut batch);
        }
    }

    /// Without worker threads: hashes whatever is queued, on the calling
    /// thread, until the queues are empty (stops are for threads: ignored).
    pub(crate) fn drain(&mut self) {
        let outer = WORKER_OF.with(|w| w.replace(Arc::as_ptr(&self.inner) as usize));
        let mut batch = Vec::new();
        loop {
            self.fill(&mut batch, None);
            if batch.is_empty() {
                break;
            }
            self.process(&mut batch);
        }
        WORKER_OF.with(|w| w.set(outer));
    }

    /// Adds `first` and whatever is queued to `batch`, up to the caps;
    /// returns true if the worker's stop came.
    fn fill(&mut self, batch: &mut Vec<Msg>, first: Option<Msg>) -> bool {
        let (max_jobs, max_bytes) = (self.inner.max_batch_jobs, self.inner.max_batch_bytes);
        let (mut jobs, mut bytes) = (0, 0);
        let mut stop = false;
        let mut next = first;
        loop {
            match next {
                Some(Msg::Stop) => stop = true,
                Some(msg) => {
                    jobs += msg.jobs();
                    bytes += msg.bytes();
                    batch.push(msg);
                }
                None => {}
            }
            if jobs >= max_jobs || bytes >= max_bytes {
                return stop;
            }
            next = match self.own.try_recv() {
                Ok(msg) => Some(msg),
                Err(_) => match self.shared.try_recv() {
                    Ok(msg) => Some(msg),
                    Err(_) => return stop,
                },
            };
        }
    }

    /// Hashes a batch and delivers its outcomes.
    fn process(&mut self, batch: &mut Vec<Msg>) {
        for msg in batch.drain(..) {
            match msg {
                Msg::Job(algo, task) => self.buckets[algo.index()].push(Item::Job(task)),
                Msg::Jobs(algo, tasks) => {
                    self.buckets[algo.index()].extend(tasks.into_iter().map(Item::Job))
                }
                Msg::Stream { id, algo, op } => self.buckets[algo.index()].push(match op {
                    StreamOp::Update(chunk) => Item::Update(id, chunk),
                    StreamOp::Finish(task) => Item::Finish(id, task),
                    StreamOp::Abort => Item::Abort(id),
                }),
                Msg::Stop => unreachable!("a stop is not batched"),
            }
        }
        let cancel = self.inner.cancel.load(Ordering::Acquire);
        let mut tally = Tally::default();
        for algo in Algo::ALL {
            let mut items = core::mem::take(&mut self.buckets[algo.index()]);
            if !items.is_empty() {
                let digests = if cancel {
                    self.forget_streams(algo, &items);
                    vec![Err(Reason::ShutDown); items.len()]
                } else {
                    self.hash(algo, &items)
                };
                Self::deliver(&mut items, digests, &mut tally, &self.inner);
            }
            self.buckets[algo.index()] = items;
        }
        let stats = &self.inner.stats;
        stats
            .callback_panics
            .fetch_add(tally.panics, Ordering::Relaxed);
    }

    /// Hashes the items of one algorithm; a digest for every finished job,
    /// or why it has none.
    fn hash(&mut self, algo: Algo, items: &[Item]) -> Vec<Result<Digest, Reason>> {
        // Each item's bytes, read once through the caller's `AsRef` (which
        // may panic); then the steps of poisoned streams are not hashed:
        // dropped, or failed. A chunk that panics poisons its stream.
        let mut data: Vec<Option<&[u8]>> = Vec::with_capacity(items.len());
        let mut skip: Vec<bool> = Vec::with_capacity(items.len());
        for item in items {
            let bytes = match item {
                Item::Job(task) => task_data(&**task),
                Item::Update(_, chunk) => chunk_data(&**chunk),
                Item::Finish(..) | Item::Abort(_) => Some(&[][..]),
            };
            let skipped = match item.stream() {
                None => bytes.is_none(),
                Some(id) => {
                    if bytes.is_none() {
                        self.poisoned.insert((algo, id));
                    }
                    let poisoned = self.poisoned.contains(&(algo, id));
                    if poisoned && !matches!(item, Item::Update(..)) {
                        self.poisoned.remove(&(algo, id));
                    }
                    poisoned
                }
            };
            data.push(bytes);
            skip.push(skipped);
        }
        let run = catch_unwind(AssertUnwindSafe(
            || crate::with_algo!(algo, A => hash_items::<A>(&self.engines, &mut self.streams, items, &data, &skip)),
        ));
        match run {
            Ok(digests) => {
                // A poisoned stream that goes on has no state to go on from.
                for (item, &skipped) in items.iter().zip(&skip) {
                    if let (Item::Update(id, _), true) = (item, skipped) {
                        self.streams.remove(algo, *id);
                    }
                }
                digests
                    .into_iter()
                    .map(|d| d.ok_or(Reason::Panicked))
                    .collect()
            }
            Err(_) => {
                // A bug in the hashing path: hand every buffer back rather
                // than lose a job, and never let a stream go on from a state
                // that may be wrong.
                for id in items.iter().filter_map(Item::stream) {
                    self.streams.remove(algo, id);
                    self.poisoned.insert((algo, id));
                }
                for item in items {
                    if let Item::Finish(id, _) | Item::Abort(id) = item {
                        self.poisoned.remove(&(algo, *id));
                    }
                }
                vec![Err(Reason::Panicked); items.len()]
            }
        }
    }

    /// Cancels: the streams of the finish and abort steps are forgotten.
    fn forget_streams(&mut self, algo: Algo, items: &[Item]) {
        for item in items {
            if let Item::Finish(id, _) | Item::Abort(id) = item {
                self.streams.remove(algo, *id);
                self.poisoned.remove(&(algo, *id));
            }
        }
    }

    /// Hands every job's outcome to its reply, each exactly once; a reply
    /// that panics, or a chunk whose drop panics, is counted and the others
    /// go on.
    fn deliver(
        items: &mut Vec<Item>,
        digests: Vec<Result<Digest, Reason>>,
        tally: &mut Tally,
        inner: &Inner,
    ) {
        let mut batch = Tally::default();
        for (item, d) in items.iter().zip(&digests) {
            if let Item::Job(_) | Item::Finish(..) = item {
                match d {
                    Ok(_) => batch.completed += 1,
                    Err(Reason::ShutDown) => batch.cancelled += 1,
                    Err(Reason::Panicked) => batch.failed += 1,
                }
            }
        }
        // Counted before the replies run, so a caller that saw its outcome
        // sees it counted.
        let stats = &inner.stats;
        stats.batches.fetch_add(1, Ordering::Relaxed);
        stats
            .completed
            .fetch_add(batch.completed, Ordering::Relaxed);
        stats
            .cancelled
            .fetch_add(batch.cancelled, Ordering::Relaxed);
        stats.failed.fetch_add(batch.failed, Ordering::Relaxed);
        for (item, digest) in items.drain(..).zip(digests) {
            let run = catch_unwind(AssertUnwindSafe(move || match item {
                Item::Job(task) | Item::Finish(_, task) => task.complete(digest),
                // A stream chunk's buffer is dropped here, once hashed.
                other => drop(other),
            }));
            if run.is_err() {
                tally.panics += 1;
            }
        }
    }
}

/// Runs the items of algorithm `A` through job managers; returns, per item,
/// the digest of a finished job or stream.
///
/// Every one-shot job gets a context of its own; a stream's steps share the
/// stream's context, taken from the worker's table and put back unless the
/// stream ended. Steps of one stream go in successive rounds (a context is in
/// one manager at a time); everything else goes in the first round, into one
/// manager that fills its lanes.
fn hash_items<A: ServiceAlgorithm>(
    engines: &Engines,
    streams: &mut Streams,
    items: &[Item],
    data: &[Option<&[u8]>],
    skip: &[bool],
) -> Vec<Option<Digest>> {
    let engine = A::engine(engines);
    let mut digests = vec![None; items.len()];
    if let ([Item::Job(_)], [Some(bytes)], [false]) = (items, data, skip) {
        // A lone job: the one-stream path, without lanes to manage.
        let mut hasher = StreamHasher::<A>::with_engine(engine);
        hasher.update(bytes);
        digests[0] = Some(Digest::of::<A>(&hasher.finalize_reset_output()));
        return digests;
    }
    let table = A::table(streams);
    let mut ctxs: Vec<Context<A>> = Vec::with_capacity(items.len());
    // Per item: its context and its round. Per stream: its context and
    // whether it ends in this batch.
    let mut place: Vec<(usize, usize)> = Vec::with_capacity(items.len());
    let mut open: Vec<(u64, usize, bool)> = Vec::new();
    let mut steps: Vec<usize> = Vec::with_capacity(items.len());
    for (item, &skip) in items.iter().zip(skip) {
        let slot = match item.stream() {
            None => {
                ctxs.push(Context::new());
                steps.push(0);
                ctxs.len() - 1
            }
            Some(id) => match open.iter_mut().find(|(s, _, _)| *s == id) {
                Some((_, slot, ends)) => {
                    *ends |= !matches!(item, Item::Update(..));
                    *slot
                }
                None => {
                    ctxs.push(table.remove(&id).unwrap_or_default());
                    steps.push(0);
                    open.push((id, ctxs.len() - 1, !matches!(item, Item::Update(..))));
                    ctxs.len() - 1
                }
            },
        };
        let round = if skip || matches!(item, Item::Abort(_)) {
            usize::MAX
        } else {
            steps[slot] += 1;
            steps[slot] - 1
        };
        place.push((slot, round));
    }
    let rounds = steps.iter().copied().max().unwrap_or(0);
    let mut pick: Vec<Option<usize>> = vec![None; ctxs.len()];
    for round in 0..rounds {
        pick.fill(None);
        for (k, &(slot, r)) in place.iter().enumerate() {
            if r == round {
                pick[slot] = Some(k);
            }
        }
        let mut manager = JobManager::<A>::with_engine(engine);
        let mut record = |done: &mut Context<A>| {
            if let Some(out) = done.digest() {
                digests[done.id() as usize] = Some(Digest::of::<A>(&out));
            }
        };
        for (ctx, k) in ctxs.iter_mut().zip(&pick) {
            let Some(k) = *k else { continue };
            let fresh = ctx.status() == Status::New;
            // Skipped items (no bytes) are in no round.
            let bytes = data[k].expect("an item in a round has its bytes");
            let flags = match &items[k] {
                Item::Job(_) => Flags::ENTIRE,
                Item::Update(..) if fresh => Flags::FIRST,
                Item::Update(..) => Flags::UPDATE,
                Item::Finish(..) if fresh => Flags::ENTIRE,
                Item::Finish(..) => Flags::LAST,
                Item::Abort(_) => unreachable!("aborts are not submitted"),
            };
            ctx.set_id(k as u64);
            // Cannot be refused: valid flags, a context not in flight, FIRST
            // on a new stream, and no stream reaches u64::MAX bytes.
            match manager.submit(ctx, bytes, flags) {
                Ok(Some(done)) => record(done),
                Ok(None) => {}
                Err(e) => panic!("mbhash service: {e}"),
            }
        }
        while let Some(done) = manager.flush() {
            record(done);
        }
    }
    for (id, slot, ends) in open {
        if !ends {
            table.insert(id, core::mem::take(&mut ctxs[slot]));
        }
    }
    digests
}
