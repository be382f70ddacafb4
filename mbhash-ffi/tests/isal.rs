//! The isa-l_crypto compatible ABI (`include/isa-l_crypto/*.h`, the
//! `isal_sha*_ctx_mgr_*` and deprecated `sha*_ctx_mgr_*` exports): builds
//! `tests/c/isal_*.c` and `tests/c/isal_cxx.cpp` against the libraries this
//! `cargo test` just built, installed into a scratch prefix by `install.sh`
//! (the headers as `<prefix>/include/isa-l_crypto/*.h`), and runs them:
//!
//! * under ASan + UBSan, linked with `libmbhash.a`, full workloads, on the
//!   configured engine and on every engine this CPU runs;
//! * under valgrind, linked with `libmbhash.so`, small workloads (a SKIPPED
//!   line without valgrind; a failure if `MBHASH_REQUIRE` names it).
//!
//! C is compiled with `-std=c11 -Wall -Wextra -Werror -pedantic` (`$CC`,
//! default `cc`), with both `-I<prefix>/include` and
//! `-I<prefix>/include/isa-l_crypto`, as programs written for isa-l_crypto
//! include its headers either way.

use std::ffi::CString;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use mbhash_test_support::c::{Link, run_ok, valgrind_or_skip};
use mbhash_test_support::{engine_feature, skip_or_require};

/// The scratch install.
struct Install {
    out: PathBuf,
    prefix: PathBuf,
    /// `native_static_libs` of the installed `mbhash.pc`.
    static_libs: Vec<String>,
}

fn crate_dir() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn vectors() -> String {
    crate_dir()
        .parent()
        .expect("the crate is in the workspace")
        .join("tests/vectors")
        .display()
        .to_string()
}

fn install() -> &'static Install {
    static INSTALL: OnceLock<Install> = OnceLock::new();
    INSTALL.get_or_init(|| {
        let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join("isal-tests");
        let prefix = mbhash_test_support::c::install(crate_dir(), &out, env!("CARGO_PKG_VERSION"));
        for h in [
            "sha256_mb.h",
            "sha512_mb.h",
            "md5_mb.h",
            "sha1_mb.h",
            "sm3_mb.h",
            "multi_buffer.h",
            "isal_crypto_api.h",
            "types.h",
        ] {
            let path = prefix.join("include/isa-l_crypto").join(h);
            assert!(path.exists(), "{} is not installed", path.display());
        }
        let pc = std::fs::read_to_string(prefix.join("lib/pkgconfig/mbhash.pc"))
            .expect("mbhash.pc is installed");
        let static_libs = pc
            .lines()
            .find_map(|l| l.strip_prefix("native_static_libs="))
            .expect("mbhash.pc has native_static_libs")
            .split_whitespace()
            .map(str::to_string)
            .collect();
        Install {
            out,
            prefix,
            static_libs,
        }
    })
}

/// A compiler command for `source` with the warnings of the C tests and the
/// installed headers (no libraries).
fn compiler(source: &Path, link: Link) -> Command {
    let inst = install();
    let mut cmd = mbhash_test_support::c::compiler(source, link);
    cmd.arg(format!("-I{}", inst.prefix.join("include").display()))
        .arg(format!(
            "-I{}",
            inst.prefix.join("include/isa-l_crypto").display()
        ))
        .arg(format!("-I{}", inst.prefix.join("include/isa-l").display()));
    cmd
}

/// Builds one test program; returns its path.
fn build(name: &str, link: Link) -> PathBuf {
    let inst = install();
    let ext = if name.ends_with("cxx") { "cpp" } else { "c" };
    let source = crate_dir().join("tests/c").join(format!("{name}.{ext}"));
    let exe = inst.out.join(format!("{name}-{link:?}").to_lowercase());
    let libdir = inst.prefix.join("lib");
    let mut cmd = compiler(&source, link);
    cmd.arg("-o").arg(&exe);
    match link {
        Link::Static => {
            cmd.arg(libdir.join("libmbhash.a")).args(&inst.static_libs);
        }
        Link::Shared => {
            cmd.arg(format!("-L{}", libdir.display()))
                .arg("-lmbhash")
                .arg(format!("-Wl,-rpath,{}", libdir.display()));
        }
    }
    run_ok(&mut cmd, &format!("building {}", source.display()));
    exe
}

/// Runs a test program (under valgrind if asked) with extra environment;
/// its output must end in a summary with no failures.
fn run(exe: &Path, args: &[&str], env: &[(&str, &str)], valgrind: bool) -> String {
    let env: Vec<(&str, String)> = env.iter().map(|(k, v)| (*k, v.to_string())).collect();
    let stdout = mbhash_test_support::c::run(exe, args, &env, valgrind);
    assert!(stdout.contains(" 0 failed"), "no summary line: {stdout}");
    stdout
}

/// The families of the drop-in: each one's engine variable and algorithm.
const FAMILIES: [(&str, mbhash_ffi::mbh_algorithm); 5] = [
    ("MBHASH_SHA256_ENGINE", mbhash_ffi::MBH_SHA256),
    ("MBHASH_SHA512_ENGINE", mbhash_ffi::MBH_SHA512),
    ("MBHASH_MD5_ENGINE", mbhash_ffi::MBH_MD5),
    ("MBHASH_SHA1_ENGINE", mbhash_ffi::MBH_SHA1),
    ("MBHASH_SM3_ENGINE", mbhash_ffi::MBH_SM3),
];

/// The engines of a family that this CPU runs (after `MBHASH_DISABLE`), but
/// `auto`; prints a SKIPPED line for each of the others.
fn engines(alg: mbhash_ffi::mbh_algorithm) -> Vec<String> {
    let mut count = 0;
    // SAFETY: a valid output pointer.
    let r = unsafe { mbhash_ffi::mbh_engine_count(alg, &mut count) };
    assert_eq!(r, mbhash_ffi::mbh_result::MBH_OK);
    let mut names = Vec::new();
    for i in 1..count {
        let mut name = std::ptr::null();
        let mut supported = false;
        // SAFETY: valid output pointers; the name is a static NUL-terminated
        // string owned by the library.
        let name = unsafe {
            assert_eq!(
                mbhash_ffi::mbh_engine_name(alg, i, &mut name),
                mbhash_ffi::mbh_result::MBH_OK
            );
            std::ffi::CStr::from_ptr(name)
        };
        let owned = CString::from(name);
        // SAFETY: a NUL-terminated name and a valid output pointer.
        let r = unsafe { mbhash_ffi::mbh_engine_supported(alg, owned.as_ptr(), &mut supported) };
        assert_eq!(r, mbhash_ffi::mbh_result::MBH_OK);
        let name = owned.into_string().expect("ASCII engine names");
        if supported {
            names.push(name);
        } else {
            let feature = engine_feature(&name).unwrap_or("cpu");
            skip_or_require(
                feature,
                &format!("isal tests on engine {name}"),
                "not supported here",
            );
        }
    }
    names
}

#[test]
fn layout_asan() {
    run(&build("isal_layout", Link::Static), &[], &[], false);
}

#[test]
fn vectors_asan() {
    let exe = build("isal_vectors", Link::Static);
    run(&exe, &[&vectors()], &[], false);
    // The short vectors on the scalar engine: a manager of one lane.
    let scalar = FAMILIES.map(|(var, _)| (var, "scalar"));
    run(&exe, &[&vectors(), "quick"], &scalar, false);
}

#[test]
fn random_asan() {
    let exe = build("isal_random", Link::Static);
    run(&exe, &["1000"], &[], false);
    run(&exe, &["3000", "0xfeed"], &[], false);
    // Every engine, a smaller workload each.
    for (var, alg) in FAMILIES {
        for engine in engines(alg) {
            run(&exe, &["250", "0x5eed"], &[(var, &engine)], false);
        }
    }
}

#[test]
fn errors_asan() {
    let exe = build("isal_errors", Link::Static);
    run(&exe, &[], &[], false);
    run(&exe, &[], &FAMILIES.map(|(var, _)| (var, "scalar")), false);
    let bad = ["bogus", "sha3", "md6", "sha0", "sm4"];
    let bad: Vec<(&str, &str)> = FAMILIES
        .iter()
        .zip(bad)
        .map(|((var, _), b)| (*var, b))
        .collect();
    run(&exe, &["bad-env"], &bad, false);
    // The deprecated init cannot report a bad engine: it says why and aborts.
    let out = Command::new(&exe)
        .arg("old-init")
        .env("MBHASH_SHA256_ENGINE", "bogus")
        .output()
        .expect("run isal_errors old-init");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "expected an abort: {stderr}");
    assert!(
        stderr.contains("'bogus'") && stderr.contains("MBHASH_SHA256_ENGINE"),
        "{stderr}"
    );
    assert!(!stderr.contains("returned"), "{stderr}");
}

#[test]
fn vectors_valgrind() {
    if valgrind_or_skip("isal vectors_valgrind") {
        let exe = build("isal_vectors", Link::Shared);
        run(&exe, &[&vectors(), "quick"], &[], true);
    }
}

#[test]
fn random_valgrind() {
    if valgrind_or_skip("isal random_valgrind") {
        let exe = build("isal_random", Link::Shared);
        run(&exe, &["150"], &[], true);
    }
}

#[test]
fn errors_valgrind() {
    if valgrind_or_skip("isal errors_valgrind") {
        let exe = build("isal_errors", Link::Shared);
        run(&exe, &[], &[], true);
    }
}

/// A new manager holds isa-l_crypto's initial value in every declared
/// field, and isa-l_crypto's flush test's reads of them are defined
/// (`tests/c/isal_init.c`).
#[test]
fn init_asan() {
    run(&build("isal_init", Link::Static), &[], &[], false);
}

#[test]
fn init_valgrind() {
    if valgrind_or_skip("isal init_valgrind") {
        run(&build("isal_init", Link::Shared), &[], &[], true);
    }
}

/// isa-l_crypto's own library, if `MBHASH_ISAL_CRYPTO_DIR` names one
/// (`lib/libisal_crypto.a`, `include/isa-l_crypto/`): `tests/c/isal_digests.c`
/// built against it (its headers, its library; no mbhash in that program)
/// and against the drop-in (under ASan/UBSan) prints the same bytes for
/// every family's streams: digests as the managers leave them, lengths and
/// statuses.
#[test]
fn same_as_isal_crypto() {
    let Some(dir) = std::env::var_os("MBHASH_ISAL_CRYPTO_DIR").map(PathBuf::from) else {
        skip_or_require(
            "isal_crypto",
            "isal same_as_isal_crypto",
            "MBHASH_ISAL_CRYPTO_DIR is not set",
        );
        return;
    };
    let lib = dir.join("lib/libisal_crypto.a");
    let headers = dir.join("include/isa-l_crypto/md5_mb.h");
    if !lib.is_file() || !headers.is_file() {
        skip_or_require(
            "isal_crypto",
            "isal same_as_isal_crypto",
            &format!("{} lacks lib/libisal_crypto.a or md5_mb.h", dir.display()),
        );
        return;
    }
    let source = crate_dir().join("tests/c/isal_digests.c");
    let theirs = install().out.join("isal_digests-isal-crypto");
    let mut cmd = mbhash_test_support::c::compiler(&source, Link::Shared);
    cmd.arg(format!("-I{}", dir.join("include").display()))
        .arg("-o")
        .arg(&theirs)
        .arg(&lib);
    run_ok(&mut cmd, "building isal_digests against isa-l_crypto");
    let ours = build("isal_digests", Link::Static);
    let output = |exe: &Path| {
        let out = Command::new(exe)
            .arg("300")
            .output()
            .expect("run isal_digests");
        assert!(
            out.status.success(),
            "{}: {}",
            exe.display(),
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).expect("ASCII output")
    };
    let (want, got) = (output(&theirs), output(&ours));
    assert_eq!(want.lines().count(), 5 * 300, "{want}");
    for (w, g) in want.lines().zip(got.lines()) {
        assert_eq!(g, w, "drop-in (left) against isa-l_crypto (right)");
    }
    assert_eq!(got.lines().count(), want.lines().count());
}

/// The headers compile as C++ and the library runs from C++.
#[test]
fn headers_as_cxx() {
    run(&build("isal_cxx", Link::Shared), &[], &[], false);
}

/// The deprecated functions are marked deprecated (an error with -Werror),
/// except under `ISAL_UNIT_TEST`, as in isa-l_crypto.
#[test]
fn deprecated_functions_warn() {
    let inst = install();
    let source = inst.out.join("uses_deprecated.c");
    std::fs::write(
        &source,
        "#include <isa-l_crypto/sha256_mb.h>\n\
         void f(ISAL_SHA256_HASH_CTX_MGR *m);\n\
         void f(ISAL_SHA256_HASH_CTX_MGR *m) { sha256_ctx_mgr_init(m); }\n",
    )
    .expect("write the source");
    let object = inst.out.join("uses_deprecated.o");
    let out = compiler(&source, Link::Shared)
        .arg("-c")
        .arg("-o")
        .arg(&object)
        .output()
        .expect("run the compiler");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "compiled without a warning");
    assert!(
        stderr.contains("deprecated") && stderr.contains("isal_sha256_ctx_mgr_init"),
        "{stderr}"
    );
    run_ok(
        compiler(&source, Link::Shared)
            .arg("-DISAL_UNIT_TEST")
            .arg("-c")
            .arg("-o")
            .arg(&object),
        "compiling with ISAL_UNIT_TEST",
    );
}

/// The fuzzer of both C ABIs (`tests/c/abi_fuzz.c`) under ASan and UBSan,
/// seeded from the clock (`MBHASH_FUZZ_SEED` replays a seed) for
/// `MBHASH_FUZZ_SECS` seconds (default 2).
#[test]
fn abi_fuzz_asan() {
    use std::io::Write;
    let seed = std::env::var("MBHASH_FUZZ_SEED")
        .ok()
        .and_then(|s| s.trim().parse::<u64>().ok())
        .unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .unwrap_or_default()
                .as_nanos() as u64
        });
    let secs = std::env::var("MBHASH_FUZZ_SECS").unwrap_or_else(|_| "2".into());
    let _ = writeln!(
        std::io::stderr(),
        "fuzz c-abi: seed {seed} (replay: MBHASH_FUZZ_SEED={seed}), {secs} s"
    );
    let exe = build("abi_fuzz", Link::Static);
    let out = run(&exe, &[&seed.to_string(), &secs], &[], false);
    let _ = writeln!(
        std::io::stderr(),
        "fuzz c-abi: {}",
        out.lines().next().unwrap_or("")
    );
}

/// The ISA-L CRC drop-in (`include/isa-l/crc.h`, `crc64.h`): all thirteen
/// functions and their `*_base` forms against the bitwise reference of
/// `tests/c/isal_crc.c`, on the configured engine and on each CRC engine.
#[test]
fn crc_asan() {
    let exe = build("isal_crc", Link::Static);
    run(&exe, &[], &[], false);
    for engine in ["table", "pclmul", "vpclmul256", "vpclmul512"] {
        if mbhash_core::crc::select_engine(engine).is_ok() {
            run(&exe, &["small"], &[("MBHASH_CRC_ENGINE", engine)], false);
        } else {
            skip_or_require(
                crc_engine_feature(engine),
                &format!("isal crc tests on engine {engine}"),
                "not supported here",
            );
        }
    }
}

#[test]
fn crc_valgrind() {
    if valgrind_or_skip("isal crc_valgrind") {
        run(&build("isal_crc", Link::Shared), &["small"], &[], true);
    }
}

/// Where ISA-L's own library and headers are: `MBHASH_ISAL_DIR` (holding
/// `include/crc.h` and `lib/libisal.a`), else Debian's `libisal-dev`
/// (`/usr/include/isa-l/crc.h` and `libisal.a` or `libisal.so`).
fn isal_library() -> Option<(PathBuf, PathBuf)> {
    if let Some(dir) = std::env::var_os("MBHASH_ISAL_DIR") {
        let dir = PathBuf::from(dir);
        let (include, lib) = (dir.join("include"), dir.join("lib/libisal.a"));
        return (include.join("crc.h").is_file() && lib.is_file()).then_some((include, lib));
    }
    let include = PathBuf::from("/usr/include/isa-l");
    let arch = std::env::consts::ARCH;
    let lib = [
        format!("/usr/lib/{arch}-linux-gnu/libisal.a"),
        format!("/usr/lib/{arch}-linux-gnu/libisal.so"),
        "/usr/lib/libisal.a".into(),
        "/usr/lib/libisal.so".into(),
    ]
    .into_iter()
    .map(PathBuf::from)
    .find(|p| p.is_file())?;
    include.join("crc.h").is_file().then_some((include, lib))
}

/// The same program (`tests/c/isal_crc.c dump`: every function over a
/// matrix of lengths and seeds) built against ISA-L's library, in a binary
/// of its own (its symbols are the drop-in's), prints the same values as
/// built against libmbhash.
#[test]
fn crc_matches_isal() {
    let Some((include, lib)) = isal_library() else {
        skip_or_require(
            "isal",
            "isal crc_matches_isal",
            "ISA-L not found (MBHASH_ISAL_DIR, or libisal-dev)",
        );
        return;
    };
    let ours = run_ok(
        Command::new(build("isal_crc", Link::Shared)).arg("dump"),
        "isal_crc dump (mbhash)",
    );
    let ours = String::from_utf8(ours.stdout).expect("text");
    let inst = install();
    let exe = inst.out.join("isal_crc-isa-l");
    let source = crate_dir().join("tests/c/isal_crc.c");
    // Debian's ISA-L 2.30 has no Rocksoft functions (2.31 added them).
    let rocksoft = std::fs::read_to_string(include.join("crc64.h"))
        .expect("read ISA-L's crc64.h")
        .contains("crc64_rocksoft_refl");
    if !rocksoft {
        skip_or_require(
            "isal",
            "isal crc_matches_isal for crc64_rocksoft_*",
            "this ISA-L predates them (2.31)",
        );
    }
    let ours: String = ours
        .lines()
        .filter(|l| rocksoft || !l.starts_with("crc64_rocksoft"))
        .map(|l| format!("{l}\n"))
        .collect();
    let mut cmd = mbhash_test_support::c::compiler(&source, Link::Shared);
    if !rocksoft {
        cmd.arg("-DISAL_CRC_NO_ROCKSOFT");
    }
    cmd.arg(format!("-I{}", include.display()))
        .arg("-o")
        .arg(&exe)
        .arg(&lib);
    if let Some(dir) = lib
        .parent()
        .filter(|_| lib.extension().is_some_and(|e| e == "so"))
    {
        cmd.arg(format!("-Wl,-rpath,{}", dir.display()));
    }
    run_ok(&mut cmd, "building isal_crc.c against ISA-L");
    let out = run_ok(Command::new(&exe).arg("dump"), "isal_crc dump (ISA-L)");
    let theirs = String::from_utf8(out.stdout).expect("text");
    assert!(theirs.lines().count() > 1000, "{theirs}");
    for (i, (a, b)) in ours.lines().zip(theirs.lines()).enumerate() {
        assert_eq!(a, b, "line {} differs (mbhash, ISA-L)", i + 1);
    }
    assert_eq!(ours.lines().count(), theirs.lines().count());
}

/// The CPU feature a CRC engine needs (for its skip line).
fn crc_engine_feature(engine: &str) -> &'static str {
    match engine {
        "pclmul" => "pclmul",
        "vpclmul256" | "vpclmul512" => "vpclmul",
        _ => "cpu",
    }
}
