//! The `sm3` package's own test suite (`tests/mod.rs` and its data files,
//! taken from the package Cargo downloaded; see `build.rs`), run against
//! mbhash with one line added: `use mbhash as sm3;` first. Its
//! known-answer tests with the reset test, the 16 MiB random-input test
//! and the serialization test (the same serialized bytes as sm3's).

include!(concat!(env!("OUT_DIR"), "/sm3-suite/mod.rs"));

#[test]
fn the_suite_is_sm3s() {
    // The suite really came from the package named in Cargo.toml.
    assert!(
        env!("MBHASH_SM3_VERSION").starts_with("sm3-0.5"),
        "{}",
        env!("MBHASH_SM3_VERSION")
    );
}
