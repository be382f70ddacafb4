//! The arguments of `mbhash sum`, parsed GNU style with coreutils'
//! wording for every refusal.

use std::ffi::OsString;

use crate::names;

/// `mbhash sum --help`.
pub const HELP: &str = "\
usage: mbhash sum [OPTION]... [FILE|DIR|-]...
       mbhash sum -c [OPTION]... [CHECKFILE]...

Print or check checksums, byte for byte as coreutils' sha256sum family,
md5sum, sha1sum and cksum -a do.
With no FILE, or when FILE is -, read standard input. Many files are hashed
at once as independent streams of the multi-buffer engine.

  -a, --algorithm ALG  sha256 (default), sha224, sha384, sha512, sha512-256,
                       sha512-224, md5, sha1, sm3; or a CRC: crc (POSIX
                       cksum's line), crc32b (cksum -a crc32b's line, CRC-32/ISO-HDLC),
                       crc32, crc32-bzip2, crc32-cksum, crc32c,
                       crc64-nvme, crc64-xz, crc64-ecma-182, crc64-we,
                       crc64-go-iso, crc64-redis, crc16-t10dif, ...
                       (`mbhash engines` lists them; the other CRCs are
                       written as HEX  NAME, the CRC's big-endian bytes)
  -b, --binary         mark lines with '*' (binary mode; same digests)
  -c, --check          read checksums from the CHECKFILEs and check them
      --tag            write BSD-style lines: SHA256 (NAME) = HASH
      --untagged       write sha256sum-style lines: HASH  NAME (the default)
      --base64         write digests in base64, not hexadecimal
      --raw            write the digest as raw bytes only (one FILE)
      --no-names       write the digest alone, without the file name
  -t, --text           mark lines with ' ' (text mode, the default)
  -z, --zero           end each output line with NUL, not newline, and
                       do not escape file names
  -r, --recursive      hash the files under each DIR (sorted, depth first)
  -j, --jobs N         use at most N hashing threads, 1 to 1024 (default:
                       all CPUs; fewer if the system starts fewer)
      --no-progress    never show a progress bar (shown on a terminal for
                       runs longer than a second)
      --no-cache       drop each file's pages from the page cache once
                       hashed (posix_fadvise DONTNEED), so that a scrub of
                       much data does not evict what others cached
      --warn-changed   warn (and exit 1) if a file's size or modification
                       time changed while it was read
      --strict         with -r: exit 1 if an entry was skipped (a broken
                       or looping link, a FIFO, a socket, a device)
  -h, --help           this text

check mode (-c):
      --ignore-missing  don't fail or report status for missing files
      --quiet           don't print OK for each successfully verified file
      --status          don't output anything, status code shows success
      --strict          exit non-zero for improperly formatted checksum lines
  -w, --warn            warn about improperly formatted checksum lines

With -c, each line's algorithm is found from its tag (SHA256 (NAME) = ...,
SHA2-256(NAME)= ... and the other coreutils, BSD and OpenSSL spellings) or,
untagged, from its digest's length (hex or base64): 56, 64, 96 or 128 hex
digits are SHA-224, SHA-256, SHA-384, SHA-512. One list may mix them, and
tagged MD5, SHA1 and SM3 lines (MD5 (NAME) = ...); untagged lines of those
take -a md5, -a sha1 or -a sm3, as md5sum -c, sha1sum -c and cksum -a sm3 -c
read them. With -a, only lines of that algorithm are properly formatted, as
in coreutils. Lines of algorithms mbhash does not compute (BLAKE2b, SHA3, ...)
count as improperly formatted. Named CRCs' lines are checked: tagged
(CRC64-NVME (NAME) = HEX) in any list, untagged with -a crc64-nvme etc.;
-c with -a crc or -a crc32b is refused, as cksum refuses it.

POSIXLY_CORRECT in the environment ends the options at the first FILE.

Exit status: 0 on success, 1 if a file could not be read, a checksum did
not match, output could not be written, or (in check mode) no line was
properly formatted. A closed pipe on standard output ends the run as the
SIGPIPE signal does (a write error if SIGPIPE was ignored when mbhash
started). A standard input that is closed, or open for writing only, is
an input that cannot be read.
";

/// The most hashing threads `-j` takes (as many reading threads go with
/// them).
pub const MAX_JOBS: usize = 1024;

/// The algorithms `-a` accepts: every algorithm of the library's list.
pub use mbhash_core::Algo;

/// How much check mode reports; the last of `--quiet`, `--status` and
/// `--warn` wins, as in coreutils.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Report {
    /// OK and FAILED lines.
    Normal,
    /// FAILED lines only.
    Quiet,
    /// Nothing but the exit status (and read errors).
    Status,
    /// Also warn about each improperly formatted line.
    Warn,
}

/// Parsed options.
#[derive(Debug)]
pub struct Options {
    /// The algorithm.
    pub algo: Algo,
    /// `-a` named a CRC (`crc`, `crc32b`, `crc64-nvme`, ...): that, not
    /// `algo`, is computed.
    pub crc: Option<crate::crcalgo::CrcAlgo>,
    /// `-a` was given: check mode then takes lines of that algorithm only.
    pub algo_given: bool,
    /// Check mode.
    pub check: bool,
    /// `-b` (true) or `-t` (false), if given.
    pub binary: Option<bool>,
    /// BSD-style lines (`--tag`; the last of `--tag` and `--untagged` wins).
    pub tag: bool,
    /// Digests in base64.
    pub base64: bool,
    /// The digest's raw bytes alone.
    pub raw: bool,
    /// The digest without the file name.
    pub no_names: bool,
    /// NUL-terminated lines, no escaping.
    pub zero: bool,
    /// Check mode: skip missing files.
    pub ignore_missing: bool,
    /// Check mode: what to report.
    pub report: Report,
    /// Check mode: improperly formatted lines fail.
    pub strict: bool,
    /// Recurse into directories.
    pub recursive: bool,
    /// Hashing threads.
    pub jobs: Option<usize>,
    /// Never show a progress bar.
    pub no_progress: bool,
    /// Drop the files' pages from the page cache once hashed.
    pub no_cache: bool,
    /// Warn about files that changed while read.
    pub warn_changed: bool,
    /// Print the help.
    pub help: bool,
    /// Print the version (`--version` abbreviated: the whole word is
    /// answered before the arguments are parsed).
    pub version: bool,
    /// Files (or check files); `-` is standard input.
    pub files: Vec<OsString>,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Opt {
    Algorithm,
    Binary,
    Check,
    Tag,
    Untagged,
    Base64,
    Raw,
    NoNames,
    Text,
    Zero,
    IgnoreMissing,
    Quiet,
    Status,
    Strict,
    Warn,
    Recursive,
    Jobs,
    NoProgress,
    NoCache,
    WarnChanged,
    Help,
    Version,
}

const LONG: [(&str, Opt); 22] = [
    ("algorithm", Opt::Algorithm),
    ("binary", Opt::Binary),
    ("check", Opt::Check),
    ("tag", Opt::Tag),
    ("untagged", Opt::Untagged),
    ("base64", Opt::Base64),
    ("raw", Opt::Raw),
    ("no-names", Opt::NoNames),
    ("text", Opt::Text),
    ("zero", Opt::Zero),
    ("ignore-missing", Opt::IgnoreMissing),
    ("quiet", Opt::Quiet),
    ("status", Opt::Status),
    ("strict", Opt::Strict),
    ("warn", Opt::Warn),
    ("recursive", Opt::Recursive),
    ("jobs", Opt::Jobs),
    ("no-progress", Opt::NoProgress),
    ("no-cache", Opt::NoCache),
    ("warn-changed", Opt::WarnChanged),
    ("help", Opt::Help),
    ("version", Opt::Version),
];

/// The long options of coreutils' `sha256sum` (9.1). An abbreviation that
/// is unambiguous among them means that option, as in `sha256sum`, even
/// where one of mbhash's own options shares the prefix (`--b` is
/// `--binary`, though `--base64` starts so too; `--w` is `--warn`).
const COREUTILS: [&str; 12] = [
    "binary",
    "check",
    "help",
    "ignore-missing",
    "quiet",
    "status",
    "strict",
    "tag",
    "text",
    "version",
    "warn",
    "zero",
];

fn short(c: char) -> Option<Opt> {
    Some(match c {
        'a' => Opt::Algorithm,
        'b' => Opt::Binary,
        'c' => Opt::Check,
        't' => Opt::Text,
        'z' => Opt::Zero,
        'w' => Opt::Warn,
        'r' => Opt::Recursive,
        'j' => Opt::Jobs,
        'h' => Opt::Help,
        _ => return None,
    })
}

fn takes_value(o: Opt) -> bool {
    matches!(o, Opt::Algorithm | Opt::Jobs)
}

/// A refused command line: coreutils' wording, and whether its "Try
/// --help" line follows.
#[derive(Debug, PartialEq, Eq)]
pub struct Refusal {
    /// The message.
    pub msg: String,
    /// Followed by the "Try 'mbhash sum --help'" line.
    pub usage: bool,
}

impl From<String> for Refusal {
    fn from(msg: String) -> Self {
        Refusal { msg, usage: true }
    }
}

impl From<&str> for Refusal {
    fn from(msg: &str) -> Self {
        msg.to_string().into()
    }
}

/// Parses the arguments after `sum`, GNU style: options and files in any
/// order (unless `POSIXLY_CORRECT` is set: then the first file ends the
/// options, as getopt does), bundled short options, `--name=value`,
/// unambiguous prefixes of long names, and `--` to end the options.
pub fn parse(args: &[OsString]) -> Result<Options, Refusal> {
    parse_with(args, std::env::var_os("POSIXLY_CORRECT").is_some())
}

/// [`parse`], with `POSIXLY_CORRECT` set or not.
pub fn parse_with(args: &[OsString], posixly_correct: bool) -> Result<Options, Refusal> {
    let mut o = Options {
        algo: Algo::Sha256,
        crc: None,
        algo_given: false,
        check: false,
        binary: None,
        tag: false,
        base64: false,
        raw: false,
        no_names: false,
        zero: false,
        ignore_missing: false,
        report: Report::Normal,
        strict: false,
        recursive: false,
        jobs: None,
        no_progress: false,
        no_cache: false,
        warn_changed: false,
        help: false,
        version: false,
        files: Vec::new(),
    };
    let mut it = args.iter();
    let mut only_files = false;
    while let Some(arg) = it.next() {
        let raw = names::bytes(arg);
        if only_files || raw.len() < 2 || raw[0] != b'-' {
            o.files.push(arg.clone());
            only_files |= posixly_correct;
            continue;
        }
        let Some(text) = arg.to_str() else {
            return Err(format!("unrecognized option '{}'", arg.to_string_lossy()).into());
        };
        if text == "--" {
            only_files = true;
            continue;
        }
        if let Some(long) = text.strip_prefix("--") {
            let (name, inline) = match long.split_once('=') {
                Some((n, v)) => (n, Some(v)),
                None => (long, None),
            };
            let opt = long_option(name)?;
            let full = LONG.iter().find(|(_, x)| *x == opt).map_or(name, |l| l.0);
            let value = if takes_value(opt) {
                match inline {
                    Some(v) => Some(v.to_string()),
                    None => Some(
                        it.next()
                            .map(|v| v.to_string_lossy().into_owned())
                            .ok_or_else(|| format!("option '--{full}' requires an argument"))?,
                    ),
                }
            } else if inline.is_some() {
                return Err(format!("option '--{full}' doesn't allow an argument").into());
            } else {
                None
            };
            apply(&mut o, opt, value)?;
            continue;
        }
        for (at, c) in text[1..].char_indices() {
            let opt = short(c).ok_or_else(|| format!("invalid option -- '{c}'"))?;
            if takes_value(opt) {
                let rest = &text[1 + at + c.len_utf8()..];
                let value = if rest.is_empty() {
                    it.next()
                        .map(|v| v.to_string_lossy().into_owned())
                        .ok_or_else(|| format!("option requires an argument -- '{c}'"))?
                } else {
                    rest.to_string()
                };
                apply(&mut o, opt, Some(value))?;
                break;
            }
            apply(&mut o, opt, None)?;
        }
    }
    validate(&o)?;
    Ok(o)
}

/// The option a long name or abbreviation means: the whole name; else the
/// one coreutils' option it abbreviates; else the one of mbhash's options
/// it abbreviates. An abbreviation of several coreutils options, or of
/// several of mbhash's and none of coreutils', is ambiguous.
fn long_option(name: &str) -> Result<Opt, String> {
    if let Some((_, o)) = LONG.iter().find(|(n, _)| *n == name) {
        return Ok(*o);
    }
    let prefix_of = |n: &str| !name.is_empty() && n.starts_with(name);
    if let [only] = COREUTILS
        .iter()
        .filter(|n| prefix_of(n))
        .collect::<Vec<_>>()
        .as_slice()
    {
        let (_, o) = LONG.iter().find(|(n, _)| n == *only).expect("listed");
        return Ok(*o);
    }
    let matches: Vec<_> = LONG.iter().filter(|(n, _)| n.starts_with(name)).collect();
    match matches.as_slice() {
        [(_, o)] if !name.is_empty() => Ok(*o),
        [] | [_] => Err(format!("unrecognized option '--{name}'")),
        many => Err(format!(
            "option '--{name}' is ambiguous; possibilities:{}",
            many.iter()
                .map(|(n, _)| format!(" '--{n}'"))
                .collect::<String>()
        )),
    }
}

fn apply(o: &mut Options, opt: Opt, value: Option<String>) -> Result<(), String> {
    match opt {
        Opt::Algorithm => {
            let v = value.unwrap_or_default();
            o.algo_given = true;
            o.crc = None;
            match Algo::ALL
                .into_iter()
                .find(|a| a.name() == v.to_ascii_lowercase())
            {
                Some(a) => o.algo = a,
                None => {
                    o.crc = Some(crate::crcalgo::CrcAlgo::from_name(&v).ok_or_else(|| {
                        let mut names: Vec<_> = Algo::ALL.iter().map(|a| a.name()).collect();
                        names.extend(crate::crcalgo::CrcAlgo::names());
                        format!(
                            "invalid argument '{v}' for '--algorithm' (valid: {})",
                            names.join(", ")
                        )
                    })?);
                }
            }
        }
        Opt::Binary => o.binary = Some(true),
        // `--text --tag` writes the tagged line (the tag overrides an
        // earlier --text, as in sha256sum 9.1 to 9.9); `--tag --text` is
        // refused by `validate`.
        Opt::Text => o.binary = Some(false),
        Opt::Check => o.check = true,
        Opt::Tag => {
            o.tag = true;
            if o.binary == Some(false) {
                o.binary = None;
            }
        }
        Opt::Untagged => o.tag = false,
        Opt::Base64 => o.base64 = true,
        Opt::Raw => o.raw = true,
        Opt::NoNames => o.no_names = true,
        Opt::Zero => o.zero = true,
        Opt::IgnoreMissing => o.ignore_missing = true,
        Opt::Quiet => o.report = Report::Quiet,
        Opt::Status => o.report = Report::Status,
        Opt::Warn => o.report = Report::Warn,
        Opt::Strict => o.strict = true,
        Opt::Recursive => o.recursive = true,
        Opt::Jobs => {
            let v = value.unwrap_or_default();
            o.jobs = Some(
                v.parse::<usize>()
                    .ok()
                    .filter(|n| (1..=MAX_JOBS).contains(n))
                    .ok_or_else(|| format!("invalid number of jobs: '{v}' (1 to {MAX_JOBS})"))?,
            );
        }
        Opt::NoProgress => o.no_progress = true,
        Opt::NoCache => o.no_cache = true,
        Opt::WarnChanged => o.warn_changed = true,
        Opt::Help => o.help = true,
        Opt::Version => o.version = true,
    }
    Ok(())
}

/// Option combinations coreutils refuses, with its wording and in its
/// order.
fn validate(o: &Options) -> Result<(), Refusal> {
    if o.help || o.version {
        return Ok(());
    }
    if o.check && o.crc.is_some_and(crate::crcalgo::CrcAlgo::is_cksum) {
        return Err(Refusal {
            msg: crate::crcalgo::CHECK_REFUSED.into(),
            usage: false,
        });
    }
    if o.base64 && o.raw {
        return Err("--base64 and --raw are mutually exclusive".into());
    }
    if o.check {
        if o.zero {
            return Err("the --zero option is not supported when verifying checksums".into());
        }
        // --untagged is allowed, as coreutils allows it for wrappers.
        if o.tag {
            return Err("the --tag option is meaningless when verifying checksums".into());
        }
        if o.binary.is_some() {
            return Err(
                "the --binary and --text options are meaningless when verifying checksums".into(),
            );
        }
        if o.recursive {
            return Err("the --recursive option is meaningless when verifying checksums".into());
        }
        if o.no_names {
            return Err("the --no-names option is meaningless when verifying checksums".into());
        }
        return Ok(());
    }
    let check_only = [
        (o.ignore_missing, "--ignore-missing"),
        (o.report == Report::Status, "--status"),
        (o.report == Report::Warn, "--warn"),
        (o.report == Report::Quiet, "--quiet"),
        // With -r, --strict fails a run that skipped entries.
        (o.strict && !o.recursive, "--strict"),
    ];
    for (set, name) in check_only {
        if set {
            return Err(
                format!("the {name} option is meaningful only when verifying checksums").into(),
            );
        }
    }
    if o.tag && o.binary == Some(false) {
        return Err("--tag does not support --text mode".into());
    }
    if o.tag && o.no_names {
        return Err("the --no-names option does not go with --tag".into());
    }
    if o.raw && (o.files.len() > 1 || o.recursive) {
        return Err(Refusal {
            msg: "the --raw option is not supported with multiple files".into(),
            usage: false,
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(list: &[&str]) -> Vec<OsString> {
        list.iter().map(OsString::from).collect()
    }

    #[test]
    fn options_mix_with_files() {
        let o = parse_with(
            &args(&["-rz", "a", "--algo=sha512", "-j2", "--", "-b"]),
            false,
        )
        .unwrap();
        assert!(o.recursive && o.zero);
        assert_eq!(o.algo, Algo::Sha512);
        assert_eq!(o.jobs, Some(2));
        assert_eq!(o.files, args(&["a", "-b"]));
        let o = parse_with(&args(&["-c", "--quiet", "--status", "x", "-"]), false).unwrap();
        assert_eq!(o.report, Report::Status);
        assert_eq!(o.files, args(&["x", "-"]));
        let o = parse_with(&args(&["-a", "SHA512-256", "--stri", "-c"]), false).unwrap();
        assert_eq!(o.algo, Algo::Sha512_256);
        assert!(o.strict);
    }

    #[test]
    fn refusals_use_coreutils_wording() {
        let err = |a: &[&str]| parse_with(&args(a), false).unwrap_err().msg;
        assert_eq!(err(&["-x"]), "invalid option -- 'x'");
        assert_eq!(err(&["--bogus"]), "unrecognized option '--bogus'");
        assert!(err(&["--st"]).contains("is ambiguous"));
        assert_eq!(err(&["-a"]), "option requires an argument -- 'a'");
        assert_eq!(
            err(&["--quiet", "f"]),
            "the --quiet option is meaningful only when verifying checksums"
        );
        assert_eq!(
            err(&["-c", "--tag"]),
            "the --tag option is meaningless when verifying checksums"
        );
        assert_eq!(err(&["--tag", "-t"]), "--tag does not support --text mode");
        assert_eq!(err(&["-j", "0"]), "invalid number of jobs: '0' (1 to 1024)");
        assert_eq!(
            err(&["-j", "1025"]),
            "invalid number of jobs: '1025' (1 to 1024)"
        );
        assert_eq!(
            parse_with(&args(&["-j1024"]), false).unwrap().jobs,
            Some(1024)
        );
        assert!(err(&["-a", "blake2b"]).contains("valid: sha256"));
        assert_eq!(
            err(&["--raw", "--base64"]),
            "--base64 and --raw are mutually exclusive"
        );
        let multi = parse_with(&args(&["--raw", "a", "b"]), false).unwrap_err();
        assert!(!multi.usage && multi.msg.contains("multiple files"));
        assert!(err(&["-c", "--no-names"]).contains("meaningless"));
    }

    /// An abbreviation of one of sha256sum's options means it, whatever
    /// mbhash's own options share the prefix; one that is ambiguous in
    /// sha256sum stays ambiguous; one of mbhash's options alone means it.
    #[test]
    fn abbreviations_resolve_as_in_sha256sum() {
        let o = |a: &[&str]| parse_with(&args(a), false);
        assert_eq!(o(&["--b", "f"]).unwrap().binary, Some(true));
        assert_eq!(o(&["-c", "--w", "l"]).unwrap().report, Report::Warn);
        assert_eq!(o(&["-c", "--warn", "l"]).unwrap().report, Report::Warn);
        assert!(o(&["--warn-", "f"]).unwrap().warn_changed);
        assert!(o(&["--ba", "f"]).unwrap().base64);
        assert!(o(&["--ve"]).unwrap().version);
        assert!(o(&["--h"]).unwrap().help);
        let err = |a: &[&str]| o(a).unwrap_err().msg;
        assert_eq!(
            err(&["--s", "f"]),
            "option '--s' is ambiguous; possibilities: '--status' '--strict'"
        );
        assert_eq!(
            err(&["--t", "f"]),
            "option '--t' is ambiguous; possibilities: '--tag' '--text'"
        );
        // Not sha256sum's: ambiguous among mbhash's own.
        assert!(err(&["--no", "f"]).contains("is ambiguous"));
        assert!(!o(&["--tag", "--u", "f"]).unwrap().tag);
    }

    #[test]
    fn tag_text_and_untagged_as_sha256sum() {
        let o = |a: &[&str]| parse_with(&args(a), false);
        // The tag overrides an earlier --text; a later --text is refused.
        let t = o(&["--text", "--tag"]).unwrap();
        assert!(t.tag && t.binary.is_none());
        assert!(o(&["--tag", "--text"]).is_err());
        // The last of --tag and --untagged wins; -b survives both.
        let u = o(&["--tag", "--untagged"]).unwrap();
        assert!(!u.tag && u.binary.is_none());
        let b = o(&["-b", "--tag", "--untagged"]).unwrap();
        assert!(!b.tag && b.binary == Some(true));
        assert!(o(&["-c", "--untagged"]).is_ok());
        assert!(o(&["-c", "--tag", "--untagged"]).is_ok());
    }

    #[test]
    fn posixly_correct_ends_options_at_the_first_file() {
        let o = parse_with(&args(&["-b", "f", "--tag", "-z"]), true).unwrap();
        assert!(!o.tag && !o.zero && o.binary == Some(true));
        assert_eq!(o.files, args(&["f", "--tag", "-z"]));
        let o = parse_with(&args(&["f", "--tag"]), false).unwrap();
        assert!(o.tag);
    }
}
