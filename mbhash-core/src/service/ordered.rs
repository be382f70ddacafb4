//! Outcomes handed on in the order their places were taken, whichever
//! worker finishes first.

use core::fmt;
use std::collections::VecDeque;
use std::sync::Arc;
use std::time::{Duration, Instant};

use parking_lot::{Condvar, Mutex};

use super::reply::{Outcome, Reply};
#[cfg(doc)]
use super::{HashService, Stream};

/// A channel that delivers in order: places ([`Slot`]s) are taken in
/// order from a [`Sequencer`], filled in any order from any thread, and
/// received from [`InOrder`] in the order they were taken.
///
/// `window` bounds the places out: [`Sequencer::slot`] waits while
/// `window` places (at least 1) are taken and not yet received, so a
/// producer cannot run further ahead of the oldest unfinished job than
/// that, and the values held back for order are at most `window`.
///
/// A [`Slot`] of an [`Outcome`] is a [`Reply`]: pass it to
/// [`HashService::submit_to`] or [`Stream::finish_to`]. A slot that is
/// dropped unfilled is received as [`Lost`], so the receiver never waits
/// for it forever.
///
/// ```
/// use mbhash_core::service::{self, Algo, HashService};
///
/// let service = HashService::builder().workers(2).build().unwrap();
/// let (seq, in_order) = service::ordered(16);
/// std::thread::scope(|s| {
///     s.spawn(move || {
///         for i in 0..100u32 {
///             let slot = seq.slot().unwrap();
///             service.submit_to(Algo::Sha256, vec![0u8; (i as usize % 7) << 12], slot).unwrap();
///         }
///         // `seq` dropped here: the receiver ends after the last slot.
///     });
///     for (i, outcome) in in_order.enumerate() {
///         let done = outcome.unwrap().unwrap();
///         assert_eq!(done.buf.len(), (i % 7) << 12); // in submission order
///     }
/// });
/// ```
pub fn ordered<T: Send>(window: usize) -> (Sequencer<T>, InOrder<T>) {
    let shared = Arc::new(Shared {
        state: Mutex::new(State {
            taken: 0,
            held: VecDeque::new(),
            window: window.max(1),
            sequencers: 1,
            receiving: true,
        }),
        room: Condvar::new(),
        ready: Condvar::new(),
    });
    (
        Sequencer {
            shared: shared.clone(),
        },
        InOrder { shared },
    )
}

/// A slot dropped without a value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Lost;

impl fmt::Display for Lost {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an ordered slot was dropped without a value")
    }
}

impl std::error::Error for Lost {}

struct Shared<T> {
    state: Mutex<State<T>>,
    /// A place was received: room for another slot.
    room: Condvar,
    /// The oldest slot was filled, or the last sequencer went.
    ready: Condvar,
}

struct State<T> {
    /// Slots taken so far.
    taken: u64,
    /// The slots taken and not yet received, oldest first: `None` while
    /// unfilled.
    held: VecDeque<Option<Result<T, Lost>>>,
    window: usize,
    sequencers: usize,
    receiving: bool,
}

/// Hands out [`Slot`]s in order (see [`ordered`]). Clone it to take slots
/// from several threads: the order is the order of the calls.
pub struct Sequencer<T> {
    shared: Arc<Shared<T>>,
}

impl<T> fmt::Debug for Sequencer<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let st = self.shared.state.lock();
        f.debug_struct("Sequencer")
            .field("taken", &st.taken)
            .field("held", &st.held.len())
            .finish()
    }
}

impl<T> Clone for Sequencer<T> {
    fn clone(&self) -> Self {
        self.shared.state.lock().sequencers += 1;
        Sequencer {
            shared: self.shared.clone(),
        }
    }
}

impl<T> Drop for Sequencer<T> {
    fn drop(&mut self) {
        let mut st = self.shared.state.lock();
        st.sequencers -= 1;
        if st.sequencers == 0 {
            drop(st);
            self.shared.ready.notify_all();
        }
    }
}

impl<T> Sequencer<T> {
    /// The next place in order; waits while the window is full. `None`
    /// once the [`InOrder`] is dropped.
    pub fn slot(&self) -> Option<Slot<T>> {
        self.slot_or(true)
    }

    /// Like [`Sequencer::slot`], but never waits: `None` also while the
    /// window is full. A caller that holds slots it has not filled yet
    /// (a batch it is gathering) sends them on before it waits.
    pub fn try_slot(&self) -> Option<Slot<T>> {
        self.slot_or(false)
    }

    fn slot_or(&self, wait: bool) -> Option<Slot<T>> {
        let mut st = self.shared.state.lock();
        while st.receiving && st.held.len() >= st.window {
            if !wait {
                return None;
            }
            self.shared.room.wait(&mut st);
        }
        if !st.receiving {
            return None;
        }
        let index = st.taken;
        st.taken += 1;
        st.held.push_back(None);
        Some(Slot {
            shared: Some(self.shared.clone()),
            index,
        })
    }

    /// True once the [`InOrder`] is dropped: what is sent is dropped.
    pub fn is_closed(&self) -> bool {
        !self.shared.state.lock().receiving
    }
}

/// One place in the order of an [`ordered`] channel. Fill it once, from
/// any thread; dropped unfilled, it is received as [`Lost`].
pub struct Slot<T> {
    shared: Option<Arc<Shared<T>>>,
    index: u64,
}

impl<T> fmt::Debug for Slot<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Slot").field("index", &self.index).finish()
    }
}

impl<T> Slot<T> {
    /// Its place: the number of slots taken before it.
    pub fn index(&self) -> u64 {
        self.index
    }

    /// Fills the place with `value` (dropped if the receiver is gone).
    pub fn fill(mut self, value: T) {
        self.set(Ok(value));
    }

    fn set(&mut self, value: Result<T, Lost>) {
        let Some(shared) = self.shared.take() else {
            return;
        };
        let mut st = shared.state.lock();
        if !st.receiving {
            // Dropped outside the lock: a value's drop may take it.
            drop(st);
            drop(value);
            return;
        }
        let head = st.taken - st.held.len() as u64;
        let at = (self.index - head) as usize;
        st.held[at] = Some(value);
        drop(st);
        if at == 0 {
            shared.ready.notify_all();
        }
    }
}

impl<T> Drop for Slot<T> {
    fn drop(&mut self) {
        self.set(Err(Lost));
    }
}

impl<B: Send + 'static> Reply<B> for Slot<Outcome<B>> {
    fn reply(self, outcome: Outcome<B>) {
        self.fill(outcome);
    }
}

/// Receives the values of an [`ordered`] channel in slot order; an
/// iterator that ends once every [`Sequencer`] is dropped and every slot
/// taken was received.
///
/// Dropping it wakes the sequencers ([`Sequencer::slot`] returns `None`)
/// and drops the values held and those filled later.
pub struct InOrder<T> {
    shared: Arc<Shared<T>>,
}

impl<T> fmt::Debug for InOrder<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let st = self.shared.state.lock();
        f.debug_struct("InOrder")
            .field("received", &(st.taken - st.held.len() as u64))
            .field("held", &st.held.len())
            .finish()
    }
}

impl<T> InOrder<T> {
    /// The next value in order, waiting for it; `None` at the end.
    pub fn recv(&self) -> Option<Result<T, Lost>> {
        let mut st = self.shared.state.lock();
        loop {
            if let Some(Some(_)) = st.held.front() {
                let value = st.held.pop_front().flatten();
                drop(st);
                self.shared.room.notify_one();
                return value;
            }
            if st.held.is_empty() && st.sequencers == 0 {
                return None;
            }
            self.shared.ready.wait(&mut st);
        }
    }
}

/// Why [`InOrder::recv_timeout`] returned no value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RecvTimeout {
    /// The time ran out first.
    Timeout,
    /// The end: every sequencer dropped and every slot received.
    End,
}

impl<T> InOrder<T> {
    /// The next value in order, waiting for it at most `timeout`.
    ///
    /// # Errors
    /// [`RecvTimeout::Timeout`] if the next value did not come in time,
    /// [`RecvTimeout::End`] at the end.
    pub fn recv_timeout(&self, timeout: Duration) -> Result<Result<T, Lost>, RecvTimeout> {
        let deadline = Instant::now() + timeout;
        let mut st = self.shared.state.lock();
        loop {
            if let Some(Some(_)) = st.held.front() {
                let value = st.held.pop_front().flatten();
                drop(st);
                self.shared.room.notify_one();
                return value.ok_or(RecvTimeout::End);
            }
            if st.held.is_empty() && st.sequencers == 0 {
                return Err(RecvTimeout::End);
            }
            if self.shared.ready.wait_until(&mut st, deadline).timed_out()
                && !matches!(st.held.front(), Some(Some(_)))
            {
                return Err(RecvTimeout::Timeout);
            }
        }
    }
}

impl<T> Iterator for InOrder<T> {
    type Item = Result<T, Lost>;

    fn next(&mut self) -> Option<Result<T, Lost>> {
        self.recv()
    }
}

impl<T> Drop for InOrder<T> {
    fn drop(&mut self) {
        let held = {
            let mut st = self.shared.state.lock();
            st.receiving = false;
            core::mem::take(&mut st.held)
        };
        self.shared.room.notify_all();
        drop(held);
    }
}
