//! Multi-part streams, pinned to one worker.

use core::fmt;
use std::sync::Arc;

use super::Algo;
use super::error::Rejected;
use super::queue::{Inner, Queue};
use super::reply::{Chunk, Finish, Handle, Reason, Reply};
use super::worker::{self, Msg, StreamOp};
#[cfg(doc)]
use super::{Cancelled, HashService};

/// A multi-part hash stream on a [`HashService`]: chunks go, in order, to
/// the one worker that holds the stream's state.
///
/// Dropping a stream without [`Stream::finish`] discards it.
pub struct Stream {
    pub(crate) inner: Arc<Inner>,
    pub(crate) id: u64,
    pub(crate) worker: usize,
    pub(crate) algo: Algo,
    pub(crate) open: bool,
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

    /// Ends the stream; the outcome goes to `reply` (a channel's sender, or
    /// a callback run on the worker). If the service is already shut down, `reply` gets
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
