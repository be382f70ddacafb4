//! Criterion benchmarks of the one-stream hashers (`mbhash::Sha256`,
//! `mbhash::Sha512`) and of `Hmac` over them, next to the same over the
//! `sha2` crate, at 64 B, 1 KiB, 4 KiB and 1 MiB; and `hash_many` of 2 to
//! 8 messages of 64 B against as many `sha2` calls.

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use digest::Digest;

fn hasher(c: &mut Criterion) {
    for size in [64usize, 1024, 4096, 1 << 20] {
        let msg = vec![0x5a; size];
        let mut group = c.benchmark_group(format!("hasher/{size}B"));
        group.throughput(Throughput::Bytes(size as u64));
        group.bench_function("mbhash::Sha256", |b| {
            b.iter(|| mbhash::Sha256::digest(black_box(&msg)))
        });
        group.bench_function("sha2::Sha256", |b| {
            b.iter(|| sha2::Sha256::digest(black_box(&msg)))
        });
        group.bench_function("mbhash::Sha512", |b| {
            b.iter(|| mbhash::Sha512::digest(black_box(&msg)))
        });
        group.bench_function("sha2::Sha512", |b| {
            b.iter(|| sha2::Sha512::digest(black_box(&msg)))
        });
        group.finish();
    }
}

fn few_messages(c: &mut Criterion) {
    for count in 2..=8usize {
        let msgs: Vec<Vec<u8>> = (0..count).map(|i| vec![i as u8; 64]).collect();
        let refs: Vec<&[u8]> = msgs.iter().map(Vec::as_slice).collect();
        let mut group = c.benchmark_group(format!("hash_many/{count}x64B"));
        group.throughput(Throughput::Bytes(64 * count as u64));
        let mut out = vec![[0u8; 32]; count];
        group.bench_function("mbhash::hash_many_into", |b| {
            b.iter(|| mbhash::hash_many_into::<mbhash::Sha256Alg>(black_box(&refs), &mut out))
        });
        group.bench_function("sha2::Sha256 each", |b| {
            b.iter(|| {
                for m in &refs {
                    black_box(sha2::Sha256::digest(black_box(m)));
                }
            })
        });
        group.finish();
    }
}

criterion_group!(benches, hasher, few_messages);
criterion_main!(benches);
