//! Many equal-length blocks hashed at once, each with the tree's salt.

use crate::manager::{Context, Flags, JobManager};

use super::VerityError;
use crate::engine::HashAlgorithm;

/// A tree's salt as its hashes see it.
pub(crate) struct Salted<A: HashAlgorithm> {
    /// The state after the salt that comes before each block (fs-verity,
    /// dm-verity format 1); `None` without one.
    prefix: Option<Context<A>>,
    /// Bytes hashed after each block (dm-verity format 0).
    suffix: Vec<u8>,
}

impl<A: HashAlgorithm> Salted<A> {
    /// Salt `prefix` before each block and `suffix` after it (either empty).
    pub(crate) fn new(prefix: &[u8], suffix: &[u8]) -> Result<Self, VerityError> {
        let prefix = if prefix.is_empty() {
            None
        } else {
            let mut ctx = Context::<A>::new();
            {
                let mut manager = JobManager::<A>::try_new()?;
                match manager.submit(&mut ctx, prefix, Flags::FIRST) {
                    Ok(_) => {}
                    Err(e) => unreachable!("FIRST on a new context: {e}"),
                }
                while manager.flush().is_some() {}
            }
            Some(ctx)
        };
        Ok(Salted {
            prefix,
            suffix: suffix.to_vec(),
        })
    }

    /// Hashes every `block_len` bytes of `data` (a whole number of blocks)
    /// and hands digest `i` to `emit(i, digest)`, in order. `ctxs` is
    /// scratch space, reused between calls.
    pub(crate) fn hash_blocks(
        &self,
        data: &[u8],
        block_len: usize,
        ctxs: &mut Vec<Context<A>>,
        mut emit: impl FnMut(usize, &[u8]),
    ) -> Result<(), VerityError> {
        debug_assert!(block_len > 0 && data.len().is_multiple_of(block_len));
        let blocks: Vec<&[u8]> = data.chunks_exact(block_len).collect();
        ctxs.clear();
        ctxs.extend((0..blocks.len()).map(|i| {
            let mut ctx = self.prefix.clone().unwrap_or_default();
            ctx.set_id(i as u64);
            ctx
        }));
        let has_suffix = !self.suffix.is_empty();
        let flags = match (self.prefix.is_some(), has_suffix) {
            (false, false) => Flags::ENTIRE,
            (false, true) => Flags::FIRST,
            (true, false) => Flags::LAST,
            (true, true) => Flags::UPDATE,
        };
        run(ctxs.iter_mut().zip(blocks.iter().copied()), flags)?;
        if has_suffix {
            let suffix = self.suffix.as_slice();
            run(ctxs.iter_mut().map(|c| (c, suffix)), Flags::LAST)?;
        }
        for (i, ctx) in ctxs.iter().enumerate() {
            let digest = ctx.digest().expect("every job ran to LAST");
            emit(i, digest.as_ref());
        }
        Ok(())
    }
}

/// Runs every (context, chunk) job through one manager until all are back.
fn run<'a, A: HashAlgorithm>(
    jobs: impl Iterator<Item = (&'a mut Context<A>, &'a [u8])>,
    flags: Flags,
) -> Result<(), VerityError> {
    let mut manager = JobManager::<A>::try_new()?;
    for (ctx, chunk) in jobs {
        if let Err(e) = manager.submit(ctx, chunk, flags) {
            // The flags fit each context's state and a block is far below
            // the length limit.
            unreachable!("{e}");
        }
    }
    while manager.flush().is_some() {}
    Ok(())
}
