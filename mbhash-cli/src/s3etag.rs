//! `mbhash s3-etag`: the ETag S3 gives each file when the AWS CLI uploads
//! it (`mbhash_core::s3`), one line per file, `ETAG  NAME`.

use std::ffi::OsString;
use std::io::{self, Write};
use std::process::ExitCode;

use mbhash_core::s3;

use crate::names;
use crate::output::{Stdout, say, write_failed};

/// `mbhash s3-etag --help`.
pub const HELP: &str = "\
usage: mbhash s3-etag [--part-size SIZE] [--threshold SIZE] [FILE|-]...

Print the ETag S3 (and MinIO) report for each FILE uploaded by the AWS CLI
(`aws s3 cp`) with these settings, one line per file: ETAG  NAME. With no
FILE, or when FILE is -, read standard input.

A file of at least the threshold is uploaded in parts: its ETag is
hex(MD5(MD5(part 1) || ... || MD5(part N)))-N, the parts hashed at once as
independent streams of the multi-buffer engine. A smaller file, and an
empty one, gets the hex MD5 of its bytes.

      --part-size SIZE  the AWS CLI's multipart_chunksize (default 8MB); as
                        the AWS CLI, doubled until a file has at most 10,000
                        parts, then held to 5MB..5GB (S3's limits)
      --threshold SIZE  the AWS CLI's multipart_threshold (default 8MB)
  -h, --help            this text

SIZE is a number of bytes, or one with a suffix as the AWS CLI reads them
(KB, MB, GB, TB or KiB, MiB, GiB, TiB, any case; all powers of 1024).
A name with a backslash, newline or carriage return is escaped, and its
line starts with a backslash, as `mbhash sum` writes it.

Exit status: 0 on success, 1 if a file could not be read, output could
not be written, or the command line was refused.
";

/// The options of `mbhash s3-etag`.
#[derive(Debug, PartialEq, Eq)]
struct Options {
    part_size: u64,
    threshold: u64,
    help: bool,
    files: Vec<OsString>,
}

/// A size as the AWS CLI reads one (`human_readable_to_int`): digits, then
/// optionally one of its suffixes, case-insensitive, all powers of 1024.
pub fn parse_size(s: &str) -> Option<u64> {
    let digits = s.bytes().take_while(u8::is_ascii_digit).count();
    if digits == 0 {
        return None;
    }
    let n: u64 = s[..digits].parse().ok()?;
    let shift = match s[digits..].to_ascii_lowercase().as_str() {
        "" => 0,
        "kb" | "kib" => 10,
        "mb" | "mib" => 20,
        "gb" | "gib" => 30,
        "tb" | "tib" => 40,
        _ => return None,
    };
    n.checked_mul(1u64 << shift)
}

fn parse(args: &[OsString]) -> Result<Options, String> {
    let mut o = Options {
        part_size: s3::DEFAULT_PART_SIZE,
        threshold: s3::DEFAULT_THRESHOLD,
        help: false,
        files: Vec::new(),
    };
    let mut it = args.iter();
    let mut only_files = false;
    while let Some(arg) = it.next() {
        let raw = names::bytes(arg);
        if only_files || raw.len() < 2 || raw[0] != b'-' {
            o.files.push(arg.clone());
            continue;
        }
        let Some(text) = arg.to_str() else {
            return Err(format!("unrecognized option '{}'", arg.to_string_lossy()));
        };
        if text == "--" {
            only_files = true;
            continue;
        }
        if text == "-h" || text == "--help" {
            o.help = true;
            continue;
        }
        let (name, inline) = match text.split_once('=') {
            Some((n, v)) => (n, Some(v.to_string())),
            None => (text, None),
        };
        let target = match name {
            "--part-size" => &mut o.part_size,
            "--threshold" => &mut o.threshold,
            _ if text.starts_with("--") => {
                return Err(format!("unrecognized option '{text}'"));
            }
            _ => return Err(format!("invalid option -- '{}'", &text[1..2])),
        };
        let value = match inline {
            Some(v) => v,
            None => it
                .next()
                .map(|v| v.to_string_lossy().into_owned())
                .ok_or_else(|| format!("option '{name}' requires an argument"))?,
        };
        *target =
            parse_size(&value).ok_or_else(|| format!("invalid size '{value}' for '{name}'"))?;
    }
    if o.part_size == 0 && !o.help {
        return Err("invalid size '0' for '--part-size' (at least 1 byte)".into());
    }
    Ok(o)
}

/// The ETag of one operand.
fn etag_of(name: &OsString, o: &Options) -> io::Result<String> {
    if name == "-" {
        // A stream of unknown size: the chunk size itself, within S3's
        // limits, as s3transfer reads one.
        let part = o.part_size.clamp(s3::MIN_PART_SIZE, s3::MAX_PART_SIZE);
        return s3::etag(crate::stdin::open()?, part, o.threshold);
    }
    s3::aws_cli_etag_file(std::path::Path::new(name), o.part_size, o.threshold)
}

/// `mbhash s3-etag ARGS...`.
pub fn main(args: &[OsString]) -> ExitCode {
    let mut o = match parse(args) {
        Ok(o) => o,
        Err(msg) => {
            say(&msg);
            let _ = writeln!(
                io::stderr(),
                "Try 'mbhash s3-etag --help' for more information."
            );
            return ExitCode::FAILURE;
        }
    };
    let mut out = Stdout::new();
    if o.help {
        return match out.write_all(HELP.as_bytes()) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => write_failed(&e),
        };
    }
    if o.files.is_empty() {
        o.files.push("-".into());
    }
    let mut ok = true;
    for name in &o.files {
        let raw = names::bytes(name);
        match etag_of(name, &o) {
            Ok(etag) => {
                let escape = names::needs_escape(&raw);
                let mut line = Vec::new();
                if escape {
                    line.push(b'\\');
                }
                line.extend_from_slice(etag.as_bytes());
                line.extend_from_slice(b"  ");
                names::push_name(&mut line, &raw, escape);
                line.push(b'\n');
                if let Err(e) = out.write_all(&line) {
                    return write_failed(&e);
                }
            }
            Err(e) => {
                ok = false;
                say(&format!("{}: {}", names::quote(&raw), names::describe(&e)));
            }
        }
    }
    let stdin = crate::stdin::close_error();
    if let Some(e) = &stdin {
        say(&format!("standard input: {}", names::describe(e)));
    }
    if ok && stdin.is_none() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_as_the_aws_cli_reads_them() {
        assert_eq!(parse_size("0"), Some(0));
        assert_eq!(parse_size("123"), Some(123));
        assert_eq!(parse_size("8MB"), Some(8 << 20));
        assert_eq!(parse_size("8mib"), Some(8 << 20));
        assert_eq!(parse_size("5KiB"), Some(5 << 10));
        assert_eq!(parse_size("1gb"), Some(1 << 30));
        assert_eq!(parse_size("2TiB"), Some(2 << 40));
        for bad in [
            "",
            "MB",
            "8 MB",
            "8M",
            "-1",
            "1.5MB",
            "8XB",
            "99999999999TB",
        ] {
            assert_eq!(parse_size(bad), None, "{bad}");
        }
    }

    #[test]
    fn options() {
        let a = |v: &[&str]| parse(&v.iter().map(OsString::from).collect::<Vec<_>>());
        let o = a(&["--part-size", "16MB", "f", "--threshold=1"]).unwrap();
        assert_eq!((o.part_size, o.threshold), (16 << 20, 1));
        assert_eq!(o.files, vec![OsString::from("f")]);
        let o = a(&["--", "--threshold"]).unwrap();
        assert_eq!(o.files, vec![OsString::from("--threshold")]);
        assert!(
            a(&["--part-size"])
                .unwrap_err()
                .contains("requires an argument")
        );
        assert!(a(&["--part-size", "0"]).is_err());
        assert!(
            a(&["--threshold", "x"])
                .unwrap_err()
                .contains("invalid size")
        );
        assert!(a(&["--bogus"]).unwrap_err().contains("unrecognized"));
        assert!(a(&["-x"]).unwrap_err().contains("invalid option"));
    }
}
