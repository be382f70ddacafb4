//! Hash many independent messages at once.

use crate::alg::{Algorithm, Family, MAX_LANES};
use crate::engine::LaneEngine;
use crate::manager::{Context, Flags, JobManager};

/// Hashes every message and returns the digests in the same order.
///
/// Uses the configured engine (see [`JobManager::new`]).
///
/// ```
/// use mbhash_core::{alg::Sha256, hash_many};
/// let digests = hash_many::<Sha256>(&[b"abc", b"hello"]);
/// assert_eq!(digests[0][..4], [0xba, 0x78, 0x16, 0xbf]);
/// ```
///
/// # Panics
/// If the engine environment variable is invalid (see [`JobManager::new`]).
#[cfg(feature = "std")]
pub fn hash_many<A: Algorithm>(messages: &[&[u8]]) -> std::vec::Vec<A::Output> {
    let mut out = std::vec![A::ZERO_OUTPUT; messages.len()];
    hash_many_into::<A>(messages, &mut out);
    out
}

/// Hashes every message into `out[i]`, without allocating.
///
/// # Panics
/// If `out.len() != messages.len()`, or if the engine environment variable
/// is invalid (see [`JobManager::new`]).
pub fn hash_many_into<A: Algorithm>(messages: &[&[u8]], out: &mut [A::Output]) {
    let engine = match <<A::Family as Family>::Engine as LaneEngine<A::Family>>::configured() {
        Ok(e) => e,
        Err(e) => panic!("{e}"),
    };
    hash_many_with::<A>(engine, messages, out);
}

/// Like [`hash_many_into`], on a given engine.
///
/// # Panics
/// If `out.len() != messages.len()`.
pub fn hash_many_with<A: Algorithm>(
    engine: <A::Family as Family>::Engine,
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
        let mut hasher = crate::Hasher::<A>::with_engine(engine);
        hasher.update(message);
        out[0] = hasher.finalize_reset_output();
        return;
    }
    // Contexts are made on demand (at most one more than the manager holds)
    // and recycled as jobs come back: no allocation whatever the number of
    // messages, and little set-up for a few.
    let mut pool: [Option<Context<A>>; MAX_LANES] = [const { None }; MAX_LANES];
    let mut unused = pool.iter_mut();
    let mut free: [Option<&mut Context<A>>; MAX_LANES] = Default::default();
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
