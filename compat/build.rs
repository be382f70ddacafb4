//! Prepares the `sha2` package's own test suite to run on mbhash.
//!
//! Cargo has downloaded `sha2` (a dev-dependency of this crate, renamed so
//! that the name `sha2` is free); `cargo metadata` says where its sources
//! are. Its `tests/mod.rs` and `tests/data/` are copied into `OUT_DIR`,
//! the only change being a first line `use mbhash as sha2;`, and
//! `tests/sha2_suite.rs` includes the copy. Nothing of `sha2` is kept in
//! this repository.

use std::env;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

fn main() {
    let manifest_dir =
        PathBuf::from(env::var_os("CARGO_MANIFEST_DIR").expect("CARGO_MANIFEST_DIR"));
    let out_dir = PathBuf::from(env::var_os("OUT_DIR").expect("OUT_DIR"));
    let cargo = env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed=Cargo.toml");

    let output = Command::new(cargo)
        .args([
            "metadata",
            "--format-version",
            "1",
            "--offline",
            "--manifest-path",
        ])
        .arg(manifest_dir.join("Cargo.toml"))
        .output()
        .expect("cannot run cargo metadata");
    assert!(
        output.status.success(),
        "cargo metadata failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let metadata: serde_json::Value =
        serde_json::from_slice(&output.stdout).expect("cargo metadata printed no JSON");
    let sha2_dir = sha2_package_dir(&metadata, &manifest_dir);

    let suite = out_dir.join("sha2-suite");
    let data = suite.join("data");
    fs::create_dir_all(&data).expect("cannot create the suite's directory");
    let tests = sha2_dir.join("tests");
    let original = fs::read_to_string(tests.join("mod.rs")).expect("sha2 has no tests/mod.rs");
    fs::write(
        suite.join("mod.rs"),
        format!("use mbhash as sha2;\n{original}"),
    )
    .expect("cannot write the suite");
    for entry in fs::read_dir(tests.join("data")).expect("sha2 has no tests/data") {
        let entry = entry.expect("cannot list sha2's tests/data");
        fs::copy(entry.path(), data.join(entry.file_name())).expect("cannot copy a data file");
    }
    println!(
        "cargo:rustc-env=MBHASH_SHA2_VERSION={}",
        version_of(&sha2_dir)
    );
}

/// The directory of the `sha2` package this crate's dev-dependency
/// resolved to.
fn sha2_package_dir(metadata: &serde_json::Value, manifest_dir: &Path) -> PathBuf {
    let packages = metadata["packages"].as_array().expect("no packages");
    let ours = manifest_dir.join("Cargo.toml");
    let this = packages
        .iter()
        .find(|p| p["manifest_path"].as_str().map(Path::new) == Some(ours.as_path()))
        .expect("this package is not in cargo metadata");
    let dep = this["dependencies"]
        .as_array()
        .expect("no dependencies")
        .iter()
        .find(|d| d["name"] == "sha2")
        .expect("no sha2 dependency");
    let req = dep["req"].as_str().expect("no version requirement");
    // The resolve graph names the exact package this package uses.
    let id = this["id"].as_str().expect("no package id");
    let node = metadata["resolve"]["nodes"]
        .as_array()
        .expect("no resolve graph")
        .iter()
        .find(|n| n["id"] == id)
        .expect("this package is not resolved");
    let sha2_id = node["deps"]
        .as_array()
        .expect("no resolved deps")
        .iter()
        .find(|d| d["name"] == "sha2_crate")
        .and_then(|d| d["pkg"].as_str())
        .unwrap_or_else(|| panic!("sha2 {req} is not resolved"));
    let sha2 = packages
        .iter()
        .find(|p| p["id"] == sha2_id)
        .expect("the resolved sha2 package is not listed");
    let manifest = Path::new(sha2["manifest_path"].as_str().expect("no manifest path"));
    manifest
        .parent()
        .expect("a manifest has a directory")
        .to_path_buf()
}

fn version_of(dir: &Path) -> String {
    dir.file_name()
        .and_then(|n| n.to_str())
        .unwrap_or("sha2")
        .to_string()
}
