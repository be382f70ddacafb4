//! The CRC32C default switched at run time (`engine::set_default`) while
//! threads compute CRCs: every value right, every switch taking effect, a
//! refused name changing nothing. Its own test binary: the default is
//! process-wide.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use mbhash_core::crc32c::{self, Crc32cEngine};
use mbhash_core::engine::{self, EngineFamily};
use mbhash_test_support::Rng;

/// The bitwise definition, for reference.
fn reference(data: &[u8]) -> u32 {
    let mut c = !0u32;
    for &b in data {
        c ^= b as u32;
        for _ in 0..8 {
            c = (c >> 1) ^ (0x82F6_3B78 & (c & 1).wrapping_neg());
        }
    }
    !c
}

#[test]
fn switching_while_threads_compute() {
    let mut rng = Rng::new(17);
    let data = rng.bytes(1 << 16);
    // Lengths across every size class up to 16 KiB, precomputed.
    let cases: Vec<(usize, usize, u32)> = (0..400)
        .map(|_| {
            let bits = rng.below(15);
            let len = rng.below(1 << bits);
            let off = rng.below(data.len() - len + 1);
            (off, len, reference(&data[off..off + len]))
        })
        .collect();
    let supported: Vec<Crc32cEngine> = crc32c::engines()
        .into_iter()
        .filter(|e| e.is_supported())
        .collect();
    let running = AtomicBool::new(true);
    let switches = AtomicUsize::new(0);
    let checked = AtomicUsize::new(0);
    std::thread::scope(|s| {
        // At least one whole round of switches, and more while the workers
        // compute (they start once the first switch is made: on a loaded
        // machine the switcher may otherwise be scheduled after them).
        s.spawn(|| {
            loop {
                for e in &supported {
                    engine::set_default(EngineFamily::Crc32c, e.name()).unwrap();
                    assert_eq!(engine::default_name(EngineFamily::Crc32c), e.name());
                    switches.fetch_add(1, Ordering::Release);
                }
                assert!(engine::set_default(EngineFamily::Crc32c, "avx9000").is_err());
                if !running.load(Ordering::Relaxed) {
                    break;
                }
            }
        });
        let workers: Vec<_> = (0..4)
            .map(|t| {
                let (data, cases, checked, switches) = (&data, &cases, &checked, &switches);
                s.spawn(move || {
                    while switches.load(Ordering::Acquire) == 0 {
                        std::thread::yield_now();
                    }
                    for round in 0..20 {
                        for (i, &(off, len, want)) in cases.iter().enumerate() {
                            let piece = &data[off..off + len];
                            assert_eq!(crc32c::crc32c(piece), want, "thread {t}: {len} bytes");
                            if (i + round) % 7 == 0 {
                                let mut h = crc32c::Crc32c::new();
                                let cut = len / 3;
                                h.update(&piece[..cut]);
                                h.update(&piece[cut..]);
                                assert_eq!(h.value(), want, "streamed, {len} bytes");
                            }
                            checked.fetch_add(1, Ordering::Relaxed);
                        }
                    }
                })
            })
            .collect();
        for w in workers {
            w.join().unwrap();
        }
        running.store(false, Ordering::Relaxed);
    });
    assert!(switches.load(Ordering::Relaxed) >= supported.len());
    assert_eq!(checked.load(Ordering::Relaxed), 4 * 20 * cases.len());

    // Each engine takes effect on the next call; a refused name changes
    // nothing; the variable no longer counts.
    for e in &supported {
        engine::set_default(EngineFamily::Crc32c, e.name()).unwrap();
        assert_eq!(crc32c::engine(), *e);
        assert_eq!(crc32c::configured_engine(), Ok(*e));
        assert_eq!(crc32c::Crc32cKernel::try_default().unwrap().engine(), *e);
        let err = engine::set_default(EngineFamily::Crc32c, "sha3").unwrap_err();
        assert!(err.to_string().contains("vpclmul-fold"), "{err}");
        assert_eq!(crc32c::engine(), *e);
        assert_eq!(crc32c::crc32c(b"123456789"), 0xE306_9283);
    }
    engine::set_default(EngineFamily::Crc32c, "auto").unwrap();
    assert_eq!(engine::default_name(EngineFamily::Crc32c), "auto");
}
