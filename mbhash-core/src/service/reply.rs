//! How a result gets back: outcomes, handles, replies, and the type-erased
//! task a worker runs.

use core::fmt;
use std::any::Any;
use std::sync::Arc;
use std::time::{Duration, Instant};

use parking_lot::{Condvar, Mutex};

use crate::algo::Digest;

/// A finished job: the digest and the buffer, handed back.
pub struct Done<B> {
    /// The digest of the buffer's bytes.
    pub digest: Digest,
    /// The buffer that was submitted.
    pub buf: B,
}

impl<B> fmt::Debug for Done<B> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Done")
            .field("digest", &self.digest)
            .finish_non_exhaustive()
    }
}

/// Why an accepted job ended without a digest.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Reason {
    /// The service was shut down with
    /// [`Shutdown::Cancel`](super::Shutdown::Cancel) before the job ran.
    ShutDown,
    /// Code of the caller panicked while the job was handled: the buffer's
    /// `AsRef` (for a stream, any of its chunks'). The panic was caught; the
    /// worker and the other jobs went on. (Also a panic in mbhash's own
    /// hashing, which would be a bug.)
    Panicked,
}

/// A job that was accepted and then not hashed, and why: the buffer,
/// handed back.
pub struct Cancelled<B> {
    buf: B,
    reason: Reason,
}

impl<B> Cancelled<B> {
    pub(crate) fn new(buf: B, reason: Reason) -> Self {
        Cancelled { buf, reason }
    }

    /// Why the job got no digest.
    pub fn reason(&self) -> Reason {
        self.reason
    }

    /// The buffer that was submitted.
    pub fn buf(&self) -> &B {
        &self.buf
    }

    /// The buffer that was submitted.
    pub fn buf_mut(&mut self) -> &mut B {
        &mut self.buf
    }

    /// The buffer that was submitted.
    pub fn into_inner(self) -> B {
        self.buf
    }
}

impl<B> fmt::Debug for Cancelled<B> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Cancelled")
            .field("reason", &self.reason)
            .finish_non_exhaustive()
    }
}

impl<B> fmt::Display for Cancelled<B> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self.reason {
            Reason::ShutDown => "the hash service was shut down before the job ran",
            Reason::Panicked => "the job's buffer panicked (caught) while the service read it",
        })
    }
}

impl<B> std::error::Error for Cancelled<B> {}

/// What every accepted job ends with, exactly once: a [`Done`] job or a
/// [`Cancelled`] one (with its [`Reason`]), each holding the buffer.
pub type Outcome<B> = Result<Done<B>, Cancelled<B>>;

/// Where an outcome goes, for [`HashService::submit_to`]: the sending half of
/// a channel the caller owns, or a callback run on the worker thread.
///
/// Implemented for closures `FnOnce(Outcome<B>)`, for
/// `std::sync::mpsc::{Sender, SyncSender}<Outcome<B>>` and for
/// `crossbeam_channel::Sender<Outcome<B>>` (crossbeam-channel 0.5). A send to
/// a channel whose receiver is gone drops the outcome (and the buffer); a
/// send to a full bounded channel waits, stalling that worker until the
/// receiver catches up.
///
/// A reply runs on a worker thread: it should be short, and must not block
/// on the service itself (a blocking [`HashService::submit`] from a reply can
/// wait for the very worker that runs it). A reply that panics is caught: the
/// worker and the other jobs go on, and [`Stats::callback_panics`] counts it
/// (as it counts a buffer whose `Drop` panics on the worker).
///
/// [`HashService::submit_to`]: super::HashService::submit_to
/// [`HashService::submit`]: super::HashService::submit
/// [`Stats::callback_panics`]: super::Stats::callback_panics
pub trait Reply<B>: Send + 'static {
    /// Delivers the outcome.
    fn reply(self, outcome: Outcome<B>);
}

impl<B, F> Reply<B> for F
where
    F: FnOnce(Outcome<B>) + Send + 'static,
{
    fn reply(self, outcome: Outcome<B>) {
        self(outcome)
    }
}

impl<B: Send + 'static> Reply<B> for std::sync::mpsc::Sender<Outcome<B>> {
    fn reply(self, outcome: Outcome<B>) {
        let _ = self.send(outcome);
    }
}

impl<B: Send + 'static> Reply<B> for std::sync::mpsc::SyncSender<Outcome<B>> {
    fn reply(self, outcome: Outcome<B>) {
        let _ = self.send(outcome);
    }
}

impl<B: Send + 'static> Reply<B> for crossbeam_channel::Sender<Outcome<B>> {
    fn reply(self, outcome: Outcome<B>) {
        let _ = self.send(outcome);
    }
}

/// The waiting end of a job: [`Handle::wait`] returns its outcome.
///
/// Dropping a handle does not cancel the job; its outcome is dropped when it
/// arrives.
pub struct Handle<B> {
    slot: Arc<Slot<B>>,
}

struct Slot<B> {
    state: Mutex<State<B>>,
    ready: Condvar,
}

enum State<B> {
    Pending,
    Ready(Outcome<B>),
    /// The job was dropped without an outcome: a worker panicked while
    /// hashing it (a bug in mbhash).
    Lost,
    Taken,
}

impl<B> fmt::Debug for Handle<B> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Handle")
            .field("ready", &self.is_ready())
            .finish()
    }
}

impl<B> Handle<B> {
    /// A handle and the promise that fulfils it.
    pub(crate) fn new() -> (Handle<B>, Promise<B>) {
        let slot = Arc::new(Slot {
            state: Mutex::new(State::Pending),
            ready: Condvar::new(),
        });
        (Handle { slot: slot.clone() }, Promise { slot: Some(slot) })
    }

    /// True once the outcome is there ([`Handle::wait`] will not block).
    pub fn is_ready(&self) -> bool {
        !matches!(*self.slot.state.lock(), State::Pending)
    }

    /// Blocks until the job is done (or cancelled) and returns its outcome.
    ///
    /// # Panics
    /// If the job was lost: a worker panicked while hashing it, which is a
    /// bug in mbhash (a panicking callback of another job does not do this).
    pub fn wait(self) -> Outcome<B> {
        let mut state = self.slot.state.lock();
        while matches!(*state, State::Pending) {
            self.slot.ready.wait(&mut state);
        }
        Self::take(&mut state)
    }

    /// Like [`Handle::wait`], giving up after `timeout`: the handle comes
    /// back in the error and can be waited on again.
    ///
    /// # Panics
    /// As [`Handle::wait`].
    pub fn wait_timeout(self, timeout: Duration) -> Result<Outcome<B>, Handle<B>> {
        let deadline = Instant::now().checked_add(timeout);
        {
            let mut state = self.slot.state.lock();
            while matches!(*state, State::Pending) {
                match deadline {
                    Some(d) => {
                        if self.slot.ready.wait_until(&mut state, d).timed_out()
                            && matches!(*state, State::Pending)
                        {
                            break;
                        }
                    }
                    None => self.slot.ready.wait(&mut state),
                }
            }
            if !matches!(*state, State::Pending) {
                return Ok(Self::take(&mut state));
            }
        }
        Err(self)
    }

    fn take(state: &mut State<B>) -> Outcome<B> {
        match core::mem::replace(state, State::Taken) {
            State::Ready(outcome) => outcome,
            State::Lost => panic!("mbhash: the hash service lost this job (a worker panicked)"),
            State::Pending | State::Taken => unreachable!("a handle is waited on once"),
        }
    }
}

/// The fulfilling end of a [`Handle`]. Dropped unfulfilled, it marks the job
/// lost, so that a waiter never blocks forever.
pub(crate) struct Promise<B> {
    slot: Option<Arc<Slot<B>>>,
}

impl<B> Promise<B> {
    fn set(&mut self, state: State<B>) {
        if let Some(slot) = self.slot.take() {
            *slot.state.lock() = state;
            slot.ready.notify_all();
        }
    }
}

impl<B> Drop for Promise<B> {
    fn drop(&mut self) {
        self.set(State::Lost);
    }
}

impl<B: Send + 'static> Reply<B> for Promise<B> {
    fn reply(mut self, outcome: Outcome<B>) {
        self.set(State::Ready(outcome));
    }
}

/// A job as a worker sees it: bytes to hash and a way to hand back the
/// outcome, whatever the buffer and reply types.
pub(crate) trait Task: Send + 'static {
    /// The bytes to hash.
    fn data(&self) -> &[u8];
    /// Delivers the digest (or why there is none) and hands the buffer
    /// back. Runs the caller's reply: may panic.
    fn complete(self: Box<Self>, digest: Result<Digest, Reason>);
    /// For a task refused by a full or closed queue: back to its type.
    fn into_any(self: Box<Self>) -> Box<dyn Any>;
}

/// A one-shot job: the caller's buffer and reply.
pub(crate) struct Job<B, R> {
    pub(crate) buf: B,
    pub(crate) reply: R,
}

impl<B, R> Task for Job<B, R>
where
    B: AsRef<[u8]> + Send + 'static,
    R: Reply<B>,
{
    fn data(&self) -> &[u8] {
        self.buf.as_ref()
    }

    fn complete(self: Box<Self>, digest: Result<Digest, Reason>) {
        let Job { buf, reply } = *self;
        reply.reply(match digest {
            Ok(digest) => Ok(Done { digest, buf }),
            Err(reason) => Err(Cancelled::new(buf, reason)),
        });
    }

    fn into_any(self: Box<Self>) -> Box<dyn Any> {
        self
    }
}

/// The end of a stream: no bytes, and a reply with no buffer.
pub(crate) struct Finish<R>(pub(crate) R);

impl<R: Reply<()>> Task for Finish<R> {
    fn data(&self) -> &[u8] {
        &[]
    }

    fn complete(self: Box<Self>, digest: Result<Digest, Reason>) {
        self.0.reply(match digest {
            Ok(digest) => Ok(Done { digest, buf: () }),
            Err(reason) => Err(Cancelled::new((), reason)),
        });
    }

    fn into_any(self: Box<Self>) -> Box<dyn Any> {
        self
    }
}

/// A stream chunk's buffer, whatever its type.
pub(crate) trait Chunk: Send + 'static {
    /// The bytes to hash.
    fn bytes(&self) -> &[u8];
    /// For a chunk refused by a full or closed queue: back to its type.
    fn into_any(self: Box<Self>) -> Box<dyn Any>;
}

impl<B: AsRef<[u8]> + Send + 'static> Chunk for B {
    fn bytes(&self) -> &[u8] {
        self.as_ref()
    }

    fn into_any(self: Box<Self>) -> Box<dyn Any> {
        self
    }
}
