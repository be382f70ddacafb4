//! A stream's partial block: [`BlockBuffer`].

use core::fmt;

use crate::alg::Family;

/// A stream's partial block (up to one whole block between chunks) and the
/// room for its padding: the one buffering routine of every job
/// manager context and isa-l context.
///
/// A [`BlockBuffer`] holds the bytes of a stream that do not yet make a
/// whole block, and two blocks of room so that the end of the message and
/// its padding ([`Family::pad`]) are compressed in one kernel call. The
/// users drive it the same way:
///
/// 1. [`BlockBuffer::fill`] completes a buffered partial block from the
///    chunk; [`BlockBuffer::take_block`] then yields it as a whole block;
/// 2. the chunk's whole blocks are compressed straight from the caller's
///    memory ([`Family::split_blocks`]), and [`BlockBuffer::keep`] stores
///    the tail;
/// 3. [`BlockBuffer::pad`] finishes the stream: one or two padded blocks.
///
/// Short last chunks go in whole ([`BlockBuffer::fits_with_padding`],
/// [`BlockBuffer::push`]) so that message and padding run together.
///
/// ```
/// use mbhash_core::alg::Sha256Family;
/// use mbhash_core::BlockBuffer;
///
/// let mut buf = BlockBuffer::<Sha256Family>::new();
/// buf.keep(b"abc"); // the tail of an earlier chunk
/// let rest = buf.fill(&[7; 70]); // completes the block...
/// assert_eq!(rest.len(), 70 - 61);
/// assert_eq!(buf.take_block().map(<[_]>::len), Some(1)); // ...to compress
/// buf.keep(rest); // this chunk's tail
/// assert_eq!(buf.pad(73).len(), 1); // 9 bytes and the padding: one block
/// assert!(buf.is_empty());
/// ```
///
/// `#[repr(C)]`: the bytes, then the length as a `u32`, which is the layout
/// of isa-l_crypto's `partial_block_buffer` and
/// `partial_block_buffer_length`, so the isa-l drop-in's contexts hold one
/// in place.
#[repr(C)]
pub struct BlockBuffer<F: Family> {
    blocks: [F::Block; 2],
    /// Bytes held. The isa-l drop-in's C caller owns this memory: every
    /// method treats a length beyond two blocks as a bug that panics, never
    /// as an index it trusts.
    len: u32,
}

impl<F: Family> BlockBuffer<F> {
    /// An empty buffer.
    #[inline]
    pub const fn new() -> Self {
        BlockBuffer {
            blocks: [F::ZERO_BLOCK; 2],
            len: 0,
        }
    }

    /// Bytes held.
    #[inline]
    pub fn len(&self) -> usize {
        self.len as usize
    }

    /// True if no byte is held.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Forgets the bytes held.
    #[inline]
    pub fn clear(&mut self) {
        self.len = 0;
    }

    /// The two blocks of room (what a job of the isa-l drop-in points to).
    #[inline]
    pub fn blocks(&self) -> &[F::Block; 2] {
        &self.blocks
    }

    /// Appends as much of `data` as completes the partial block, if one is
    /// held (nothing otherwise); returns the rest of `data`. A completed
    /// block is then [`BlockBuffer::take_block`]'s.
    #[inline]
    pub fn fill<'d>(&mut self, data: &'d [u8]) -> &'d [u8] {
        let have = self.len();
        if have == 0 {
            return data;
        }
        let n = F::BLOCK_LEN.saturating_sub(have).min(data.len());
        F::bytes_mut(&mut self.blocks)[have..have + n].copy_from_slice(&data[..n]);
        self.len += n as u32;
        &data[n..]
    }

    /// If a whole block is held: empties the buffer and returns that block
    /// (the first of [`BlockBuffer::blocks`], valid until the next write).
    #[inline]
    pub fn take_block(&mut self) -> Option<&[F::Block]> {
        if self.len() != F::BLOCK_LEN {
            return None;
        }
        self.len = 0;
        Some(&self.blocks[..1])
    }

    /// Stores `tail` (at most one block) in an empty buffer.
    ///
    /// # Panics
    /// If the buffer is not empty or `tail` is longer than a block.
    #[inline]
    pub fn keep(&mut self, tail: &[u8]) {
        assert!(self.len == 0 && tail.len() <= F::BLOCK_LEN, "keep: a tail");
        F::bytes_mut(&mut self.blocks)[..tail.len()].copy_from_slice(tail);
        self.len = tail.len() as u32;
    }

    /// True if `n` more bytes and the padding fit in the two blocks.
    #[inline]
    pub fn fits_with_padding(&self, n: usize) -> bool {
        self.len()
            .checked_add(n)
            .is_some_and(|t| t < 2 * F::BLOCK_LEN - F::LENGTH_LEN)
    }

    /// Appends all of `data`, which [`BlockBuffer::fits_with_padding`].
    ///
    /// # Panics
    /// If it does not fit.
    #[inline]
    pub fn push(&mut self, data: &[u8]) {
        assert!(self.fits_with_padding(data.len()), "push: data that fits");
        let have = self.len();
        F::bytes_mut(&mut self.blocks)[have..have + data.len()].copy_from_slice(data);
        self.len += data.len() as u32;
    }

    /// Pads the bytes held as the end of a message of `total_len` bytes and
    /// returns the one or two blocks to compress; the buffer is empty
    /// afterwards (the blocks stay valid until the next write).
    ///
    /// # Panics
    /// If more than a block is held (see [`BlockBuffer::fits_with_padding`]).
    #[inline]
    pub fn pad(&mut self, total_len: u64) -> &[F::Block] {
        let len = self.len();
        assert!(
            len < 2 * F::BLOCK_LEN - F::LENGTH_LEN,
            "pad: a partial block"
        );
        let n = F::pad(&mut self.blocks, len, total_len);
        self.len = 0;
        &self.blocks[..n]
    }

    /// Absorbs `data` for a stream fed in chunks, compressing with `compress`:
    /// a buffered partial block first, then the whole blocks straight from
    /// `data`. The last block of the data so far stays buffered, even when
    /// whole, so that a message of whole blocks ends with its last block
    /// and the padding in one call.
    #[inline]
    pub fn absorb(&mut self, data: &[u8], mut compress: impl FnMut(&[F::Block])) {
        if data.is_empty() {
            return;
        }
        let mut data = self.fill(data);
        if data.is_empty() {
            return;
        }
        if let Some(block) = self.take_block() {
            compress(block);
        }
        // Keep the last (maybe whole) block back.
        let keep = match data.len() % F::BLOCK_LEN {
            0 => F::BLOCK_LEN,
            n => n,
        };
        let (blocks, _) = F::split_blocks(&data[..data.len() - keep]);
        if !blocks.is_empty() {
            compress(blocks);
        }
        data = &data[data.len() - keep..];
        self.keep(data);
    }
}

impl<F: Family> Default for BlockBuffer<F> {
    fn default() -> Self {
        Self::new()
    }
}

impl<F: Family> Clone for BlockBuffer<F> {
    fn clone(&self) -> Self {
        BlockBuffer {
            blocks: self.blocks,
            len: self.len,
        }
    }
}

impl<F: Family> fmt::Debug for BlockBuffer<F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("BlockBuffer")
            .field("len", &self.len)
            .finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::alg::{Sha256Family, Sha512Family};

    /// What `absorb` hands out, then what stays buffered, is the input, in
    /// order, for two-part splits of every length up to three blocks; the
    /// data's last block always stays buffered.
    macro_rules! absorb_keeps_every_byte {
        ($name:ident, $f:ty) => {
            #[test]
            fn $name() {
                let bl = <$f as Family>::BLOCK_LEN;
                let data: Vec<u8> = (0..3 * bl as u32).map(|i| (i * 7 + 1) as u8).collect();
                for len in 0..=data.len() {
                    for cut in [0, 1, len / 2, len.saturating_sub(1), len] {
                        let cut = cut.min(len);
                        let mut buf = BlockBuffer::<$f>::new();
                        let mut out = Vec::new();
                        for part in [&data[..cut], &data[cut..len]] {
                            buf.absorb(part, |b| out.extend(b.iter().flatten()));
                        }
                        assert!(buf.len() <= bl && (len == 0 || buf.len() > 0));
                        out.extend_from_slice(&buf.blocks().as_flattened()[..buf.len()]);
                        assert_eq!(out, data[..len], "len {len} cut {cut}");
                    }
                }
            }
        };
    }
    absorb_keeps_every_byte!(absorb_sha256, Sha256Family);
    absorb_keeps_every_byte!(absorb_sha512, Sha512Family);

    #[test]
    fn fill_take_keep_pad() {
        let mut buf = BlockBuffer::<Sha256Family>::new();
        assert_eq!(buf.fill(b"abc"), b"abc", "an empty buffer takes nothing");
        buf.keep(b"abc");
        let rest = buf.fill(&[1; 100]);
        assert_eq!(rest.len(), 100 - 61);
        assert!(buf.take_block().is_some() && buf.is_empty());
        assert!(buf.take_block().is_none());
        buf.push(b"abc");
        assert!(buf.fits_with_padding(116) && !buf.fits_with_padding(117));
        let blocks = buf.pad(3);
        assert_eq!(blocks.len(), 1);
        assert_eq!(blocks[0][..4], [b'a', b'b', b'c', 0x80]);
        assert_eq!(blocks[0][63], 24);
        assert!(buf.is_empty());
        buf.push(&[0; 56]);
        assert_eq!(buf.pad(56).len(), 2);
        // The isa-l drop-in relies on this layout.
        assert_eq!(core::mem::size_of::<BlockBuffer<Sha256Family>>(), 132);
        assert_eq!(core::mem::size_of::<BlockBuffer<Sha512Family>>(), 260);
    }
}
