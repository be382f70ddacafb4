//! Every command answers `--version`, as coreutils' tools do; after `--` it
//! is a file name.

use std::process::Command;

const MBHASH: &str = env!("CARGO_BIN_EXE_mbhash");

#[test]
fn every_command_answers_version() {
    let want = format!("mbhash {}\n", env!("CARGO_PKG_VERSION"));
    for args in [
        &["--version"][..],
        &["-V"],
        &["sum", "--version"],
        &["sum", "-c", "--version"],
        &["bench", "--version"],
        &["engines", "--version"],
    ] {
        let out = Command::new(MBHASH).args(args).output().unwrap();
        assert!(out.status.success(), "{args:?}: {out:?}");
        assert_eq!(String::from_utf8_lossy(&out.stdout), want, "{args:?}");
    }
}

#[test]
fn version_after_double_dash_is_a_file() {
    let dir = std::env::temp_dir().join(format!("mbhash-version-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("--version"), b"abc").unwrap();
    let out = Command::new(MBHASH)
        .current_dir(&dir)
        .args(["sum", "--", "--version"])
        .output()
        .unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
    assert!(out.status.success(), "{out:?}");
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad  --version\n"
    );
}
