//! The service's tools for readers: outcomes in slot order (`ordered`),
//! buffers with a bound on the bytes in flight (`BufferPool`), and the
//! builder's `engine_of` and `check_env`.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use mbhash_core::alg;
use mbhash_core::engine::Sha512Engine;
use mbhash_core::service::{self, Algo, BufferPool, Digest, HashService, Lost, Outcome, PoolBuf};
use mbhash_test_support::{Failing, Rng};

/// The `sha2` crate's digest (the oracle).
fn oracle(algo: Algo, data: &[u8]) -> Digest {
    let bytes = mbhash_test_support::oracle(algo.name(), data);
    Digest::from_bytes(algo, &bytes).expect("the oracle's length")
}

/// Four producers share one sequencer and send jobs and streams of random
/// sizes; the receiver gets every outcome once, in slot order, each the
/// oracle's digest, while at most `window` slots are out.
#[test]
fn outcomes_come_in_slot_order_from_many_producers() {
    const WINDOW: usize = 24;
    const PER_PRODUCER: usize = 300;
    let service = HashService::builder().workers(3).build().unwrap();
    // Per slot: its index, the data, the algorithm and the digest.
    let (seq, in_order) = service::ordered::<(u64, Vec<u8>, Algo, Option<Digest>)>(WINDOW);
    let out = AtomicUsize::new(0);
    std::thread::scope(|s| {
        for p in 0..4u64 {
            let seq = seq.clone();
            let (service, out) = (&service, &out);
            s.spawn(move || {
                let mut rng = Rng::new(0x5107 + p);
                for _ in 0..PER_PRODUCER {
                    let slot = seq.slot().expect("the receiver is there");
                    // At most one more: the receiver counts a slot off just
                    // after it made room.
                    let before = out.fetch_add(1, Ordering::SeqCst);
                    assert!(before <= WINDOW, "window exceeded: {before}");
                    let algo = Algo::ALL[rng.below(Algo::ALL.len())];
                    let len = match rng.below(10) {
                        0 => rng.below(200_000),
                        _ => rng.below(3000),
                    };
                    let data = rng.bytes(len);
                    let index = slot.index();
                    let keep = data.clone();
                    if rng.below(3) == 0 {
                        // A stream of a few chunks.
                        let mut stream = service.stream(algo);
                        for piece in data.chunks(7001) {
                            stream.update(piece.to_vec()).unwrap();
                        }
                        stream.finish_to(move |o: Outcome<()>| {
                            slot.fill((index, keep, algo, o.ok().map(|d| d.digest)));
                        });
                    } else {
                        let reply = move |o: Outcome<Vec<u8>>| {
                            slot.fill((index, keep, algo, o.ok().map(|d| d.digest)));
                        };
                        service.submit_to(algo, data, reply).unwrap();
                    }
                }
            });
        }
        drop(seq);
        let mut next = 0u64;
        for item in in_order {
            out.fetch_sub(1, Ordering::SeqCst);
            let (index, data, algo, outcome) = item.expect("no slot lost");
            assert_eq!(index, next, "in slot order");
            next += 1;
            assert_eq!(outcome, Some(oracle(algo, &data)), "slot {index}");
        }
        assert_eq!(next, 4 * PER_PRODUCER as u64, "every slot once");
    });
}

#[test]
fn the_window_bounds_the_slots_out() {
    let (seq, in_order) = service::ordered::<u32>(3);
    let a = seq.slot().unwrap();
    let b = seq.slot().unwrap();
    let c = seq.try_slot().unwrap();
    assert!(seq.try_slot().is_none(), "three out: the window is full");
    // Filled out of order: nothing comes before the first.
    c.fill(3);
    b.fill(2);
    assert!(seq.try_slot().is_none(), "filled is not received");
    a.fill(1);
    assert_eq!(in_order.recv(), Some(Ok(1)));
    let d = seq.try_slot().expect("one received: room for one");
    assert_eq!(d.index(), 3);
    // A slot dropped unfilled is received as lost, in its place.
    drop(d);
    drop(seq);
    let rest: Vec<_> = in_order.collect();
    assert_eq!(rest, [Ok(2), Ok(3), Err(Lost)]);
}

#[test]
fn a_producer_waiting_for_room_wakes_when_the_receiver_goes() {
    let (seq, in_order) = service::ordered::<u32>(1);
    let first = seq.slot().unwrap();
    std::thread::scope(|s| {
        let waiter = s.spawn(|| seq.slot().map(|_| ()));
        std::thread::sleep(Duration::from_millis(20));
        drop(in_order);
        assert_eq!(
            waiter.join().unwrap(),
            None,
            "no slot once the receiver is gone"
        );
    });
    assert!(seq.is_closed());
    first.fill(7); // dropped: nobody receives
}

#[test]
fn a_slot_is_a_reply() {
    let service = HashService::builder().workers(1).build().unwrap();
    let (seq, in_order) = service::ordered::<Outcome<Vec<u8>>>(8);
    for i in 0..8u8 {
        let slot = seq.slot().unwrap();
        service.submit_to(Algo::Sha224, vec![i; 100], slot).unwrap();
    }
    drop(seq);
    for (i, outcome) in in_order.enumerate() {
        let done = outcome.unwrap().unwrap();
        assert_eq!(done.buf, vec![i as u8; 100]);
        assert_eq!(done.digest, oracle(Algo::Sha224, &done.buf));
    }
}

#[test]
fn the_pool_bounds_the_bytes_out() {
    let pool = BufferPool::new(64 << 10);
    assert_eq!(pool.take(1).capacity(), 4 << 10, "4 KiB at least");
    assert_eq!(pool.take(5000).capacity(), 8 << 10, "powers of two");
    assert_eq!(pool.in_use(), 0, "dropped buffers go back");
    let a = pool.take(32 << 10);
    let b = pool.take(16 << 10);
    let c = pool.take(16 << 10);
    assert_eq!(pool.in_use(), 64 << 10);
    assert!(pool.try_take(1).is_none(), "the limit is reached");
    drop(b);
    let d = pool.try_take(10_000).expect("room again");
    assert_eq!(d.capacity(), 16 << 10);
    // A waiting take gets its buffer once enough is given back.
    std::thread::scope(|s| {
        let waiter = s.spawn(|| pool.take(20_000).capacity());
        std::thread::sleep(Duration::from_millis(20));
        drop(a);
        assert_eq!(waiter.join().unwrap(), 32 << 10);
    });
    drop((c, d));
    // A request over the limit waits for an empty pool, then gets it.
    assert_eq!(pool.take(1 << 20).capacity(), 1 << 20);
    assert_eq!(pool.in_use(), 0);
}

#[test]
fn a_pool_buffer_fills_to_its_capacity_or_the_end() {
    let pool = BufferPool::new(1 << 20);
    let data: Vec<u8> = (0..10_000u32).map(|i| (i % 251) as u8).collect();
    let mut r = &data[..];
    let mut buf = pool.take(4096);
    assert_eq!(buf.fill_from(&mut r).unwrap(), 4096);
    assert!(buf.is_full());
    assert_eq!(&buf[..], &data[..4096]);
    let mut rest = pool.take(8192);
    assert_eq!(rest.extend_from_slice(b"xy"), 2);
    assert_eq!(
        rest.fill_from(&mut r).unwrap(),
        10_000 - 4096,
        "short: the end"
    );
    assert_eq!(&rest[2..], &data[4096..]);
    // A reused buffer holds only what was read into it.
    drop(buf);
    let mut again = pool.take(4096);
    assert!(again.is_empty());
    assert_eq!(again.fill_from(&mut &b"abc"[..]).unwrap(), 3);
    assert_eq!(&again[..], b"abc");
    // An error keeps the bytes read before it.
    let mut buf = pool.take(8192);
    let e = buf
        .fill_from(&mut Failing {
            good: 2500,
            max_read: 1000,
        })
        .unwrap_err();
    assert_eq!(e.raw_os_error(), Some(5));
    assert_eq!(buf.len(), 2500);
}

/// A stream of 4 MiB read through a 256 KiB pool: the bytes out never pass
/// the limit, and the digest is the oracle's.
#[test]
fn a_stream_through_a_pool_stays_within_its_limit() {
    let service = HashService::builder().workers(2).build().unwrap();
    let pool = BufferPool::new(256 << 10);
    let mut data = vec![0u8; 4 << 20];
    Rng::new(9).fill(&mut data);
    let mut input = &data[..];
    let mut stream = service.stream(Algo::Sha512);
    let mut most = 0;
    loop {
        let mut buf: PoolBuf = pool.take(64 << 10);
        most = most.max(pool.in_use());
        if buf.fill_from(&mut input).unwrap() == 0 {
            break;
        }
        stream.update(buf).unwrap();
    }
    assert!(most <= 256 << 10, "{most} bytes out");
    let digest = stream.finish().wait().unwrap().digest;
    assert_eq!(digest, oracle(Algo::Sha512, &data));
    assert_eq!(pool.in_use(), 0, "every chunk back once hashed");
}

/// `engine_of` sets the engine of the algorithm's family, so `build` no
/// longer checks that family's variable; `check_env(false)` checks none.
/// Runs itself again in a child process with a bad SHA-512 variable (read
/// once per process).
#[test]
fn engine_of_and_check_env_decide_which_variables_build_checks() {
    const MARK: &str = "MBHASH_TEST_SERVICE_ENV_CHILD";
    const NAME: &str = "engine_of_and_check_env_decide_which_variables_build_checks";
    if std::env::var_os(MARK).is_none() {
        let exe = std::env::current_exe().expect("the test executable");
        let out = std::process::Command::new(exe)
            .args(["--exact", NAME, "--nocapture", "--test-threads=1"])
            .env(MARK, "1")
            .env_remove("MBHASH_SHA256_ENGINE")
            .env("MBHASH_SHA512_ENGINE", "bogus")
            .output()
            .expect("run the child test");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "child failed: {stderr}");
        assert!(String::from_utf8_lossy(&out.stdout).contains("1 passed"));
        return;
    }
    let scalar = Sha512Engine::from_name("scalar").unwrap();
    assert!(HashService::builder().workers(1).build().is_err());
    assert!(
        HashService::builder()
            .workers(1)
            .engine_of::<alg::Sha256Alg>(mbhash_core::engine::Sha256Engine::auto())
            .build()
            .is_err(),
        "the SHA-512 family is still checked"
    );
    let given = HashService::builder()
        .workers(1)
        .engine_of::<alg::Sha384Alg>(scalar)
        .build()
        .expect("the SHA-512 family is given");
    let d = given
        .submit(Algo::Sha384, b"abc".to_vec())
        .unwrap()
        .wait()
        .unwrap();
    assert_eq!(d.digest, oracle(Algo::Sha384, b"abc"));
    let lenient = HashService::builder()
        .workers(1)
        .check_env(false)
        .build()
        .expect("no variable checked");
    let d = lenient
        .submit(Algo::Sha512, b"abc".to_vec())
        .unwrap()
        .wait()
        .unwrap();
    assert_eq!(d.digest, oracle(Algo::Sha512, b"abc"));
}
