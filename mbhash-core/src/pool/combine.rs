//! The combiner's work: the requests it takes, run through a job manager.

use crate::alg::{self};
use crate::manager::{Context, Flags, JobManager, Status};

use super::slot::{Combiner, Request};
use crate::engine::HashAlgorithm;

/// Lanes a combiner fills, at most: its family's lanes ([`lanes`]), but
/// never more than 16. MD5's 32 would double a slot's contexts, and the
/// pool's memory with them (a C caller's `mbh_pool` is `MBH_POOL_SIZE`
/// bytes); its 16 run on the 16-lane kernel as before.
pub(super) const MAX_COMBINED: usize = 16;

/// The lanes a combiner of the family `F` fills: [`MAX_COMBINED`] at most.
pub(super) const fn lanes<F: alg::Family>() -> usize {
    if F::LANES < MAX_COMBINED {
        F::LANES
    } else {
        MAX_COMBINED
    }
}

/// A slot's contexts, one per lane, for the algorithm its last combiner
/// ran (`Empty` before the first), for each algorithm of the catalogue
/// ([`for_each_algorithm!`](crate::for_each_algorithm)), as many as its
/// combiner fills ([`lanes`]): kept in the pool (not on the combiner's
/// stack, which is scarce in a kernel) and reached only by the slot's
/// combiner.
macro_rules! store {
    ($($v:ident $t:ident $family:ident $hasher:ident $manager:ident $context:ident $name:literal $tag:literal;)*) => {
        pub(super) enum Store {
            /// No combiner ran here yet.
            Empty,
            $($v([Option<Context<alg::$t>>; lanes::<alg::$family>()]),)*
        }

        $(
            impl Stored for alg::$t {
                #[inline(never)]
                fn contexts(store: &mut Store) -> &mut [Option<Context<Self>>] {
                    if !matches!(store, Store::$v(_)) {
                        *store = Store::$v([const { None }; _]);
                    }
                    match store {
                        Store::$v(c) => c,
                        _ => unreachable!("the store was just switched"),
                    }
                }
            }
        )*
    };
}

crate::for_each_algorithm!(@names store);

/// An algorithm whose contexts a [`Store`] holds.
pub(super) trait Stored: HashAlgorithm {
    /// The store's contexts for this algorithm (the store is switched to
    /// it first if it held another's).
    fn contexts(store: &mut Store) -> &mut [Option<Context<Self>>];
}

/// Bytes a job is fed to the manager in: between chunks the combiner takes
/// new requests into free lanes, so callers that arrive while it hashes
/// join the lanes within one chunk's time.
const CHUNK: usize = 16 << 10;

/// A request in the combiner's hands and where its next chunk starts.
#[derive(Clone, Copy)]
struct Job<'r> {
    req: &'r Request<'r>,
    piece: usize,
    offset: usize,
    started: bool,
}

impl<'r> Job<'r> {
    /// The next chunk and its flags; moves past it.
    fn next_chunk(&mut self) -> (&'r [u8], Flags) {
        let pieces = self.req.pieces;
        let count = pieces.count();
        let mut data: &'r [u8] = &[];
        while self.piece < count {
            let p = pieces.piece(self.piece);
            if self.offset < p.len() {
                let end = (self.offset + CHUNK).min(p.len());
                data = &p[self.offset..end];
                self.offset = end;
                break;
            }
            self.piece += 1;
            self.offset = 0;
        }
        // Last if nothing follows.
        let mut last = true;
        let (mut piece, mut offset) = (self.piece, self.offset);
        while piece < count {
            if offset < pieces.piece(piece).len() {
                last = false;
                break;
            }
            piece += 1;
            offset = 0;
        }
        let first = !self.started;
        self.started = true;
        let flags = match (first, last) {
            (true, true) => Flags::ENTIRE,
            (true, false) => Flags::FIRST,
            (false, true) => Flags::LAST,
            (false, false) => Flags::UPDATE,
        };
        (data, flags)
    }
}

/// The requests a combiner holds; if it unwinds (a panic while hashing, a
/// bug), every one of them is finished as failed, so no caller waits
/// forever.
struct Held<'r, 'c, const N: usize> {
    jobs: [Option<Job<'r>>; N],
    combiner: &'c Combiner<'r>,
}

impl<const N: usize> Drop for Held<'_, '_, N> {
    fn drop(&mut self) {
        for job in self.jobs.iter_mut().filter_map(Option::take) {
            self.combiner.wake(job.req.fail());
        }
    }
}

/// Runs `own` (already claimed from the slot) and, while it is not
/// finished, every waiting request of the same algorithm the lanes can
/// take (between chunks of [`CHUNK`] bytes), on up to `N` contexts; a
/// finished request's caller is woken if it sleeps. Returns with every
/// request it took finished.
#[inline(never)]
pub(super) fn run<'r, A: Stored, const N: usize>(
    combiner: &Combiner<'r>,
    store: &mut Store,
    own: &'r Request<'r>,
) {
    // The manager first, on the configured engine: no second copy of the
    // engine on the stack (a kernel's stack is scarce).
    let mut manager = JobManager::<A>::new();
    let lanes = manager.lanes().min(N);
    // Set up one at a time, when a lane first needs it.
    let mut free = A::contexts(store)
        .iter_mut()
        .take(N)
        .enumerate()
        .map(|(i, c)| c.insert(Context::with_id(i as u64)));
    let mut spare: [Option<&mut Context<A>>; N] = [const { None }; N];
    let mut held = Held::<N> {
        jobs: [None; N],
        combiner,
    };
    let mut next: Option<&'r Request<'r>> = Some(own);
    let mut own_done = false;
    let mut back: Option<&mut Context<A>> = None;
    loop {
        let ctx = match back.take() {
            Some(ctx) => ctx,
            None => {
                if next.is_none() && !own_done && manager.in_flight() < lanes {
                    next = combiner.take(own.algo);
                    if next.is_some() {
                        combiner.set_held(manager.in_flight() + 1);
                    }
                }
                if let Some(req) = next.take() {
                    let ctx = spare
                        .iter_mut()
                        .find_map(Option::take)
                        .or_else(|| free.next())
                        .expect("a context for every lane");
                    let id = ctx.id() as usize;
                    let mut job = Job {
                        req,
                        piece: 0,
                        offset: 0,
                        started: false,
                    };
                    let (data, flags) = job.next_chunk();
                    held.jobs[id] = Some(job);
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
        let mut job = held.jobs[id].expect("a context in flight has a request");
        let req = job.req;
        if ctx.status() == Status::Complete {
            let digest = ctx.digest().expect("a complete context has a digest");
            held.jobs[id] = None;
            if core::ptr::eq(req, own) {
                own_done = true;
                combiner.close();
            }
            // The caller may return once this has run: `req` is not
            // touched again.
            combiner.wake(req.finish(digest.as_ref()));
            combiner.set_held(manager.in_flight());
            *spare
                .iter_mut()
                .find(|s| s.is_none())
                .expect("a spare place") = Some(ctx);
        } else {
            let (data, flags) = job.next_chunk();
            held.jobs[id] = Some(job);
            back = submit(&mut manager, ctx, data, flags);
        }
    }
    debug_assert!(held.jobs.iter().all(Option::is_none));
}

fn submit<'a, A: HashAlgorithm>(
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
