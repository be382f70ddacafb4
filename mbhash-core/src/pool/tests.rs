//! The pool against the one-shot path: lone callers, scatter lists, many
//! threads at once, every algorithm.

use std::io::IoSlice;

use super::{Pool, PoolOps, SpinOps, StdOps};
use crate::Algo;

/// A small deterministic generator (xorshift64*).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

fn data(len: usize, seed: u64) -> Vec<u8> {
    (0..len)
        .map(|i| (i as u64 ^ seed).wrapping_mul(0x9e37_79b9) as u8)
        .collect()
}

/// Splits `data` into `n` pieces at random points (some empty).
fn split<'a>(rng: &mut Rng, data: &'a [u8], n: usize) -> Vec<&'a [u8]> {
    let mut cuts: Vec<usize> = (1..n).map(|_| rng.below(data.len() + 1)).collect();
    cuts.sort_unstable();
    let mut pieces = Vec::new();
    let mut at = 0;
    for c in cuts {
        pieces.push(&data[at..c]);
        at = c;
    }
    pieces.push(&data[at..]);
    pieces
}

#[test]
fn lone_caller_every_algorithm_and_length() {
    let pool = Pool::new();
    for algo in Algo::ALL {
        for len in [
            0, 1, 55, 56, 63, 64, 65, 111, 112, 127, 128, 129, 255, 1000, 70_000,
        ] {
            let msg = data(len, len as u64);
            assert_eq!(pool.hash(algo, &msg), algo.digest(&msg), "{algo} {len}");
        }
    }
}

#[test]
fn scatter_lists() {
    let pool = Pool::new();
    let mut rng = Rng(7);
    for algo in Algo::ALL {
        assert_eq!(
            pool.hash_vectored(algo, &[]),
            algo.digest(b""),
            "{algo} no pieces"
        );
        for _ in 0..200 {
            let msg = data(rng.below(5000), rng.next());
            let n = 1 + rng.below(16);
            let pieces = split(&mut rng, &msg, n);
            let slices: Vec<IoSlice<'_>> = pieces.iter().map(|p| IoSlice::new(p)).collect();
            assert_eq!(
                pool.hash_vectored(algo, &slices),
                algo.digest(&msg),
                "{algo}"
            );
            assert_eq!(pool.hash_pieces(algo, &&pieces[..]), algo.digest(&msg));
        }
    }
}

fn many_threads<O: PoolOps>(pool: &Pool<O>, threads: u64, jobs: usize) {
    std::thread::scope(|s| {
        for t in 0..threads {
            s.spawn(move || {
                let mut rng = Rng(0x1234_5678 + t);
                for _ in 0..jobs {
                    let algo = Algo::ALL[rng.below(Algo::ALL.len())];
                    let len = if rng.below(4) == 0 {
                        rng.below(40_000)
                    } else {
                        rng.below(600)
                    };
                    let msg = data(len, rng.next());
                    let n = 1 + rng.below(16);
                    let pieces = split(&mut rng, &msg, n);
                    let got = pool.hash_pieces(algo, &&pieces[..]);
                    assert_eq!(got, algo.digest(&msg), "{algo} {len}");
                }
            });
        }
    });
}

#[test]
fn many_threads_std_ops() {
    // More threads than slots: with `StdOps` (`cpus` = `SLOTS`) callers
    // join others' lanes and sleep only then.
    many_threads(&Pool::new(), 2 * Pool::<StdOps>::SLOTS as u64, 200);
}

#[test]
fn many_threads_spin_ops() {
    many_threads(&Pool::with_ops(SpinOps), 4, 200);
}

/// Same-sized jobs from more threads than slots at once: they are
/// combined (and still right).
#[test]
fn concurrent_equal_jobs() {
    let pool = Pool::new();
    let msg = data(128 << 10, 3);
    let want = Algo::Sha256.digest(&msg);
    std::thread::scope(|s| {
        for _ in 0..2 * Pool::<StdOps>::SLOTS {
            s.spawn(|| {
                for _ in 0..15 {
                    assert_eq!(pool.hash(Algo::Sha256, &msg), want);
                }
            });
        }
    });
}

/// Host operations on `std` with a chosen CPU count, counting sleeps; a
/// sleep on the thread named `never_sleeps` is recorded as a failure.
struct CountingOps {
    inner: super::StdOps,
    cpus: usize,
    sleeps: std::sync::atomic::AtomicUsize,
    never_sleeps: std::sync::Mutex<Option<std::thread::ThreadId>>,
    bad_sleeps: std::sync::atomic::AtomicUsize,
}

impl CountingOps {
    fn new(cpus: usize) -> Self {
        CountingOps {
            inner: super::StdOps::new(),
            cpus,
            sleeps: 0.into(),
            never_sleeps: std::sync::Mutex::new(None),
            bad_sleeps: 0.into(),
        }
    }
}

impl PoolOps for CountingOps {
    fn sleep_until(&self, chan: usize, ready: &dyn Fn() -> bool) {
        use std::sync::atomic::Ordering::Relaxed;
        assert!(chan < Pool::<Self>::CHANNELS);
        self.sleeps.fetch_add(1, Relaxed);
        if *self.never_sleeps.lock().unwrap() == Some(std::thread::current().id()) {
            self.bad_sleeps.fetch_add(1, Relaxed);
        }
        self.inner.sleep_until(chan, ready);
    }

    fn wake_all(&self, chan: usize) {
        assert!(chan < Pool::<Self>::CHANNELS);
        self.inner.wake_all(chan);
    }

    fn cpus(&self) -> usize {
        self.cpus
    }
}

/// One combiner at a time: every other caller joins its lanes or waits to
/// be handed the slot. Many threads, every digest checked.
#[test]
fn many_threads_one_cpu() {
    let pool = Pool::with_ops(CountingOps::new(1));
    many_threads(&pool, 12, 300);
    // Long equal jobs from more threads than slots: callers join lanes,
    // sleep, and are handed slots.
    let msg = data(100_000, 9);
    let want = Algo::Sha512.digest(&msg);
    std::thread::scope(|s| {
        for _ in 0..12 {
            s.spawn(|| {
                for _ in 0..20 {
                    assert_eq!(pool.hash(Algo::Sha512, &msg), want);
                }
            });
        }
    });
    assert!(pool.ops().sleeps.load(std::sync::atomic::Ordering::Relaxed) > 0);
}

/// As many combiners as slots (a host that does not know its CPUs).
#[test]
fn many_threads_every_slot() {
    many_threads(
        &Pool::with_ops(CountingOps::new(Pool::<SpinOps>::SLOTS)),
        12,
        300,
    );
}

/// A caller that finds a CPU free is not made to wait for another caller's
/// job: with two CPUs and one other thread hashing long messages, this
/// thread never sleeps.
#[test]
fn lone_caller_not_delayed() {
    use std::sync::atomic::{AtomicBool, Ordering};
    let pool = Pool::with_ops(CountingOps::new(2));
    *pool.ops().never_sleeps.lock().unwrap() = Some(std::thread::current().id());
    let stop = AtomicBool::new(false);
    let long = data(4 << 20, 1);
    let want_long = Algo::Sha256.digest(&long);
    std::thread::scope(|s| {
        s.spawn(|| {
            while !stop.load(Ordering::Relaxed) {
                assert_eq!(pool.hash(Algo::Sha256, &long), want_long);
            }
        });
        for len in 0..2000 {
            let msg = data(len, 5);
            assert_eq!(pool.hash(Algo::Sha256, &msg), Algo::Sha256.digest(&msg));
        }
        stop.store(true, Ordering::Relaxed);
    });
    assert_eq!(pool.ops().bad_sleeps.load(Ordering::Relaxed), 0);
}
