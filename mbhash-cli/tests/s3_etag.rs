//! `mbhash s3-etag` against a reference computed here with Python's
//! hashlib (as S3 defines the ETag of a multipart upload), at the AWS CLI's
//! part sizes and threshold edges.

use mbhash_test_support::{Rng, TempDir, skip_or_require};
use std::path::Path;
use std::process::{Command, Output};

const MBHASH: &str = env!("CARGO_BIN_EXE_mbhash");
const MIB: u64 = 1 << 20;

fn mbhash(dir: &Path, args: &[&str]) -> Output {
    Command::new(MBHASH)
        .arg("s3-etag")
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap()
}

/// The ETag of `path` with parts of `part` bytes at `threshold`, by
/// Python's hashlib; `None` (and a SKIPPED line) without python3.
fn hashlib_etag(path: &Path, part: u64, threshold: u64) -> Option<String> {
    let script = "import hashlib, sys\n\
        p, part, th = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])\n\
        d = open(p, 'rb').read()\n\
        if not d or len(d) < th:\n    print(hashlib.md5(d).hexdigest())\n\
        else:\n    ms = b''.join(hashlib.md5(d[i:i + part]).digest() for i in range(0, len(d), part))\n    \
        print(hashlib.md5(ms).hexdigest() + '-%d' % ((len(d) + part - 1) // part))\n";
    let out = Command::new("python3")
        .args(["-c", script])
        .arg(path)
        .arg(part.to_string())
        .arg(threshold.to_string())
        .output();
    match out {
        Ok(o) if o.status.success() => Some(String::from_utf8(o.stdout).unwrap().trim().into()),
        _ => {
            skip_or_require("python3", "s3-etag against hashlib", "python3 not found");
            None
        }
    }
}

fn file(dir: &Path, name: &str, len: u64) -> std::path::PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, Rng::new(len).bytes(len as usize)).unwrap();
    path
}

/// A file size, `--part-size` and `--threshold` if given, and the part
/// size and threshold the AWS CLI uploads with then.
type Case = (u64, Option<&'static str>, Option<&'static str>, u64, u64);

#[test]
fn etags_match_hashlib_at_part_and_threshold_edges() {
    let tmp = TempDir::new("mbhash-s3", "edges");
    let dir = &tmp.0;
    // (size, --part-size, --threshold, the part size and threshold the
    // AWS CLI uses)
    let cases: &[Case] = &[
        (0, None, None, 8 * MIB, 8 * MIB),
        (3, None, None, 8 * MIB, 8 * MIB),
        (8 * MIB - 1, None, None, 8 * MIB, 8 * MIB), // below the threshold
        (8 * MIB, None, None, 8 * MIB, 8 * MIB),     // at it: one part
        (8 * MIB + 1, None, None, 8 * MIB, 8 * MIB), // two, the last of 1 byte
        (16 * MIB, Some("8MB"), Some("16MiB"), 8 * MIB, 16 * MIB),
        (16 * MIB - 1, Some("8mib"), Some("16mb"), 8 * MIB, 16 * MIB),
        (11 * MIB, Some("5MB"), Some("1"), 5 * MIB, 1), // 3 parts
        // A part size below S3's 5 MiB rises to it, as the AWS CLI's.
        (11 * MIB, Some("1MB"), Some("0"), 5 * MIB, 0),
        (11 * MIB, Some("1048576"), Some("1KB"), 5 * MIB, 1024),
        (20 * MIB, Some("16MB"), Some("20MB"), 16 * MIB, 20 * MIB),
        (1, Some("8MB"), Some("1"), 8 * MIB, 1), // one part of one byte
    ];
    for (i, &(size, part, threshold, want_part, want_threshold)) in cases.iter().enumerate() {
        let name = format!("f{i}");
        let path = file(dir, &name, size);
        let Some(want) = hashlib_etag(&path, want_part, want_threshold) else {
            return;
        };
        let mut args = Vec::new();
        if let Some(p) = part {
            args.extend(["--part-size", p]);
        }
        if let Some(t) = threshold {
            args.extend(["--threshold", t]);
        }
        args.push(&name);
        let out = mbhash(dir, &args);
        assert!(out.status.success(), "{args:?}: {:?}", out);
        assert_eq!(
            String::from_utf8(out.stdout).unwrap(),
            format!("{want}  {name}\n"),
            "{args:?} ({size} bytes)"
        );
    }
}

#[test]
fn many_files_standard_input_and_errors() {
    let tmp = TempDir::new("mbhash-s3", "many");
    let dir = &tmp.0;
    let a = file(dir, "a", 9 * MIB);
    let b = file(dir, "b", 100);
    std::fs::write(dir.join("new\nline"), b"x").unwrap();
    std::fs::create_dir(dir.join("d")).unwrap();
    let (Some(ea), Some(eb)) = (
        hashlib_etag(&a, 8 * MIB, 8 * MIB),
        hashlib_etag(&b, 8 * MIB, 8 * MIB),
    ) else {
        return;
    };
    let out = mbhash(dir, &["a", "missing", "b", "d", "new\nline"]);
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        format!("{ea}  a\n{eb}  b\n\\9dd4e461268c8034f5c8564e155c67a6  new\\nline\n")
    );
    assert_eq!(
        String::from_utf8(out.stderr).unwrap(),
        "mbhash: missing: No such file or directory\nmbhash: d: Is a directory\n"
    );
    assert_eq!(out.status.code(), Some(1));
    // Standard input: `-` and no operand.
    for args in [&["-"][..], &[]] {
        let out = Command::new(MBHASH)
            .arg("s3-etag")
            .args(args)
            .stdin(std::fs::File::open(&a).unwrap())
            .output()
            .unwrap();
        let name = if args.is_empty() { "-" } else { args[0] };
        assert_eq!(
            String::from_utf8(out.stdout).unwrap(),
            format!("{ea}  {name}\n")
        );
        assert!(out.status.success());
    }
    // Refused command lines: status 1 and a pointer to --help.
    for bad in [
        &["--part-size", "0", "a"][..],
        &["--part-size", "8 MB", "a"],
        &["--threshold"],
        &["--bogus", "a"],
    ] {
        let out = mbhash(dir, bad);
        assert_eq!(out.status.code(), Some(1), "{bad:?}");
        assert!(out.stdout.is_empty());
        let err = String::from_utf8(out.stderr).unwrap();
        assert!(
            err.starts_with("mbhash: ")
                && err.ends_with("Try 'mbhash s3-etag --help' for more information.\n"),
            "{bad:?}: {err}"
        );
    }
    let help = mbhash(dir, &["--help"]);
    assert!(help.status.success());
    assert!(
        String::from_utf8(help.stdout)
            .unwrap()
            .contains("--part-size SIZE")
    );
}

/// 10,000 parts: the AWS CLI's largest count at its smallest part size
/// (5 MiB parts of a 50,000 MiB file) would take minutes to write and
/// hash, so the count is checked through the library on small parts (the
/// same code the command runs), and the doubling past 10,000 parts
/// through the part size it computes.
#[test]
fn ten_thousand_parts() {
    let tmp = TempDir::new("mbhash-s3", "parts");
    let dir = &tmp.0;
    let path = file(dir, "p", 10_000 * 64);
    let Some(want) = hashlib_etag(&path, 64, 1) else {
        return;
    };
    assert!(want.ends_with("-10000"));
    assert_eq!(mbhash_core::s3::etag_file(&path, 64, 1).unwrap(), want);
    let path = file(dir, "q", 10_000 * 64 + 1);
    let want = hashlib_etag(&path, 64, 1).unwrap();
    assert!(want.ends_with("-10001"));
    assert_eq!(mbhash_core::s3::etag_file(&path, 64, 1).unwrap(), want);
    // The AWS CLI doubles 8 MiB parts of a file one byte over 10,000 of
    // them: 5,001 parts of 16 MiB.
    assert_eq!(
        mbhash_core::s3::aws_cli_part_size(10_000 * 8 * MIB + 1, 8 * MIB),
        16 * MIB
    );
}
