//! Criterion benchmarks of the one-stream hashers (`mbhash::Sha256`,
//! `mbhash::Sha512`) and of `Hmac` over them, next to the same over the
//! `sha2` crate, at 64 B and 4 KiB.

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use digest::Digest;

fn hasher(c: &mut Criterion) {
    for size in [64usize, 4096] {
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

criterion_group!(benches, hasher);
criterion_main!(benches);
