//! Known answers, run through `hash_many` and the one-stream hasher (on the
//! configured engine and on every engine by name) and the job manager
//! (whole and multi-part) on every engine:
//!
//! - NIST CAVP SHA-2 and SHA-1 vectors (ShortMsg, LongMsg and, for SHA-1,
//!   the Monte Carlo `.rsp` files from the `cryptography-vectors` package,
//!   committed unmodified under `tests/vectors/`);
//! - MD5: the test suite of RFC 1321, appendix A.5;
//! - SM3: the two examples of GB/T 32905-2016, appendix A.

mod common;

use common::{Job, Rng, TestFamily, run_jobs};
use mbhash_core::alg::{
    Md5Alg, Sha1Alg, Sha224Alg, Sha256Alg, Sha384Alg, Sha512_224Alg, Sha512_256Alg, Sha512Alg,
    Sm3Alg,
};
use mbhash_core::engine::HashAlgorithm;
use mbhash_core::engine::{
    Engine, Kernels, LaneEngine, Md5Kernels, Sha1Kernels, Sha256Kernels, Sha512Kernels, Sm3Kernels,
};

/// One vector: the message and its digest.
struct Vector {
    msg: Vec<u8>,
    md: Vec<u8>,
}

fn hex(s: &str) -> Vec<u8> {
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).expect("hex"))
        .collect()
}

/// The text of a committed vector file.
fn read(file: &str) -> String {
    let path = format!("{}/../tests/vectors/{file}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// Parses `Len = / Msg = / MD =` records of a CAVP response file.
fn load(file: &str) -> Vec<Vector> {
    let text = read(file);
    let mut out = Vec::new();
    let mut len_bits = None;
    let mut msg = None;
    for line in text.lines().map(str::trim) {
        if let Some(v) = line.strip_prefix("Len = ") {
            len_bits = Some(v.parse::<usize>().expect("Len"));
        } else if let Some(v) = line.strip_prefix("Msg = ") {
            let bytes = len_bits.expect("Len before Msg") / 8;
            let mut m = hex(v);
            m.truncate(bytes); // "Msg = 00" stands for the empty message
            msg = Some(m);
        } else if let Some(v) = line.strip_prefix("MD = ") {
            out.push(Vector {
                msg: msg.take().expect("Msg before MD"),
                md: hex(v),
            });
            len_bits = None;
        }
    }
    assert!(out.len() >= 64, "{file}: only {} vectors", out.len());
    out
}

fn check<A: HashAlgorithm>(file: &str)
where
    A::Family: TestFamily,
{
    check_vectors::<A>(file, &load(file));
}

/// Checks `vectors` (named `file` in messages) on every path.
fn check_vectors<A: HashAlgorithm>(file: &str, vectors: &[Vector])
where
    A::Family: TestFamily,
{
    let msgs: Vec<&[u8]> = vectors.iter().map(|v| v.msg.as_slice()).collect();

    // hash_many on the configured engine.
    for (d, v) in mbhash_core::hash_many::<A>(&msgs).iter().zip(vectors) {
        assert_eq!(
            d.as_ref(),
            v.md.as_slice(),
            "{file} hash_many, {} bytes",
            v.msg.len()
        );
    }

    // The one-stream hasher.
    for v in vectors {
        let d = mbhash_core::StreamHasher::<A>::hash(&v.msg);
        assert_eq!(
            d.as_ref(),
            v.md.as_slice(),
            "{file} hasher, {} bytes",
            v.msg.len()
        );
    }

    // The manager on every engine, whole and in random parts; hash_many and
    // the hasher with each engine named.
    let mut rng = Rng::new(0x4e157);
    for engine in <A::Family as TestFamily>::engines() {
        let mut out = vec![A::ZERO_OUTPUT; msgs.len()];
        mbhash_core::hash_many_with::<A>(engine, &msgs, &mut out);
        let mut hasher = mbhash_core::StreamHasher::<A>::with_engine(engine);
        for (d, v) in out.iter().zip(vectors) {
            assert_eq!(
                d.as_ref(),
                v.md.as_slice(),
                "{file} hash_many_with {}, {} bytes",
                engine.name(),
                v.msg.len()
            );
            hasher.update(&v.msg);
            assert_eq!(
                hasher.finalize_reset_output().as_ref(),
                v.md.as_slice(),
                "{file} hasher on {}, {} bytes",
                engine.name(),
                v.msg.len()
            );
        }
        for split in [false, true] {
            let jobs: Vec<Job> = vectors
                .iter()
                .map(|v| {
                    let mut job = Job::random(&mut rng, v.msg.len(), split);
                    let at = job.offset;
                    job.buf[at..].copy_from_slice(&v.msg);
                    job
                })
                .collect();
            let digests = run_jobs::<A>(engine, &jobs, &mut rng);
            for (d, v) in digests.iter().zip(vectors) {
                assert_eq!(
                    d.as_ref(),
                    v.md.as_slice(),
                    "{file} manager {} split={split}, {} bytes",
                    engine.name(),
                    v.msg.len()
                );
            }
        }
    }
}

#[test]
fn sha256_short() {
    check::<Sha256Alg>("SHA256ShortMsg.rsp");
}

#[test]
fn sha256_long() {
    check::<Sha256Alg>("SHA256LongMsg.rsp");
}

#[test]
fn sha224_short() {
    check::<Sha224Alg>("SHA224ShortMsg.rsp");
}

#[test]
fn sha224_long() {
    check::<Sha224Alg>("SHA224LongMsg.rsp");
}

#[test]
fn sha512_short() {
    check::<Sha512Alg>("SHA512ShortMsg.rsp");
}

#[test]
fn sha512_long() {
    check::<Sha512Alg>("SHA512LongMsg.rsp");
}

#[test]
fn sha384_short() {
    check::<Sha384Alg>("SHA384ShortMsg.rsp");
}

#[test]
fn sha384_long() {
    check::<Sha384Alg>("SHA384LongMsg.rsp");
}

#[test]
fn sha512_256_short() {
    check::<Sha512_256Alg>("SHA512_256ShortMsg.rsp");
}

#[test]
fn sha512_256_long() {
    check::<Sha512_256Alg>("SHA512_256LongMsg.rsp");
}

#[test]
fn sha512_224_short() {
    check::<Sha512_224Alg>("SHA512_224ShortMsg.rsp");
}

#[test]
fn sha512_224_long() {
    check::<Sha512_224Alg>("SHA512_224LongMsg.rsp");
}

#[test]
fn sha1_short() {
    check::<Sha1Alg>("SHA1ShortMsg.rsp");
}

#[test]
fn sha1_long() {
    check::<Sha1Alg>("SHA1LongMsg.rsp");
}

/// A table of (message, hex digest) pairs as vectors.
fn table(rows: &[(&[u8], &str)]) -> Vec<Vector> {
    rows.iter()
        .map(|&(msg, md)| Vector {
            msg: msg.to_vec(),
            md: hex(md),
        })
        .collect()
}

/// RFC 1321, appendix A.5 ("Test suite"): the seven messages and digests.
#[test]
fn md5_rfc1321() {
    let vectors = table(&[
        (b"", "d41d8cd98f00b204e9800998ecf8427e"),
        (b"a", "0cc175b9c0f1b6a831c399e269772661"),
        (b"abc", "900150983cd24fb0d6963f7d28e17f72"),
        (b"message digest", "f96b697d7cb7938d525a2f31aaf161d0"),
        (
            b"abcdefghijklmnopqrstuvwxyz",
            "c3fcd3d76192e4007dfb496cca67e13b",
        ),
        (
            b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789",
            "d174ab98d277d9f5a5611c2c9f419d9f",
        ),
        (
            b"12345678901234567890123456789012345678901234567890123456789012345678901234567890",
            "57edf4a22be3c955ac49da2e2107b67a",
        ),
    ]);
    check_vectors::<Md5Alg>("RFC 1321 A.5", &vectors);
}

/// GB/T 32905-2016, appendix A: example 1 ("abc") and example 2 ("abcd"
/// sixteen times, one whole block before the padding block).
#[test]
fn sm3_gbt32905() {
    let vectors = table(&[
        (
            b"abc",
            "66c7f0f462eeedd9d1f2d46bdc10e4e24167c4875cf2f7a2297da02b8f4ba8e0",
        ),
        (
            &b"abcd".repeat(16),
            "debe9ff92275b8a138604889c18e5a4d6fdb70e5387e5765293dcba39c0c5732",
        ),
    ]);
    check_vectors::<Sm3Alg>("GB/T 32905-2016 A", &vectors);
}

/// The seed and the 100 checkpoints of a CAVP Monte Carlo response file.
fn load_monte(file: &str) -> (Vec<u8>, Vec<Vec<u8>>) {
    let text = read(file);
    let mut seed = None;
    let mut checkpoints = Vec::new();
    for line in text.lines().map(str::trim) {
        if let Some(v) = line.strip_prefix("Seed = ") {
            seed = Some(hex(v));
        } else if let Some(v) = line.strip_prefix("COUNT = ") {
            let count: usize = v.parse().expect("COUNT");
            assert_eq!(count, checkpoints.len(), "{file}: COUNT out of order");
        } else if let Some(v) = line.strip_prefix("MD = ") {
            checkpoints.push(hex(v));
        }
    }
    assert_eq!(checkpoints.len(), 100, "{file}: checkpoints");
    (seed.expect("a Seed line"), checkpoints)
}

/// The Monte Carlo test as SHAVS (section 6.4) defines it: from the seed,
/// `MD0 = MD1 = MD2 = Seed`, then for `i` in 3..=1002
/// `MDi = H(MD(i-3) || MD(i-2) || MD(i-1))`; `MD1002` is the checkpoint and
/// the next seed, 100 times. `hash(round, message)` computes one `H`.
fn monte_carlo(
    file: &str,
    what: &str,
    seed: &[u8],
    checkpoints: &[Vec<u8>],
    mut hash: impl FnMut(usize, &[u8]) -> Vec<u8>,
) {
    let mut seed = seed.to_vec();
    let mut round = 0;
    for (j, expected) in checkpoints.iter().enumerate() {
        let mut md = [seed.clone(), seed.clone(), seed];
        for _ in 3..=1002 {
            let message = md.concat();
            let next = hash(round, &message);
            round += 1;
            md = [md[1].clone(), md[2].clone(), next];
        }
        let [_, _, last] = md;
        assert_eq!(&last, expected, "{file} {what}: checkpoint COUNT = {j}");
        seed = last;
    }
}

fn check_monte<A: HashAlgorithm>(file: &str)
where
    A::Family: TestFamily,
{
    let (seed, checkpoints) = load_monte(file);

    monte_carlo(file, "hasher", &seed, &checkpoints, |_, m| {
        mbhash_core::StreamHasher::<A>::hash(m).as_ref().to_vec()
    });
    monte_carlo(file, "hash_many", &seed, &checkpoints, |_, m| {
        mbhash_core::hash_many::<A>(&[m])[0].as_ref().to_vec()
    });

    // The hasher with each engine named, and the manager on every engine,
    // whole jobs and (every other step) jobs in random parts. In the first
    // 1,000 steps each message goes in as 1 to 2 x lanes + 1 identical jobs
    // at once (every lane fill, with a second round of lanes and one job
    // waiting), which must agree; then as one job.
    for engine in <A::Family as TestFamily>::engines() {
        let mut hasher = mbhash_core::StreamHasher::<A>::with_engine(engine);
        let what = format!("hasher on {}", engine.name());
        monte_carlo(file, &what, &seed, &checkpoints, |_, m| {
            hasher.update(m);
            hasher.finalize_reset_output().as_ref().to_vec()
        });

        let mut rng = Rng::new(0x3c4f);
        let what = format!("manager {}", engine.name());
        monte_carlo(file, &what, &seed, &checkpoints, |round, m| {
            let copies = if round < 1000 {
                1 + round % (2 * engine.lanes() + 1)
            } else {
                1
            };
            let jobs: Vec<Job> = (0..copies)
                .map(|_| {
                    let mut job = Job::random(&mut rng, m.len(), round % 2 == 1);
                    let at = job.offset;
                    job.buf[at..].copy_from_slice(m);
                    job
                })
                .collect();
            let digests = run_jobs::<A>(engine, &jobs, &mut rng);
            let first = digests[0].as_ref().to_vec();
            for d in &digests {
                assert_eq!(d.as_ref(), first.as_slice(), "{what}: copies disagree");
            }
            first
        });
    }
}

#[test]
fn sha1_monte() {
    check_monte::<Sha1Alg>("SHA1Monte.rsp");
}

/// CI runs these tests with each family's engine forced by its variable
/// (`MBHASH_SHA1_ENGINE=shani-x2`, ...): the engine named is the one the
/// configured paths above (`hash_many`, the hashers, a new manager) run, so
/// a variable that did not reach them fails here instead of testing `auto`
/// again.
#[test]
fn forced_engine_is_the_one_run() {
    fn check<K: Kernels, A: HashAlgorithm<Family = K::Family>>()
    where
        K::Family: mbhash_core::engine::FamilyEngine<Engine = Engine<K>>,
    {
        let Some(name) = std::env::var_os(K::ENV_VAR) else {
            return;
        };
        let name = name.to_str().expect("an engine name is UTF-8");
        // An engine of an instruction set this CPU lacks (CI forces every
        // engine on every machine) is a skip, a failure where
        // MBHASH_REQUIRE names the feature; an unknown name is a failure.
        assert!(
            Engine::<K>::names().any(|n| n == name),
            "{}={name}: no such engine",
            K::ENV_VAR
        );
        if !Engine::<K>::is_supported(name) {
            let feature =
                mbhash_test_support::engine_feature(name).expect("auto and scalar always run");
            let why = mbhash_simd::cpu::Feature::from_name(feature)
                .map_or("unknown", mbhash_simd::cpu::unavailable_reason);
            mbhash_test_support::skip_or_require(
                feature,
                &format!("{}={name}", K::ENV_VAR),
                &format!("needs {feature} but {why}"),
            );
            return;
        }
        let configured = Engine::<K>::try_configured().expect("the forced engine is usable");
        assert_eq!(configured.name(), name, "{}", K::ENV_VAR);
        assert_eq!(
            mbhash_core::JobManager::<A>::new().engine().name(),
            name,
            "{}: a new manager",
            K::ENV_VAR
        );
    }
    check::<Sha256Kernels, Sha256Alg>();
    check::<Sha512Kernels, Sha512Alg>();
    check::<Md5Kernels, Md5Alg>();
    check::<Sha1Kernels, Sha1Alg>();
    check::<Sm3Kernels, Sm3Alg>();
}
