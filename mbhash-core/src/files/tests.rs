use std::io::Write;
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;
use std::time::{Duration, Instant};

use super::read::read_error;
use super::*;
use crate::service::HashService;

#[test]
fn a_read_error_names_its_byte_offset() {
    let mut r = mbhash_test_support::Failing {
        good: 10_000,
        max_read: 4000,
    };
    let pool = BufferPool::new(1 << 20);
    let mut buf = pool.take(8192);
    assert_eq!(buf.fill_from(&mut r).unwrap(), 8192);
    assert!(buf.is_full());
    let mut buf = pool.take(8192);
    let e = buf.fill_from(&mut r).unwrap_err();
    assert_eq!(buf.len(), 1808);
    let e = read_error(8192 + buf.len() as u64, e);
    assert_eq!(
        e.to_string(),
        "read error at byte 10000: Input/output error"
    );
    assert_eq!(e.kind(), io::Error::from_raw_os_error(5).kind());
    let inner = e.get_ref().unwrap().downcast_ref::<ReadError>().unwrap();
    assert_eq!(
        (inner.offset, inner.error.raw_os_error()),
        (10_000, Some(5))
    );
    // At the first byte, the system's error as it is.
    let e = read_error(0, io::Error::from_raw_os_error(21));
    assert_eq!(e.raw_os_error(), Some(21));
}

/// A job of the tests: its number, and maybe a file.
struct Numbered(usize, Option<Source>);

impl Job for Numbered {
    fn source(&self) -> Option<&Source> {
        self.1.as_ref()
    }
}

/// Files around the chunk size and many small ones, jobs with nothing to
/// hash between them, a missing file: the jobs and what each should give.
fn mixed_jobs(tmp: &Path, chunk: usize) -> (Vec<Numbered>, Vec<Option<Vec<u8>>>) {
    let mut rng = mbhash_test_support::Rng::new(5);
    let mut sizes = vec![0, 1, chunk - 1, chunk, chunk + 1, 3 * chunk + 5, 40_000];
    sizes.extend((0..200).map(|_| rng.below(3 * chunk)));
    let mut expected = Vec::new();
    let mut jobs = Vec::new();
    for (i, len) in sizes.into_iter().enumerate() {
        let data = rng.bytes(len);
        let path = tmp.join(format!("f{i}"));
        std::fs::write(&path, &data).unwrap();
        jobs.push(Numbered(jobs.len(), Some(Source::Path(path))));
        expected.push(Some(mbhash_test_support::oracle("sha256", &data)));
        if i % 5 == 0 {
            jobs.push(Numbered(jobs.len(), None));
            expected.push(None);
        }
    }
    jobs.push(Numbered(
        jobs.len(),
        Some(Source::Path(tmp.join("missing"))),
    ));
    expected.push(Some(Vec::new()));
    (jobs, expected)
}

/// Runs the mixed jobs with at most `spawn` reader threads under tiny
/// pool, window and batches, so that every wait is met: every outcome once,
/// in job order, each the oracle's digest.
fn in_order_under_tight_bounds(name: &str, spawn: usize) {
    let tmp = mbhash_test_support::TempDir::new("mbhash-files", name);
    let chunk = 8192;
    let (jobs, expected) = mixed_jobs(&tmp.0, chunk);
    let settings = Settings {
        readers: 3,
        chunk,
        in_flight: 16 << 10,
        window: 3,
        batch_jobs: 4,
        batch_bytes: 20_000,
        ..Settings::new(2)
    };
    let mut seen = 0;
    Run::new(HashService::builder(), Algo::Sha256, settings)
        .spawn_at_most(spawn)
        .run(jobs.into_iter(), |job, outcome| {
            assert_eq!(job.0, seen, "in job order");
            match (outcome, &expected[seen]) {
                (None, None) => {}
                (Some(Ok(h)), Some(want)) => {
                    assert_eq!(h.digest.as_bytes(), &want[..], "job {seen}")
                }
                (Some(Err(e)), Some(want)) if want.is_empty() => {
                    assert_eq!(e.kind(), io::ErrorKind::NotFound);
                }
                (o, _) => panic!("job {seen}: {o:?}"),
            }
            seen += 1;
            Ok(())
        })
        .unwrap();
    assert_eq!(seen, expected.len(), "every job once");
}

#[test]
fn outcomes_in_job_order_under_tight_bounds() {
    in_order_under_tight_bounds("order", usize::MAX);
}

/// Reader threads that cannot be started: one started reads every job, and
/// with none the calling thread reads them between the outcomes it hands
/// on (the window of 3 is met there many times).
#[test]
fn fewer_readers_down_to_the_calling_thread() {
    in_order_under_tight_bounds("one-reader", 1);
    in_order_under_tight_bounds("no-reader", 0);
}

/// A sink's error stops the run and is returned; nothing waits forever.
#[test]
fn a_sink_error_stops_the_run() {
    for spawn in [usize::MAX, 0] {
        let tmp = mbhash_test_support::TempDir::new("mbhash-files", "stop");
        let big = tmp.0.join("big");
        std::fs::write(&big, vec![1u8; 1 << 20]).unwrap();
        let jobs = (0..500).map(|i| Numbered(i, Some(Source::Path(big.clone()))));
        let settings = Settings {
            chunk: 4096,
            in_flight: 16 << 10,
            window: 4,
            ..Settings::new(2)
        };
        let mut calls = 0;
        let r = Run::new(HashService::builder(), Algo::Sha256, settings)
            .spawn_at_most(spawn)
            .run(jobs, |_, _| {
                calls += 1;
                if calls == 3 {
                    return Err(io::Error::other("sink full"));
                }
                Ok(())
            });
        assert_eq!(r.unwrap_err().to_string(), "sink full");
        assert_eq!(calls, 3);
    }
}

fn fifo(dir: &Path, name: &str) -> std::path::PathBuf {
    let path = dir.join(name);
    rustix::fs::mkfifoat(rustix::fs::CWD, &path, rustix::fs::Mode::from(0o600)).unwrap();
    path
}

/// The outcomes of `paths` hashed with `settings` (and a check, if given).
fn hash_paths(
    paths: &[&Path],
    settings: Settings,
    spawn: usize,
    check: Option<Check<'_>>,
) -> io::Result<Vec<io::Result<Vec<u8>>>> {
    let jobs = paths
        .iter()
        .enumerate()
        .map(|(i, p)| Numbered(i, Some(Source::Path(p.to_path_buf()))));
    let mut got = Vec::new();
    let mut run = Run::new(HashService::builder(), Algo::Sha256, settings).spawn_at_most(spawn);
    if let Some(check) = check {
        run = run.check_every(Duration::from_millis(10), check);
    }
    run.run(jobs, |_, o| {
        got.push(o.unwrap().map(|h| h.digest.as_bytes().to_vec()));
        Ok(())
    })?;
    Ok(got)
}

/// A FIFO with no writer and an endless device are each their job's
/// time-out error; the files around them are hashed (a second is far more
/// than a small file takes, even on a loaded machine). Before the watched
/// reads, the FIFO's open waited for a writer for ever.
#[test]
fn a_fifo_without_writer_or_an_endless_device_times_out() {
    let tmp = mbhash_test_support::TempDir::new("mbhash-files", "timeout");
    let a = tmp.0.join("a");
    std::fs::write(&a, b"abc").unwrap();
    let pipe = fifo(&tmp.0, "pipe");
    for spawn in [usize::MAX, 0] {
        let settings = Settings {
            timeout: Some(Duration::from_secs(1)),
            ..Settings::new(2)
        };
        let paths: [&Path; 4] = [&a, &pipe, Path::new("/dev/zero"), &a];
        let jobs = paths
            .iter()
            .enumerate()
            .map(|(i, p)| Numbered(i, Some(Source::Path(p.to_path_buf()))));
        let mut got = Vec::new();
        Run::new(HashService::builder(), Algo::Sha256, settings)
            .spawn_at_most(spawn)
            .run(jobs, |_, o| {
                got.push(o.unwrap().map(|h| h.digest.as_bytes().to_vec()));
                Ok(())
            })
            .unwrap();
        let abc = mbhash_test_support::oracle("sha256", b"abc");
        assert_eq!(got[0].as_ref().unwrap(), &abc);
        assert_eq!(got[3].as_ref().unwrap(), &abc);
        for e in [&got[1], &got[2]] {
            let e = e.as_ref().unwrap_err();
            assert_eq!(e.kind(), io::ErrorKind::TimedOut, "{e}");
        }
    }
}

/// A FIFO is read as a blocking open and read would: its writer comes
/// late, writes in pieces with pauses, and closes; the digest is of what
/// it wrote (not the empty input a FIFO without a writer reads as).
#[test]
fn a_fifo_is_read_whole_from_a_late_writer() {
    let tmp = mbhash_test_support::TempDir::new("mbhash-files", "fifo");
    let pipe = fifo(&tmp.0, "pipe");
    let data = mbhash_test_support::Rng::new(9).bytes(300_000);
    let writer = {
        let (pipe, data) = (pipe.clone(), data.clone());
        std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(100));
            let mut w = std::fs::OpenOptions::new().write(true).open(&pipe).unwrap();
            for piece in data.chunks(70_000) {
                if w.write_all(piece).is_err() {
                    return; // the reader went away
                }
                std::thread::sleep(Duration::from_millis(30));
            }
        })
    };
    let got = hash_paths(&[&pipe], Settings::new(2), usize::MAX, None).unwrap();
    if !writer.is_finished() {
        // Read before the writer came (the test fails below): let its open
        // through and break its pipe, so that it ends.
        std::thread::sleep(Duration::from_millis(500));
        let _ = std::fs::OpenOptions::new()
            .read(true)
            .custom_flags(rustix::fs::OFlags::NONBLOCK.bits() as i32)
            .open(&pipe);
    }
    let _ = writer.join();
    assert_eq!(
        got[0].as_ref().unwrap(),
        &mbhash_test_support::oracle("sha256", &data)
    );
}

/// The check's error cancels a run whose reader waits on a FIFO with no
/// writer, or reads an endless device: the run returns that error soon
/// after, its readers gone.
#[test]
fn a_check_cancels_a_run_stuck_on_a_fifo_or_a_device() {
    let tmp = mbhash_test_support::TempDir::new("mbhash-files", "cancel");
    let pipe = fifo(&tmp.0, "pipe");
    let cases = [pipe.as_path(), Path::new("/dev/zero")];
    // With reader threads, and with the calling thread as the reader.
    for (path, spawn) in cases.into_iter().flat_map(|p| [(p, usize::MAX), (p, 0)]) {
        let start = Instant::now();
        let mut check = || {
            if start.elapsed() > Duration::from_millis(150) {
                Err(io::Error::other("interrupted"))
            } else {
                Ok(())
            }
        };
        let r = hash_paths(&[path], Settings::new(2), spawn, Some(&mut check));
        assert_eq!(r.unwrap_err().to_string(), "interrupted");
        // Generous for a loaded machine: without the cancel the run never
        // ends.
        assert!(
            start.elapsed() < Duration::from_secs(20),
            "{path:?} {spawn}"
        );
    }
}

/// Standard input is the caller's: without a way to open it the job is an
/// error; with one, its bytes are hashed.
#[test]
fn standard_input_through_the_callers_function() {
    let jobs = || {
        [
            Numbered(0, Some(Source::Stdin)),
            Numbered(1, Some(Source::StdinAgain)),
        ]
    };
    let mut got = Vec::new();
    Run::new(HashService::builder(), Algo::Sha256, Settings::new(1))
        .run(jobs().into_iter(), |_, o| {
            got.push(o.unwrap().map(|h| h.digest.as_bytes().to_vec()));
            Ok(())
        })
        .unwrap();
    assert_eq!(
        got[0].as_ref().unwrap_err().kind(),
        io::ErrorKind::Unsupported
    );
    let empty = mbhash_test_support::oracle("sha256", b"");
    assert_eq!(got[1].as_ref().unwrap(), &empty);
    let open: &OpenStdin = &|| Ok(Box::new(io::Cursor::new(b"abc".to_vec())));
    got.clear();
    Run::new(HashService::builder(), Algo::Sha256, Settings::new(1))
        .stdin(open)
        .run(jobs().into_iter(), |_, o| {
            got.push(o.unwrap().map(|h| h.digest.as_bytes().to_vec()));
            Ok(())
        })
        .unwrap();
    assert_eq!(
        got[0].as_ref().unwrap(),
        &mbhash_test_support::oracle("sha256", b"abc")
    );
    assert_eq!(got[1].as_ref().unwrap(), &empty);
}

/// Many more files than descriptors, on many readers: a budget of 4
/// descriptors loses none (each reader holds one file at a time, and
/// waits for a descriptor).
#[test]
fn a_small_budget_loses_no_file() {
    let budget = Budget::new(4);
    let tmp = mbhash_test_support::TempDir::new("mbhash-files", "budget");
    let mut held = Vec::new();
    for i in 0..50 {
        let p = tmp.0.join(format!("f{i}"));
        std::fs::write(&p, [i as u8; 100]).unwrap();
        match open(&p, &budget, false) {
            Open::Done(f) => held.push(f),
            Open::Later => break,
            Open::Failed(e) => panic!("{e}"),
        }
    }
    assert_eq!(held.len(), 4, "the budget's descriptors, no more");
    drop(held.pop());
    assert!(matches!(
        open(&tmp.0.join("f0"), &budget, false),
        Open::Done(_)
    ));
}

/// Threads that wait for a descriptor are woken by every give-back that
/// frees one: eight threads share a budget of 2 through many rounds of
/// take and give back, never hold more than 2 at once, and all finish
/// within a minute (a lost wake-up leaves one waiting for ever: the test
/// fails instead of hanging).
#[test]
fn waiters_for_a_descriptor_are_woken() {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};
    let budget = Budget::new(2);
    let held = Arc::new(AtomicUsize::new(0));
    let most = Arc::new(AtomicUsize::new(0));
    let (done, finished) = std::sync::mpsc::channel();
    for _ in 0..8 {
        let (budget, held, most, done) = (budget.clone(), held.clone(), most.clone(), done.clone());
        std::thread::spawn(move || {
            for round in 0..2000 {
                let permit = budget.take();
                let now = held.fetch_add(1, Ordering::SeqCst) + 1;
                most.fetch_max(now, Ordering::SeqCst);
                if round % 64 == 0 {
                    std::thread::yield_now();
                }
                held.fetch_sub(1, Ordering::SeqCst);
                drop(permit);
            }
            done.send(()).unwrap();
        });
    }
    for _ in 0..8 {
        finished
            .recv_timeout(Duration::from_secs(60))
            .expect("a thread still waits for a descriptor: a wake-up was lost");
    }
    assert_eq!(
        most.load(Ordering::SeqCst),
        2,
        "at most the budget, and all of it"
    );
    let all = [budget.try_take(), budget.try_take()];
    assert!(
        all.iter().all(Option::is_some),
        "every descriptor given back"
    );
    assert!(budget.try_take().is_none(), "and no more");
}

/// A regular file is read blocking (its open's `O_NONBLOCK` cleared, and
/// no other status flag set); a FIFO stays non-blocking, to be polled.
#[test]
fn regular_files_open_blocking_fifos_non_blocking() {
    let tmp = mbhash_test_support::TempDir::new("mbhash-files", "flags");
    let file = tmp.0.join("f");
    std::fs::write(&file, b"data").unwrap();
    let pipe = fifo(&tmp.0, "pipe");
    let budget = super::Budget::new(4);
    for (path, nonblocking) in [(file.as_path(), false), (pipe.as_path(), true)] {
        let super::Open::Done(opened) = super::open(path, &budget, true) else {
            panic!("{path:?} did not open");
        };
        let flags = rustix::fs::fcntl_getfl(&opened.file).unwrap();
        assert_eq!(
            flags.contains(rustix::fs::OFlags::NONBLOCK),
            nonblocking,
            "{path:?}"
        );
        let others = rustix::fs::OFlags::APPEND
            | rustix::fs::OFlags::DIRECT
            | rustix::fs::OFlags::NOATIME
            | rustix::fs::OFlags::ASYNC;
        assert!(!flags.intersects(others), "{path:?}: {flags:?}");
    }
}
