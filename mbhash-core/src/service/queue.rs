//! The queues between the callers and the workers, and shutdown: every
//! send is registered, so that a shutdown queues each worker's stop behind
//! every message it accepted.

use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};

use crossbeam_channel::{Sender, TrySendError};

use parking_lot::Mutex;

use super::error::Rejected;
use super::worker::{Msg, Worker};
#[cfg(doc)]
use super::{Cancelled, HashService, Reason};

/// What [`HashService::shutdown`] does with accepted jobs not yet started.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Shutdown {
    /// Hash them all, then stop.
    Finish,
    /// Hand them back as [`Cancelled`], then stop. Jobs already being hashed
    /// still finish.
    Cancel,
}

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
pub(crate) struct Counters {
    pub(crate) completed: AtomicU64,
    pub(crate) cancelled: AtomicU64,
    pub(crate) failed: AtomicU64,
    pub(crate) callback_panics: AtomicU64,
    pub(crate) batches: AtomicU64,
}

/// What the service, its streams and its workers share.
pub(crate) struct Inner {
    /// One-shot jobs: any worker takes them.
    pub(crate) shared: Sender<Msg>,
    /// Per worker: the steps of the streams pinned to it, then its stop.
    pub(crate) own: Vec<Sender<Msg>>,
    /// Set by shutdown: no send starts after it.
    pub(crate) closed: AtomicBool,
    /// Sends under way. Shutdown sets `closed`, waits for this to reach
    /// zero, and only then tells the workers to stop, so every accepted
    /// message is in a queue before the workers' last drain.
    pub(crate) sending: AtomicUsize,
    pub(crate) cancel: AtomicBool,
    pub(crate) workers: usize,
    pub(crate) next_stream: AtomicU64,
    pub(crate) max_batch_jobs: usize,
    pub(crate) max_batch_bytes: usize,
    pub(crate) stats: Counters,
    /// With no worker thread: the one worker, run by the submitting
    /// threads (`None` with threads, and once shut down).
    pub(crate) inline: Mutex<Option<Worker>>,
    /// No worker thread: [`Inner::inline`] is in use (the sends need not
    /// look at it otherwise).
    pub(crate) threadless: bool,
}

/// Which queue a message goes to.
#[derive(Clone, Copy)]
pub(crate) enum Queue {
    Shared,
    Worker(usize),
}

/// A send under way (see [`Inner::sending`]).
pub(crate) struct Sending<'a>(&'a Inner);

impl Drop for Sending<'_> {
    fn drop(&mut self) {
        self.0.sending.fetch_sub(1, Ordering::SeqCst);
    }
}

impl Inner {
    /// Registers a send; `None` once closed.
    pub(crate) fn begin_send(&self) -> Option<Sending<'_>> {
        // SeqCst on both sides: either shutdown sees this send counted, or
        // this send sees `closed`.
        self.sending.fetch_add(1, Ordering::SeqCst);
        let sending = Sending(self);
        (!self.closed.load(Ordering::SeqCst)).then_some(sending)
    }

    /// Sends `msg`, waiting for room if `wait`; on refusal the message comes
    /// back with the reason.
    pub(crate) fn send(&self, queue: Queue, msg: Msg, wait: bool) -> Result<(), Rejected<Msg>> {
        {
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
        }?;
        // Outside the registered send: a reply run here may shut down.
        self.run_inline();
        Ok(())
    }

    /// With no worker thread: hashes what is queued, on the calling thread,
    /// until the queues are empty. A call while another thread is at it
    /// (or this one, from a reply) returns at once: that one goes on until
    /// the queues are empty, this message included.
    pub(crate) fn run_inline(&self) {
        if !self.threadless {
            return;
        }
        loop {
            {
                let Some(mut worker) = self.inline.try_lock() else {
                    return;
                };
                let Some(worker) = worker.as_mut() else {
                    return;
                };
                worker.drain();
            }
            // A message sent while this thread held the worker, by a thread
            // that found it held: this thread takes it.
            if self.shared.is_empty() && self.own.iter().all(Sender::is_empty) {
                return;
            }
        }
    }

    /// Once closed: waits for the sends under way, then queues each
    /// worker's stop behind everything it was sent.
    pub(crate) fn stop_workers(&self) {
        while self.sending.load(Ordering::SeqCst) != 0 {
            // A send waiting for room: the workers are draining.
            std::thread::sleep(std::time::Duration::from_micros(50));
        }
        for tx in &self.own {
            let _ = tx.send(Msg::Stop);
        }
    }
}
