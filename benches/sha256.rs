//! Criterion benchmarks: every supported SHA-256 engine through `hash_many`
//! at a few grid points, next to the `sha2` crate hashing the same messages
//! one at a time. `mbhash bench` prints the full grid with ratios.

use std::hint::black_box;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use mbhash::alg::Sha256Alg;
use mbhash::engine::Sha256Engine;
use sha2::Digest;

fn grid(c: &mut Criterion) {
    for (size, streams) in [
        (64usize, 64usize),
        (4096, 16),
        (128 << 10, 16),
        (128 << 10, 1),
    ] {
        let msgs: Vec<Vec<u8>> = (0..streams).map(|s| vec![s as u8; size]).collect();
        let refs: Vec<&[u8]> = msgs.iter().map(Vec::as_slice).collect();
        let mut out = vec![[0u8; 32]; streams];
        let mut group = c.benchmark_group(format!("sha256/{size}B/x{streams}"));
        group.throughput(Throughput::Bytes((size * streams) as u64));
        group.sample_size(20);
        for name in Sha256Engine::names() {
            let Ok(engine) = Sha256Engine::from_name(name) else {
                eprintln!("SKIPPED engine {name}: unsupported on this CPU");
                continue;
            };
            group.bench_function(BenchmarkId::new("mbhash", name), |b| {
                b.iter(|| mbhash::hash_many_with::<Sha256Alg>(engine, black_box(&refs), &mut out))
            });
        }
        group.bench_function("sha2", |b| {
            b.iter(|| {
                for m in &refs {
                    black_box(sha2::Sha256::digest(black_box(m)));
                }
            })
        });
        group.finish();
    }
}

criterion_group!(benches, grid);
criterion_main!(benches);
