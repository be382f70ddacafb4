//! Building and running C test programs against the freshly built C
//! library: a scratch install, compiler commands with the project's
//! warnings and sanitizers, valgrind.

use std::path::{Path, PathBuf};
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

/// True if `tool --version` runs.
pub fn has_tool(tool: &str) -> bool {
    Command::new(tool)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

/// True if valgrind runs here; otherwise [`crate::skip_or_require`]
/// (`MBHASH_REQUIRE=valgrind` makes its absence a failure).
pub fn valgrind_or_skip(test: &str) -> bool {
    if has_tool("valgrind") {
        return true;
    }
    crate::skip_or_require(
        "valgrind",
        test,
        "valgrind is not installed (apt-get install valgrind)",
    );
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

/// How a test program links the library.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Link {
    /// `libmbhash.a`, with ASan and UBSan.
    Static,
    /// `libmbhash.so`, no sanitizer (for valgrind).
    Shared,
}

/// The libraries `cargo test` built with the running test, installed by the
/// crate's `install.sh` into a fresh prefix under `scratch`; returns the
/// prefix.
///
/// `cargo test` builds the library (all its crate types, because the crate
/// is also an rlib the test depends on) next to the test binary, in
/// `target/<profile>/deps`; only `cargo build` copies it up to
/// `target/<profile>`, so the copy there may be stale.
pub fn install(crate_dir: &Path, scratch: &Path, version: &str) -> PathBuf {
    let exe = std::env::current_exe().expect("test executable path");
    let lib_dir = exe.parent().expect("target/<profile>/deps/<test>");
    for lib in ["libmbhash_ffi.a", "libmbhash_ffi.so"] {
        assert!(
            lib_dir.join(lib).exists(),
            "{} missing: cargo builds it with the crate's library",
            lib_dir.join(lib).display()
        );
    }
    let prefix = scratch.join("prefix");
    let _ = std::fs::remove_dir_all(&prefix);
    std::fs::create_dir_all(scratch).expect("create the build directory");
    run_ok(
        Command::new("sh")
            .arg(crate_dir.join("install.sh"))
            .arg("--prefix")
            .arg(&prefix)
            .arg("--lib-dir")
            .arg(lib_dir)
            .args(["--version", version]),
        "install.sh",
    );
    prefix
}

/// A compiler command for `source` (C11, or C++11 for a `.cpp`) with the
/// test programs' warnings (`-Wall -Wextra -Werror -pedantic`), and ASan +
/// UBSan when `link` is [`Link::Static`]. `$CC` / `$CXX`, default `cc` /
/// `c++`.
pub fn compiler(source: &Path, link: Link) -> Command {
    let cxx = source.extension().is_some_and(|e| e == "cpp");
    let mut cmd = if cxx {
        Command::new(std::env::var("CXX").unwrap_or_else(|_| "c++".into()))
    } else {
        Command::new(std::env::var("CC").unwrap_or_else(|_| "cc".into()))
    };
    cmd.arg(if cxx { "-std=c++11" } else { "-std=c11" }).args([
        "-Wall",
        "-Wextra",
        "-Werror",
        "-pedantic",
        "-g",
        "-O1",
    ]);
    if link == Link::Static {
        cmd.args([
            "-fsanitize=address,undefined",
            "-fno-sanitize-recover=all",
            "-fno-omit-frame-pointer",
        ]);
    }
    cmd.arg(source);
    cmd
}
