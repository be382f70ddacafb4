//! Prepares the RustCrypto hash crates' own test suites to run on mbhash.
//!
//! Cargo has downloaded `sha2`, `md-5`, `sha1` and `sm3` (dev-dependencies
//! of this crate, renamed so that the names `sha2`, `md5`, `sha1` and `sm3`
//! are free); `cargo metadata` says where their sources are. Each one's
//! `tests/mod.rs` and `tests/data/` are copied into `OUT_DIR`, the only
//! change being a first line `use mbhash as <crate>;`, and
//! `tests/<crate>_suite.rs` includes the copy. Nothing of those crates is
//! kept in this repository.

use std::env;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

/// One suite: the package's name, the name this crate's dependency on it
/// is known by in the resolve graph (the renamed crate), the name its
/// tests use for the crate, and the environment variable that receives
/// the package's directory name (its version).
struct Suite {
    package: &'static str,
    renamed: &'static str,
    alias: &'static str,
    version_var: &'static str,
}

const SUITES: [Suite; 4] = [
    Suite {
        package: "sha2",
        renamed: "sha2_crate",
        alias: "sha2",
        version_var: "MBHASH_SHA2_VERSION",
    },
    Suite {
        package: "md-5",
        renamed: "md5_crate",
        alias: "md5",
        version_var: "MBHASH_MD5_VERSION",
    },
    Suite {
        package: "sha1",
        renamed: "sha1_crate",
        alias: "sha1",
        version_var: "MBHASH_SHA1_VERSION",
    },
    Suite {
        package: "sm3",
        renamed: "sm3_crate",
        alias: "sm3",
        version_var: "MBHASH_SM3_VERSION",
    },
];

fn main() {
    let manifest_dir =
        PathBuf::from(env::var_os("CARGO_MANIFEST_DIR").expect("CARGO_MANIFEST_DIR"));
    let out_dir = PathBuf::from(env::var_os("OUT_DIR").expect("OUT_DIR"));
    let cargo = env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed=Cargo.toml");

    // The graph of the target being built only: without the filter, cargo
    // metadata wants every platform's packages on disk (Windows, wasm),
    // which a build for this target never downloads. Offline first (the
    // usual case: `cargo test` has downloaded the dev-dependencies); a
    // plain `cargo build` of the workspace on a fresh cargo home has not
    // downloaded this crate's dev-dependencies, and then cargo metadata
    // fetches them (unless cargo runs offline, when the error says so).
    let target = env::var("TARGET").expect("TARGET");
    let metadata = |offline: bool| {
        let mut cmd = Command::new(&cargo);
        cmd.args(["metadata", "--format-version", "1"]);
        if offline {
            cmd.arg("--offline");
        }
        cmd.args(["--filter-platform", &target, "--manifest-path"])
            .arg(manifest_dir.join("Cargo.toml"))
            .output()
            .expect("cannot run cargo metadata")
    };
    let mut output = metadata(true);
    if !output.status.success() {
        output = metadata(false);
    }
    assert!(
        output.status.success(),
        "cargo metadata failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let metadata: serde_json::Value =
        serde_json::from_slice(&output.stdout).expect("cargo metadata printed no JSON");

    for s in &SUITES {
        let dir = package_dir(&metadata, &manifest_dir, s);
        copy_suite(&dir, &out_dir.join(format!("{}-suite", s.alias)), s);
        println!("cargo:rustc-env={}={}", s.version_var, version_of(&dir));
    }
}

/// Copies the package's `tests/mod.rs` (with `use mbhash as <alias>;`
/// first) and `tests/data/` into `suite`.
fn copy_suite(package: &Path, suite: &Path, s: &Suite) {
    let name = s.package;
    let data = suite.join("data");
    fs::create_dir_all(&data).expect("cannot create the suite's directory");
    let tests = package.join("tests");
    let original = fs::read_to_string(tests.join("mod.rs"))
        .unwrap_or_else(|e| panic!("{name} has no tests/mod.rs: {e}"));
    fs::write(
        suite.join("mod.rs"),
        format!("use mbhash as {};\n{original}", s.alias),
    )
    .expect("cannot write the suite");
    for entry in
        fs::read_dir(tests.join("data")).unwrap_or_else(|e| panic!("{name} has no tests/data: {e}"))
    {
        let entry = entry.unwrap_or_else(|e| panic!("cannot list {name}'s tests/data: {e}"));
        fs::copy(entry.path(), data.join(entry.file_name())).expect("cannot copy a data file");
    }
}

/// The directory of the package this crate's dev-dependency `s` resolved
/// to.
fn package_dir(metadata: &serde_json::Value, manifest_dir: &Path, s: &Suite) -> PathBuf {
    let name = s.package;
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
        .find(|d| d["name"] == name)
        .unwrap_or_else(|| panic!("no {name} dependency"));
    let req = dep["req"].as_str().expect("no version requirement");
    // The resolve graph names the exact package this package uses.
    let id = this["id"].as_str().expect("no package id");
    let node = metadata["resolve"]["nodes"]
        .as_array()
        .expect("no resolve graph")
        .iter()
        .find(|n| n["id"] == id)
        .expect("this package is not resolved");
    let pkg_id = node["deps"]
        .as_array()
        .expect("no resolved deps")
        .iter()
        .find(|d| d["name"] == s.renamed)
        .and_then(|d| d["pkg"].as_str())
        .unwrap_or_else(|| panic!("{name} {req} is not resolved"));
    let package = packages
        .iter()
        .find(|p| p["id"] == pkg_id)
        .unwrap_or_else(|| panic!("the resolved {name} package is not listed"));
    let manifest = Path::new(package["manifest_path"].as_str().expect("no manifest path"));
    manifest
        .parent()
        .expect("a manifest has a directory")
        .to_path_buf()
}

fn version_of(dir: &Path) -> String {
    dir.file_name()
        .and_then(|n| n.to_str())
        .unwrap_or("unknown")
        .to_string()
}
