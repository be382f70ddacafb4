//! Tests only: code written for the `sha2` crate, built and run on mbhash
//! (`tests/`). The build script finds the `sha2` package Cargo downloaded
//! and prepares its own test suite to run with `use mbhash as sha2;`.
