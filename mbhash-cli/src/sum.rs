//! `mbhash sum`: checksums of files, as coreutils' `sha256sum` family writes
//! and checks them, computed as independent streams of the multi-buffer
//! engine.

use std::ffi::OsString;
use std::io::{self, BufWriter, IsTerminal, Write};
use std::process::ExitCode;

use mbhash_core::alg::Algorithm;
use mbhash_core::engine::LaneEngine;

use crate::check;
use crate::names;
use crate::progress::{self, Progress};
use crate::streams::{self, EngineOf, Settings};
use crate::walk::{self, Walk, What};

/// The program name in messages.
pub const PROG: &str = "mbhash";

const HELP: &str = "\
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

/// Writes `mbhash: MESSAGE` on standard error (which may be closed: that
/// is no reason to stop, let alone panic).
pub fn say(msg: &str) {
    let _ = writeln!(io::stderr().lock(), "{PROG}: {msg}");
}

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

/// `mbhash sum ARGS...`.
pub fn main(args: &[OsString]) -> ExitCode {
    let mut o = match parse(args) {
        Ok(o) => o,
        Err(msg) => {
            say(&format!(
                "{msg}\nTry '{PROG} sum --help' for more information."
            ));
            return ExitCode::FAILURE;
        }
    };
    if o.help {
        return match io::stdout().write_all(HELP.as_bytes()) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => crate::output::write_failed(&e),
        };
    }
    if o.files.is_empty() {
        o.files.push("-".into());
    }
    let result = mbhash_core::with_algo!(o.algo, A => run::<A>(&o));
    match result {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(e) => crate::output::write_failed(&e),
    }
}

/// Where the output goes: standard output, flushed per line on a
/// terminal, and messages on standard error in step with it.
pub struct Out<'p> {
    out: BufWriter<crate::output::Stdout>,
    terminal: bool,
    progress: &'p Progress,
    line: Vec<u8>,
}

impl<'p> Out<'p> {
    /// Output that keeps clear of `progress`'s bar.
    pub fn new(progress: &'p Progress) -> Self {
        Out {
            out: BufWriter::with_capacity(64 << 10, crate::output::Stdout::new()),
            terminal: io::stdout().is_terminal(),
            progress,
            line: Vec::with_capacity(256),
        }
    }

    /// The line being built (cleared by [`Out::emit`]).
    pub fn line(&mut self) -> &mut Vec<u8> {
        &mut self.line
    }

    /// Writes the line built so far.
    pub fn emit(&mut self) -> io::Result<()> {
        let Out {
            out,
            terminal,
            progress,
            line,
        } = self;
        let r = if *terminal {
            progress.around(|| {
                out.write_all(line)?;
                out.flush()
            })
        } else {
            out.write_all(line)
        };
        line.clear();
        r
    }

    /// Writes `mbhash: MESSAGE` on standard error, after the output so far.
    pub fn error(&mut self, msg: &str) -> io::Result<()> {
        self.out.flush()?;
        self.progress.around(|| say(msg));
        Ok(())
    }

    /// Flushes standard output.
    pub fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }
}

/// The warning for a file that changed while it was read (tar's words).
pub fn changed_warning(name: &[u8]) -> String {
    format!("{}: file changed as we read it", names::quote(name))
}

/// Appends the lower-case hex of `bytes`.
pub fn push_hex(out: &mut Vec<u8>, bytes: &[u8]) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    for &b in bytes {
        out.push(HEX[usize::from(b >> 4)]);
        out.push(HEX[usize::from(b & 15)]);
    }
}

fn threads(o: &Options) -> usize {
    o.jobs.unwrap_or_else(|| {
        std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(1)
    })
}

/// Runs sum or check mode; `Ok(false)` when some file failed.
fn run<A: Algorithm>(o: &Options) -> io::Result<bool> {
    let engine = match EngineOf::<A>::try_configured() {
        Ok(e) => e,
        Err(e) => {
            say(&e.to_string());
            return Ok(false);
        }
    };
    let settings = Settings {
        no_cache: o.no_cache,
        warn_changed: o.warn_changed,
        ..Settings::new(threads(o))
    };
    let show = !o.no_progress && io::stderr().is_terminal();
    if o.check {
        return check::run::<A>(o, engine, settings, show);
    }
    let files = o.files.clone();
    let recursive = o.recursive;
    let estimate =
        move |cancelled: &dyn Fn() -> bool| walk::total_size(&files, recursive, cancelled);
    progress::with_progress(show, Some(&estimate), |progress| {
        let mut out = Out::new(progress);
        let mut ok = true;
        let tag = o.algo.tag();
        let delim = if o.zero { b'\0' } else { b'\n' };
        let mark = if o.binary == Some(true) { b'*' } else { b' ' };
        let inputs = Walk::new(o.files.clone(), o.recursive);
        let r = streams::run::<A, _, _, _>(engine, settings, inputs, progress, |input, outcome| {
            let err = match (outcome, input.what) {
                (Some(Ok(hashed)), _) => {
                    let digest = hashed.digest;
                    let escape = !o.zero && names::needs_escape(&input.name);
                    let line = out.line();
                    if escape {
                        line.push(b'\\');
                    }
                    if o.tag {
                        line.extend_from_slice(tag.as_bytes());
                        line.extend_from_slice(b" (");
                        names::push_name(line, &input.name, escape);
                        line.extend_from_slice(b") = ");
                        push_hex(line, digest.as_ref());
                    } else {
                        push_hex(line, digest.as_ref());
                        line.push(b' ');
                        line.push(mark);
                        names::push_name(line, &input.name, escape);
                    }
                    line.push(delim);
                    out.emit()?;
                    if hashed.changed {
                        ok = false;
                        out.error(&changed_warning(&input.name))?;
                    }
                    return Ok(());
                }
                (Some(Err(e)), _) | (None, What::Failed(e)) => e,
                (None, What::Skipped(why)) => {
                    ok &= !o.strict;
                    return out.error(&format!("{}: skipped: {why}", names::quote(&input.name)));
                }
                (None, What::Hash(_)) => return Ok(()),
            };
            ok = false;
            out.error(&format!(
                "{}: {}",
                names::quote(&input.name),
                names::describe(&err)
            ))
        });
        r.and_then(|()| out.flush()).map(|()| ok)
    })
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

    #[test]
    fn hex() {
        let mut v = Vec::new();
        push_hex(&mut v, &[0x01, 0xab, 0xff]);
        assert_eq!(v, b"01abff");
    }
}
