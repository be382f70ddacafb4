//! Every SHA-256 engine against the scalar reference engine, through the job
//! manager: lengths 0..=300 and random up to 70,000, every lane fill
//! 1..=LANES+1 with ragged lengths, unaligned buffers, multi-part streams.
//! Engines this CPU lacks are reported as skipped (`MBHASH_REQUIRE` makes
//! that a failure).

mod common;

use common::{Job, Rng, run_jobs, sha256_engines};
use mbhash_core::alg::Sha256Alg;
use mbhash_core::engine::{LaneEngine, Sha256Engine, Step};

fn reference(jobs: &[Job]) -> Vec<[u8; 32]> {
    let scalar = Sha256Engine::from_name("scalar").unwrap();
    run_jobs::<Sha256Alg>(scalar, jobs, &mut Rng::new(0))
}

fn compare(engine: Sha256Engine, what: &str, jobs: &[Job], rng: &mut Rng) {
    let expected = reference(jobs);
    let got = run_jobs::<Sha256Alg>(engine, jobs, rng);
    for (i, (g, e)) in got.iter().zip(&expected).enumerate() {
        assert_eq!(
            g,
            e,
            "engine {} {what}: job {i} of length {} (chunks {:?})",
            engine.name(),
            jobs[i].message().len(),
            jobs[i].chunks
        );
    }
}

#[test]
fn lengths_0_to_300() {
    for engine in sha256_engines() {
        let mut rng = Rng::new(300);
        let jobs: Vec<Job> = (0..=300).map(|l| Job::random(&mut rng, l, false)).collect();
        compare(engine, "lengths 0..=300", &jobs, &mut rng);
    }
}

#[test]
fn random_long_and_multipart() {
    for engine in sha256_engines() {
        let mut rng = Rng::new(70_000);
        let jobs: Vec<Job> = (0..48)
            .map(|i| {
                let len = rng.below(70_001);
                Job::random(&mut rng, len, i % 2 == 0)
            })
            .collect();
        compare(engine, "random up to 70,000", &jobs, &mut rng);
    }
}

#[test]
fn every_lane_fill_ragged() {
    for engine in sha256_engines() {
        let mut rng = Rng::new(16);
        for fill in 1..=engine.lanes() + 1 {
            let jobs: Vec<Job> = (0..fill)
                .map(|_| {
                    let len = rng.below(64 * 40);
                    Job::random(&mut rng, len, false)
                })
                .collect();
            compare(engine, &format!("fill {fill}"), &jobs, &mut rng);
        }
    }
}

/// `auto` runs one busy lane on the one-stream kernel when SHA-NI exists,
/// and a full set of lanes on a multi-lane kernel (which one is measured).
#[test]
fn auto_plan_is_sane() {
    let auto = Sha256Engine::auto();
    let full = if auto.lanes() >= 32 {
        u32::MAX
    } else {
        (1u32 << auto.lanes()) - 1
    };
    if Sha256Engine::is_supported("shani") {
        assert!(matches!(auto.choose(1), Step::Narrow1 | Step::Narrow2));
        assert_ne!(auto.choose(full), Step::Scalar);
    } else {
        mbhash_test_support::skip_or_require("shani", "auto thin-lane check", "no SHA-NI");
    }
    for step in Step::ALL {
        let c = auto.plan().cost(step);
        assert!(c.is_infinite() || c > 0.0, "{step:?} cost {c}");
    }
}

/// The floor of a shared hasher is worked out from `auto`'s measured costs:
/// the cheapest per-lane step the engine may run over the cheapest one-lane
/// step, for `auto` and for each named engine this CPU runs.
#[test]
fn floor_comes_from_the_measured_costs() {
    use mbhash_core::engine::Sha512Engine;
    fn check<K: mbhash_core::engine::Kernels>(
        kinds: &[(&str, &[Step])],
        width: impl Fn(Step) -> f32,
    ) {
        let auto = mbhash_core::engine::Engine::<K>::auto();
        let cost = |s: Step| auto.plan().cost(s);
        let one = cost(Step::Scalar).min(cost(Step::Narrow1));
        let best = Step::ALL
            .into_iter()
            .map(|s| cost(s) / width(s))
            .fold(f32::INFINITY, f32::min);
        let floor = auto.floor_vs_one_stream();
        assert_eq!(floor, best / one, "auto");
        assert!(floor > 0.0 && floor <= 1.0, "auto floor {floor}");
        for (name, steps) in kinds {
            let Ok(engine) = mbhash_core::engine::Engine::<K>::from_name(name) else {
                continue;
            };
            let expected = steps
                .iter()
                .map(|s| cost(*s) / width(*s))
                .fold(f32::INFINITY, f32::min)
                / one;
            assert_eq!(engine.floor_vs_one_stream(), expected, "{name}");
        }
    }
    let width = |mid: f32, wide: f32| {
        move |s: Step| match s {
            Step::Scalar | Step::Narrow1 => 1.0,
            Step::Narrow2 => 2.0,
            Step::Narrow4 => 4.0,
            Step::Mid => mid,
            Step::Wide => wide,
        }
    };
    check::<mbhash_core::engine::Sha256Kernels>(
        <mbhash_core::engine::Sha256Kernels as mbhash_core::engine::Kernels>::KINDS,
        width(8.0, 16.0),
    );
    check::<mbhash_core::engine::Sha512Kernels>(
        <mbhash_core::engine::Sha512Kernels as mbhash_core::engine::Kernels>::KINDS,
        width(4.0, 8.0),
    );
    // The scalar engine shares nothing: its floor is the portable kernel
    // against the fastest one-lane kernel, never below one stream.
    assert!(
        Sha256Engine::from_name("scalar")
            .unwrap()
            .floor_vs_one_stream()
            >= 1.0
    );
    assert!(
        Sha512Engine::from_name("scalar")
            .unwrap()
            .floor_vs_one_stream()
            >= 1.0
    );
}

/// A forced engine runs its own kernel for every lane fill (never quietly
/// another one).
#[test]
fn forced_engines_run_their_own_kernel() {
    use mbhash_core::engine::Sha512Engine;
    for engine in sha256_engines().into_iter().filter(|e| e.name() != "auto") {
        for k in 1..=engine.lanes() as u32 {
            let step = engine.choose((1u32 << k) - 1);
            assert_eq!(Sha256Engine::step_name(step), engine.name(), "{k} lanes");
        }
    }
    for engine in common::sha512_engines()
        .into_iter()
        .filter(|e| e.name() != "auto")
    {
        for k in 1..=engine.lanes() as u32 {
            let step = engine.choose((1u32 << k) - 1);
            assert_eq!(Sha512Engine::step_name(step), engine.name(), "{k} lanes");
        }
    }
}

/// An engine variable naming an engine that cannot run: the infallible
/// constructors run `auto` (no panic, nothing printed), the `try_` forms
/// return the one `EngineError`, for every family. Runs itself again in a
/// child process with the variables set (they are read once per process).
#[test]
fn a_bad_engine_variable_means_auto_and_an_error_from_try() {
    const MARK: &str = "MBHASH_TEST_BAD_ENGINE_CHILD";
    if std::env::var_os(MARK).is_none() {
        let exe = std::env::current_exe().expect("the test executable");
        let out = std::process::Command::new(exe)
            .args([
                "--exact",
                "a_bad_engine_variable_means_auto_and_an_error_from_try",
                "--nocapture",
                "--test-threads=1",
            ])
            .env(MARK, "1")
            .env("MBHASH_SHA256_ENGINE", "bogus")
            .env("MBHASH_SHA512_ENGINE", "shani")
            .env("MBHASH_CRC32C_ENGINE", "nope")
            .output()
            .expect("run the child test");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "child failed: {stderr}");
        assert!(
            String::from_utf8_lossy(&out.stdout).contains("1 passed"),
            "the child ran the test"
        );
        assert!(!stderr.contains("engine"), "the library printed: {stderr}");
        return;
    }
    use mbhash_core::crc32c::{self, Crc32cKernel};
    use mbhash_core::engine::{EngineErrorKind, LaneEngine, Sha512Engine};
    use mbhash_core::{Sha256Manager, Sha512Manager, StreamHasher, alg};

    let e = Sha256Engine::try_configured().unwrap_err();
    assert_eq!((e.kind(), e.name()), (EngineErrorKind::Unknown, "bogus"));
    assert_eq!(e.source, Some("MBHASH_SHA256_ENGINE"));
    assert_eq!(Sha256Engine::configured().name(), "auto");
    assert_eq!(Sha256Manager::new().engine().name(), "auto");
    assert!(Sha256Manager::try_new().is_err());
    assert!(StreamHasher::<alg::Sha256Alg>::try_new().is_err());
    assert_eq!(
        StreamHasher::<alg::Sha256Alg>::hash(b"abc").as_slice(),
        mbhash_test_support::oracle("sha256", b"abc")
    );
    assert_eq!(
        mbhash_core::hash_many::<alg::Sha256Alg>(&[b"abc", b""])[0].as_slice(),
        mbhash_test_support::oracle("sha256", b"abc")
    );

    let e = Sha512Engine::try_configured().unwrap_err();
    assert_eq!(e.kind(), EngineErrorKind::Unknown);
    assert!(e.to_string().contains("avx2-x1"), "{e}");
    assert_eq!(<Sha512Engine as LaneEngine<_>>::configured().name(), "auto");
    assert!(Sha512Manager::try_new().is_err());

    let e = crc32c::configured_engine().unwrap_err();
    assert_eq!((e.family, e.name()), ("crc32c", "nope"));
    assert_eq!(Crc32cKernel::try_configured().unwrap_err(), e);
    assert_eq!(crc32c::engine(), crc32c::auto_engine());
    assert_eq!(crc32c::crc32c(b"123456789"), 0xE306_9283);
    assert!(mbhash_core::HashService::builder().build().is_err());
}
