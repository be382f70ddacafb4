//! Differential tests against the `sha2` crate, with a fixed seed: random job
//! counts and lengths, random submit/flush interleavings, random multi-part
//! splits, every lane fill. Every job must come back exactly once with the
//! right digest (checked inside `run_jobs`).

mod common;

use common::{Job, Rng, TestFamily, check_digests, run_jobs, sha256_engines, sha512_engines};
use mbhash_core::alg::{
    Md5Alg, Sha1Alg, Sha224Alg, Sha256Alg, Sha384Alg, Sha512_224Alg, Sha512_256Alg, Sha512Alg,
    Sm3Alg,
};
use mbhash_core::engine::{FamilyEngine, HashAlgorithm};
use mbhash_core::engine::{LaneEngine, Sha256Engine};

fn every_length<A: HashAlgorithm>(engine: <A::Family as FamilyEngine>::Engine) {
    let mut rng = Rng::new(1);
    let jobs: Vec<Job> = (0..=200)
        .map(|len| Job::random(&mut rng, len, false))
        .collect();
    let digests = run_jobs::<A>(engine, &jobs, &mut rng);
    check_digests::<A>(
        &format!("{} lengths 0..=200", engine.name()),
        &jobs,
        &digests,
    );
}

fn random_mix<A: HashAlgorithm>(engine: <A::Family as FamilyEngine>::Engine, seed: u64) {
    let mut rng = Rng::new(seed);
    for round in 0..6 {
        let count = 1 + rng.below(40);
        let jobs: Vec<Job> = (0..count)
            .map(|_| {
                let len = match rng.below(3) {
                    0 => rng.below(300),
                    1 => rng.below(5000),
                    _ => rng.below(70_001),
                };
                let split = rng.below(2) == 0;
                Job::random(&mut rng, len, split)
            })
            .collect();
        let digests = run_jobs::<A>(engine, &jobs, &mut rng);
        check_digests::<A>(
            &format!("{} random round {round}", engine.name()),
            &jobs,
            &digests,
        );
    }
}

fn lane_fills<A: HashAlgorithm>(engine: <A::Family as FamilyEngine>::Engine) {
    let mut rng = Rng::new(7);
    for fill in 0..=engine.lanes() + 1 {
        // Ragged lengths around block boundaries.
        let jobs: Vec<Job> = (0..fill)
            .map(|i| {
                let len = [
                    0, 1, 55, 56, 63, 64, 65, 111, 112, 119, 120, 127, 128, 129, 239, 240, 255,
                    256, 1000, 4096,
                ][i % 20]
                    + rng.below(3) * 128;
                Job::random(&mut rng, len, false)
            })
            .collect();
        let digests = run_jobs::<A>(engine, &jobs, &mut rng);
        check_digests::<A>(&format!("{} fill {fill}", engine.name()), &jobs, &digests);
    }
}

#[test]
fn sha256_every_length_every_engine() {
    for engine in sha256_engines() {
        every_length::<Sha256Alg>(engine);
    }
}

#[test]
fn sha224_every_length_every_engine() {
    for engine in sha256_engines() {
        every_length::<Sha224Alg>(engine);
    }
}

#[test]
fn sha256_random_mix_every_engine() {
    for engine in sha256_engines() {
        random_mix::<Sha256Alg>(engine, 0xd1ff);
    }
}

#[test]
fn sha224_random_mix_auto() {
    random_mix::<Sha224Alg>(Sha256Engine::auto(), 0x224);
}

#[test]
fn sha256_every_lane_fill_every_engine() {
    for engine in sha256_engines() {
        lane_fills::<Sha256Alg>(engine);
    }
}

#[test]
fn hash_many_matches_sha2() {
    let mut rng = Rng::new(3);
    for count in [0, 1, 2, 15, 16, 17, 100] {
        let jobs: Vec<Job> = (0..count)
            .map(|_| {
                let len = rng.below(3000);
                Job::random(&mut rng, len, false)
            })
            .collect();
        let msgs: Vec<&[u8]> = jobs.iter().map(Job::message).collect();
        let digests = mbhash_core::hash_many::<Sha256Alg>(&msgs);
        check_digests::<Sha256Alg>("hash_many", &jobs, &digests);
        for engine in sha256_engines() {
            let mut out = vec![[0u8; 28]; count];
            mbhash_core::hash_many_with::<Sha224Alg>(engine, &msgs, &mut out);
            check_digests::<Sha224Alg>("hash_many_with sha224", &jobs, &out);
        }
    }
}

/// The one-stream hashers on every SHA-512 engine, including those without
/// a one-lane kernel (their one stream runs in a wider call beside copies
/// of itself), over the lengths around each block edge, in random chunks.
#[test]
fn sha512_hashers_match_sha2_on_every_engine() {
    use digest::Digest;
    let mut rng = Rng::new(11);
    for engine in sha512_engines() {
        for len in (0..=260).chain([383, 384, 385, 1000, 4099]) {
            let job = Job::random(&mut rng, len, true);
            let mut ours = mbhash_core::StreamHasher::<Sha512Alg>::with_engine(engine);
            job.pieces().for_each(|p| ours.update(p));
            assert_eq!(
                ours.finalize_reset_output()[..],
                sha2::Sha512::digest(job.message())[..],
                "{} engine, {len} bytes",
                engine.name()
            );
        }
    }
}

#[test]
fn hashers_match_sha2_with_random_updates() {
    use digest::Digest;
    let mut rng = Rng::new(5);
    for engine in sha256_engines() {
        for _ in 0..50 {
            let len = rng.below(2000);
            let job = Job::random(&mut rng, len, true);
            let mut ours = mbhash_core::StreamHasher::<Sha256Alg>::with_engine(engine);
            job.pieces().for_each(|p| ours.update(p));
            let expected = sha2::Sha256::digest(job.message());
            assert_eq!(ours.finalize_reset_output()[..], expected[..]);
            // Digest-trait path, reused after reset.
            let mut h = mbhash_core::Sha224::new();
            Digest::update(&mut h, job.message());
            assert_eq!(
                h.finalize_reset()[..],
                sha2::Sha224::digest(job.message())[..]
            );
            Digest::update(&mut h, b"abc");
            assert_eq!(h.finalize()[..], sha2::Sha224::digest(b"abc")[..]);
        }
    }
}

/// Lengths around the SHA-512 padding boundaries, every engine, every variant.
fn sha512_family<A: HashAlgorithm>()
where
    A::Family: TestFamily,
{
    for engine in <A::Family as TestFamily>::engines() {
        every_length::<A>(engine);
        lane_fills::<A>(engine);
        let mut rng = Rng::new(0x512);
        let jobs: Vec<Job> = [111, 112, 127, 128, 239, 240, 255, 256]
            .iter()
            .flat_map(|&l| [l, l + 1, l.max(1) - 1])
            .map(|l| Job::random(&mut rng, l, false))
            .collect();
        let digests = run_jobs::<A>(engine, &jobs, &mut rng);
        check_digests::<A>(&format!("{} boundaries", engine.name()), &jobs, &digests);
    }
    random_mix::<A>(<A::Family as TestFamily>::engines()[0], 0x5120);
}

#[test]
fn sha512_differential() {
    sha512_family::<Sha512Alg>();
    for engine in common::sha512_engines() {
        random_mix::<Sha512Alg>(engine, 0x51);
    }
}

#[test]
fn sha384_differential() {
    sha512_family::<Sha384Alg>();
}

#[test]
fn sha512_256_differential() {
    sha512_family::<Sha512_256Alg>();
}

#[test]
fn sha512_224_differential() {
    sha512_family::<Sha512_224Alg>();
}

/// Batches of short messages (each padded fits in two blocks) take a path of
/// their own in `hash_many`: every length up to the limit, every batch size,
/// every engine.
#[test]
fn hash_many_short_messages() {
    fn family<A: HashAlgorithm>(max: usize)
    where
        A::Family: TestFamily,
    {
        let mut rng = Rng::new(max as u64);
        for engine in <A::Family as TestFamily>::engines() {
            for count in [2, 3, 7, 16, 17, 31, 32, 33, 40, 64, 65] {
                let jobs: Vec<Job> = (0..count)
                    .map(|i| {
                        let len = if i % 3 == 0 {
                            max - i % 4
                        } else {
                            rng.below(max + 1)
                        };
                        Job::random(&mut rng, len, false)
                    })
                    .collect();
                let msgs: Vec<&[u8]> = jobs.iter().map(Job::message).collect();
                let mut out = vec![A::ZERO_OUTPUT; count];
                mbhash_core::hash_many_with::<A>(engine, &msgs, &mut out);
                check_digests::<A>(&format!("short {} x{count}", engine.name()), &jobs, &out);
            }
        }
    }
    family::<Sha256Alg>(119);
    family::<Sha224Alg>(119);
    family::<Sha512Alg>(239);
    family::<Sha512_256Alg>(239);
    family::<Md5Alg>(119);
    family::<Sha1Alg>(119);
    family::<Sm3Alg>(119);
}

/// `hash_many` of more messages than lanes (long ones: through the job
/// manager, its contexts recycled), for every family on every engine: 0 to
/// 70 messages, so every count up to and past two sets of MD5's 32 lanes.
#[test]
fn hash_many_long_messages_every_count() {
    fn family<A: HashAlgorithm>()
    where
        A::Family: TestFamily,
    {
        let mut rng = Rng::new(0x6d);
        for engine in <A::Family as TestFamily>::engines() {
            for count in (0..=70).step_by(3).chain([31, 32, 33, 64, 65]) {
                let jobs: Vec<Job> = (0..count)
                    .map(|_| {
                        let len = 120 + rng.below(3000);
                        Job::random(&mut rng, len, false)
                    })
                    .collect();
                let msgs: Vec<&[u8]> = jobs.iter().map(Job::message).collect();
                let mut out = vec![A::ZERO_OUTPUT; count];
                mbhash_core::hash_many_with::<A>(engine, &msgs, &mut out);
                check_digests::<A>(&format!("long {} x{count}", engine.name()), &jobs, &out);
            }
        }
    }
    family::<Sha256Alg>();
    family::<Sha512Alg>();
    family::<Md5Alg>();
    family::<Sha1Alg>();
    family::<Sm3Alg>();
}

/// Batches of 2 to 9 messages that end alike (as many whole blocks, as many
/// padded tail blocks) run straight on the kernels in `hash_many`: equal
/// lengths around every block and padding edge, alike but unequal lengths,
/// and batches that are not alike, every engine.
#[test]
fn hash_many_few_alike_messages() {
    fn family<A: HashAlgorithm>()
    where
        A::Family: TestFamily,
    {
        let bl = <A::Family as mbhash_core::alg::Family>::BLOCK_LEN;
        let ll = <A::Family as mbhash_core::alg::Family>::LENGTH_LEN;
        let mut rng = Rng::new(bl as u64 + ll as u64);
        let edges = [
            0,
            1,
            bl - ll - 1,
            bl - ll,
            bl - 1,
            bl,
            bl + 1,
            2 * bl - ll - 1,
            2 * bl - ll,
            2 * bl - 1,
        ];
        let mut lengths: Vec<usize> = edges.to_vec();
        for blocks in [2, 3, 16] {
            for e in [0, 1, bl - ll - 1, bl - ll, bl - 1] {
                lengths.push(blocks * bl + e);
            }
        }
        for engine in <A::Family as TestFamily>::engines() {
            for count in 2..=9 {
                let mut batches: Vec<Vec<usize>> =
                    lengths.iter().map(|&len| vec![len; count]).collect();
                // Alike, unequal: the same whole blocks, one tail block.
                batches.push((0..count).map(|i| 3 * bl + i % (bl - ll)).collect());
                // Not alike: one message a block longer, or one tail longer.
                batches.push(
                    (0..count)
                        .map(|i| 2 * bl + bl * (i / (count - 1)))
                        .collect(),
                );
                batches.push(
                    (0..count)
                        .map(|i| bl + (bl - ll) * (i / (count - 1)))
                        .collect(),
                );
                for lens in batches {
                    let jobs: Vec<Job> = lens
                        .iter()
                        .map(|&len| Job::random(&mut rng, len, false))
                        .collect();
                    let msgs: Vec<&[u8]> = jobs.iter().map(Job::message).collect();
                    let mut out = vec![A::ZERO_OUTPUT; count];
                    mbhash_core::hash_many_with::<A>(engine, &msgs, &mut out);
                    let what = format!("alike {} x{count} {lens:?}", engine.name());
                    check_digests::<A>(&what, &jobs, &out);
                }
            }
        }
    }
    family::<Sha256Alg>();
    family::<Sha224Alg>();
    family::<Sha512Alg>();
    family::<Sha384Alg>();
    family::<Md5Alg>();
    family::<Sha1Alg>();
    family::<Sm3Alg>();
}

/// MD5, SHA-1 and SM3 (64-byte blocks, a 64-bit length: little-endian for
/// MD5) on every engine: every length to 200, every lane fill with ragged
/// lengths around the block and padding boundaries, random mixes of
/// multi-part jobs, against the RustCrypto crates.
fn block64_family<A: HashAlgorithm>(seed: u64) {
    for engine in <A::Family as TestFamily>::engines() {
        every_length::<A>(engine);
        lane_fills::<A>(engine);
        random_mix::<A>(engine, seed);
    }
}

#[test]
fn md5_differential() {
    block64_family::<Md5Alg>(0x3d5);
}

#[test]
fn sha1_differential() {
    block64_family::<Sha1Alg>(0x5a1);
}

#[test]
fn sm3_differential() {
    block64_family::<Sm3Alg>(0x53);
}
