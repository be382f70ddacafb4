//! NIST CAVP SHA-2 vectors (ShortMsg and LongMsg `.rsp` files from the
//! `cryptography-vectors` package, committed under `tests/vectors/`), run
//! through `hash_many`, the job manager (whole and multi-part) on every
//! engine, and the one-stream hasher.

mod common;

use common::{Job, Rng, run_jobs, sha256_engines};
use mbhash::alg::{Algorithm, Sha224, Sha256, Sha256Family};

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

/// Parses `Len = / Msg = / MD =` records of a CAVP response file.
fn load(file: &str) -> Vec<Vector> {
    let path = format!("{}/tests/vectors/{file}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
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

fn check<A: Algorithm<Family = Sha256Family>>(file: &str) {
    let vectors = load(file);
    let msgs: Vec<&[u8]> = vectors.iter().map(|v| v.msg.as_slice()).collect();

    // hash_many on the configured engine.
    for (d, v) in mbhash::hash_many::<A>(&msgs).iter().zip(&vectors) {
        assert_eq!(
            d.as_ref(),
            v.md.as_slice(),
            "{file} hash_many, {} bytes",
            v.msg.len()
        );
    }

    // The one-stream hasher.
    for v in &vectors {
        let d = mbhash::Hasher::<A>::hash(&v.msg);
        assert_eq!(
            d.as_ref(),
            v.md.as_slice(),
            "{file} hasher, {} bytes",
            v.msg.len()
        );
    }

    // The manager on every engine, whole and in random parts.
    let mut rng = Rng::new(0x4e157);
    for engine in sha256_engines() {
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
            for (d, v) in digests.iter().zip(&vectors) {
                assert_eq!(
                    d.as_ref(),
                    v.md.as_slice(),
                    "{file} manager {} split={split}, {} bytes",
                    engine.kind().name(),
                    v.msg.len()
                );
            }
        }
    }
}

#[test]
fn sha256_short() {
    check::<Sha256>("SHA256ShortMsg.rsp");
}

#[test]
fn sha256_long() {
    check::<Sha256>("SHA256LongMsg.rsp");
}

#[test]
fn sha224_short() {
    check::<Sha224>("SHA224ShortMsg.rsp");
}

#[test]
fn sha224_long() {
    check::<Sha224>("SHA224LongMsg.rsp");
}
