//! `mbhash sum -a <crc>`: `-a crc` byte for byte as POSIX `cksum` (GNU
//! coreutils here: outputs, messages with the program name swapped, exit
//! codes), `-a crc32b` as coreutils 9.6's `cksum -a crc32b` (against that
//! tool when it is installed; its line format and values checked against
//! a bitwise CRC-32 in any case), and every named CRC in the `sha256sum`
//! line forms against a bitwise reference written here.

use mbhash_test_support::{Rng, TempDir, skip_or_require};
use std::ffi::OsString;
use std::path::Path;
use std::process::{Command, Output, Stdio};

const MBHASH: &str = env!("CARGO_BIN_EXE_mbhash");

/// Runs `prog args` in `dir` with `stdin` as standard input.
fn run(dir: &Path, prog: &str, args: &[OsString], stdin: &[u8]) -> Output {
    use std::io::Write;
    let mut child = Command::new(prog)
        .args(args)
        .current_dir(dir)
        .env("LC_ALL", "C.UTF-8")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("{prog}: {e}"));
    let mut input = child.stdin.take().unwrap();
    let data = stdin.to_vec();
    let feeder = std::thread::spawn(move || {
        let _ = input.write_all(&data);
    });
    let out = child.wait_with_output().unwrap();
    feeder.join().unwrap();
    out
}

fn os(args: &[&str]) -> Vec<OsString> {
    args.iter().map(OsString::from).collect()
}

/// True if `cksum` runs and, with `algo`, knows `-a algo`; else a SKIPPED
/// line.
fn have_cksum(algo: Option<&str>) -> bool {
    let mut cmd = Command::new("cksum");
    match algo {
        Some(a) => cmd.args(["-a", a, "/dev/null"]),
        None => cmd.arg("--version"),
    };
    let ok = cmd
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !ok {
        let what = algo.map_or("cksum".to_string(), |a| format!("cksum -a {a}"));
        skip_or_require(
            "coreutils",
            &format!("comparison with {what}"),
            &format!("{what} (GNU coreutils) not found"),
        );
    }
    ok
}

/// The same output, messages (`cksum:` read as `mbhash:`) and exit code.
fn same(dir: &Path, ours: &[&str], theirs: &[&str], stdin: &[u8]) {
    let mut ours_args = os(&["sum"]);
    ours_args.extend(os(ours));
    let a = run(dir, MBHASH, &ours_args, stdin);
    let b = run(dir, "cksum", &os(theirs), stdin);
    let what = format!("cksum {theirs:?}");
    assert!(
        a.stdout == b.stdout,
        "{what}: stdout differs\n--- mbhash\n{}\n--- cksum\n{}",
        String::from_utf8_lossy(&a.stdout),
        String::from_utf8_lossy(&b.stdout)
    );
    let theirs_err = String::from_utf8_lossy(&b.stderr).replace("cksum: ", "mbhash: ");
    assert_eq!(
        String::from_utf8_lossy(&a.stderr),
        theirs_err,
        "{what}: stderr"
    );
    assert_eq!(a.status.code(), b.status.code(), "{what}: exit code");
}

/// A directory of inputs whose lengths take 0 to 4 length bytes in
/// `cksum`'s CRC (0, 1, 255, 256, 65535, 65536, 16 MiB + 1).
fn inputs(name: &str) -> (TempDir, Vec<String>) {
    let dir = TempDir::new("mbhash-crc", name);
    let mut rng = Rng::new(0xC4C);
    let mut names = Vec::new();
    for len in [
        0usize,
        1,
        9,
        255,
        256,
        257,
        4096,
        65535,
        65536,
        (16 << 20) + 1,
    ] {
        let n = format!("f{len}");
        let data = if len == 9 {
            b"123456789".to_vec()
        } else {
            rng.bytes(len)
        };
        std::fs::write(dir.0.join(&n), data).unwrap();
        names.push(n);
    }
    std::fs::write(dir.0.join("a\nb"), b"newline in the name").unwrap();
    std::fs::create_dir(dir.0.join("sub")).unwrap();
    (dir, names)
}

#[test]
fn crc_is_posix_cksum() {
    if !have_cksum(None) {
        return;
    }
    let (dir, names) = inputs("posix");
    let files: Vec<&str> = names.iter().map(String::as_str).collect();
    // Every file, and the default algorithm of cksum (crc).
    let mut ours = vec!["-a", "crc"];
    ours.extend(&files);
    same(&dir.0, &ours, &files, b"");
    let mut theirs = vec!["-a", "crc"];
    theirs.extend(&files);
    same(&dir.0, &ours, &theirs, b"");
    // Standard input: no name without operands, "-" with one.
    same(&dir.0, &["-a", "crc"], &[], b"123456789");
    same(&dir.0, &["-a", "crc", "-"], &["-"], b"123456789");
    same(
        &dir.0,
        &["-a", "crc", "f9", "-", "f1"],
        &["f9", "-", "f1"],
        b"xyz",
    );
    same(&dir.0, &["-a", "crc"], &[], b"");
    // --tag and --untagged change nothing in cksum's CRC lines.
    same(&dir.0, &["-a", "crc", "--tag", "f9"], &["--tag", "f9"], b"");
    same(
        &dir.0,
        &["-a", "crc", "--untagged", "f9"],
        &["--untagged", "f9"],
        b"",
    );
    // A name with a newline is written as it is; NUL-terminated lines.
    same(&dir.0, &["-a", "crc", "a\nb"], &["a\nb"], b"");
    same(
        &dir.0,
        &["-a", "crc", "-z", "f9", "f0"],
        &["-z", "f9", "f0"],
        b"",
    );
    // Errors: a missing file; the others still printed.
    same(
        &dir.0,
        &["-a", "crc", "f9", "missing", "f1"],
        &["f9", "missing", "f1"],
        b"",
    );
    // A directory is a read error ("Is a directory", exit 1), as current
    // coreutils reports it (its cksum_slice8 returns !ferror); 9.1's
    // accelerated paths printed the CRC of no bytes and exited 0.
    let out = run(&dir.0, MBHASH, &os(&["sum", "-a", "crc", "sub", "f9"]), b"");
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(out.stdout, b"930766865 9 f9\n");
    assert_eq!(out.stderr, b"mbhash: sub: Is a directory\n");
    // -c is refused with -a crc (coreutils 9.1 names {bsd,sysv,crc}, 9.6
    // {bsd,sysv,crc,crc32b}: the exit code and output are compared).
    let a = run(&dir.0, MBHASH, &os(&["sum", "-a", "crc", "-c", "f9"]), b"");
    let b = run(&dir.0, "cksum", &os(&["-a", "crc", "-c", "f9"]), b"");
    assert_eq!(a.status.code(), b.status.code());
    assert_eq!(a.stdout, b.stdout);
    let err = String::from_utf8_lossy(&a.stderr);
    assert_eq!(
        err,
        "mbhash: --check is not supported with --algorithm={bsd,sysv,crc,crc32b}\n"
    );
    assert!(String::from_utf8_lossy(&b.stderr).contains("--check is not supported"));
}

/// CRC-32/ISO-HDLC (zlib's), bit by bit.
fn crc32_bitwise(data: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &b in data {
        crc ^= u32::from(b);
        for _ in 0..8 {
            crc = (crc >> 1) ^ (0xEDB8_8320 & 0u32.wrapping_sub(crc & 1));
        }
    }
    !crc
}

#[test]
fn crc32b_is_cksum_a_crc32b() {
    let (dir, names) = inputs("crc32b");
    let mut args = os(&["sum", "-a", "crc32b"]);
    args.extend(names.iter().map(OsString::from));
    let out = run(&dir.0, MBHASH, &args, b"");
    assert!(out.status.success());
    let mut want = String::new();
    for n in &names {
        let data = std::fs::read(dir.0.join(n)).unwrap();
        want += &format!("{} {} {n}\n", crc32_bitwise(&data), data.len());
    }
    assert_eq!(String::from_utf8_lossy(&out.stdout), want);
    assert!(want.contains("3421780262 9 f9\n"));
    let stdin = run(&dir.0, MBHASH, &os(&["sum", "-a", "crc32b"]), b"123456789");
    assert_eq!(stdin.stdout, b"3421780262 9\n");
    // Against coreutils 9.6+ where installed.
    if have_cksum(Some("crc32b")) {
        let files: Vec<&str> = names.iter().map(String::as_str).collect();
        let mut ours = vec!["-a", "crc32b"];
        ours.extend(&files);
        same(&dir.0, &ours, &ours, b"");
        same(&dir.0, &["-a", "crc32b"], &["-a", "crc32b"], b"123456789");
        same(
            &dir.0,
            &["-a", "crc32b", "-c", "f9"],
            &["-a", "crc32b", "-c", "f9"],
            b"",
        );
    }
}

/// The Rocksoft model bit by bit, independent of the library.
fn rocksoft(width: u32, poly: u64, init: u64, refl: bool, xorout: u64, data: &[u8]) -> u64 {
    let mask = if width == 64 { !0 } else { (1u64 << width) - 1 };
    let top = 1u64 << (width - 1);
    let mut reg = init;
    for &b in data {
        let b = if refl { b.reverse_bits() } else { b };
        reg ^= u64::from(b) << (width - 8);
        for _ in 0..8 {
            reg = if reg & top != 0 {
                (reg << 1) ^ poly
            } else {
                reg << 1
            } & mask;
        }
    }
    if refl {
        reg = reg.reverse_bits() >> (64 - width);
    }
    reg ^ xorout
}

/// SHA-256 of `123456789` (the file `f9`).
const SHA256_123456789: &str = "15e2b0d3c33891ebb0f1ef609ec419420c20e320ce94c65fbc8c3312448eb225";

#[test]
fn named_crcs_in_sha256sum_lines() {
    let (dir, names) = inputs("named");
    let ones = !0u64;
    let cases: [(&str, u32, u64, u64, bool, u64); 8] = [
        ("crc32", 32, 0x04C1_1DB7, 0xFFFF_FFFF, true, 0xFFFF_FFFF),
        ("crc32c", 32, 0x1EDC_6F41, 0xFFFF_FFFF, true, 0xFFFF_FFFF),
        (
            "crc32-bzip2",
            32,
            0x04C1_1DB7,
            0xFFFF_FFFF,
            false,
            0xFFFF_FFFF,
        ),
        ("crc64-nvme", 64, 0xAD93_D235_94C9_3659, ones, true, ones),
        ("crc64-xz", 64, 0x42F0_E1EB_A9EA_3693, ones, true, ones),
        ("crc64-ecma-182", 64, 0x42F0_E1EB_A9EA_3693, 0, false, 0),
        ("crc64-redis", 64, 0xAD93_D235_94C9_35A9, 0, true, 0),
        ("crc16-t10dif", 16, 0x8BB7, 0, false, 0),
    ];
    let small: Vec<&String> = names.iter().filter(|n| n.len() < 7).collect();
    for (name, width, poly, init, refl, xorout) in cases {
        let mut args = os(&["sum", "-a", name]);
        args.extend(small.iter().map(OsString::from));
        let out = run(&dir.0, MBHASH, &args, b"");
        assert!(out.status.success(), "{name}: {out:?}");
        let mut plain = String::new();
        let mut tagged = String::new();
        let digits = width as usize / 4;
        for n in &small {
            let data = std::fs::read(dir.0.join(n)).unwrap();
            let v = rocksoft(width, poly, init, refl, xorout, &data);
            plain += &format!("{v:0digits$x}  {n}\n");
            tagged += &format!("{} ({n}) = {v:0digits$x}\n", name.to_ascii_uppercase());
        }
        assert_eq!(String::from_utf8_lossy(&out.stdout), plain, "{name}");
        let mut args = os(&["sum", "--tag", "-a", name]);
        args.extend(small.iter().map(OsString::from));
        let out = run(&dir.0, MBHASH, &args, b"");
        assert_eq!(String::from_utf8_lossy(&out.stdout), tagged, "{name}");
        // -c reads both forms: untagged with -a, tagged in any list (mixed
        // with hash lines); a damaged line fails, the others pass.
        let oks: String = small.iter().map(|n| format!("{n}: OK\n")).collect();
        std::fs::write(dir.0.join("plain.lst"), &plain).unwrap();
        std::fs::write(dir.0.join("tagged.lst"), &tagged).unwrap();
        let out = run(
            &dir.0,
            MBHASH,
            &os(&["sum", "-a", name, "-c", "plain.lst"]),
            b"",
        );
        assert_eq!(String::from_utf8_lossy(&out.stdout), oks, "{name}: {out:?}");
        assert_eq!(out.status.code(), Some(0), "{name}");
        let out = run(&dir.0, MBHASH, &os(&["sum", "-c", "tagged.lst"]), b"");
        assert_eq!(String::from_utf8_lossy(&out.stdout), oks, "{name}: {out:?}");
        assert_eq!(out.status.code(), Some(0), "{name}");
        let out = run(
            &dir.0,
            MBHASH,
            &os(&["sum", "-a", name, "-c", "tagged.lst"]),
            b"",
        );
        assert_eq!(String::from_utf8_lossy(&out.stdout), oks, "{name}");
        // The digit after the tag's `= ` changed: that file fails.
        let first = small[0];
        let line = tagged.lines().next().unwrap();
        let at = line.rfind("= ").unwrap() + 2;
        let digit = if &line[at..=at] == "0" { "1" } else { "0" };
        let damaged = format!("{}{digit}{}\n", &line[..at], &line[at + 1..]);
        let mixed = format!("{damaged}{tagged}SHA256 (f9) = {}\n", SHA256_123456789);
        std::fs::write(dir.0.join("mixed.lst"), mixed).unwrap();
        let out = run(&dir.0, MBHASH, &os(&["sum", "-c", "mixed.lst"]), b"");
        assert_eq!(
            String::from_utf8_lossy(&out.stdout),
            format!("{first}: FAILED\n{oks}f9: OK\n"),
            "{name}"
        );
        assert_eq!(out.status.code(), Some(1), "{name}");
        assert!(
            String::from_utf8_lossy(&out.stderr).contains("1 computed checksum did NOT match"),
            "{out:?}"
        );
        // Untagged CRC lines need -a: a length alone names no CRC.
        let out = run(&dir.0, MBHASH, &os(&["sum", "-c", "plain.lst"]), b"");
        assert_eq!(out.status.code(), Some(1), "{name}");
        assert!(
            String::from_utf8_lossy(&out.stderr).contains("no properly formatted checksum lines"),
            "{out:?}"
        );
    }
    // Base64 lines check; a missing file is FAILED open or read.
    let out = run(
        &dir.0,
        MBHASH,
        &os(&["sum", "--base64", "-a", "crc64-nvme", "f9"]),
        b"",
    );
    let mut list = out.stdout.clone();
    list.extend_from_slice(b"rosUhgp5mIg=  missing\n");
    std::fs::write(dir.0.join("b64.lst"), &list).unwrap();
    let out = run(
        &dir.0,
        MBHASH,
        &os(&["sum", "-a", "crc64-nvme", "-c", "b64.lst"]),
        b"",
    );
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "f9: OK\nmissing: FAILED open or read\n"
    );
    assert_eq!(out.status.code(), Some(1));
    // A 2-byte CRC's base64 is as long as its hex: both check.
    for form in [&["--base64"][..], &[]] {
        let mut args = os(&["sum", "-a", "crc16-t10dif"]);
        args.extend(os(form));
        args.extend(os(&["f9"]));
        let out = run(&dir.0, MBHASH, &args, b"");
        std::fs::write(dir.0.join("t10.lst"), &out.stdout).unwrap();
        let out = run(
            &dir.0,
            MBHASH,
            &os(&["sum", "-a", "crc16-t10dif", "-c", "t10.lst"]),
            b"",
        );
        assert_eq!(String::from_utf8_lossy(&out.stdout), "f9: OK\n", "{form:?}");
    }
    // A CRC engine variable that names no engine is the CRC's error.
    let out = Command::new(MBHASH)
        .args(["sum", "-c", "tagged.lst"])
        .current_dir(&dir.0)
        .env("MBHASH_CRC_ENGINE", "no-such-engine")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("'no-such-engine'"),
        "{out:?}"
    );
    // Standard input is named "-"; the raw bytes are big-endian.
    let out = run(
        &dir.0,
        MBHASH,
        &os(&["sum", "-a", "crc64-nvme"]),
        b"123456789",
    );
    assert_eq!(out.stdout, b"ae8b14860a799888  -\n");
    let out = run(
        &dir.0,
        MBHASH,
        &os(&["sum", "--raw", "-a", "crc16-t10dif", "-"]),
        b"123456789",
    );
    assert_eq!(out.stdout, [0xD0, 0xDB]);
    // An unknown name lists the CRCs among the valid ones.
    let out = run(&dir.0, MBHASH, &os(&["sum", "-a", "crc99"]), b"");
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("crc64-nvme") && err.contains("crc32b"),
        "{err}"
    );
}

#[test]
fn engines_lists_every_crc_and_bad_engines_fail() {
    let out = Command::new(MBHASH).arg("engines").output().unwrap();
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("crc engines"), "{text}");
    for (name, catalogue) in [
        ("crc32", "CRC-32/ISO-HDLC"),
        ("crc64-nvme", "CRC-64/NVME"),
        ("crc16-t10dif", "CRC-16/T10-DIF"),
        ("crc64-redis", "CRC-64/REDIS"),
    ] {
        assert!(
            text.lines()
                .any(|l| l.trim_start().starts_with(name) && l.contains(catalogue)),
            "{name}: {text}"
        );
    }
    assert!(
        text.lines()
            .any(|l| l.contains("crc32c") && l.contains("crc32c engines"))
    );
    let dir = TempDir::new("mbhash-crc", "engine");
    let bad = Command::new(MBHASH)
        .args(["sum", "-a", "crc64-nvme", "-"])
        .env("MBHASH_CRC_ENGINE", "bogus")
        .current_dir(&dir.0)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(bad.status.code(), Some(1));
    assert!(bad.stdout.is_empty());
    let err = String::from_utf8_lossy(&bad.stderr);
    assert!(
        err.contains("bogus") && err.contains("MBHASH_CRC_ENGINE"),
        "{err}"
    );
    let listing = Command::new(MBHASH)
        .arg("engines")
        .env("MBHASH_CRC_ENGINE", "bogus")
        .output()
        .unwrap();
    assert!(!listing.status.success());
}
