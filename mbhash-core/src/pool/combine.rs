//! The combiner's work: the requests it takes, run through a job manager.

use crate::alg::{Algorithm, Family};
use crate::engine::LaneEngine;
use crate::manager::{Context, Flags, JobManager, Status};

use super::slot::{Combiner, Request};

/// A request in the combiner's hands and the index of its next piece.
type Job<'r> = Option<(&'r Request<'r>, usize)>;

/// The requests a combiner holds; if it unwinds (a panic while hashing, a
/// bug), every one of them is finished as failed, so no caller waits
/// forever.
struct Held<'r, const N: usize> {
    jobs: [Job<'r>; N],
}

impl<const N: usize> Drop for Held<'_, N> {
    fn drop(&mut self) {
        for (req, _) in self.jobs.iter_mut().filter_map(Option::take) {
            req.fail();
        }
    }
}

/// Runs `own` (already claimed from the slot) and, while it is not
/// finished, every waiting request of the same algorithm the lanes can
/// take, on up to `N` contexts. `wake` is called after requests were
/// finished. Returns with every request it took finished.
pub(super) fn run<'r, A: Algorithm, const N: usize>(
    combiner: &Combiner<'r>,
    own: &'r Request<'r>,
    wake: &dyn Fn(),
) {
    let engine = <<A::Family as Family>::Engine as LaneEngine<A::Family>>::configured();
    let lanes = engine.lanes().min(N);
    let mut contexts: [Context<A>; N] = core::array::from_fn(|i| Context::with_id(i as u64));
    let mut free = contexts.iter_mut();
    let mut spare: [Option<&mut Context<A>>; N] = core::array::from_fn(|_| None);
    let mut held = Held::<N> { jobs: [None; N] };
    let mut manager = JobManager::<A>::with_engine(engine);
    let mut next: Option<&'r Request<'r>> = Some(own);
    let mut own_done = false;
    let mut back: Option<&mut Context<A>> = None;
    loop {
        let ctx = match back.take() {
            Some(ctx) => ctx,
            None => {
                if next.is_none() && !own_done && manager.in_flight() < lanes {
                    next = combiner.take(own.algo);
                }
                if let Some(req) = next.take() {
                    let ctx = spare
                        .iter_mut()
                        .find_map(Option::take)
                        .or_else(|| free.next())
                        .expect("a context for every lane");
                    let id = ctx.id() as usize;
                    let count = req.pieces.count();
                    let (data, flags) = match count {
                        0 => (&[][..], Flags::ENTIRE),
                        1 => (req.pieces.piece(0), Flags::ENTIRE),
                        _ => (req.pieces.piece(0), Flags::FIRST),
                    };
                    held.jobs[id] = Some((req, 1));
                    back = submit(&mut manager, ctx, data, flags);
                    continue;
                }
                match manager.flush() {
                    Some(ctx) => ctx,
                    None => break,
                }
            }
        };
        let id = ctx.id() as usize;
        let (req, piece) = held.jobs[id].expect("a context in flight has a request");
        if ctx.status() == Status::Complete {
            let digest = ctx.digest().expect("a complete context has a digest");
            held.jobs[id] = None;
            if core::ptr::eq(req, own) {
                own_done = true;
                combiner.close();
            }
            // The caller may return once this has run: `req` is not
            // touched again.
            req.finish(digest.as_ref());
            wake();
            *spare
                .iter_mut()
                .find(|s| s.is_none())
                .expect("a spare place") = Some(ctx);
        } else {
            let count = req.pieces.count();
            let flags = if piece + 1 == count {
                Flags::LAST
            } else {
                Flags::UPDATE
            };
            held.jobs[id] = Some((req, piece + 1));
            back = submit(&mut manager, ctx, req.pieces.piece(piece), flags);
        }
    }
    debug_assert!(held.jobs.iter().all(Option::is_none));
}

fn submit<'a, A: Algorithm>(
    manager: &mut JobManager<'a, A>,
    ctx: &'a mut Context<A>,
    data: &'a [u8],
    flags: Flags,
) -> Option<&'a mut Context<A>> {
    match manager.submit(ctx, data, flags) {
        Ok(done) => done,
        Err(e) => panic!("the pool submitted a valid job: {e}"),
    }
}
