//! A new one-stream hasher takes the configured engine's one-stream kernel
//! from a cache (`StreamHasher::new` reads one word): the cache must follow
//! the environment variable, every `set_default` and `clear_default`, and
//! `auto`'s calibration, while hashers already made keep their engine.
//! One test in this file: it sets the process's environment first.

use mbhash_core::alg::Sha256Family;
use mbhash_core::engine::{self, LaneEngine, Sha256Engine, SingleStream};
use mbhash_core::{Algo, Sha224, Sha256};

/// The engine a new hasher runs, as its `Debug` shows it.
fn engine_of<T: std::fmt::Debug>(hasher: &T) -> String {
    let shown = format!("{hasher:?}");
    let start = shown.find("engine: \"").expect("the engine is shown") + 9;
    shown[start..start + shown[start..].find('"').expect("quoted")].to_string()
}

fn configured_single() -> String {
    format!(
        "{:?}",
        <Sha256Engine as LaneEngine<Sha256Family>>::configured_single()
    )
}

#[test]
fn new_hashers_follow_the_variable_the_defaults_and_the_calibration() {
    // SAFETY: the only test of this binary sets the variable before
    // anything of the library has run or read the environment, and before
    // any other thread of its own starts.
    unsafe { std::env::set_var("MBHASH_SHA256_ENGINE", "scalar") };
    let digest = Sha256::hash(b"abc");

    // The variable, on the first (uncached) and the next (cached) call, for
    // both algorithms of the family.
    for _ in 0..3 {
        assert_eq!(engine_of(&Sha256::new()), "scalar");
        assert_eq!(engine_of(&Sha224::new()), "scalar");
    }
    let before = Sha256::new();

    // Each default reaches the next new hasher, cached or not; a hasher
    // made before keeps its engine.
    let mut names: Vec<&str> = Sha256Engine::names()
        .filter(|n| Sha256Engine::is_supported(n))
        .collect();
    names.push("auto");
    for name in names {
        engine::set_default(Algo::Sha256, name).unwrap();
        for _ in 0..3 {
            let mut h = Sha256::new();
            assert_eq!(engine_of(&h), name);
            assert_eq!(engine_of(&Sha224::new()), name);
            h.update(b"abc");
            assert_eq!(h.finalize_reset_output(), digest, "{name}");
        }
        assert_eq!(
            configured_single(),
            format!("{:?}", Sha256Engine::configured().single()),
            "{name}: the configured engine's own one-stream kernel"
        );
        assert_eq!(engine_of(&before), "scalar");
    }

    // Cleared: the variable's engine again.
    engine::clear_default(Algo::Sha256);
    for _ in 0..3 {
        assert_eq!(engine_of(&Sha256::new()), "scalar");
    }

    // `auto` by default, cached before the calibration: once `auto` is
    // calibrated, new hashers take the calibrated plan's one-stream kernel.
    engine::set_default(Algo::Sha256, "auto").unwrap();
    let _ = Sha256::new();
    let _ = Sha256::new();
    let calibrated = Sha256Engine::auto();
    for _ in 0..3 {
        assert_eq!(configured_single(), format!("{:?}", calibrated.single()));
        assert_eq!(engine_of(&Sha256::new()), "auto");
    }
    // And an invalid name changes nothing.
    assert!(engine::set_default(Algo::Sha256, "no-such-engine").is_err());
    assert_eq!(engine_of(&Sha256::new()), "auto");
    assert_eq!(Sha256::new().finalize_reset_output(), Sha256::hash(b""));
    let _ = SingleStream::name(&calibrated.single());
}
