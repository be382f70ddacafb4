//! NIST CAVP SHA-2 vectors (ShortMsg and LongMsg `.rsp` files from the
//! `cryptography-vectors` package, committed under `tests/vectors/`), run
//! through `hash_many`, the job manager (whole and multi-part) on every
//! engine, and the one-stream hasher.

mod common;

use common::{Job, Rng, TestFamily, run_jobs};
use mbhash_core::alg::{
    Algorithm, Sha224Alg, Sha256Alg, Sha384Alg, Sha512_224Alg, Sha512_256Alg, Sha512Alg,
};
use mbhash_core::engine::LaneEngine;

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
    let path = format!("{}/../tests/vectors/{file}", env!("CARGO_MANIFEST_DIR"));
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

fn check<A: Algorithm>(file: &str)
where
    A::Family: TestFamily,
{
    let vectors = load(file);
    let msgs: Vec<&[u8]> = vectors.iter().map(|v| v.msg.as_slice()).collect();

    // hash_many on the configured engine.
    for (d, v) in mbhash_core::hash_many::<A>(&msgs).iter().zip(&vectors) {
        assert_eq!(
            d.as_ref(),
            v.md.as_slice(),
            "{file} hash_many, {} bytes",
            v.msg.len()
        );
    }

    // The one-stream hasher.
    for v in &vectors {
        let d = mbhash_core::StreamHasher::<A>::hash(&v.msg);
        assert_eq!(
            d.as_ref(),
            v.md.as_slice(),
            "{file} hasher, {} bytes",
            v.msg.len()
        );
    }

    // The manager on every engine, whole and in random parts.
    let mut rng = Rng::new(0x4e157);
    for engine in <A::Family as TestFamily>::engines() {
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
