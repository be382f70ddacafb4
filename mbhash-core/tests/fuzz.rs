//! Differential fuzzers, bounded in time and seeded from the clock: the job
//! manager (every algorithm, every engine this CPU runs, random flags
//! including invalid ones, random chunkings, misuse) against the `sha2`,
//! `md-5`, `sha1` and `sm3` crates and a model of the context states, and CRC32C append/combine on
//! every engine against a bitwise reference.
//!
//! Each fuzzer prints its seed and the operations it ran. `MBHASH_FUZZ_SEED`
//! replays a seed; `MBHASH_FUZZ_SECS` sets the time per fuzzer (default 2 s,
//! so that `cargo test` stays quick; CI runs longer).

mod common;

use std::io::Write;
use std::time::{Duration, Instant};

use common::{Rng, TestFamily, oracle};
use mbhash_core::alg::{
    Family, Md5Alg, Sha1Alg, Sha224Alg, Sha256Alg, Sha384Alg, Sha512_224Alg, Sha512_256Alg,
    Sha512Alg, Sm3Alg,
};
use mbhash_core::crc32c::{self, Crc32cKernel};
use mbhash_core::engine::LaneEngine;
use mbhash_core::engine::{FamilyEngine, HashAlgorithm};
use mbhash_core::{Context, ErrorKind, Flags, JobManager, Status};

/// A fuzzer's seed and time budget, from the environment or the clock.
struct Budget {
    name: &'static str,
    seed: u64,
    until: Instant,
}

impl Budget {
    fn start(name: &'static str) -> (Budget, Rng) {
        let seed = std::env::var("MBHASH_FUZZ_SEED")
            .ok()
            .and_then(|s| s.trim().parse().ok())
            .unwrap_or_else(|| {
                let t = std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .unwrap_or_default();
                t.as_nanos() as u64 ^ u64::from(std::process::id()).rotate_left(32)
            });
        let secs: f64 = std::env::var("MBHASH_FUZZ_SECS")
            .ok()
            .and_then(|s| s.trim().parse().ok())
            .unwrap_or(2.0);
        // Past the harness's capture, so every log shows how to replay.
        let _ = writeln!(
            std::io::stderr(),
            "fuzz {name}: seed {seed} (replay: MBHASH_FUZZ_SEED={seed}), {secs} s"
        );
        let budget = Budget {
            name,
            seed,
            until: Instant::now() + Duration::from_secs_f64(secs.max(0.0)),
        };
        (budget, Rng::new(seed))
    }

    fn running(&self) -> bool {
        Instant::now() < self.until
    }

    fn report(&self, ops: u64, what: &str) {
        let _ = writeln!(
            std::io::stderr(),
            "fuzz {}: seed {}: {ops} operations ({what})",
            self.name,
            self.seed
        );
    }
}

/// A length biased towards block edges.
fn chunk_len(rng: &mut Rng, block: usize) -> usize {
    match rng.below(6) {
        0 => rng.below(4),
        1 => block * rng.below(4) + rng.below(3),
        2 => block * (1 + rng.below(3)) - 1 - rng.below(2),
        3 => rng.below(2 * block + 20),
        4 => rng.below(5000),
        _ => rng.below(70_000),
    }
}

/// Random flags: mostly valid ones, sometimes invalid bits.
fn random_flags(rng: &mut Rng) -> Flags {
    match rng.below(12) {
        0 => Flags::from_bits(rng.next_u64() as u32 | 4 << rng.below(29)),
        1..=3 => Flags::FIRST,
        4..=6 => Flags::UPDATE,
        7 | 8 => Flags::LAST,
        _ => Flags::ENTIRE,
    }
}

/// What a context holds, as the model sees it.
#[derive(Clone)]
enum Model {
    New,
    /// A stream that goes on: its bytes so far.
    Open(Vec<u8>),
    /// Finished: its whole message.
    Complete(Vec<u8>),
}

#[derive(Default)]
struct Counts {
    ops: u64,
    digests: u64,
    refusals: u64,
}

/// One run of random operations on one manager of `A` and engine `engine`.
fn manager_run<A: HashAlgorithm>(
    rng: &mut Rng,
    engine: <A::Family as FamilyEngine>::Engine,
    pool: &[u8],
    counts: &mut Counts,
) {
    let block = <A::Family as Family>::BLOCK_LEN;
    let n = 1 + rng.below(3 * engine.lanes() + 2);
    let mut ctxs: Vec<Context<A>> = (0..n as u64).map(Context::with_id).collect();
    let mut slots: Vec<Option<&mut Context<A>>> = ctxs.iter_mut().map(Some).collect();
    let mut model = vec![Model::New; n];
    // For contexts in flight: the model once the chunk is consumed.
    let mut after: Vec<Option<Model>> = vec![None; n];
    let mut manager = JobManager::<A>::with_engine(engine);
    let steps = 1 + rng.below(200);
    let check_back = |ctx: &mut Context<A>, want: &Model, counts: &mut Counts| match want {
        Model::Complete(msg) => {
            assert_eq!(ctx.status(), Status::Complete);
            let d = ctx.digest().expect("a complete stream has a digest");
            assert_eq!(
                d.as_ref(),
                oracle::<A>(msg).as_slice(),
                "{} bytes",
                msg.len()
            );
            assert_eq!(ctx.total_len(), msg.len() as u64);
            counts.digests += 1;
        }
        Model::Open(msg) => {
            assert_eq!(ctx.status(), Status::Idle);
            assert!(ctx.digest().is_none());
            assert_eq!(ctx.total_len(), msg.len() as u64);
        }
        Model::New => unreachable!("a submitted context is never new"),
    };
    for _ in 0..steps {
        counts.ops += 1;
        let free: Vec<usize> = (0..n).filter(|&i| slots[i].is_some()).collect();
        let flush = free.is_empty() || rng.below(6) == 0;
        let back = if flush {
            manager.flush()
        } else {
            let id = free[rng.below(free.len())];
            let len = chunk_len(rng, block).min(pool.len());
            let at = rng.below(pool.len() - len + 1);
            let data = &pool[at..at + len];
            let flags = random_flags(rng);
            let ctx = slots[id].take().expect("free");
            let refusal = if !flags.is_valid() {
                Some(ErrorKind::InvalidFlags)
            } else if !flags.is_first() && !matches!(model[id], Model::Open(_)) {
                Some(ErrorKind::AlreadyCompleted)
            } else {
                None
            };
            match (manager.submit(ctx, data, flags), refusal) {
                (Err(e), Some(kind)) => {
                    assert_eq!(e.kind(), kind);
                    counts.refusals += 1;
                    let ctx = e.into_context();
                    // Refused: the context is as it was.
                    match &model[id] {
                        Model::New => assert_eq!(ctx.status(), Status::New),
                        Model::Open(_) => assert_eq!(ctx.status(), Status::Idle),
                        Model::Complete(_) => assert_eq!(ctx.status(), Status::Complete),
                    }
                    slots[id] = Some(ctx);
                    continue;
                }
                (Err(e), None) => panic!("refused a valid submit: {:?}", e.kind()),
                (Ok(_), Some(kind)) => panic!("accepted a submit that should fail: {kind:?}"),
                (Ok(done), None) => {
                    let mut msg = match (&model[id], flags.is_first()) {
                        (Model::Open(m), false) => m.clone(),
                        _ => Vec::new(),
                    };
                    msg.extend_from_slice(data);
                    after[id] = Some(if flags.is_last() {
                        Model::Complete(msg)
                    } else {
                        Model::Open(msg)
                    });
                    done
                }
            }
        };
        if let Some(ctx) = back {
            let id = ctx.id() as usize;
            let want = after[id].take().expect("a context came back once");
            check_back(ctx, &want, counts);
            model[id] = want;
            slots[id] = Some(ctx);
        } else {
            assert!(
                !flush || manager.is_empty(),
                "a flush of a busy manager returned nothing"
            );
        }
    }
    while let Some(ctx) = manager.flush() {
        let id = ctx.id() as usize;
        let want = after[id].take().expect("a context came back once");
        check_back(ctx, &want, counts);
        slots[id] = Some(ctx);
    }
    assert!(
        after.iter().all(Option::is_none),
        "a context never came back"
    );
}

fn manager_for<A: HashAlgorithm>(rng: &mut Rng, pool: &[u8], counts: &mut Counts)
where
    A::Family: TestFamily,
{
    let engines = <A::Family as TestFamily>::engines();
    let engine = engines[rng.below(engines.len())];
    manager_run::<A>(rng, engine, pool, counts);
}

#[test]
fn fuzz_job_manager() {
    let (budget, mut rng) = Budget::start("job-manager");
    let mut pool = vec![0u8; 80_000];
    rng.fill(&mut pool);
    let mut counts = Counts::default();
    while budget.running() {
        match rng.below(9) {
            0 => manager_for::<Sha256Alg>(&mut rng, &pool, &mut counts),
            1 => manager_for::<Sha224Alg>(&mut rng, &pool, &mut counts),
            2 => manager_for::<Sha512Alg>(&mut rng, &pool, &mut counts),
            3 => manager_for::<Sha384Alg>(&mut rng, &pool, &mut counts),
            4 => manager_for::<Sha512_256Alg>(&mut rng, &pool, &mut counts),
            5 => manager_for::<Sha512_224Alg>(&mut rng, &pool, &mut counts),
            6 => manager_for::<Md5Alg>(&mut rng, &pool, &mut counts),
            7 => manager_for::<Sha1Alg>(&mut rng, &pool, &mut counts),
            _ => manager_for::<Sm3Alg>(&mut rng, &pool, &mut counts),
        }
    }
    budget.report(
        counts.ops,
        &format!(
            "{} digests checked, {} misuse refusals",
            counts.digests, counts.refusals
        ),
    );
    assert!(counts.digests > 0);
}

/// CRC32C, one bit at a time: the reference.
fn crc_reference(mut crc: u32, data: &[u8]) -> u32 {
    crc = !crc;
    for &b in data {
        crc ^= u32::from(b);
        for _ in 0..8 {
            crc = if crc & 1 != 0 {
                (crc >> 1) ^ 0x82f6_3b78
            } else {
                crc >> 1
            };
        }
    }
    !crc
}

#[test]
fn fuzz_crc32c_append_and_combine() {
    let (budget, mut rng) = Budget::start("crc32c");
    let kernels: Vec<Crc32cKernel> = crc32c::engines()
        .into_iter()
        .filter(|e| e.is_supported())
        .map(|e| Crc32cKernel::new(e).expect("a supported engine"))
        .collect();
    let mut pool = vec![0u8; 1 << 17];
    rng.fill(&mut pool);
    let mut ops = 0u64;
    while budget.running() {
        let len = match rng.below(4) {
            0 => rng.below(64),
            1 => rng.below(1024),
            2 => rng.below(16 << 10),
            _ => rng.below(pool.len()),
        };
        let at = rng.below(pool.len() - len + 1);
        let data = &pool[at..at + len];
        let seed_crc = if rng.below(2) == 0 {
            0
        } else {
            rng.next_u64() as u32
        };
        let want = crc_reference(seed_crc, data);
        // Every engine, appending the data in random pieces.
        for k in &kernels {
            let mut crc = seed_crc;
            let mut rest = data;
            while !rest.is_empty() {
                let n = match rng.below(3) {
                    0 => rest.len(),
                    1 => rng.below(rest.len().min(100) + 1),
                    _ => rng.below(rest.len() + 1),
                };
                crc = k.append(crc, &rest[..n]);
                rest = &rest[n..];
                ops += 1;
            }
            assert_eq!(crc, want, "{:?}: {len} bytes at {at}", k.engine());
        }
        assert_eq!(crc32c::crc32c_append(seed_crc, data), want);
        // Combine at a random cut, with any length of the second part.
        let cut = rng.below(len + 1);
        let (a, b) = data.split_at(cut);
        let crc_a = crc32c::crc32c_append(seed_crc, a);
        let crc_b = crc32c::crc32c(b);
        assert_eq!(
            crc32c::crc32c_combine(crc_a, crc_b, b.len() as u64),
            want,
            "combine at {cut} of {len}"
        );
        // Zero-filled second parts known only by their length: short ones
        // against the data, long ones (up to 1 TiB) split two ways.
        let short = rng.below(3000);
        assert_eq!(
            crc_zeros(want, short as u64),
            crc_reference(want, &vec![0u8; short]),
            "{short} zeros"
        );
        let (n1, n2) = (rng.next_u64() % (1 << 40), rng.next_u64() % (1 << 40));
        assert_eq!(
            crc_zeros(crc_zeros(want, n1), n2),
            crc_zeros(want, n1 + n2),
            "{n1} + {n2} zeros"
        );
        ops += 4;
    }
    budget.report(
        ops,
        &format!("appends and combines on {} engines", kernels.len()),
    );
}

/// The CRC of `n` zero bytes appended to a message with finished CRC `crc`,
/// through `crc32c_combine`, the CRC of the zeros built by doubling.
fn crc_zeros(crc: u32, n: u64) -> u32 {
    // zeros(2k) = combine(zeros(k), zeros(k), k).
    let mut acc = crc32c::crc32c(&[]);
    let mut acc_len = 0u64;
    let mut piece = crc32c::crc32c(&[0]);
    let mut piece_len = 1u64;
    let mut left = n;
    while left > 0 {
        if left & 1 != 0 {
            acc = crc32c::crc32c_combine(acc, piece, piece_len);
            acc_len += piece_len;
        }
        piece = crc32c::crc32c_combine(piece, piece, piece_len);
        piece_len *= 2;
        left >>= 1;
    }
    assert_eq!(acc_len, n);
    crc32c::crc32c_combine(crc, acc, n)
}
