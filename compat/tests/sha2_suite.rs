//! The `sha2` package's own test suite (`tests/mod.rs` and its data files,
//! taken from the package Cargo downloaded; see `build.rs`), run against
//! mbhash with one line changed: `use mbhash as sha2;` first. Its
//! known-answer tests, the reset tests, the 16 MiB random-input tests and
//! the six serialization tests (the same serialized bytes as sha2's).

include!(concat!(env!("OUT_DIR"), "/sha2-suite/mod.rs"));

#[test]
fn the_suite_is_sha2s() {
    // The suite really came from a sha2 0.11 package.
    assert!(
        env!("MBHASH_SHA2_VERSION").starts_with("sha2-0.11"),
        "{}",
        env!("MBHASH_SHA2_VERSION")
    );
}
