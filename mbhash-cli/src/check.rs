//! `mbhash sum -c`: checking the files a checksum list names, with
//! coreutils' parsing, messages and exit status.
//!
//! The lists are read as the workers need jobs; each properly formatted line
//! is a job whose file is hashed like any input of `mbhash sum`, and the
//! other lines and the end of each list are jobs with nothing to hash, so
//! that every message comes out in list order.

use std::ffi::OsString;
use std::fs::File;
use std::io::{self, BufRead, BufReader};

use mbhash_core::alg::Algorithm;

use crate::names;
use crate::progress;
use crate::streams::{self, EngineOf, Job, Settings, Source, StdinOnce};
use crate::sum::{Options, Out, Report};

/// One item of a checksum list.
#[derive(Debug)]
pub enum CheckJob {
    /// The list could not be opened.
    OpenFailed {
        /// The list's name.
        list: Vec<u8>,
        /// Why.
        err: io::Error,
    },
    /// A properly formatted line.
    Entry {
        /// The digest as written (hex, either case).
        expected: Vec<u8>,
        /// The file name, unescaped.
        name: Vec<u8>,
        /// Where to read it.
        source: Source,
    },
    /// An improperly formatted line.
    Misformatted {
        /// The list's name.
        list: Vec<u8>,
        /// Its line number.
        line: u64,
    },
    /// The end of a list.
    End {
        /// The list's name.
        list: Vec<u8>,
        /// Reading it failed.
        read_error: bool,
    },
}

impl Job for CheckJob {
    fn source(&self) -> Option<&Source> {
        match self {
            CheckJob::Entry { source, .. } => Some(source),
            _ => None,
        }
    }
}

/// Splits checksum lines the way coreutils' `split_3` does.
#[derive(Debug)]
pub struct Parser {
    tag: &'static [u8],
    hex_len: usize,
    /// Set by the first text line: whether lines are `HASH NAME` (as
    /// `md5 -r` writes them) rather than `HASH  NAME` / `HASH *NAME`. The
    /// two are not mixed, in any of the lists of one run.
    bsd_reversed: Option<bool>,
}

fn is_white(b: u8) -> bool {
    b == b' ' || b == b'\t'
}

impl Parser {
    /// A parser for digests of `hex_len` hex digits and BSD lines tagged `tag`.
    pub fn new(tag: &'static str, hex_len: usize) -> Self {
        Parser {
            tag: tag.as_bytes(),
            hex_len,
            bsd_reversed: None,
        }
    }

    /// The digest and the (unescaped) file name of a line without its line
    /// end; `None` if the line is improperly formatted.
    pub fn split<'l>(&mut self, s: &'l [u8]) -> Option<(&'l [u8], Vec<u8>)> {
        let mut i = 0;
        while i < s.len() && is_white(s[i]) {
            i += 1;
        }
        let escaped = s.get(i) == Some(&b'\\');
        if escaped {
            i += 1;
        }
        if s[i..].starts_with(self.tag) {
            i += self.tag.len();
            if s.get(i) == Some(&b' ') {
                i += 1;
            }
            if s.get(i) != Some(&b'(') {
                return None;
            }
            return self.split_bsd(&s[i + 1..], escaped);
        }
        // At least the digest, a blank and a one-byte name.
        let min = self.hex_len + 2 + usize::from(s.get(i) == Some(&b'\\'));
        if s.len() - i < min {
            return None;
        }
        let hex = &s[i..i + self.hex_len];
        i += self.hex_len;
        if !is_white(s[i]) {
            return None;
        }
        i += 1;
        if !hex.iter().all(u8::is_ascii_hexdigit) {
            return None;
        }
        if s.len() - i == 1 || (s[i] != b' ' && s[i] != b'*') {
            if self.bsd_reversed == Some(false) {
                return None;
            }
            self.bsd_reversed = Some(true);
        } else if self.bsd_reversed != Some(true) {
            self.bsd_reversed = Some(false);
            i += 1;
        }
        let name = &s[i..];
        let name = if escaped {
            names::unescape(name)?
        } else {
            name.to_vec()
        };
        Some((hex, name))
    }

    /// `NAME) = HASH`, after `TAG (`.
    fn split_bsd<'l>(&self, s: &'l [u8], escaped: bool) -> Option<(&'l [u8], Vec<u8>)> {
        let close = s.iter().rposition(|&b| b == b')')?;
        let name = &s[..close];
        let name = if escaped {
            names::unescape(name)?
        } else {
            name.to_vec()
        };
        let mut i = close + 1;
        while i < s.len() && is_white(s[i]) {
            i += 1;
        }
        if s.get(i) != Some(&b'=') {
            return None;
        }
        i += 1;
        while i < s.len() && is_white(s[i]) {
            i += 1;
        }
        let hex = &s[i..];
        (hex.len() == self.hex_len && hex.iter().all(u8::is_ascii_hexdigit)).then_some((hex, name))
    }
}

enum ListReader {
    Stdin(io::Stdin),
    File(BufReader<File>),
    Empty,
}

impl ListReader {
    fn read_line(&mut self, buf: &mut Vec<u8>) -> io::Result<usize> {
        match self {
            ListReader::Stdin(s) => s.lock().read_until(b'\n', buf),
            ListReader::File(f) => f.read_until(b'\n', buf),
            ListReader::Empty => Ok(0),
        }
    }
}

struct OpenList {
    reader: ListReader,
    name: Vec<u8>,
    stdin: bool,
    line: u64,
}

/// The jobs of a run: the lines of every list, in order.
pub struct Lines {
    lists: std::vec::IntoIter<OsString>,
    open: Option<OpenList>,
    parser: Parser,
    buf: Vec<u8>,
    stdin: StdinOnce,
}

impl Lines {
    /// The jobs of `lists` (`-` is standard input).
    pub fn new(lists: Vec<OsString>, parser: Parser) -> Self {
        Lines {
            lists: lists.into_iter(),
            open: None,
            parser,
            buf: Vec::new(),
            stdin: StdinOnce::default(),
        }
    }
}

impl Iterator for Lines {
    type Item = CheckJob;

    fn next(&mut self) -> Option<CheckJob> {
        loop {
            let list = match &mut self.open {
                Some(l) => l,
                None => {
                    let arg = self.lists.next()?;
                    let opened = if arg == "-" {
                        // A list read from standard input after an entry
                        // `-` read it finds it at its end, as in coreutils.
                        let reader = match self.stdin.take() {
                            Source::Stdin => ListReader::Stdin(io::stdin()),
                            _ => ListReader::Empty,
                        };
                        self.stdin.mark();
                        OpenList {
                            reader,
                            name: b"standard input".to_vec(),
                            stdin: true,
                            line: 0,
                        }
                    } else {
                        match crate::files::retry(|| File::open(&arg)) {
                            Ok(f) => OpenList {
                                reader: ListReader::File(BufReader::with_capacity(64 << 10, f)),
                                name: names::bytes(&arg).into_owned(),
                                stdin: false,
                                line: 0,
                            },
                            Err(err) => {
                                return Some(CheckJob::OpenFailed {
                                    list: names::bytes(&arg).into_owned(),
                                    err,
                                });
                            }
                        }
                    };
                    self.open.insert(opened)
                }
            };
            self.buf.clear();
            let ended = match list.reader.read_line(&mut self.buf) {
                Ok(0) => Some(false),
                Ok(_) => None,
                Err(_) => Some(true),
            };
            if let Some(read_error) = ended {
                let list = self.open.take().expect("open");
                return Some(CheckJob::End {
                    list: list.name,
                    read_error,
                });
            }
            list.line += 1;
            let mut line = self.buf.as_slice();
            if line[0] == b'#' {
                continue;
            }
            if let Some(l) = line.strip_suffix(b"\n") {
                line = l;
            }
            if let Some(l) = line.strip_suffix(b"\r") {
                line = l;
            }
            if line.is_empty() {
                continue;
            }
            match self.parser.split(line) {
                Some((hex, name)) if !(list.stdin && name == b"-") => {
                    let source = if name == b"-" {
                        self.stdin.take()
                    } else {
                        Source::Path(names::path(&name))
                    };
                    return Some(CheckJob::Entry {
                        expected: hex.to_vec(),
                        name,
                        source,
                    });
                }
                _ => {
                    return Some(CheckJob::Misformatted {
                        list: list.name.clone(),
                        line: list.line,
                    });
                }
            }
        }
    }
}

/// What one list has seen so far.
#[derive(Debug, Default)]
struct Tally {
    misformatted: u64,
    mismatched: u64,
    unreadable: u64,
    properly_formatted: bool,
    matched: bool,
}

fn plural(n: u64, one: &str, many: &str) -> String {
    format!("WARNING: {n} {}", if n == 1 { one } else { many })
}

/// True if `expected` (hex, either case) spells `digest`.
fn matches(expected: &[u8], digest: &[u8]) -> bool {
    let mut hex = Vec::with_capacity(digest.len() * 2);
    crate::sum::push_hex(&mut hex, digest);
    expected.eq_ignore_ascii_case(&hex)
}

/// Checks every list of `o.files`; `Ok(false)` if any check failed.
pub fn run<A: Algorithm>(
    o: &Options,
    engine: EngineOf<A>,
    settings: Settings,
    show_progress: bool,
) -> io::Result<bool> {
    let tag = o.algo_tag();
    let hex_len = 2 * A::ZERO_OUTPUT.as_ref().len();
    let lists = o.files.clone();
    let from_stdin = lists.iter().any(|l| l == "-");
    let estimate = move |cancelled: &dyn Fn() -> bool| {
        let mut total = 0u64;
        for job in Lines::new(lists.clone(), Parser::new(tag, hex_len)) {
            if cancelled() {
                return None;
            }
            match job {
                CheckJob::Entry {
                    source: Source::Path(p),
                    ..
                } => total += std::fs::metadata(p).map(|m| m.len()).unwrap_or(0),
                CheckJob::Entry { .. } => return None,
                _ => {}
            }
        }
        Some(total)
    };
    let estimate: Option<progress::Estimate<'_>> = if from_stdin { None } else { Some(&estimate) };
    progress::with_progress(show_progress, estimate, |progress| {
        let mut out = Out::new(progress);
        let mut ok = true;
        let mut tally = Tally::default();
        let jobs = Lines::new(o.files.clone(), Parser::new(tag, hex_len));
        let r =
            streams::run::<A, _, _, _>(
                engine,
                settings,
                jobs,
                progress,
                |job, outcome| match job {
                    CheckJob::OpenFailed { list, err } => {
                        ok = false;
                        out.error(&format!(
                            "{}: {}",
                            names::quote(&list),
                            names::describe(&err)
                        ))
                    }
                    CheckJob::Misformatted { list, line } => {
                        tally.misformatted += 1;
                        if o.report == Report::Warn {
                            out.error(&format!(
                                "{}: {line}: improperly formatted {tag} checksum line",
                                names::quote(&list)
                            ))?;
                        }
                        Ok(())
                    }
                    CheckJob::Entry { expected, name, .. } => {
                        tally.properly_formatted = true;
                        let verdict: &[u8] = match outcome {
                            Some(Ok(hashed)) => {
                                if hashed.changed {
                                    ok = false;
                                    out.error(&crate::sum::changed_warning(&name))?;
                                }
                                if matches(&expected, hashed.digest.as_ref()) {
                                    tally.matched = true;
                                    if o.report == Report::Quiet {
                                        return Ok(());
                                    }
                                    b": OK"
                                } else {
                                    tally.mismatched += 1;
                                    b": FAILED"
                                }
                            }
                            Some(Err(e))
                                if o.ignore_missing && e.kind() == io::ErrorKind::NotFound =>
                            {
                                return Ok(());
                            }
                            Some(Err(e)) => {
                                tally.unreadable += 1;
                                out.error(&format!(
                                    "{}: {}",
                                    names::quote(&name),
                                    names::describe(&e)
                                ))?;
                                b": FAILED open or read"
                            }
                            None => return Ok(()),
                        };
                        if o.report == Report::Status {
                            return Ok(());
                        }
                        let escape = name.contains(&b'\n');
                        let line = out.line();
                        if escape {
                            line.push(b'\\');
                        }
                        names::push_name(line, &name, escape);
                        line.extend_from_slice(verdict);
                        line.push(b'\n');
                        out.emit()
                    }
                    CheckJob::End { list, read_error } => {
                        let t = std::mem::take(&mut tally);
                        let list = names::quote(&list);
                        if read_error {
                            ok = false;
                            return out.error(&format!("{list}: read error"));
                        }
                        if !t.properly_formatted {
                            ok = false;
                            return out.error(&format!(
                                "{list}: no properly formatted checksum lines found"
                            ));
                        }
                        if o.report != Report::Status {
                            if t.misformatted > 0 {
                                out.error(&plural(
                                    t.misformatted,
                                    "line is improperly formatted",
                                    "lines are improperly formatted",
                                ))?;
                            }
                            if t.unreadable > 0 {
                                out.error(&plural(
                                    t.unreadable,
                                    "listed file could not be read",
                                    "listed files could not be read",
                                ))?;
                            }
                            if t.mismatched > 0 {
                                out.error(&plural(
                                    t.mismatched,
                                    "computed checksum did NOT match",
                                    "computed checksums did NOT match",
                                ))?;
                            }
                            if o.ignore_missing && !t.matched {
                                out.error(&format!("{list}: no file was verified"))?;
                            }
                        }
                        ok &= t.mismatched == 0
                            && t.unreadable == 0
                            && (!o.strict || t.misformatted == 0)
                            && (!o.ignore_missing || t.matched);
                        Ok(())
                    }
                },
            );
        r.and_then(|()| out.flush()).map(|()| ok)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const H: &str = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";

    fn split(p: &mut Parser, line: &str) -> Option<(String, String)> {
        p.split(line.as_bytes()).map(|(h, n)| {
            (
                String::from_utf8(h.to_vec()).unwrap(),
                String::from_utf8(n).unwrap(),
            )
        })
    }

    #[test]
    fn text_and_tag_lines() {
        let mut p = Parser::new("SHA256", 64);
        let want = Some((H.to_string(), "a b".to_string()));
        assert_eq!(split(&mut p, &format!("{H}  a b")), want);
        assert_eq!(split(&mut p, &format!("{H} *a b")), want);
        assert_eq!(split(&mut p, &format!("SHA256 (a b) = {H}")), want);
        assert_eq!(split(&mut p, &format!("  SHA256(a b)=\t{H}")), want);
        assert_eq!(
            split(&mut p, &format!("\\{H}  a\\\\b\\nc")),
            Some((H.to_string(), "a\\b\nc".to_string()))
        );
        assert_eq!(split(&mut p, &format!("\\{H}  a\\x")), None);
        assert_eq!(split(&mut p, &format!("SHA256 (a) = {}", &H[2..])), None);
        assert_eq!(split(&mut p, &format!("SHA512 (a) = {H}")), None);
        assert_eq!(split(&mut p, &format!("SHA256  (a) = {H}")), None);
        assert_eq!(split(&mut p, "garbage"), None);
        // Text lines have set the mode: a one-space line is refused.
        assert_eq!(split(&mut p, &format!("{H} a")), None);
    }

    #[test]
    fn one_space_lines_set_the_mode() {
        let mut p = Parser::new("SHA256", 64);
        assert_eq!(
            split(&mut p, &format!("{H} a")),
            Some((H.to_string(), "a".to_string()))
        );
        assert_eq!(
            split(&mut p, &format!("{H}  a")),
            Some((H.to_string(), " a".to_string()))
        );
    }
}
