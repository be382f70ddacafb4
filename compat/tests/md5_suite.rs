//! The `md-5` package's own test suite (`tests/mod.rs` and its data files,
//! taken from the package Cargo downloaded; see `build.rs`), run against
//! mbhash with one line added: `use mbhash as md5;` first. Its
//! known-answer tests with the reset test, the 16 MiB random-input test
//! and the serialization test (the same serialized bytes as md-5's).

include!(concat!(env!("OUT_DIR"), "/md5-suite/mod.rs"));

#[test]
fn the_suite_is_md5s() {
    // The suite really came from the package named in Cargo.toml.
    assert!(
        env!("MBHASH_MD5_VERSION").starts_with("md-5-0.11"),
        "{}",
        env!("MBHASH_MD5_VERSION")
    );
}
