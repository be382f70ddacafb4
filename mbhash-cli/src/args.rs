//! The arguments of `mbhash sum`, parsed GNU style with coreutils'
//! wording for every refusal.

use std::ffi::OsString;

use crate::names;

/// `mbhash sum --help`.
pub const HELP: &str = "\
usage: mbhash sum [OPTION]... [FILE|DIR|-]...
       mbhash sum -c [OPTION]... [CHECKFILE]...

Print or check checksums, byte for byte as coreutils' sha256sum family does.
With no FILE, or when FILE is -, read standard input. Many files are hashed
at once as independent streams of the multi-buffer engine.

  -a, --algorithm ALG  sha256 (default), sha224, sha384, sha512, sha512-256,
                       sha512-224
  -b, --binary         mark lines with '*' (binary mode; same digests)
  -c, --check          read checksums from the CHECKFILEs and check them
      --tag            write BSD-style lines: SHA256 (NAME) = HASH
  -t, --text           mark lines with ' ' (text mode, the default)
  -z, --zero           end each output line with NUL, not newline, and
                       do not escape file names
  -r, --recursive      hash the files under each DIR (sorted, depth first)
  -j, --jobs N         use at most N hashing threads (default: all CPUs)
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

Exit status: 0 on success, 1 if a file could not be read, a checksum did
not match, output could not be written, or (in check mode) no line was
properly formatted. A closed pipe on standard output ends the run as the
SIGPIPE signal does.
";

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
    /// Check mode.
    pub check: bool,
    /// `-b` (true) or `-t` (false), if given.
    pub binary: Option<bool>,
    /// BSD-style lines.
    pub tag: bool,
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
    /// Files (or check files); `-` is standard input.
    pub files: Vec<OsString>,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Opt {
    Algorithm,
    Binary,
    Check,
    Tag,
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
}

const LONG: [(&str, Opt); 17] = [
    ("algorithm", Opt::Algorithm),
    ("binary", Opt::Binary),
    ("check", Opt::Check),
    ("tag", Opt::Tag),
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

/// Parses the arguments after `sum`, GNU style: options and files in any
/// order, bundled short options, `--name=value`, unambiguous prefixes of
/// long names, and `--` to end the options.
pub fn parse(args: &[OsString]) -> Result<Options, String> {
    let mut o = Options {
        algo: Algo::Sha256,
        check: false,
        binary: None,
        tag: false,
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
                return Err(format!("option '--{full}' doesn't allow an argument"));
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

fn long_option(name: &str) -> Result<Opt, String> {
    if let Some((_, o)) = LONG.iter().find(|(n, _)| *n == name) {
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
            o.algo = Algo::ALL
                .into_iter()
                .find(|a| a.name() == v.to_ascii_lowercase())
                .ok_or_else(|| {
                    let names: Vec<_> = Algo::ALL.iter().map(|a| a.name()).collect();
                    format!(
                        "invalid argument '{v}' for '--algorithm' (valid: {})",
                        names.join(", ")
                    )
                })?;
        }
        Opt::Binary => o.binary = Some(true),
        Opt::Text => o.binary = Some(false),
        Opt::Check => o.check = true,
        Opt::Tag => o.tag = true,
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
                    .filter(|&n| n > 0)
                    .ok_or_else(|| format!("invalid number of jobs: '{v}'"))?,
            );
        }
        Opt::NoProgress => o.no_progress = true,
        Opt::NoCache => o.no_cache = true,
        Opt::WarnChanged => o.warn_changed = true,
        Opt::Help => o.help = true,
    }
    Ok(())
}

/// Option combinations coreutils refuses, with its wording.
fn validate(o: &Options) -> Result<(), String> {
    if o.help {
        return Ok(());
    }
    if o.check {
        if o.tag {
            return Err("the --tag option is meaningless when verifying checksums".into());
        }
        if o.zero {
            return Err("the --zero option is not supported when verifying checksums".into());
        }
        if o.binary.is_some() {
            return Err(
                "the --binary and --text options are meaningless when verifying checksums".into(),
            );
        }
        if o.recursive {
            return Err("the --recursive option is meaningless when verifying checksums".into());
        }
        return Ok(());
    }
    if o.tag && o.binary == Some(false) {
        return Err("--tag does not support --text mode".into());
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
            return Err(format!(
                "the {name} option is meaningful only when verifying checksums"
            ));
        }
    }
    Ok(())
}

impl Options {
    /// The BSD tag of the algorithm, e.g. `SHA256`.
    pub fn algo_tag(&self) -> &'static str {
        self.algo.tag()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(list: &[&str]) -> Vec<OsString> {
        list.iter().map(OsString::from).collect()
    }

    #[test]
    fn options_mix_with_files() {
        let o = parse(&args(&["-rz", "a", "--algo=sha512", "-j2", "--", "-b"])).unwrap();
        assert!(o.recursive && o.zero);
        assert_eq!(o.algo, Algo::Sha512);
        assert_eq!(o.jobs, Some(2));
        assert_eq!(o.files, args(&["a", "-b"]));
        let o = parse(&args(&["-c", "--quiet", "--status", "x", "-"])).unwrap();
        assert_eq!(o.report, Report::Status);
        assert_eq!(o.files, args(&["x", "-"]));
        let o = parse(&args(&["-a", "SHA512-256", "--stri", "-c"])).unwrap();
        assert_eq!(o.algo, Algo::Sha512_256);
        assert!(o.strict);
    }

    #[test]
    fn refusals_use_coreutils_wording() {
        let err = |a: &[&str]| parse(&args(a)).unwrap_err();
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
        assert!(err(&["-j", "0"]).contains("invalid number of jobs"));
        assert!(err(&["-a", "md5"]).contains("valid: sha256"));
    }
}
