//! Buffers with a bound on the bytes out at once: backpressure for a
//! caller that reads data faster than the workers hash it.

use core::fmt;
use core::ops::{Deref, DerefMut};
use std::io::{self, Read};
use std::sync::Arc;

use parking_lot::{Condvar, Mutex};

#[cfg(doc)]
use super::{Done, HashService, Stream};

/// The smallest buffer handed out, in bytes; sizes are powers of two from
/// here.
const MIN_BUF: usize = 4 << 10;

/// Buffers for jobs and stream chunks, with a bound on the bytes out at
/// once.
///
/// [`BufferPool::take`] hands out a [`PoolBuf`] of at least the asked
/// capacity (rounded up to a power of two, 4 KiB at least), waiting while
/// the buffers out hold the pool's limit. A `PoolBuf` goes back to its pool
/// when dropped: for a [`Stream::update`] chunk on the worker, once hashed;
/// for a job, when the caller drops the buffer of its [`Done`] (drop it in
/// the reply to free it at once). A reader that takes its buffers from a
/// pool therefore holds at most the limit in flight however large or many
/// its inputs, and waits for the workers instead of running ahead of them.
/// Returned buffers are kept for reuse (their pages stay mapped), up to the
/// limit again: the pool's memory is at most about twice its limit.
///
/// A request larger than the limit waits until no buffer is out, then gets
/// its buffer.
///
/// ```
/// use mbhash_core::service::{Algo, BufferPool, HashService};
///
/// let service = HashService::builder().workers(2).build().unwrap();
/// let pool = BufferPool::new(1 << 20); // at most 1 MiB out at once
/// let mut stream = service.stream(Algo::Sha256);
/// let mut input: &[u8] = &[7u8; 300_000];
/// loop {
///     let mut buf = pool.take(64 << 10);
///     buf.fill_from(&mut input).unwrap();
///     if buf.is_empty() {
///         break;
///     }
///     stream.update(buf).unwrap(); // back to the pool once hashed
/// }
/// let digest = stream.finish().wait().unwrap().digest;
/// assert_eq!(digest, Algo::Sha256.digest(&[7u8; 300_000]));
/// ```
#[derive(Clone)]
pub struct BufferPool {
    inner: Arc<PoolInner>,
}

struct PoolInner {
    limit: usize,
    state: Mutex<PoolState>,
    freed: Condvar,
}

#[derive(Default)]
struct PoolState {
    /// Bytes of the buffers out.
    out: usize,
    /// Bytes of the buffers kept for reuse.
    kept: usize,
    /// Kept buffers, by size class (`MIN_BUF << class`).
    free: Vec<Vec<Vec<u8>>>,
}

impl fmt::Debug for BufferPool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let st = self.inner.state.lock();
        f.debug_struct("BufferPool")
            .field("limit", &self.inner.limit)
            .field("out", &st.out)
            .field("kept", &st.kept)
            .finish()
    }
}

/// The size class of a request for `n` bytes.
fn class_of(n: usize) -> usize {
    let size = n.max(MIN_BUF).next_power_of_two();
    (size / MIN_BUF).trailing_zeros() as usize
}

impl BufferPool {
    /// A pool that hands out at most `limit` bytes at once (at least 4 KiB).
    pub fn new(limit: usize) -> BufferPool {
        BufferPool {
            inner: Arc::new(PoolInner {
                limit: limit.max(MIN_BUF),
                state: Mutex::new(PoolState::default()),
                freed: Condvar::new(),
            }),
        }
    }

    /// The most bytes out at once.
    pub fn limit(&self) -> usize {
        self.inner.limit
    }

    /// Bytes of the buffers out now (their capacities).
    pub fn in_use(&self) -> usize {
        self.inner.state.lock().out
    }

    /// An empty buffer with room for at least `capacity` bytes; waits while
    /// the buffers out leave no room for it.
    pub fn take(&self, capacity: usize) -> PoolBuf {
        self.take_or(capacity, true)
            .expect("a waiting take always gets its buffer")
    }

    /// Like [`BufferPool::take`], but never waits: `None` when the buffers
    /// out leave no room.
    pub fn try_take(&self, capacity: usize) -> Option<PoolBuf> {
        self.take_or(capacity, false)
    }

    fn take_or(&self, capacity: usize, wait: bool) -> Option<PoolBuf> {
        let class = class_of(capacity);
        let size = MIN_BUF << class;
        let inner = &self.inner;
        let mut st = inner.state.lock();
        while st.out > 0 && st.out + size > inner.limit {
            if !wait {
                return None;
            }
            inner.freed.wait(&mut st);
        }
        st.out += size;
        let kept = st.free.get_mut(class).and_then(Vec::pop);
        if kept.is_some() {
            st.kept -= size;
        }
        drop(st);
        Some(PoolBuf {
            // Zeroed once, when first made; a kept buffer is reused as it
            // was left.
            buf: kept.unwrap_or_else(|| vec![0; size]),
            len: 0,
            size,
            class,
            pool: inner.clone(),
        })
    }
}

/// A buffer from a [`BufferPool`], given back when dropped.
///
/// It derefs to the bytes it holds (`AsRef<[u8]>` for the service); its
/// capacity is fixed: [`PoolBuf::fill_from`] and
/// [`PoolBuf::extend_from_slice`] take at most the room left.
pub struct PoolBuf {
    /// `size` initialised bytes; the first `len` are the buffer's.
    buf: Vec<u8>,
    len: usize,
    /// The bytes counted for it.
    size: usize,
    class: usize,
    pool: Arc<PoolInner>,
}

impl fmt::Debug for PoolBuf {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PoolBuf")
            .field("len", &self.len)
            .field("capacity", &self.size)
            .finish()
    }
}

impl PoolBuf {
    /// The bytes it can hold.
    pub fn capacity(&self) -> usize {
        self.size
    }

    /// Room left, in bytes.
    pub fn room(&self) -> usize {
        self.size - self.len
    }

    /// True when full.
    pub fn is_full(&self) -> bool {
        self.room() == 0
    }

    /// Empties it.
    pub fn clear(&mut self) {
        self.len = 0;
    }

    /// Appends as much of `data` as there is room for; returns the bytes
    /// taken.
    pub fn extend_from_slice(&mut self, data: &[u8]) -> usize {
        let n = data.len().min(self.room());
        self.buf[self.len..self.len + n].copy_from_slice(&data[..n]);
        self.len += n;
        n
    }

    /// Reads from `r` until the buffer is full or `r` ends; returns the bytes
    /// read. Fewer bytes than the room there was means `r` ended (a full
    /// buffer says nothing of that). On an error, the bytes read before it
    /// are kept in the buffer.
    ///
    /// # Errors
    /// The first error of `r` other than [`io::ErrorKind::Interrupted`].
    pub fn fill_from<R: Read + ?Sized>(&mut self, r: &mut R) -> io::Result<usize> {
        let start = self.len;
        // Plain reads into bytes initialised long ago: no zeroing, and for
        // a file that fits, one read and the one that sees its end.
        while self.len < self.size {
            match r.read(&mut self.buf[self.len..self.size]) {
                Ok(0) => break,
                Ok(n) => self.len += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        Ok(self.len - start)
    }
}

impl Deref for PoolBuf {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        &self.buf[..self.len]
    }
}

impl DerefMut for PoolBuf {
    fn deref_mut(&mut self) -> &mut [u8] {
        &mut self.buf[..self.len]
    }
}

impl AsRef<[u8]> for PoolBuf {
    fn as_ref(&self) -> &[u8] {
        self
    }
}

impl AsMut<[u8]> for PoolBuf {
    fn as_mut(&mut self) -> &mut [u8] {
        self
    }
}

impl Drop for PoolBuf {
    fn drop(&mut self) {
        let buf = core::mem::take(&mut self.buf);
        let pool = &*self.pool;
        let mut st = pool.state.lock();
        st.out -= self.size;
        let keep = st.kept + self.size <= pool.limit;
        if keep {
            if st.free.len() <= self.class {
                st.free.resize_with(self.class + 1, Vec::new);
            }
            st.free[self.class].push(buf);
            st.kept += self.size;
        }
        drop(st);
        pool.freed.notify_all();
    }
}
