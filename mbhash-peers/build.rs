//! Finds the optional benchmark peers ISA-L (its CRCs), ISA-L crypto
//! (multi-buffer SHA-256/SHA-512/MD5/SHA-1/SM3 managers), OpenSSL's
//! libcrypto (one-stream digests), libdeflate and zlib (their `crc32`).
//! Each one found turns on a cfg (`mbhash_isal`, `mbhash_isal_crypto`,
//! `mbhash_openssl`, `mbhash_libdeflate`, `mbhash_zlib`); a missing one
//! leaves it off, and `mbhash bench` says so and goes on without its rows.
//!
//! * `MBHASH_ISAL_DIR`: a directory holding `libisal.a` or `libisal.so`
//!   (itself or its `lib/`). Unset: the system library directories.
//! * `MBHASH_ISAL_CRYPTO_DIR`: a directory holding `lib/libisal_crypto.a`
//!   (or `.so`) and `include/isa-l_crypto/sha256_mb.h`. Unset: `/usr/local`,
//!   then `/usr`.
//! * libdeflate (`libdeflate.so`/`.a` and `libdeflate.h`, Debian's
//!   `libdeflate-dev`) and zlib (`libz`): the system library directories.
//!
//! ISA-L crypto's `isal_*` symbols are also exported by mbhash-ffi's drop-in
//! ABI: no binary may link both this crate and mbhash-ffi.

use std::env;
use std::path::{Path, PathBuf};
use std::process::Command;

fn main() {
    println!("cargo::rustc-check-cfg=cfg(mbhash_isal)");
    println!("cargo::rustc-check-cfg=cfg(mbhash_isal_crypto)");
    println!("cargo::rustc-check-cfg=cfg(mbhash_openssl)");
    println!("cargo::rerun-if-env-changed=MBHASH_OPENSSL_DIR");
    println!("cargo::rerun-if-changed=peers/openssl_shim.c");
    println!("cargo::rustc-check-cfg=cfg(mbhash_libdeflate)");
    println!("cargo::rustc-check-cfg=cfg(mbhash_zlib)");
    println!("cargo::rerun-if-env-changed=MBHASH_ISAL_DIR");
    println!("cargo::rerun-if-env-changed=MBHASH_ISAL_CRYPTO_DIR");
    println!("cargo::rerun-if-changed=peers/isal_crypto_shim.c");
    println!("cargo::rerun-if-changed=peers/isal_crc_shim.c");
    println!("cargo::rerun-if-changed=build.rs");
    isal();
    isal_crypto();
    openssl();
    crc32_libs();
    let dirs = RPATH.with(|r| r.borrow().join(";"));
    if !dirs.is_empty() {
        println!("cargo::metadata=rpath={dirs}");
    }
}

std::thread_local! {
    /// Directories of the shared peer libraries found.
    static RPATH: std::cell::RefCell<Vec<String>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// System library directories, most local first.
fn system_lib_dirs() -> Vec<PathBuf> {
    let arch = env::var("CARGO_CFG_TARGET_ARCH").unwrap_or_default();
    let mut dirs = vec![PathBuf::from("/usr/local/lib")];
    dirs.push(PathBuf::from(format!("/usr/lib/{arch}-linux-gnu")));
    dirs.push(PathBuf::from("/usr/lib64"));
    dirs.push(PathBuf::from("/usr/lib"));
    dirs
}

/// A library named `lib{name}.a` or `lib{name}.so` in one of `dirs`: its
/// directory, its path and whether it is static.
fn find_lib(dirs: &[PathBuf], name: &str) -> Option<(PathBuf, PathBuf, bool)> {
    for dir in dirs {
        for (file, is_static) in [
            (format!("lib{name}.a"), true),
            (format!("lib{name}.so"), false),
        ] {
            let path = dir.join(&file);
            if path.is_file() {
                return Some((dir.clone(), path, is_static));
            }
        }
    }
    None
}

/// Emits the link lines for a found library.
fn link(dir: &Path, name: &str, is_static: bool) {
    println!("cargo::rustc-link-search=native={}", dir.display());
    if is_static {
        println!("cargo::rustc-link-lib=static={name}");
    } else {
        println!("cargo::rustc-link-lib=dylib={name}");
        // For the binaries of the crates that use this one (their build
        // scripts read DEP_MBHASH_PEERS_RPATH).
        RPATH.with(|r| r.borrow_mut().push(dir.display().to_string()));
    }
}

fn isal() {
    let (dirs, from_env) = match env::var_os("MBHASH_ISAL_DIR") {
        Some(d) => {
            let d = PathBuf::from(d);
            (vec![d.join("lib"), d], true)
        }
        None => (system_lib_dirs(), false),
    };
    match find_lib(&dirs, "isal") {
        Some((dir, path, is_static)) => {
            let mut build = cc::Build::new();
            build.file("peers/isal_crc_shim.c").warnings(true);
            // ISA-L 2.31 added the Rocksoft CRC-64s.
            if defined_symbols(&path, is_static)
                .iter()
                .any(|s| s == "crc64_rocksoft_refl")
            {
                build.define("MBB_HAVE_ROCKSOFT", None);
            }
            build.compile("mbb_isal_crc_shim");
            link(&dir, "isal", is_static);
            println!("cargo::rustc-cfg=mbhash_isal");
        }
        None if from_env => {
            println!("cargo::warning=MBHASH_ISAL_DIR holds no libisal.a or libisal.so");
        }
        None => {}
    }
}

fn isal_crypto() {
    let roots: Vec<(PathBuf, bool)> = match env::var_os("MBHASH_ISAL_CRYPTO_DIR") {
        Some(d) => vec![(PathBuf::from(d), true)],
        None => vec![
            (PathBuf::from("/usr/local"), false),
            (PathBuf::from("/usr"), false),
        ],
    };
    let arch = env::var("CARGO_CFG_TARGET_ARCH").unwrap_or_default();
    for (root, from_env) in roots {
        let include = root.join("include");
        let header = include.join("isa-l_crypto").join("sha256_mb.h");
        let mut lib_dirs = vec![root.join("lib"), root.join(format!("lib/{arch}-linux-gnu"))];
        lib_dirs.push(root.join("lib64"));
        let found = find_lib(&lib_dirs, "isal_crypto");
        let Some((dir, path, is_static)) = found.filter(|_| header.is_file()) else {
            if from_env {
                println!(
                    "cargo::warning=MBHASH_ISAL_CRYPTO_DIR lacks lib/libisal_crypto.a or include/isa-l_crypto/sha256_mb.h"
                );
            }
            continue;
        };
        let mut build = cc::Build::new();
        build
            .file("peers/isal_crypto_shim.c")
            .include(&include)
            .warnings(true)
            .flag_if_supported("-Wno-deprecated-declarations");
        // The per-instruction-set managers this library exports.
        for symbol in defined_symbols(&path, is_static) {
            let families = ["_sha256", "_sha512", "_md5", "_sha1", "_sm3"];
            if families
                .iter()
                .any(|f| symbol.starts_with(&format!("{f}_ctx_mgr_init_")))
            {
                build.define(&format!("MBB_HAVE_{symbol}"), None);
            }
        }
        build.compile("mbb_isal_crypto_shim");
        link(&dir, "isal_crypto", is_static);
        println!("cargo::rustc-cfg=mbhash_isal_crypto");
        return;
    }
}

/// OpenSSL 3's libcrypto (the one-stream peer of `bench`): a directory
/// with `lib/libcrypto.so` (or `.a`) and `include/openssl/evp.h` in
/// `MBHASH_OPENSSL_DIR`, else the system's (`libssl-dev`).
fn openssl() {
    let (lib_dirs, include, from_env) = match env::var_os("MBHASH_OPENSSL_DIR") {
        Some(d) => {
            let d = PathBuf::from(d);
            (
                vec![d.join("lib"), d.join("lib64")],
                d.join("include"),
                true,
            )
        }
        None => (system_lib_dirs(), PathBuf::from("/usr/include"), false),
    };
    // Shared first: a static libcrypto needs its own dependencies named.
    let found = lib_dirs.iter().find_map(|dir| {
        let so = dir.join("libcrypto.so");
        so.is_file().then(|| dir.clone())
    });
    let header = include.join("openssl").join("evp.h");
    match found.filter(|_| header.is_file()) {
        Some(dir) => {
            cc::Build::new()
                .file("peers/openssl_shim.c")
                .include(&include)
                .warnings(true)
                .compile("mbb_openssl_shim");
            link(&dir, "crypto", false);
            println!("cargo::rustc-cfg=mbhash_openssl");
        }
        None if from_env => {
            println!(
                "cargo::warning=MBHASH_OPENSSL_DIR lacks lib/libcrypto.so or include/openssl/evp.h"
            );
        }
        None => {}
    }
}

/// libdeflate (with its header, for the `libdeflate_crc32` it declares)
/// and zlib, from the system library directories.
fn crc32_libs() {
    let dirs = system_lib_dirs();
    let header = Path::new("/usr/include/libdeflate.h").is_file()
        || Path::new("/usr/local/include/libdeflate.h").is_file();
    if header && let Some((dir, _, is_static)) = find_lib(&dirs, "deflate") {
        link(&dir, "deflate", is_static);
        println!("cargo::rustc-cfg=mbhash_libdeflate");
    }
    if let Some((dir, _, is_static)) = find_lib(&dirs, "z") {
        link(&dir, "z", is_static);
        println!("cargo::rustc-cfg=mbhash_zlib");
    }
}

/// Global symbols a library defines, by `nm` (none when `nm` is missing:
/// then only the dispatching managers are measured).
fn defined_symbols(lib: &Path, is_static: bool) -> Vec<String> {
    let nm = env::var("NM").unwrap_or_else(|_| "nm".into());
    let mut cmd = Command::new(nm);
    if !is_static {
        cmd.arg("-D");
    }
    let Ok(out) = cmd.args(["-g", "--defined-only"]).arg(lib).output() else {
        return Vec::new();
    };
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| {
            let mut f = l.split_whitespace();
            let (_addr, kind, name) = (f.next()?, f.next()?, f.next()?);
            (kind == "T").then(|| name.to_string())
        })
        .collect()
}
