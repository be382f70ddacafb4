//! The tree both formats share: its shape, the streaming builder and the
//! verifier.
//!
//! Level 0 holds the hashes of the data blocks, level `i + 1` the hashes of
//! the blocks of level `i`; the top level is one block, whose hash is the
//! root hash. A hash block holds `per_block` hashes, each in a slot of
//! `stride` bytes (the digest, then zeros), then zeros to the block's end.
//! Both formats store the levels top first.

use std::sync::mpsc;

use crate::manager::Context;

use super::batch::Salted;
use super::io::{Input, Positional, TreeSink, TreeSource};
use super::{Options, VerityError};
use crate::engine::HashAlgorithm;

/// Data bytes hashed per chunk (per thread at a time), at least.
const CHUNK_BYTES: usize = 1 << 20;
/// Hash-block bytes a level keeps pending before it hashes them, at least.
const LEVEL_BATCH_BYTES: usize = 256 << 10;
/// Blocks per batch, at least: enough to fill every lane.
const MIN_BATCH: usize = 16;

/// The shape of a tree.
#[derive(Clone, Debug)]
pub(crate) struct Shape {
    pub data_block: usize,
    pub hash_block: usize,
    pub digest: usize,
    pub stride: usize,
    pub per_block: usize,
    /// Data bytes hashed (the last block zero-padded if partial).
    pub data_len: u64,
    pub data_blocks: u64,
    /// Blocks of each level, level 0 first.
    pub levels: Vec<u64>,
    /// Byte offset of each level from the tree's start (top level at 0).
    pub level_offset: Vec<u64>,
}

impl Shape {
    /// Works out the levels of a tree whose other fields are set (`levels`
    /// and `level_offset` empty).
    pub(crate) fn leveled(mut self, max_levels: usize) -> Result<Shape, VerityError> {
        debug_assert!(self.per_block >= 2 && self.per_block * self.stride <= self.hash_block);
        let mut levels = Vec::new();
        let mut n = self.data_blocks;
        while n > 1 {
            n = n.div_ceil(self.per_block as u64);
            levels.push(n);
            if levels.len() > max_levels {
                return Err(VerityError::TooManyLevels);
            }
        }
        let mut level_offset = vec![0; levels.len()];
        let mut at = 0u64;
        for i in (0..levels.len()).rev() {
            level_offset[i] = at;
            at = levels[i]
                .checked_mul(self.hash_block as u64)
                .and_then(|b| b.checked_add(at))
                .ok_or(VerityError::TooManyLevels)?;
        }
        self.levels = levels;
        self.level_offset = level_offset;
        Ok(self)
    }

    /// Bytes of the whole tree.
    pub(crate) fn tree_len(&self) -> u64 {
        self.levels.iter().sum::<u64>() * self.hash_block as u64
    }

    /// Hash blocks in the whole tree.
    pub(crate) fn hash_blocks(&self) -> u64 {
        self.levels.iter().sum()
    }

    /// Children of the blocks of `level`: data blocks or blocks of the level
    /// below.
    fn children(&self, level: usize) -> u64 {
        if level == 0 {
            self.data_blocks
        } else {
            self.levels[level - 1]
        }
    }

    /// Blocks of `level` hashed in one batch (and kept pending).
    fn batch(&self, level: usize) -> usize {
        let want = (LEVEL_BATCH_BYTES / self.hash_block).max(MIN_BATCH);
        usize::try_from(self.levels[level]).map_or(want, |n| n.min(want))
    }

    /// Data blocks per chunk.
    fn chunk_blocks(&self) -> usize {
        (CHUNK_BYTES / self.data_block).max(MIN_BATCH)
    }
}

/// One hash block that does not match its parent's hash of it (the top
/// block: the root hash), or whose unused bytes are not zero.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct BadHashBlock {
    /// Tree level: 0 holds the data blocks' hashes.
    pub level: usize,
    /// Block number within the level.
    pub index: u64,
    /// Byte offset in the tree file or hash image.
    pub offset: u64,
}

/// What a verification found.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Report {
    /// Data blocks whose hash differs from the one stored for them (or, in
    /// a tree of no levels, from the root hash), in order.
    pub bad_data_blocks: Vec<u64>,
    /// Hash blocks inconsistent with their parent or with zero padding, in
    /// order of level and block.
    pub bad_hash_blocks: Vec<BadHashBlock>,
    /// The root hash given is not the tree's (an empty fs-verity file's root
    /// hash is all zeros). Set only where no block can be blamed.
    pub root_mismatch: bool,
    /// The data and the stored tree agree with each other and only the root
    /// hash given is not theirs: the one finding is the top hash block (in
    /// a tree of no levels, the one data block) not hashing to the root.
    /// `veritysetup verify` tells this apart from corruption ("Verification
    /// of root hash failed", exit 1, where corruption exits 2).
    pub only_root_differs: bool,
}

impl Report {
    /// True if nothing is corrupt.
    pub fn is_ok(&self) -> bool {
        self.bad_data_blocks.is_empty() && self.bad_hash_blocks.is_empty() && !self.root_mismatch
    }
}

/// Takes the digests of a chunk of data blocks: (first block, digests).
type Consume<'c> = dyn FnMut(u64, &[u8]) -> Result<(), VerityError> + 'c;

/// Hashes the data blocks chunk by chunk (on `opts.jobs` threads for
/// positional input) and hands each chunk's digests to `consume(first
/// block, digests)`, in order.
fn for_each_leaf_chunk<A: HashAlgorithm>(
    shape: &Shape,
    salted: &Salted<A>,
    input: Input<'_>,
    opts: &Options<'_>,
    consume: &mut Consume<'_>,
) -> Result<(), VerityError> {
    let chunk_blocks = shape.chunk_blocks();
    let chunk_bytes = chunk_blocks * shape.data_block;
    let chunks = shape.data_blocks.div_ceil(chunk_blocks as u64);
    // Reads chunk `c` into `buf` (zero-padding a partial last block) and
    // hashes it into `digests`.
    let hash_chunk = |c: u64,
                      read: &mut dyn FnMut(u64, &mut [u8]) -> std::io::Result<()>,
                      buf: &mut Vec<u8>,
                      ctxs: &mut Vec<Context<A>>,
                      digests: &mut Vec<u8>|
     -> Result<(), VerityError> {
        let offset = c * chunk_bytes as u64;
        let len = (shape.data_len - offset).min(chunk_bytes as u64) as usize;
        let blocks = len.div_ceil(shape.data_block);
        buf.resize(blocks * shape.data_block, 0);
        read(offset, &mut buf[..len])?;
        buf[len..].fill(0);
        digests.resize(blocks * shape.digest, 0);
        let d = shape.digest;
        salted.hash_blocks(buf, shape.data_block, ctxs, |i, h| {
            digests[i * d..(i + 1) * d].copy_from_slice(h)
        })?;
        if let Some(p) = opts.progress {
            p(len as u64);
        }
        Ok(())
    };
    let positional = match input {
        Input::File(f) => Positional::File(f),
        Input::Bytes(b) => Positional::Bytes(b),
        Input::Reader(r, _) => {
            let (mut buf, mut ctxs, mut digests) = (Vec::new(), Vec::new(), Vec::new());
            let mut pos = 0u64;
            let mut read = |offset: u64, b: &mut [u8]| {
                debug_assert_eq!(offset, pos);
                pos += b.len() as u64;
                r.read_exact(b)
            };
            for c in 0..chunks {
                hash_chunk(c, &mut read, &mut buf, &mut ctxs, &mut digests)?;
                consume(c * chunk_blocks as u64, &digests)?;
            }
            return Ok(());
        }
    };
    let mut read = |offset: u64, b: &mut [u8]| positional.read_exact_at(offset, b);
    let jobs = opts
        .jobs
        .clamp(1, 256)
        .min(usize::try_from(chunks).unwrap_or(usize::MAX));
    if jobs <= 1 {
        let (mut buf, mut ctxs, mut digests) = (Vec::new(), Vec::new(), Vec::new());
        for c in 0..chunks {
            hash_chunk(c, &mut read, &mut buf, &mut ctxs, &mut digests)?;
            consume(c * chunk_blocks as u64, &digests)?;
        }
        return Ok(());
    }
    // Worker `w` hashes chunks w, w + jobs, ... and sends their digests on
    // its own bounded channel; this thread takes them in order, so at most
    // two chunks per worker wait and memory stays bounded.
    std::thread::scope(|s| {
        let mut rxs = Vec::with_capacity(jobs);
        for w in 0..jobs {
            let (tx, rx) = mpsc::sync_channel::<Result<Vec<u8>, VerityError>>(2);
            rxs.push(rx);
            let hash_chunk = &hash_chunk;
            let positional = &positional;
            s.spawn(move || {
                let (mut buf, mut ctxs) = (Vec::new(), Vec::new());
                let mut read = |offset: u64, b: &mut [u8]| positional.read_exact_at(offset, b);
                let mut c = w as u64;
                while c < chunks {
                    let mut digests = Vec::new();
                    let r = hash_chunk(c, &mut read, &mut buf, &mut ctxs, &mut digests);
                    let failed = r.is_err();
                    if tx.send(r.map(|()| digests)).is_err() || failed {
                        return;
                    }
                    c += jobs as u64;
                }
            });
        }
        for c in 0..chunks {
            let digests = rxs[(c % jobs as u64) as usize]
                .recv()
                .expect("a worker sends every chunk it owns or an error")?;
            consume(c * chunk_blocks as u64, &digests)?;
        }
        Ok(())
    })
}

/// One level's pending hash blocks.
struct Pending {
    buf: Vec<u8>,
    /// Hashes placed in `buf`.
    slots: usize,
    /// Blocks of the level already written and hashed.
    done: u64,
}

/// Builds the tree: writes every level to `sink` at its offset plus `base`
/// and returns the root hash (all zeros for no data).
pub(crate) fn build<A: HashAlgorithm>(
    shape: &Shape,
    salted: &Salted<A>,
    input: Input<'_>,
    sink: &mut dyn TreeSink,
    base: u64,
    opts: &Options<'_>,
) -> Result<Vec<u8>, VerityError> {
    let mut b = Builder {
        shape,
        salted,
        sink,
        base,
        pending: (0..shape.levels.len())
            .map(|i| Pending {
                buf: vec![0; shape.batch(i) * shape.hash_block],
                slots: 0,
                done: 0,
            })
            .collect(),
        ctxs: Vec::new(),
        root: None,
    };
    if shape.data_blocks == 0 {
        return Ok(vec![0; shape.digest]);
    }
    let d = shape.digest;
    for_each_leaf_chunk(shape, salted, input, opts, &mut |_, digests| {
        digests.chunks_exact(d).try_for_each(|h| b.push(0, h))
    })?;
    for level in 0..shape.levels.len() {
        b.flush(level)?;
    }
    Ok(b.root.expect("the top level hashes into the root"))
}

struct Builder<'s, A: HashAlgorithm> {
    shape: &'s Shape,
    salted: &'s Salted<A>,
    sink: &'s mut dyn TreeSink,
    base: u64,
    pending: Vec<Pending>,
    ctxs: Vec<Context<A>>,
    root: Option<Vec<u8>>,
}

impl<A: HashAlgorithm> Builder<'_, A> {
    /// Adds the next hash of `level` (past the top: the root).
    fn push(&mut self, level: usize, hash: &[u8]) -> Result<(), VerityError> {
        let Some(p) = self.pending.get_mut(level) else {
            debug_assert!(self.root.is_none(), "one root");
            self.root = Some(hash.to_vec());
            return Ok(());
        };
        let s = self.shape;
        let at = (p.slots / s.per_block) * s.hash_block + (p.slots % s.per_block) * s.stride;
        p.buf[at..at + s.digest].copy_from_slice(hash);
        p.slots += 1;
        if p.slots == p.buf.len() / s.hash_block * s.per_block {
            self.flush(level)?;
        }
        Ok(())
    }

    /// Writes and hashes the pending blocks of `level` (the last one may be
    /// partly filled), passing their hashes up.
    fn flush(&mut self, level: usize) -> Result<(), VerityError> {
        let s = self.shape;
        let p = &mut self.pending[level];
        let blocks = p.slots.div_ceil(s.per_block);
        if blocks == 0 {
            return Ok(());
        }
        let bytes = &mut p.buf[..blocks * s.hash_block];
        let offset = self.base + s.level_offset[level] + p.done * s.hash_block as u64;
        self.sink.write_at(offset, bytes)?;
        p.done += blocks as u64;
        p.slots = 0;
        let mut up = vec![0; blocks * s.digest];
        self.salted
            .hash_blocks(bytes, s.hash_block, &mut self.ctxs, |i, h| {
                up[i * s.digest..(i + 1) * s.digest].copy_from_slice(h)
            })?;
        bytes.fill(0);
        for h in up.chunks_exact(s.digest) {
            self.push(level + 1, h)?;
        }
        Ok(())
    }
}

/// Verifies data and a stored tree (at `base` in `tree`) against `root`.
pub(crate) fn verify<A: HashAlgorithm>(
    shape: &Shape,
    salted: &Salted<A>,
    input: Input<'_>,
    tree: &dyn TreeSource,
    base: u64,
    root: &[u8],
    opts: &Options<'_>,
) -> Result<Report, VerityError> {
    let have = tree.size()?;
    let need = base + shape.tree_len();
    if have < need {
        return Err(VerityError::Truncated { need, have });
    }
    let mut report = Report::default();
    if shape.data_blocks == 0 {
        report.root_mismatch = root.iter().any(|&b| b != 0);
        return Ok(report);
    }
    let s = shape;
    let d = s.digest;
    let top = s.levels.len();
    let mut ctxs = Vec::new();
    if top == 0 {
        // One data block: its hash is the root hash.
        for_each_leaf_chunk(s, salted, input, opts, &mut |_, digests| {
            if digests[..d] != *root {
                report.bad_data_blocks.push(0);
                report.only_root_differs = true;
            }
            Ok(())
        })?;
        return Ok(report);
    }
    let mut parents = ParentCache::new(s, tree, base);
    // The top block against the root hash.
    let mut top_differs = false;
    {
        let mut block = vec![0; s.hash_block];
        tree.read_exact_at(base + s.level_offset[top - 1], &mut block)?;
        salted.hash_blocks(&block, s.hash_block, &mut ctxs, |_, h| {
            top_differs = h != root;
        })?;
        if top_differs {
            report.bad_hash_blocks.push(parents.bad(top - 1, 0));
        }
    }
    // Each level's blocks against the stored hashes in the level above.
    for level in (0..top - 1).rev() {
        let batch = s.batch(level);
        let mut buf = vec![0; batch * s.hash_block];
        let n = s.levels[level];
        let mut first = 0u64;
        while first < n {
            let blocks = (n - first).min(batch as u64) as usize;
            let bytes = &mut buf[..blocks * s.hash_block];
            tree.read_exact_at(
                base + s.level_offset[level] + first * s.hash_block as u64,
                bytes,
            )?;
            let mut mismatched = Vec::new();
            salted.hash_blocks(bytes, s.hash_block, &mut ctxs, |i, h| {
                mismatched.push((i, h.to_vec()));
            })?;
            for (i, h) in mismatched {
                let index = first + i as u64;
                if !parents.matches(level + 1, index, &h, &mut report)? {
                    report.bad_hash_blocks.push(parents.bad(level, index));
                }
            }
            first += blocks as u64;
        }
    }
    // The data blocks against level 0.
    for_each_leaf_chunk(s, salted, input, opts, &mut |first, digests| {
        for (i, h) in digests.chunks_exact(d).enumerate() {
            let index = first + i as u64;
            if !parents.matches(0, index, h, &mut report)? {
                report.bad_data_blocks.push(index);
            }
        }
        Ok(())
    })?;
    // A level-0 block whose unused bytes are not zero is found when it is
    // loaded; that may be after its own check against level 1.
    report.bad_hash_blocks.sort_unstable();
    report.bad_hash_blocks.dedup();
    report.only_root_differs = top_differs
        && !parents.dirty
        && report.bad_data_blocks.is_empty()
        && report.bad_hash_blocks.len() == 1;
    Ok(report)
}

/// The root hash the stored tree (at `base` in `tree`) and the data give
/// of themselves: the hash of the top block, of the one data block if the
/// tree has no levels, all zeros for no data. Verifying against it checks
/// the tree's consistency alone.
pub(crate) fn stored_root<A: HashAlgorithm>(
    shape: &Shape,
    salted: &Salted<A>,
    input: &Input<'_>,
    tree: &dyn TreeSource,
    base: u64,
) -> Result<Vec<u8>, VerityError> {
    let (bytes, block) = if shape.data_blocks == 0 {
        return Ok(vec![0; shape.digest]);
    } else if let Some(top) = shape.levels.len().checked_sub(1) {
        let mut block = vec![0; shape.hash_block];
        tree.read_exact_at(base + shape.level_offset[top], &mut block)?;
        (block, shape.hash_block)
    } else {
        let mut block = vec![0; shape.data_block];
        let len = shape.data_len.min(shape.data_block as u64) as usize;
        match input {
            Input::File(f) => Positional::File(f).read_exact_at(0, &mut block[..len])?,
            Input::Bytes(b) => Positional::Bytes(b).read_exact_at(0, &mut block[..len])?,
            Input::Reader(..) => {
                return Err(VerityError::DataSize(
                    "a tree of one data block is checked over positional data only".into(),
                ));
            }
        }
        (block, shape.data_block)
    };
    let mut root = Vec::new();
    salted.hash_blocks(&bytes, block, &mut Vec::new(), |_, h| root = h.to_vec())?;
    Ok(root)
}

/// The last hash block read from each level, with the check of its unused
/// bytes done once when it is loaded.
struct ParentCache<'t> {
    shape: &'t Shape,
    tree: &'t dyn TreeSource,
    base: u64,
    /// Per level: block index loaded and its bytes.
    loaded: Vec<Option<(u64, Vec<u8>)>>,
    /// A block was found with unused bytes that are not zero.
    dirty: bool,
}

impl<'t> ParentCache<'t> {
    fn new(shape: &'t Shape, tree: &'t dyn TreeSource, base: u64) -> Self {
        ParentCache {
            shape,
            tree,
            base,
            loaded: vec![None; shape.levels.len()],
            dirty: false,
        }
    }

    fn bad(&self, level: usize, index: u64) -> super::BadHashBlock {
        super::BadHashBlock {
            level,
            index,
            offset: self.base
                + self.shape.level_offset[level]
                + index * self.shape.hash_block as u64,
        }
    }

    /// True if `hash` is the one stored in `level` for child `child`.
    fn matches(
        &mut self,
        level: usize,
        child: u64,
        hash: &[u8],
        report: &mut Report,
    ) -> Result<bool, VerityError> {
        let s = self.shape;
        let index = child / s.per_block as u64;
        let slot = (child % s.per_block as u64) as usize;
        if self.loaded[level].as_ref().is_none_or(|(i, _)| *i != index) {
            let mut block = self.loaded[level]
                .take()
                .map(|(_, b)| b)
                .unwrap_or_else(|| vec![0; s.hash_block]);
            let bad = self.bad(level, index);
            self.tree.read_exact_at(bad.offset, &mut block)?;
            // Slots in use: the digest then zeros; then zeros to the end.
            let used =
                (s.children(level) - index * s.per_block as u64).min(s.per_block as u64) as usize;
            let spare_dirty = (0..used).any(|j| {
                block[j * s.stride + s.digest..(j + 1) * s.stride]
                    .iter()
                    .any(|&b| b != 0)
            }) || block[used * s.stride..].iter().any(|&b| b != 0);
            if spare_dirty {
                report.bad_hash_blocks.push(bad);
                self.dirty = true;
            }
            self.loaded[level] = Some((index, block));
        }
        let (_, block) = self.loaded[level].as_ref().expect("loaded above");
        let at = slot * s.stride;
        Ok(block[at..at + s.digest] == *hash)
    }
}
