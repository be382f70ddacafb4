//! The hash service contains the caller's panics: a buffer whose `AsRef`
//! or `Drop` panics, a stream chunk that does, a reply that does. Each
//! fails (or, for `Drop`, completes) its own job; the worker keeps running
//! and every other job gets its outcome.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use mbhash_core::service::{Algo, Handle, HashService, Outcome, Reason, Shutdown};

/// How a buffer misbehaves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Fault {
    None,
    /// `as_ref` always panics.
    AsRef,
    /// `as_ref` panics from its second call on.
    AsRefLater,
    /// `drop` panics (once the test has marked it as armed).
    Drop,
}

struct Evil {
    data: Vec<u8>,
    fault: Fault,
    calls: AtomicUsize,
    /// Drops with a `Drop` fault panic only while armed, so that the test
    /// itself can drop the buffers it gets back.
    armed: bool,
}

impl Evil {
    fn new(data: Vec<u8>, fault: Fault) -> Evil {
        Evil {
            data,
            fault,
            calls: AtomicUsize::new(0),
            armed: true,
        }
    }
}

impl AsRef<[u8]> for Evil {
    fn as_ref(&self) -> &[u8] {
        let n = self.calls.fetch_add(1, Ordering::Relaxed);
        match self.fault {
            Fault::AsRef => panic!("AsRef panic (expected by the test)"),
            Fault::AsRefLater if n >= 1 => panic!("late AsRef panic (expected by the test)"),
            _ => &self.data,
        }
    }
}

impl Drop for Evil {
    fn drop(&mut self) {
        if self.fault == Fault::Drop && self.armed && !std::thread::panicking() {
            panic!("Drop panic (expected by the test)");
        }
    }
}

fn fault_of(i: usize) -> Fault {
    match i % 5 {
        1 => Fault::AsRef,
        2 => Fault::Drop,
        3 => Fault::AsRefLater,
        _ => Fault::None,
    }
}

fn wait(h: Handle<Evil>) -> Outcome<Evil> {
    match h.wait_timeout(Duration::from_secs(20)) {
        Ok(o) => o,
        Err(_) => panic!("a job got no outcome within 20 s"),
    }
}

/// Checks one outcome; disarms the buffer so the test can drop it.
fn check(o: Outcome<Evil>, fault: Fault, data: &[u8]) {
    match (o, fault) {
        (Ok(mut done), Fault::None | Fault::Drop) => {
            assert_eq!(done.digest, Algo::Sha256.digest(data));
            done.buf.armed = false;
        }
        (Err(mut c), Fault::AsRef) => {
            assert_eq!(c.reason(), Reason::Panicked);
            c.buf_mut().armed = false;
        }
        // A buffer that panics only on a second `as_ref` may have been read
        // once (a digest) or refused (the service reads it more than once).
        (Ok(mut done), Fault::AsRefLater) => {
            assert_eq!(done.digest, Algo::Sha256.digest(data));
            done.buf.armed = false;
        }
        (Err(mut c), Fault::AsRefLater) => {
            assert_eq!(c.reason(), Reason::Panicked);
            c.buf_mut().armed = false;
        }
        (o, f) => panic!("fault {f:?}: unexpected outcome {:?}", o.map(|_| ())),
    }
}

fn one_shot_jobs(workers: usize) {
    let service = HashService::builder().workers(workers).build().unwrap();
    for round in 0..4 {
        // Handles, one at a time and many in flight.
        let mut handles = Vec::new();
        for i in 0..200usize {
            let data = vec![(i + round) as u8; (i * 97) % 5000];
            let fault = fault_of(i);
            let h = service
                .submit(Algo::Sha256, Evil::new(data.clone(), fault))
                .unwrap();
            if i % 3 == 0 {
                check(wait(h), fault, &data);
            } else {
                handles.push((h, fault, data));
            }
        }
        for (h, fault, data) in handles {
            check(wait(h), fault, &data);
        }
        // Batches, with outcomes to a channel.
        let (tx, rx) = std::sync::mpsc::channel();
        let bufs: Vec<Evil> = (0..100usize)
            .map(|i| Evil::new(vec![i as u8; i * 50], fault_of(i)))
            .collect();
        service.submit_batch_to(Algo::Sha256, bufs, tx).unwrap();
        for _ in 0..100 {
            let o = rx
                .recv_timeout(Duration::from_secs(20))
                .expect("an outcome");
            let (len, fault) = match &o {
                Ok(done) => (done.buf.data.len(), done.buf.fault),
                Err(c) => (c.buf().data.len(), c.buf().fault),
            };
            let i = len / 50;
            check(o, fault, &vec![i as u8; len]);
        }
    }
    // The workers still run.
    let done = service
        .submit(Algo::Sha512, vec![7u8; 300])
        .unwrap()
        .wait()
        .unwrap();
    assert_eq!(done.digest, Algo::Sha512.digest(&done.buf));
    let stats = service.shutdown(Shutdown::Finish);
    assert!(stats.failed > 0, "{stats:?}");
}

#[test]
fn a_panicking_buffer_fails_its_job_one_worker() {
    one_shot_jobs(1);
}

#[test]
fn a_panicking_buffer_fails_its_job_many_workers() {
    one_shot_jobs(4);
}

fn streams(workers: usize) {
    let service = HashService::builder().workers(workers).build().unwrap();
    for round in 0..3 {
        let mut finishes = Vec::new();
        for s in 0..20usize {
            let mut stream = service.stream(Algo::Sha256);
            let mut whole = Vec::new();
            let mut failed = false;
            for c in 0..5usize {
                let data = vec![(s + c + round) as u8; 1000 + c * 333];
                whole.extend_from_slice(&data);
                // Stream 3k+1: one chunk's AsRef panics; 3k+2: chunks'
                // Drop panics on the worker.
                let fault = match (s % 3, c) {
                    (1, 2) => {
                        failed = true;
                        Fault::AsRef
                    }
                    (2, _) => Fault::Drop,
                    _ => Fault::None,
                };
                stream.update(Evil::new(data, fault)).unwrap();
            }
            finishes.push((stream.finish(), whole, failed));
        }
        for (h, whole, failed) in finishes {
            let o = h
                .wait_timeout(Duration::from_secs(20))
                .unwrap_or_else(|_| panic!("a stream got no outcome within 20 s"));
            if failed {
                assert_eq!(o.unwrap_err().reason(), Reason::Panicked);
            } else {
                assert_eq!(o.unwrap().digest, Algo::Sha256.digest(&whole));
            }
        }
    }
    let done = service
        .submit(Algo::Sha256, vec![1u8; 10])
        .unwrap()
        .wait()
        .unwrap();
    assert_eq!(done.digest, Algo::Sha256.digest(&done.buf));
    service.shutdown(Shutdown::Finish);
}

#[test]
fn a_panicking_stream_chunk_fails_its_stream_one_worker() {
    streams(1);
}

#[test]
fn a_panicking_stream_chunk_fails_its_stream_many_workers() {
    streams(3);
}

#[test]
fn a_reply_dropped_on_the_worker_may_panic() {
    // A receiver that is gone: the outcome, and its panicking buffer, are
    // dropped on the worker.
    let service = HashService::builder().workers(1).build().unwrap();
    let hits = Arc::new(AtomicUsize::new(0));
    for i in 0..50usize {
        let (tx, rx) = std::sync::mpsc::channel::<Outcome<Evil>>();
        drop(rx);
        service
            .submit_to(Algo::Sha256, Evil::new(vec![i as u8; i], Fault::Drop), tx)
            .unwrap();
        let hits = hits.clone();
        service
            .submit_to(
                Algo::Sha256,
                vec![i as u8; i],
                move |o: Outcome<Vec<u8>>| {
                    assert!(o.is_ok());
                    hits.fetch_add(1, Ordering::Relaxed);
                },
            )
            .unwrap();
    }
    let stats = service.shutdown(Shutdown::Finish);
    assert_eq!(hits.load(Ordering::Relaxed), 50);
    assert_eq!(stats.callback_panics, 50);
    assert_eq!(stats.completed, 100);
    // The service the test dropped nothing from is fine too.
    let r = catch_unwind(AssertUnwindSafe(|| drop(service)));
    assert!(r.is_ok());
}
