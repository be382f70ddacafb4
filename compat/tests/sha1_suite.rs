//! The `sha1` package's own test suite (`tests/mod.rs` and its data files,
//! taken from the package Cargo downloaded; see `build.rs`), run against
//! mbhash with one line added: `use mbhash as sha1;` first. Its
//! known-answer tests with the reset test, the 16 MiB random-input test
//! and the serialization test (the same serialized bytes as sha1's).

include!(concat!(env!("OUT_DIR"), "/sha1-suite/mod.rs"));

#[test]
fn the_suite_is_sha1s() {
    // The suite really came from the package named in Cargo.toml.
    assert!(
        env!("MBHASH_SHA1_VERSION").starts_with("sha1-0.11"),
        "{}",
        env!("MBHASH_SHA1_VERSION")
    );
}
