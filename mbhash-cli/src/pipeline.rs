//! `mbhash bench --pipeline`: a storage write pipeline, the analogue of a
//! fio sequential-write run on a checksumming file system.
//!
//! W writer threads each produce 128 KiB records and checksum every one:
//!
//! * `per-writer`: each writer hashes its record itself with the `sha2`
//!   crate (today's per-thread software path), then goes on;
//! * `service`: each writer hands its record to a shared [`HashService`]
//!   (one worker per core) and goes on with the next of its
//!   [`DEPTH`] buffers; a buffer comes back with its digest through the
//!   writer's completion channel, like an asynchronous write completing;
//! * `pool`: each writer hashes its record through a shared [`Pool`]
//!   (synchronously, as `per-writer`): concurrent writers' records are
//!   combined into lanes by whichever writer runs the kernels.
//!
//! Latency is from a record being ready to its digest being there (for the
//! service: from submit to the completion callback); `direct` is a one-stream
//! hash of the record on the calling thread (mbhash's `StreamHasher`), what the
//! pool's latency at one writer is compared with.
//!
//! Per mode it reports records/s, GB/s, the ratio of the service to
//! per-writer hashing, and the process's CPU time per GB hashed (user +
//! system, from `/proc/self/stat`; "n/a" where that file does not exist),
//! with CPU use as a share of all cores. The two modes run in interleaved
//! rounds; rates are medians, CPU per GB is over all rounds.
//!
//! JSON rows (one object per line) use the bench's field names where they
//! apply (`algo`, `impl`, `engine`, `size`, `streams` = writers, `gbps`,
//! `vs_sha2`) plus `mode`, `records_per_s`, `cpu_s_per_gb`, `cpu_util`,
//! `workers` and `mean_batch` (jobs per worker batch, service mode), and
//! `writers`, `cpu_s_per_gib`, `p50_us`, `p99_us`, `cpu_vs_sha2` (CPU per
//! GiB against the `per-writer` row at the same writer count) and
//! `direct_p50_us` (a one-stream hash of one record on the writer's
//! thread, measured in the same round), `floor_vs_sha2` (service and pool
//! rows: the physical floor of a shared hasher, the engine's cheapest
//! CPU per lane-block over the fastest one-stream kernel's, both from
//! `auto`'s calibration in this process: see
//! [`Engine::floor_vs_one_stream`](mbhash_core::engine::Engine::floor_vs_one_stream);
//! `null` on the per-writer row) and `cpu_vs_floor` (`cpu_vs_sha2` over
//! `floor_vs_sha2`: 1.0 is a shared hasher that costs no more than its
//! kernels).

use std::hint::black_box;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use mbhash_core::Pool;
use mbhash_core::engine::FamilyEngine;
use mbhash_core::engine::{AnyEngine, LaneEngine};
use mbhash_core::service::{Algo, HashService, Outcome};

/// Bytes per record (a ZFS default recordsize).
const RECORD: usize = 128 << 10;
/// Records each writer has in flight in service mode (its queue depth).
pub const DEPTH: usize = 4;

/// What to run.
pub struct Config<'a> {
    pub quick: bool,
    pub json: bool,
    pub algos: &'a [String],
    pub engine: Option<&'a str>,
    pub writers: &'a [usize],
    pub rounds: usize,
}

/// One measured mode at one writer count.
struct Point {
    records: u64,
    secs: Vec<f64>,
    rates: Vec<f64>,
    cpu: Option<f64>,
    batches: u64,
    /// Latencies from a record being ready to its digest, in microseconds.
    lat_us: Vec<f64>,
}

impl Point {
    fn new() -> Point {
        Point {
            records: 0,
            secs: Vec::new(),
            rates: Vec::new(),
            cpu: Some(0.0),
            batches: 0,
            lat_us: Vec::new(),
        }
    }

    fn add(&mut self, (records, lat): (u64, Vec<f64>), secs: f64, cpu: Option<f64>) {
        self.records += records;
        self.lat_us.extend(lat);
        self.secs.push(secs);
        self.rates.push(records as f64 / secs);
        self.cpu = self.cpu.zip(cpu).map(|(a, b)| a + b);
    }

    fn records_per_s(&self) -> f64 {
        let mut v = self.rates.clone();
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    }

    fn gbps(&self) -> f64 {
        self.records_per_s() * RECORD as f64 / 1e9
    }

    fn cpu_s_per_gb(&self) -> Option<f64> {
        let gb = self.records as f64 * RECORD as f64 / 1e9;
        self.cpu.map(|c| c / gb)
    }

    fn cpu_s_per_gib(&self) -> Option<f64> {
        let gib = self.records as f64 * RECORD as f64 / (1u64 << 30) as f64;
        self.cpu.map(|c| c / gib)
    }

    /// The `q` quantile of the latencies, in microseconds.
    fn latency_us(&self, q: f64) -> Option<f64> {
        percentile(&self.lat_us, q)
    }

    /// CPU time over wall time, as a share of every core.
    fn cpu_util(&self, cores: usize) -> Option<f64> {
        let wall: f64 = self.secs.iter().sum();
        self.cpu.map(|c| c / wall / cores as f64)
    }
}

pub fn run(c: &Config) -> Result<(), String> {
    let started = Instant::now();
    let sample = if c.quick {
        Duration::from_millis(150)
    } else {
        Duration::from_millis(500)
    };
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let algos = c
        .algos
        .iter()
        .map(|name| {
            Algo::from_name(name).ok_or_else(|| {
                format!(
                    "bench: unknown algorithm '{name}' (known: {})",
                    Algo::ALL.map(Algo::name).join(", ")
                )
            })
        })
        .collect::<Result<Vec<_>, _>>()?;
    // Refuse an engine name before printing anything.
    for &algo in &algos {
        engine_and_floor(algo, c.engine)?;
    }
    if !c.json {
        println!(
            "pipeline: W writers x {} KiB records; service: {cores} workers, {DEPTH} records in flight per writer",
            RECORD >> 10
        );
        if cpu_seconds().is_none() {
            println!("(CPU time unavailable: /proc/self/stat not readable)");
        }
        println!(
            "{:<10} {:>7}  {:<10} {:<8} {:>10} {:>7} {:>8} {:>9} {:>6} {:>6} {:>8} {:>8} {:>7} {:>6} {:>7}",
            "algo",
            "writers",
            "mode",
            "engine",
            "records/s",
            "GB/s",
            "vs sha2",
            "CPU s/GB",
            "CPU%",
            "batch",
            "p50 us",
            "p99 us",
            "CPU/sha2",
            "floor",
            "CPU/flr"
        );
    }
    for &algo in &algos {
        // The engine's name, and the floor of a shared hasher on it (from
        // `auto`'s costs, measured in this process).
        let (engine, floor, any) = engine_and_floor(algo, c.engine)?;
        let mut builder = HashService::builder();
        if c.engine.is_some() {
            builder = builder.engine(any);
        }
        let floor = f64::from(floor);
        let service = builder.build().map_err(|e| e.to_string())?;
        let pool = Pool::new();
        if let Some(e) = c.engine {
            // The pool runs on the default engine.
            mbhash_core::engine::set_default(algo, e).map_err(|e| e.to_string())?;
        }
        // Both modes compute the same checksums: the benchmark measures real
        // work.
        let rec = record(7);
        let ours = service.submit(algo, rec).map_err(|e| e.to_string())?;
        let done = ours.wait().map_err(|e| e.to_string())?;
        if done.digest.as_bytes() != sha2_digest(algo, &done.buf).as_slice() {
            return Err(format!("{algo}: service digest differs from sha2"));
        }

        for &writers in c.writers {
            let mut per_writer = Point::new();
            let mut via_service = Point::new();
            let mut via_pool = Point::new();
            let mut direct = Vec::new();
            for _ in 0..c.rounds {
                let (n, secs, cpu) = timed(|| run_per_writer(algo, writers, sample));
                per_writer.add(n, secs, cpu);
                let before = service.stats().batches;
                let (n, secs, cpu) = timed(|| run_service(&service, algo, writers, sample));
                via_service.add(n, secs, cpu);
                via_service.batches += service.stats().batches - before;
                let (n, secs, cpu) = timed(|| run_pool(&pool, algo, writers, sample));
                via_pool.add(n, secs, cpu);
                direct.extend(direct_latencies(algo, 64));
            }
            let direct_p50 = percentile(&direct, 0.5);
            let base = per_writer.gbps();
            let base_cpu = per_writer.cpu_s_per_gib();
            for (mode, p) in [
                ("per-writer", &per_writer),
                ("service", &via_service),
                ("pool", &via_pool),
            ] {
                let is_service = mode == "service";
                let (imp, eng) = if mode == "per-writer" {
                    ("sha2", "sha2")
                } else {
                    ("mbhash", engine)
                };
                let mean_batch =
                    (is_service && p.batches > 0).then(|| p.records as f64 / p.batches as f64);
                let cpu_vs_sha2 = p.cpu_s_per_gib().zip(base_cpu).map(|(a, b)| a / b);
                // The per-writer row hashes with sha2 itself: no floor.
                let floor_vs_sha2 = (mode != "per-writer").then_some(floor);
                let cpu_vs_floor = cpu_vs_sha2.zip(floor_vs_sha2).map(|(c, f)| c / f);
                let (p50, p99) = (p.latency_us(0.5), p.latency_us(0.99));
                if c.json {
                    println!(
                        "{{\"algo\":\"{algo}\",\"impl\":\"{imp}\",\"engine\":\"{eng}\",\"mode\":\"{mode}\",\"size\":{RECORD},\"streams\":{writers},\"workers\":{},\"records_per_s\":{:.1},\"gbps\":{:.4},\"vs_sha2\":{:.4},\"cpu_s_per_gb\":{},\"cpu_util\":{},\"mean_batch\":{},\"writers\":{writers},\"cpu_s_per_gib\":{},\"p50_us\":{},\"p99_us\":{},\"cpu_vs_sha2\":{},\"direct_p50_us\":{},\"floor_vs_sha2\":{},\"cpu_vs_floor\":{}}}",
                        if is_service { service.workers() } else { 0 },
                        p.records_per_s(),
                        p.gbps(),
                        p.gbps() / base,
                        json_num(p.cpu_s_per_gb()),
                        json_num(p.cpu_util(cores)),
                        json_num(mean_batch),
                        json_num(p.cpu_s_per_gib()),
                        json_num(p50),
                        json_num(p99),
                        json_num(cpu_vs_sha2),
                        json_num(direct_p50),
                        json_num(floor_vs_sha2),
                        json_num(cpu_vs_floor),
                    );
                } else {
                    println!(
                        "{:<10} {:>7}  {:<10} {:<8} {:>10.0} {:>7.3} {:>7.2}x {:>9} {:>6} {:>6} {:>8} {:>8} {:>7} {:>6} {:>7}",
                        algo.name(),
                        writers,
                        mode,
                        eng,
                        p.records_per_s(),
                        p.gbps(),
                        p.gbps() / base,
                        text_num(p.cpu_s_per_gb(), 3),
                        text_num(p.cpu_util(cores).map(|u| u * 100.0), 0),
                        text_num(mean_batch, 1),
                        text_num(p50, 1),
                        text_num(p99, 1),
                        text_num(cpu_vs_sha2, 2),
                        text_num(floor_vs_sha2, 2),
                        text_num(cpu_vs_floor, 2),
                    );
                }
            }
            if !c.json {
                println!(
                    "{:<10} {:>7}  {:<10} {:<8} one record on the writer's thread: p50 {} us",
                    algo.name(),
                    1,
                    "direct",
                    engine,
                    text_num(direct_p50, 1),
                );
            }
        }
        service.shutdown(mbhash_core::service::Shutdown::Finish);
    }
    if !c.json {
        println!("({:.1} s)", started.elapsed().as_secs_f64());
    }
    Ok(())
}

fn json_num(v: Option<f64>) -> String {
    v.map_or_else(|| "null".into(), |v| format!("{v:.4}"))
}

fn text_num(v: Option<f64>, digits: usize) -> String {
    v.map_or_else(|| "n/a".into(), |v| format!("{v:.digits$}"))
}

/// Runs `f` (which returns records done); returns them with the wall time
/// and the process CPU time it took.
fn timed<T>(f: impl FnOnce() -> T) -> (T, f64, Option<f64>) {
    let cpu0 = cpu_seconds();
    let t = Instant::now();
    let n = f();
    let secs = t.elapsed().as_secs_f64();
    let cpu = cpu0.zip(cpu_seconds()).map(|(a, b)| b - a);
    (n, secs, cpu)
}

/// The process's user + system CPU time, from `/proc/self/stat` (Linux).
fn cpu_seconds() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // Fields after the command name, which is in parentheses: state is
    // field 3, utime 14 and stime 15, in clock ticks (USER_HZ, 100 on Linux).
    let rest = &stat[stat.rfind(')')? + 1..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let utime: u64 = fields.get(11)?.parse().ok()?;
    let stime: u64 = fields.get(12)?.parse().ok()?;
    Some((utime + stime) as f64 / 100.0)
}

/// A record's initial contents.
fn record(seed: u64) -> Vec<u8> {
    (0..RECORD)
        .map(|i| (i as u64).wrapping_mul(0x9e37_79b9).wrapping_add(seed) as u8)
        .collect()
}

/// Writes a record: its number at the start of every 4 KiB block (as a file
/// system's block headers would differ from record to record).
fn produce(buf: &mut [u8], n: u64) {
    for block in buf.chunks_mut(4096) {
        block[..8].copy_from_slice(&n.to_le_bytes());
    }
}

/// The engine `--engine` names for `algo`'s family (its configured one
/// without it): its name, its floor against one stream, and the engine.
fn engine_and_floor(
    algo: Algo,
    name: Option<&str>,
) -> Result<(&'static str, f32, AnyEngine), String> {
    mbhash_core::with_algo!(algo, A => {
        type E = <<A as mbhash_core::alg::Algorithm>::Family as FamilyEngine>::Engine;
        let e = match name {
            Some(n) => E::from_name(n),
            None => E::try_configured(),
        }
        .map_err(|e| e.to_string())?;
        Ok((e.name(), e.floor_vs_one_stream(), e.into_any()))
    })
}

fn sha2_digest(algo: Algo, data: &[u8]) -> Vec<u8> {
    use sha2::Digest;
    match algo {
        Algo::Sha256 => sha2::Sha256::digest(data).to_vec(),
        Algo::Sha224 => sha2::Sha224::digest(data).to_vec(),
        Algo::Sha512 => sha2::Sha512::digest(data).to_vec(),
        Algo::Sha384 => sha2::Sha384::digest(data).to_vec(),
        Algo::Sha512_256 => sha2::Sha512_256::digest(data).to_vec(),
        Algo::Sha512_224 => sha2::Sha512_224::digest(data).to_vec(),
        Algo::Md5 => md5::Md5::digest(data).to_vec(),
        Algo::Sha1 => sha1::Sha1::digest(data).to_vec(),
        Algo::Sm3 => sm3::Sm3::digest(data).to_vec(),
    }
}

/// Mode (a): every writer hashes its own records with `sha2`. Returns the
/// records written in about `sample`, and their latencies.
fn run_per_writer(algo: Algo, writers: usize, sample: Duration) -> (u64, Vec<f64>) {
    run_writers(writers, sample, |buf| {
        black_box(sha2_digest(algo, black_box(buf)));
    })
}

/// Mode (c): every writer hashes its own records through the shared pool.
/// Returns the records written in about `sample`, and their latencies.
fn run_pool(pool: &Pool, algo: Algo, writers: usize, sample: Duration) -> (u64, Vec<f64>) {
    run_writers(writers, sample, |buf| {
        black_box(pool.hash(algo, black_box(buf)));
    })
}

/// `writers` threads that each produce a record and wait for `hash` of it,
/// for about `sample`: the records written, and each one's latency (from
/// ready to hashed) in microseconds.
fn run_writers(writers: usize, sample: Duration, hash: impl Fn(&[u8]) + Sync) -> (u64, Vec<f64>) {
    let stop = AtomicBool::new(false);
    std::thread::scope(|s| {
        let threads: Vec<_> = (0..writers)
            .map(|w| {
                let (stop, hash) = (&stop, &hash);
                s.spawn(move || {
                    let mut buf = record(w as u64);
                    let mut n = 0u64;
                    let mut lat = Vec::new();
                    // At least one record, however late the thread starts.
                    while n == 0 || !stop.load(Ordering::Relaxed) {
                        produce(&mut buf, n);
                        let t = Instant::now();
                        hash(&buf);
                        lat.push(t.elapsed().as_secs_f64() * 1e6);
                        n += 1;
                    }
                    (n, lat)
                })
            })
            .collect();
        std::thread::sleep(sample);
        stop.store(true, Ordering::Relaxed);
        join_all(threads)
    })
}

/// Latencies of `n` one-stream hashes of a record on this thread (mbhash's
/// `StreamHasher` on the configured engine), in microseconds.
fn direct_latencies(algo: Algo, n: u64) -> Vec<f64> {
    let mut buf = record(1);
    (0..n)
        .map(|i| {
            produce(&mut buf, i);
            let t = Instant::now();
            black_box(algo.digest(black_box(&buf)));
            t.elapsed().as_secs_f64() * 1e6
        })
        .collect()
}

/// Sums the writers' record counts and gathers their latencies.
fn join_all(threads: Vec<std::thread::ScopedJoinHandle<'_, (u64, Vec<f64>)>>) -> (u64, Vec<f64>) {
    let mut total = 0;
    let mut all = Vec::new();
    for t in threads {
        let (n, lat) = t.join().unwrap();
        total += n;
        all.extend(lat);
    }
    (total, all)
}

/// The `q` quantile (0..=1) of `v`; `None` when empty.
fn percentile(v: &[f64], q: f64) -> Option<f64> {
    if v.is_empty() {
        return None;
    }
    let mut s = v.to_vec();
    s.sort_by(f64::total_cmp);
    let i = ((s.len() - 1) as f64 * q).round() as usize;
    Some(s[i])
}

/// Mode (b): every writer hands its records to the service, with up to
/// [`DEPTH`] in flight. Returns the records completed in about `sample`
/// (the last ones drained).
fn run_service(
    service: &HashService,
    algo: Algo,
    writers: usize,
    sample: Duration,
) -> (u64, Vec<f64>) {
    let stop = AtomicBool::new(false);
    std::thread::scope(|s| {
        let threads: Vec<_> = (0..writers)
            .map(|w| {
                let stop = &stop;
                s.spawn(move || {
                    let (tx, rx) = std::sync::mpsc::sync_channel::<(Outcome<Vec<u8>>, f64)>(DEPTH);
                    let mut free: Vec<Vec<u8>> =
                        (0..DEPTH).map(|i| record((w * DEPTH + i) as u64)).collect();
                    let mut done = 0u64;
                    let mut n = 0u64;
                    let mut lat = Vec::new();
                    let complete = |lat: &mut Vec<f64>, (o, us): (Outcome<Vec<u8>>, f64)| {
                        let d = o.expect("not cancelled");
                        black_box(d.digest);
                        lat.push(us);
                        d.buf
                    };
                    // At least one record, however late the thread starts.
                    while n == 0 || !stop.load(Ordering::Relaxed) {
                        let mut buf = match free.pop() {
                            Some(b) => b,
                            None => {
                                done += 1;
                                complete(&mut lat, rx.recv().expect("a record in flight"))
                            }
                        };
                        produce(&mut buf, n);
                        n += 1;
                        let tx = tx.clone();
                        let t = Instant::now();
                        service
                            .submit_to(algo, buf, move |o: Outcome<Vec<u8>>| {
                                let _ = tx.send((o, t.elapsed().as_secs_f64() * 1e6));
                            })
                            .expect("the service runs");
                    }
                    while done < n {
                        free.push(complete(&mut lat, rx.recv().expect("a record in flight")));
                        done += 1;
                    }
                    (done, lat)
                })
            })
            .collect();
        std::thread::sleep(sample);
        stop.store(true, Ordering::Relaxed);
        join_all(threads)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cpu_time_reads_on_linux() {
        if cfg!(target_os = "linux") {
            let a = cpu_seconds().expect("/proc/self/stat");
            let mut x = 0u64;
            let t = Instant::now();
            while t.elapsed() < Duration::from_millis(30) {
                x = black_box(x.wrapping_add(1));
            }
            assert!(cpu_seconds().unwrap() >= a);
        }
    }

    #[test]
    fn both_modes_write_records() {
        let service = HashService::builder().workers(1).build().unwrap();
        let sample = Duration::from_millis(5);
        assert!(run_per_writer(Algo::Sha256, 2, sample).0 > 0);
        let (n, lat) = run_service(&service, Algo::Sha512_256, 2, sample);
        assert!(n > 0);
        assert_eq!(lat.len() as u64, n);
        let (n, lat) = run_pool(&Pool::new(), Algo::Sha384, 3, sample);
        assert!(n > 0);
        assert_eq!(lat.len() as u64, n);
        assert_eq!(percentile(&[3.0, 1.0, 2.0], 0.5), Some(2.0));
        assert_eq!(percentile(&[], 0.5), None);
        let stats = service.shutdown(mbhash_core::service::Shutdown::Finish);
        assert_eq!(stats.cancelled, 0);
    }
}
