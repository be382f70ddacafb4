//! Hash many independent messages at once.

use crate::alg::{BlockOf, Family};
use crate::engine::LaneEngine;
use crate::engine::{FamilyEngine, HashAlgorithm};
use crate::lanes::{FamilySet, LaneSet, SliceJob, lane_array};
use crate::manager::{Context, Flags, JobManager};

/// Hashes every message and returns the digests in the same order.
///
/// Uses the configured engine (see [`JobManager::new`]; `auto` if the
/// engine environment variable is invalid).
///
/// ```
/// use mbhash_core::{Sha256Alg, hash_many};
/// let digests = hash_many::<Sha256Alg>(&[b"abc", b"hello"]);
/// assert_eq!(digests[0][..4], [0xba, 0x78, 0x16, 0xbf]);
/// ```
#[cfg(feature = "std")]
pub fn hash_many<A: HashAlgorithm>(messages: &[&[u8]]) -> std::vec::Vec<A::Output> {
    let mut out = std::vec![A::ZERO_OUTPUT; messages.len()];
    hash_many_into::<A>(messages, &mut out);
    out
}

/// Hashes every message into `out[i]`, without allocating.
///
/// # Panics
/// If `out.len() != messages.len()`.
pub fn hash_many_into<A: HashAlgorithm>(messages: &[&[u8]], out: &mut [A::Output]) {
    let engine = <<A::Family as FamilyEngine>::Engine as LaneEngine<A::Family>>::configured();
    hash_many_with::<A>(engine, messages, out);
}

/// Like [`hash_many_into`], on a given engine.
///
/// # Panics
/// If `out.len() != messages.len()`.
pub fn hash_many_with<A: HashAlgorithm>(
    engine: <A::Family as FamilyEngine>::Engine,
    messages: &[&[u8]],
    out: &mut [A::Output],
) {
    assert_eq!(
        messages.len(),
        out.len(),
        "hash_many: one output slot per message"
    );
    if let [message] = messages {
        // One message: the one-stream path, without lanes to manage.
        let mut hasher = crate::StreamHasher::<A>::with_engine(engine);
        hasher.update(message);
        out[0] = hasher.finalize_reset_output();
        return;
    }
    if few_alike::<A>(engine, messages, out) || short_messages::<A>(engine, messages, out) {
        return;
    }
    // Contexts are made on demand (at most one more than the manager holds)
    // and recycled as jobs come back: no allocation whatever the number of
    // messages, and little set-up for a few.
    let mut pool = lane_array::<A::Family, Option<Context<A>>>(|_| None);
    let mut unused = pool.as_mut().iter_mut();
    let mut free = lane_array::<A::Family, Option<&mut Context<A>>>(|_| None);
    let free = free.as_mut();
    let mut nfree = 0;
    let mut manager = JobManager::<A>::with_engine(engine);
    let finish = |ctx: &mut Context<A>, out: &mut [A::Output]| {
        let digest = ctx.digest().expect("an ENTIRE job comes back complete");
        out[ctx.id() as usize] = digest;
    };
    for (i, msg) in messages.iter().enumerate() {
        let ctx = if nfree > 0 {
            nfree -= 1;
            free[nfree].take().expect("counted")
        } else {
            let slot = unused.next().expect("the pool outnumbers the lanes");
            slot.insert(Context::new())
        };
        ctx.set_id(i as u64);
        match manager.submit(ctx, msg, Flags::ENTIRE) {
            Ok(Some(done)) => {
                finish(done, out);
                free[nfree] = Some(done);
                nfree += 1;
            }
            Ok(None) => {}
            // ENTIRE on a context that is not in flight cannot be refused:
            // the flags are valid and a slice is shorter than u64::MAX.
            Err(e) => unreachable!("{e}"),
        }
    }
    while let Some(done) = manager.flush() {
        finish(done, out);
    }
}

/// Many short messages (each padded fits in two blocks, e.g. up to 119
/// bytes for SHA-256): padded straight into a stack buffer a lane-full at a
/// time and run on a lane set, with no contexts or manager. Returns false,
/// doing nothing, if a message is longer.
fn short_messages<A: HashAlgorithm>(
    engine: <A::Family as FamilyEngine>::Engine,
    messages: &[&[u8]],
    out: &mut [A::Output],
) -> bool {
    let block_len = <A::Family as Family>::BLOCK_LEN;
    let max = 2 * block_len - 1 - <A::Family as Family>::LENGTH_LEN;
    if messages.iter().any(|m| m.len() > max) {
        return false;
    }
    let lanes = engine.lanes().clamp(1, <A::Family as Family>::LANES);
    let zero = <A::Family as Family>::ZERO_BLOCK;
    let mut bufs = lane_array::<A::Family, [BlockOf<A>; 2]>(|_| [zero; 2]);
    let bufs = bufs.as_mut();
    for (msgs, outs) in messages.chunks(lanes).zip(out.chunks_mut(lanes)) {
        let mut counts = lane_array::<A::Family, usize>(|_| 0);
        let counts = counts.as_mut();
        for (i, m) in msgs.iter().enumerate() {
            let bytes = <A::Family as Family>::bytes_mut(&mut bufs[i]);
            bytes[..m.len()].copy_from_slice(m);
            counts[i] = <A::Family as Family>::pad(&mut bufs[i], m.len(), m.len() as u64);
        }
        let mut set: FamilySet<A::Family, SliceJob<'_, A::Family>> = LaneSet::new();
        for (buf, n) in bufs.iter().zip(&counts[..msgs.len()]) {
            set.insert(A::IV, SliceJob { blocks: &buf[..*n] });
        }
        // Lanes are filled in order from an empty set: lane i holds
        // message i of the chunk.
        set.run_all(&engine, |i, state, _| {
            <A::Family as Family>::write_digest(&state, outs[i].as_mut());
        });
    }
    true
}

/// The most messages [`few_alike`] takes: up to this many, a lane set's
/// bookkeeping costs more than it saves.
const FEW: usize = 8;

/// 2 to [`FEW`] messages that end alike (each has as many whole blocks read
/// in place, and pads to as many tail blocks): straight through the
/// engine's kernels, with no lane set or manager. A message whose padded
/// form fits in two blocks is copied whole into the stack with its
/// padding (one kernel call); a longer one runs its whole blocks in place,
/// then its padded tail from the stack. The engine's plan picks the
/// kernels for the lane count (`auto`: by the costs it measured, e.g.
/// SHA-NI x2 for two messages). Returns false, doing nothing, if the
/// messages are fewer, more, or unalike.
fn few_alike<A: HashAlgorithm>(
    engine: <A::Family as FamilyEngine>::Engine,
    messages: &[&[u8]],
    out: &mut [A::Output],
) -> bool {
    // The stack arrays are as large as the tier of the message count: two
    // messages zero 256 bytes of tails (SHA-256) where eight would zero a
    // kilobyte, which cost two 64-byte messages 10% of their time.
    match messages.len() {
        2 => few_alike_in::<A, 2>(engine, messages, out),
        3..=4 => few_alike_in::<A, 4>(engine, messages, out),
        5..=FEW => few_alike_in::<A, FEW>(engine, messages, out),
        _ => false,
    }
}

/// [`few_alike`] for 2 to `N` messages, with arrays of `N` lanes.
fn few_alike_in<A: HashAlgorithm, const N: usize>(
    engine: <A::Family as FamilyEngine>::Engine,
    messages: &[&[u8]],
    out: &mut [A::Output],
) -> bool {
    let k = messages.len();
    if !(2..=N).contains(&k) {
        return false;
    }
    let block_len = <A::Family as Family>::BLOCK_LEN;
    let short = 2 * block_len - <A::Family as Family>::LENGTH_LEN;
    // Bytes read in place and blocks of padded tail, as `shape` gives
    // them, the same for every message.
    let shape = |len: usize| {
        let inplace = if len < short {
            0
        } else {
            len - len % block_len
        };
        let tail = len - inplace;
        (
            inplace,
            1 + usize::from(tail >= block_len - <A::Family as Family>::LENGTH_LEN),
        )
    };
    let (inplace, tail_blocks) = shape(messages[0].len());
    if messages[1..].iter().any(|m| {
        let (i, t) = shape(m.len());
        i / block_len != inplace / block_len || t != tail_blocks
    }) {
        return false;
    }
    let mut states = [A::IV; N];
    let states = &mut states[..k];
    let busy = (1u32 << k) - 1;
    if inplace > 0 {
        let mut blocks: [&[BlockOf<A>]; N] = [&[]; N];
        for (b, m) in blocks.iter_mut().zip(messages) {
            *b = <A::Family as Family>::split_blocks(m).0;
        }
        engine.compress_lanes(states, &blocks[..k], busy);
    }
    let zero = <A::Family as Family>::ZERO_BLOCK;
    let mut tails = [[zero; 2]; N];
    for (t, m) in tails.iter_mut().zip(messages) {
        let tail = &m[shape(m.len()).0..];
        <A::Family as Family>::bytes_mut(t)[..tail.len()].copy_from_slice(tail);
        let n = <A::Family as Family>::pad(t, tail.len(), m.len() as u64);
        debug_assert_eq!(n, tail_blocks);
    }
    let mut blocks: [&[BlockOf<A>]; N] = [&[]; N];
    for (b, t) in blocks.iter_mut().zip(&tails) {
        *b = &t[..tail_blocks];
    }
    engine.compress_lanes(states, &blocks[..k], busy);
    for (state, o) in states.iter().zip(out) {
        <A::Family as Family>::write_digest(state, o.as_mut());
    }
    true
}
