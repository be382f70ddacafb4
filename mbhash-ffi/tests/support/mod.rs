//! Helpers shared by the tests that build and run C programs.

use std::path::Path;
use std::process::{Command, Output};

/// Runs a command; panics with its output unless it succeeds.
pub fn run_ok(cmd: &mut Command, what: &str) -> Output {
    let out = cmd
        .output()
        .unwrap_or_else(|e| panic!("{what}: cannot run {cmd:?}: {e}"));
    if !out.status.success() {
        panic!(
            "{what} failed ({}): {cmd:?}\n--- stdout\n{}\n--- stderr\n{}",
            out.status,
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }
    out
}

/// Prints a SKIPPED line past the test harness's output capture.
pub fn skipped(what: &str) {
    use std::io::Write;
    let _ = writeln!(std::io::stderr(), "SKIPPED {what}");
}

/// True if valgrind runs here; otherwise prints why the test is skipped,
/// and panics if `MBHASH_REQUIRE` names valgrind.
pub fn valgrind_or_skip(test: &str) -> bool {
    if Command::new("valgrind")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
    {
        return true;
    }
    let required = std::env::var("MBHASH_REQUIRE").unwrap_or_default();
    if required
        .split(',')
        .any(|r| matches!(r.trim(), "valgrind" | "all"))
    {
        panic!("{test}: MBHASH_REQUIRE names valgrind, but valgrind is not installed");
    }
    skipped(&format!(
        "{test}: valgrind is not installed (apt-get install valgrind)"
    ));
    false
}

/// Runs a test program (under valgrind if asked) with extra environment,
/// prints its stdout and returns it; panics if it fails.
pub fn run(exe: &Path, args: &[&str], env: &[(&str, String)], valgrind: bool) -> String {
    let mut cmd = if valgrind {
        let mut c = Command::new("valgrind");
        c.args([
            "--quiet",
            "--error-exitcode=99",
            "--leak-check=full",
            "--errors-for-leak-kinds=definite,indirect",
            "--show-leak-kinds=definite,indirect",
        ])
        .arg(exe);
        c
    } else {
        Command::new(exe)
    };
    cmd.args(args).env("RUST_BACKTRACE", "0");
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = run_ok(&mut cmd, &format!("{} {args:?} {env:?}", exe.display()));
    let stdout = String::from_utf8(out.stdout).expect("UTF-8 output");
    print!("{stdout}");
    stdout
}
