//! Shared harness for the integration tests of `mbhash-core`: engines of
//! a family, random jobs through a manager, digests against the oracle.
#![allow(dead_code)]

use std::collections::VecDeque;

use mbhash_core::engine::{
    Engine, Kernels, LaneEngine, Sha256Engine, Sha256Kernels, Sha512Engine, Sha512Kernels,
};
use mbhash_core::engine::{FamilyEngine, HashAlgorithm};
use mbhash_core::{Context, Flags, JobManager, Status};
use mbhash_simd::cpu::{self, Feature};
pub use mbhash_test_support::Rng;

/// Every engine of a family that this CPU runs; prints a SKIPPED line for the
/// others (and panics for those `MBHASH_REQUIRE` names).
pub fn engines<K: Kernels>() -> Vec<Engine<K>> {
    family_engines::<K::Family>()
        .into_iter()
        .map(|e| Engine::<K>::from_name(e.name()).expect("a listed engine"))
        .collect()
}

/// Every engine of family `F` that this CPU runs (see [`engines`]).
pub fn family_engines<F: FamilyEngine>() -> Vec<F::Engine> {
    <F::Engine as LaneEngine<F>>::names()
        .filter_map(|name| {
            let feature = mbhash_test_support::engine_feature(name);
            let engine = F::Engine::from_name(name).ok();
            match feature {
                None => Some(engine.expect("auto and scalar always run")),
                Some(f) => {
                    let why = Feature::from_name(f).map_or("unknown", cpu::unavailable_reason);
                    let what = format!("{} engine {name}", F::ENGINE_FAMILY);
                    mbhash_test_support::token_or_skip(f, why, &what, engine)
                }
            }
        })
        .collect()
}

/// Every SHA-256 engine this CPU runs.
pub fn sha256_engines() -> Vec<Sha256Engine> {
    engines::<Sha256Kernels>()
}

/// Every SHA-512 engine this CPU runs.
pub fn sha512_engines() -> Vec<Sha512Engine> {
    engines::<Sha512Kernels>()
}

/// A family whose engines the tests can list: every family.
pub trait TestFamily: FamilyEngine {
    /// Every engine of the family that this CPU runs.
    fn engines() -> Vec<Self::Engine>;
    /// The reference (scalar) engine.
    fn scalar() -> Self::Engine;
}

impl<F: FamilyEngine> TestFamily for F {
    fn engines() -> Vec<F::Engine> {
        family_engines::<F>()
    }
    fn scalar() -> F::Engine {
        F::Engine::from_name("scalar").expect("every family has a scalar engine")
    }
}

/// One job: a message in a buffer (at an offset, so it can be unaligned) cut
/// into chunks for FIRST / UPDATE / LAST.
pub struct Job {
    pub buf: Vec<u8>,
    pub offset: usize,
    pub chunks: Vec<usize>,
}

impl Job {
    pub fn message(&self) -> &[u8] {
        &self.buf[self.offset..]
    }

    /// The message in its chunks, in order.
    pub fn pieces(&self) -> impl Iterator<Item = &[u8]> {
        let mut at = 0;
        self.chunks.iter().map(move |&c| {
            at += c;
            &self.message()[at - c..at]
        })
    }

    /// A job of `len` random bytes at a random offset; `split` cuts it into
    /// random chunks (including empty ones), else it is one ENTIRE chunk.
    pub fn random(rng: &mut Rng, len: usize, split: bool) -> Job {
        let offset = rng.below(8);
        let mut buf = vec![0u8; offset + len];
        rng.fill(&mut buf);
        let mut chunks = Vec::new();
        if split {
            let mut left = len;
            loop {
                let c = match rng.below(4) {
                    0 => rng.below(3),
                    1 => rng.below(130),
                    _ => rng.below(left + 1),
                }
                .min(left);
                chunks.push(c);
                left -= c;
                if left == 0 && rng.below(3) > 0 {
                    break;
                }
            }
        } else {
            chunks.push(len);
        }
        Job {
            buf,
            offset,
            chunks,
        }
    }
}

/// Runs `jobs` through one manager with a random interleaving of submits and
/// flushes, checking that every submitted chunk comes back exactly once,
/// with the right status, before the job's next chunk is submitted.
/// Returns the digests in job order.
pub fn run_jobs<A: HashAlgorithm>(
    engine: <A::Family as FamilyEngine>::Engine,
    jobs: &[Job],
    rng: &mut Rng,
) -> Vec<A::Output> {
    let mut contexts: Vec<Context<A>> = (0..jobs.len() as u64).map(Context::with_id).collect();
    let mut slots: Vec<Option<&mut Context<A>>> = contexts.iter_mut().map(Some).collect();
    let mut next_chunk = vec![0usize; jobs.len()];
    let mut pos = vec![0usize; jobs.len()];
    let mut ready: VecDeque<usize> = (0..jobs.len()).collect();
    let mut digests: Vec<Option<A::Output>> = vec![None; jobs.len()];
    let mut manager = JobManager::<A>::with_engine(engine);
    let mut in_flight = 0usize;

    loop {
        let returned = if in_flight > 0 && (ready.is_empty() || rng.below(5) == 0) {
            Some(manager.flush().expect("a job is in flight"))
        } else if let Some(id) = (!ready.is_empty()).then(|| {
            let k = rng.below(ready.len());
            ready.remove(k).unwrap()
        }) {
            let job = &jobs[id];
            let c = next_chunk[id];
            let len = job.chunks[c];
            let data = &job.message()[pos[id]..pos[id] + len];
            let mut flags = Flags::UPDATE;
            if c == 0 {
                flags = flags | Flags::FIRST;
            }
            if c + 1 == job.chunks.len() {
                flags = flags | Flags::LAST;
            }
            pos[id] += len;
            next_chunk[id] += 1;
            in_flight += 1;
            let ctx = slots[id].take().expect("job not in flight");
            manager.submit(ctx, data, flags).expect("valid submit")
        } else {
            break;
        };
        let Some(ctx) = returned else { continue };
        in_flight -= 1;
        let id = ctx.id() as usize;
        assert!(digests[id].is_none(), "job {id} came back after completing");
        assert!(slots[id].is_none(), "job {id} came back twice");
        if next_chunk[id] == jobs[id].chunks.len() {
            assert_eq!(ctx.status(), Status::Complete, "job {id}");
            assert_eq!(ctx.total_len(), jobs[id].message().len() as u64);
            digests[id] = ctx.digest();
        } else {
            assert_eq!(ctx.status(), Status::Idle, "job {id}");
            assert!(ctx.digest().is_none());
            ready.push_back(id);
        }
        slots[id] = Some(ctx);
    }
    assert!(manager.is_empty());
    assert!(manager.flush().is_none());
    digests
        .into_iter()
        .map(|d| d.expect("every job completes"))
        .collect()
}

/// The `sha2` crate's digest of `data` for algorithm `A` (the oracle).
pub fn oracle<A: HashAlgorithm>(data: &[u8]) -> Vec<u8> {
    mbhash_test_support::oracle(A::NAME, data)
}

/// Checks digests of `jobs` against the oracle.
pub fn check_digests<A: HashAlgorithm>(what: &str, jobs: &[Job], digests: &[A::Output]) {
    for (i, (job, d)) in jobs.iter().zip(digests).enumerate() {
        assert_eq!(
            d.as_ref(),
            oracle::<A>(job.message()).as_slice(),
            "{what}: job {i}, length {}, chunks {:?}",
            job.message().len(),
            job.chunks
        );
    }
}
