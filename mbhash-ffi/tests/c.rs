//! The C tests: builds `tests/c/*.c`, the C++ header check `tests/c/cxx.cpp`
//! and the example `examples/c/mbhsum.c` against the libraries this
//! `cargo test` just built, installed into a scratch prefix by `install.sh`
//! (which also checks the install steps and `mbhash.pc`), and runs them:
//!
//! * under ASan + UBSan, linked with `libmbhash.a`, full workloads;
//! * under valgrind, linked with `libmbhash.so`, small workloads. Without
//!   valgrind these print a SKIPPED line, and fail if `MBHASH_REQUIRE` names
//!   `valgrind`.
//!
//! C is compiled with `-std=c11 -Wall -Wextra -Werror -pedantic` (`$CC`,
//! default `cc`), C++ with `-std=c++11` and the same warnings (`$CXX`,
//! default `c++`).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use sha2::Digest;

use mbhash_test_support::c::{Link, compiler, run, run_ok, valgrind_or_skip};
use mbhash_test_support::skip_or_require;

/// The installed library.
struct Install {
    /// Where the test programs are built.
    out: PathBuf,
    prefix: PathBuf,
    /// `PKG_CONFIG_PATH` for the installed `mbhash.pc`.
    pkg_config_path: PathBuf,
    /// pkg-config is on this machine.
    pkg_config: bool,
}

fn crate_dir() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn repo_dir() -> &'static Path {
    crate_dir().parent().expect("the crate is in the workspace")
}

/// Installs the freshly built libraries into a scratch prefix, once.
fn install() -> &'static Install {
    static INSTALL: OnceLock<Install> = OnceLock::new();
    INSTALL.get_or_init(|| {
        let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join("c-tests");
        let prefix = mbhash_test_support::c::install(crate_dir(), &out, env!("CARGO_PKG_VERSION"));
        let pkg_config = Command::new("pkg-config")
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success());
        if !pkg_config {
            skip_or_require(
                "pkg-config",
                "pkg-config checks",
                "pkg-config is not installed",
            );
        }
        Install {
            out,
            pkg_config_path: prefix.join("lib/pkgconfig"),
            prefix,
            pkg_config,
        }
    })
}

impl Install {
    fn include(&self) -> PathBuf {
        self.prefix.join("include")
    }

    fn libdir(&self) -> PathBuf {
        self.prefix.join("lib")
    }

    /// `pkg-config ARGS mbhash` against the installed `mbhash.pc`.
    fn pkg_config(&self, args: &[&str]) -> Vec<String> {
        let out = run_ok(
            Command::new("pkg-config")
                .args(args)
                .arg("mbhash")
                .env("PKG_CONFIG_PATH", &self.pkg_config_path),
            "pkg-config",
        );
        String::from_utf8(out.stdout)
            .expect("pkg-config prints text")
            .split_whitespace()
            .map(str::to_string)
            .collect()
    }

    /// A variable of the installed `mbhash.pc`, read without pkg-config
    /// (only for a machine without it).
    fn pc_variable(&self, name: &str) -> String {
        let pc = std::fs::read_to_string(self.pkg_config_path.join("mbhash.pc"))
            .expect("mbhash.pc is installed");
        pc.lines()
            .find_map(|l| l.strip_prefix(&format!("{name}=")))
            .unwrap_or_else(|| panic!("mbhash.pc has no {name}"))
            .to_string()
    }

    /// Compiler and linker flags for a program using the library.
    fn flags(&self, link: Link) -> Vec<String> {
        let mut flags = Vec::new();
        match (link, self.pkg_config) {
            (Link::Static, true) => {
                // The archive by path (-lmbhash would pick the .so), then the
                // system libraries it needs.
                flags.extend(self.pkg_config(&["--cflags"]));
                let libdir = self.pkg_config(&["--variable=libdir"]).concat();
                flags.push(format!("{libdir}/libmbhash.a"));
                flags.extend(self.pkg_config(&["--variable=native_static_libs"]));
            }
            (Link::Static, false) => {
                flags.push(format!("-I{}", self.include().display()));
                flags.push(format!("{}/libmbhash.a", self.libdir().display()));
                flags.extend(
                    self.pc_variable("native_static_libs")
                        .split_whitespace()
                        .map(str::to_string),
                );
            }
            (Link::Shared, true) => {
                // No run path of our own: the installed mbhash.pc carries
                // it, so the programs (the example among them) start as a
                // user's would.
                flags.extend(self.pkg_config(&["--cflags", "--libs"]));
            }
            (Link::Shared, false) => {
                flags.push(format!("-I{}", self.include().display()));
                flags.push(format!("-L{}", self.libdir().display()));
                flags.push("-lmbhash".into());
                flags.push(format!("-Wl,-rpath,{}", self.libdir().display()));
            }
        }
        flags
    }
}

/// Builds one C (or C++) program; returns its path.
fn build(source: &Path, name: &str, link: Link) -> PathBuf {
    let inst = install();
    let exe = inst.out.join(format!("{name}-{link:?}").to_lowercase());
    let mut cmd = compiler(source, link);
    cmd.arg("-pthread");
    if cfg!(debug_assertions) {
        // The library has its panic test hook in debug builds only.
        cmd.arg("-DMBH_TEST_DEBUG_PANIC");
    }
    // Built under a name of this test's own and renamed into place: tests
    // that build the same program run at once, and one must never run the
    // file another is still writing.
    let tmp = exe
        .with_extension(format!("{:?}.tmp", std::thread::current().id()).replace(['(', ')'], ""));
    cmd.arg("-o").arg(&tmp).args(inst.flags(link));
    run_ok(&mut cmd, &format!("building {}", source.display()));
    std::fs::rename(&tmp, &exe).expect("moving a built test program into place");
    exe
}

fn c_test(name: &str) -> PathBuf {
    crate_dir().join("tests/c").join(format!("{name}.c"))
}

fn vectors() -> String {
    repo_dir().join("tests/vectors").display().to_string()
}

/// `MBHASH_DISABLE` plus avx512: makes sure some engine is unsupported.
fn disable_avx512() -> String {
    match std::env::var("MBHASH_DISABLE") {
        Ok(v) if !v.trim().is_empty() => format!("{v},avx512"),
        _ => "avx512".into(),
    }
}

fn errors_runs(exe: &Path, valgrind: bool) {
    run(exe, &[], &[("MBHASH_DISABLE", disable_avx512())], valgrind);
    run(
        exe,
        &["bad-env"],
        &[
            ("MBHASH_DISABLE", disable_avx512()),
            ("MBHASH_SHA256_ENGINE", "bogus".into()),
            ("MBHASH_SHA512_ENGINE", "avx512".into()),
        ],
        valgrind,
    );
}

/// Every `mbh_crc*` function against the bitwise reference in
/// `tests/c/crc.c`, on the configured engine and on each CRC engine.
#[test]
fn crc_asan() {
    let exe = build(&c_test("crc"), "crc", Link::Static);
    run(&exe, &[], &[], false);
    for engine in ["table", "pclmul", "vpclmul256", "vpclmul512"] {
        if mbhash_core::crc::select_engine(engine).is_ok() {
            run(
                &exe,
                &["small"],
                &[("MBHASH_CRC_ENGINE", engine.into())],
                false,
            );
        } else {
            skip_or_require(
                crc_engine_feature(engine),
                &format!("crc C tests on engine {engine}"),
                "not supported here",
            );
        }
    }
}

#[test]
fn crc_valgrind() {
    if valgrind_or_skip("crc_valgrind") {
        let exe = build(&c_test("crc"), "crc", Link::Shared);
        run(&exe, &["small"], &[], true);
    }
}

/// An engine variable naming an engine that cannot run is the engine
/// error of every `mbh_crc*` function, as for `mbh_crc32c`.
#[test]
fn crc_bad_engine_is_an_error() {
    // A program of its own name: tests run in parallel.
    let exe = build(&c_test("crc"), "crc-bad-env", Link::Static);
    run(
        &exe,
        &["bad-env"],
        &[
            ("MBHASH_CRC_ENGINE", "bogus".into()),
            ("MBHASH_CRC32C_ENGINE", "bogus".into()),
        ],
        false,
    );
}

#[test]
fn crc32c_asan() {
    let exe = build(&c_test("crc32c"), "crc32c", Link::Static);
    run(&exe, &[], &[], false);
}

#[test]
fn crc32c_valgrind() {
    if valgrind_or_skip("crc32c_valgrind") {
        let exe = build(&c_test("crc32c"), "crc32c", Link::Shared);
        run(&exe, &[], &[], true);
    }
}

#[test]
fn verity_asan() {
    let exe = build(&c_test("verity"), "verity", Link::Static);
    run(&exe, &[], &[], false);
}

#[test]
fn verity_valgrind() {
    if valgrind_or_skip("verity_valgrind") {
        let exe = build(&c_test("verity"), "verity", Link::Shared);
        run(&exe, &[], &[], true);
    }
}

#[test]
fn nist_asan() {
    let exe = build(&c_test("nist"), "nist", Link::Static);
    run(&exe, &[&vectors()], &[], false);
}

#[test]
fn streams_asan() {
    let exe = build(&c_test("streams"), "streams", Link::Static);
    run(&exe, &[], &[], false);
    run(&exe, &["full", "0x1234567"], &[], false);
}

#[test]
fn errors_asan() {
    let exe = build(&c_test("errors"), "errors", Link::Static);
    errors_runs(&exe, false);
}

#[test]
fn nist_valgrind() {
    if valgrind_or_skip("nist_valgrind") {
        let exe = build(&c_test("nist"), "nist", Link::Shared);
        run(&exe, &[&vectors(), "quick"], &[], true);
    }
}

#[test]
fn streams_valgrind() {
    if valgrind_or_skip("streams_valgrind") {
        let exe = build(&c_test("streams"), "streams", Link::Shared);
        run(&exe, &["quick"], &[], true);
    }
}

#[test]
fn errors_valgrind() {
    if valgrind_or_skip("errors_valgrind") {
        let exe = build(&c_test("errors"), "errors", Link::Shared);
        errors_runs(&exe, true);
    }
}

/// Every documented create/destroy order of managers and contexts.
#[test]
fn lifetime_asan() {
    let exe = build(&c_test("lifetime"), "lifetime", Link::Static);
    run(&exe, &[], &[], false);
}

/// The same under valgrind: nothing leaks (`mbh_manager_free` after
/// `mbh_manager_fini` frees the heap manager).
#[test]
fn lifetime_valgrind() {
    if valgrind_or_skip("lifetime_valgrind") {
        let exe = build(&c_test("lifetime"), "lifetime", Link::Shared);
        run(&exe, &[], &[], true);
    }
}

/// The header compiles as C++ and the library runs from C++.
/// 8 threads through the pool and the service (see `tests/c/concurrency.c`).
#[test]
fn concurrency_asan() {
    let exe = build(&c_test("concurrency"), "concurrency", Link::Static);
    run(&exe, &[], &[], false);
}

/// The same under valgrind, 300 jobs per thread instead of 100,000
/// (valgrind runs this about 50 times slower).
#[test]
fn concurrency_valgrind() {
    if valgrind_or_skip("concurrency_valgrind") {
        let exe = build(&c_test("concurrency"), "concurrency", Link::Shared);
        run(&exe, &["300"], &[], true);
    }
}

/// Misuse that must be an error code: a waiting submit from a callback,
/// worker counts past the bound, second frees (see `tests/c/misuse.c`; its
/// fork cases run in `misuse_fork_race` and under valgrind).
#[test]
fn misuse_asan() {
    let exe = build(&c_test("misuse"), "misuse", Link::Static);
    run(&exe, &[], &[], false);
}

/// Children forked while another thread makes the library's first calls
/// (in processes of their own: the library's first call is what is
/// tested), a parent's service in a forked child, and handles made with no
/// memory left. On the shared library without a sanitizer: ASan's
/// allocator is not fork-safe (a child forked while another thread
/// allocates can wait forever on the allocator's lock), where the C
/// library's `malloc` is.
#[test]
fn misuse_fork_race() {
    let exe = build(&c_test("misuse"), "misuse", Link::Shared);
    for _ in 0..3 {
        run(&exe, &["race"], &[], false);
    }
    run(&exe, &["fork"], &[], false);
    // And with the address space capped (which a sanitizer's shadow memory
    // would not survive): handles are MBH_OUT_OF_MEMORY, not an abort.
    run(&exe, &["oom"], &[], false);
}

/// The same under valgrind, with fewer children.
#[test]
fn misuse_valgrind() {
    if valgrind_or_skip("misuse_valgrind") {
        let exe = build(&c_test("misuse"), "misuse", Link::Shared);
        run(&exe, &["quick"], &[], true);
        run(&exe, &["race", "quick"], &[], true);
    }
}

/// The C write-path benchmark (`examples/c/pipeline.c`) builds and runs.
#[test]
fn pipeline_example_asan() {
    let exe = build(
        &repo_dir().join("examples/c/pipeline.c"),
        "pipeline",
        Link::Static,
    );
    let out = run(&exe, &["20", "1", "3"], &[], false);
    assert!(out.contains("pool"), "{out}");
}

/// The header in a C99 program built with `-Wc++-compat -Werror`: no tag
/// that is also a typedef of another type, no name without the `mbh_`
/// prefix (`tests/c/c99.c`).
#[test]
fn header_as_c99_cxx_compat() {
    let inst = install();
    let exe = inst.out.join("c99");
    let mut cmd = compiler(&c_test("c99"), Link::Shared);
    // After the default `-std=c11`: the later one counts.
    cmd.args(["-std=c99", "-Wc++-compat"]);
    cmd.arg("-o").arg(&exe).args(inst.flags(Link::Shared));
    run_ok(&mut cmd, "building tests/c/c99.c");
    run(&exe, &[], &[], false);
}

#[test]
fn header_as_cxx() {
    let exe = build(&crate_dir().join("tests/c/cxx.cpp"), "cxx", Link::Shared);
    let out = run(&exe, &[], &[], false);
    assert!(out.contains(concat!("mbhash ", env!("CARGO_PKG_VERSION"))));
}

/// Files of awkward sizes for the example, and their contents.
fn example_files(dir: &Path, sizes: &[usize]) -> Vec<(PathBuf, Vec<u8>)> {
    std::fs::create_dir_all(dir).expect("create the files' directory");
    let mut x = 0x2545_f491_4f6c_dd1d_u64;
    sizes
        .iter()
        .enumerate()
        .map(|(i, &size)| {
            let data: Vec<u8> = (0..size)
                .map(|_| {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    (x >> 24) as u8
                })
                .collect();
            let path = dir.join(format!("file{i}-{size}"));
            std::fs::write(&path, &data).expect("write a file");
            (path, data)
        })
        .collect()
}

/// Runs the example over `files` and checks every line against the sha2
/// crate.
fn check_example<D: Digest>(
    exe: &Path,
    opts: &[&str],
    files: &[(PathBuf, Vec<u8>)],
    valgrind: bool,
) {
    let mut args: Vec<String> = opts.iter().map(|s| s.to_string()).collect();
    args.extend(files.iter().map(|(p, _)| p.display().to_string()));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let out = run(exe, &args, &[], valgrind);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), files.len(), "one line per file:\n{out}");
    for (line, (path, data)) in lines.iter().zip(files) {
        let want: String = D::digest(data).iter().map(|b| format!("{b:02x}")).collect();
        assert_eq!(*line, format!("{want}  {}", path.display()), "{opts:?}");
    }
}

const EXAMPLE_SIZES: [usize; 10] = [
    0, 1, 55, 64, 65535, 65536, 65537, 131_072, 200_001, 1_000_003,
];

#[test]
fn example_asan() {
    let exe = build(
        &repo_dir().join("examples/c/mbhsum.c"),
        "mbhsum",
        Link::Static,
    );
    let files = example_files(&install().out.join("example-files"), &EXAMPLE_SIZES);
    check_example::<sha2::Sha256>(&exe, &[], &files, false);
    check_example::<sha2::Sha224>(&exe, &["-a", "sha224", "-e", "scalar"], &files, false);
    check_example::<sha2::Sha512>(&exe, &["-a", "sha512"], &files, false);
    check_example::<sha2::Sha384>(&exe, &["-a", "sha384", "-e", "auto"], &files, false);
    check_example::<sha2::Sha512_256>(&exe, &["-a", "sha512-256"], &files, false);
    check_example::<sha2::Sha512_224>(&exe, &["-a", "sha512-224"], &files, false);
    // More files than the example keeps open at once.
    let many: Vec<usize> = (0..70).map(|i| i * 997).collect();
    let files = example_files(&install().out.join("example-many"), &many);
    check_example::<sha2::Sha256>(&exe, &[], &files, false);
    // A missing file: reported, the others still hashed, exit status 1.
    let out = Command::new(&exe)
        .arg(&files[0].0)
        .arg(install().out.join("no-such-file"))
        .output()
        .expect("run the example");
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no-such-file"));
    assert_eq!(String::from_utf8_lossy(&out.stdout).lines().count(), 1);
}

#[test]
fn example_valgrind() {
    if valgrind_or_skip("example_valgrind") {
        let exe = build(
            &repo_dir().join("examples/c/mbhsum.c"),
            "mbhsum",
            Link::Shared,
        );
        let files = example_files(&install().out.join("example-small"), &EXAMPLE_SIZES[..8]);
        check_example::<sha2::Sha256>(&exe, &[], &files, true);
        check_example::<sha2::Sha384>(&exe, &["-a", "sha384"], &files, true);
    }
}

/// The CPU feature a CRC engine needs (for its skip line).
fn crc_engine_feature(engine: &str) -> &'static str {
    match engine {
        "pclmul" => "pclmul",
        "vpclmul256" | "vpclmul512" => "vpclmul",
        _ => "cpu",
    }
}
