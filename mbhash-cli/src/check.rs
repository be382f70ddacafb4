//! `mbhash sum -c`: checking the files a checksum list names, with
//! coreutils' parsing, messages and exit status.
//!
//! The lists are read as the workers need jobs; each properly formatted line
//! is a job whose file is hashed like any input of `mbhash sum`, and the
//! other lines and the end of each list are jobs with nothing to hash, so
//! that every message comes out in list order.
//!
//! Each line names its algorithm (see [`crate::checkline`]), so one list
//! may mix them: every job goes to the one hashing pipeline with its line's
//! algorithm, each on its family's configured engine, and the messages stay
//! in list order. A family whose engine cannot run (a bad engine variable)
//! ends the check at its first line, after the messages of the lines
//! before it.

use std::ffi::OsString;
use std::fs::File;
use std::io::{self, BufRead, BufReader};

use mbhash_core::Algo;
use mbhash_core::algo::Digest;
use mbhash_core::crc::Variant;
use mbhash_core::engine::EngineFamily;
use mbhash_core::service::HashService;

use crate::args::{Options, Report};
use crate::checkline::{Entry, Line, Parser, Sum, base64_len};
use crate::crcsum::{self, CrcAlgo};
use crate::names;
use crate::output::{Out, changed_warning, push_base64, push_hex, say};
use crate::progress;
use crate::streams::{self, EngineOf, Hashed, Job, Settings, Source, StdinOnce};

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
        /// The line's algorithm.
        algo: Sum,
        /// The digest as written (hex, either case, or base64).
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
        /// What is wrong, for `--warn`.
        what: String,
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
            // A CRC line's file is read when it is reported (the
            // reader of files feeds the hash service only).
            CheckJob::Entry {
                source,
                algo: Sum::Hash(_),
                ..
            } => Some(source),
            _ => None,
        }
    }

    fn algo(&self) -> Option<Algo> {
        match self {
            CheckJob::Entry {
                algo: Sum::Hash(a), ..
            } => Some(*a),
            _ => None,
        }
    }
}

enum ListReader {
    Stdin(BufReader<crate::stdin::Stdin>),
    File(BufReader<File>),
    Empty,
    /// Standard input that cannot be read (closed, or write-only).
    Unreadable(io::Error),
}

impl ListReader {
    fn read_line(&mut self, buf: &mut Vec<u8>) -> io::Result<usize> {
        match self {
            ListReader::Stdin(s) => s.read_until(b'\n', buf),
            ListReader::File(f) => f.read_until(b'\n', buf),
            ListReader::Empty => Ok(0),
            ListReader::Unreadable(e) => Err(io::Error::new(e.kind(), e.to_string())),
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
                        let reader = match (self.stdin.take(), crate::stdin::open()) {
                            (_, Err(e)) => ListReader::Unreadable(e),
                            (Source::Stdin, Ok(s)) => {
                                ListReader::Stdin(BufReader::with_capacity(64 << 10, s))
                            }
                            (_, Ok(_)) => ListReader::Empty,
                        };
                        self.stdin.mark();
                        OpenList {
                            reader,
                            name: b"standard input".to_vec(),
                            stdin: true,
                            line: 0,
                        }
                    } else {
                        match mbhash_core::files::retry(|| File::open(&arg)) {
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
            let what = match self.parser.split(line) {
                Line::Entry(Entry { algo, digest, name }) if !(list.stdin && name == b"-") => {
                    let source = if name == b"-" {
                        self.stdin.take()
                    } else {
                        Source::Path(names::path(&name))
                    };
                    return Some(CheckJob::Entry {
                        algo,
                        expected: digest.to_vec(),
                        name,
                        source,
                    });
                }
                Line::Unsupported(tag) => {
                    format!("improperly formatted {tag} checksum line ({tag} is not supported)")
                }
                Line::Entry(_) | Line::Misformatted => format!(
                    "improperly formatted {} checksum line",
                    self.parser.warn_tag()
                ),
            };
            return Some(CheckJob::Misformatted {
                list: list.name.clone(),
                line: list.line,
                what,
            });
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

/// True if `expected` (hex, either case, or base64) spells `digest`.
fn matches(expected: &[u8], digest: &[u8]) -> bool {
    let mut text = Vec::with_capacity(base64_len(digest.len()).max(2 * digest.len()));
    // Hex digits, or base64 (of a 2-byte CRC, both are 4 characters: the
    // base64 ends in `=`).
    if expected.len() == 2 * digest.len() && expected.iter().all(u8::is_ascii_hexdigit) {
        push_hex(&mut text, digest);
        expected.eq_ignore_ascii_case(&text)
    } else {
        push_base64(&mut text, digest);
        expected == text
    }
}

/// Whether `algo`'s family has an engine that runs (checked once per
/// family: an [`EngineFamily`], or `None` for the CRCs but CRC32C): the
/// error to say if not.
fn engine_error(
    algo: Sum,
    checked: &mut Vec<(Option<EngineFamily>, Option<String>)>,
) -> Option<String> {
    let family = match algo {
        Sum::Hash(a) => Some(EngineFamily::of(a)),
        Sum::Crc(Variant::Crc32Iscsi) => Some(EngineFamily::Crc32c),
        Sum::Crc(_) => None,
    };
    if let Some((_, e)) = checked.iter().find(|(f, _)| *f == family) {
        return e.clone();
    }
    let e = match algo {
        Sum::Hash(a) => mbhash_core::with_algo!(a, A => {
            EngineOf::<A>::try_configured().err().map(|e| e.to_string())
        }),
        Sum::Crc(v) => crcsum::engine_error(CrcAlgo::Named(v)),
    };
    checked.push((family, e.clone()));
    e
}

/// Checks every list of `o.files`; `Ok(false)` if any check failed.
pub fn run(o: &Options, settings: Settings, show_progress: bool) -> io::Result<bool> {
    let only = match o.crc {
        Some(CrcAlgo::Named(v)) => Some(Sum::Crc(v)),
        // The argument parser refuses them first, as cksum does.
        Some(CrcAlgo::Cksum | CrcAlgo::Crc32b) => {
            return Err(io::Error::other(crate::crcalgo::CHECK_REFUSED));
        }
        None => o.algo_given.then_some(Sum::Hash(o.algo)),
    };
    let lists = o.files.clone();
    let from_stdin = lists.iter().any(|l| l == "-");
    let estimate = move |cancelled: &dyn Fn() -> bool| {
        let mut total = 0u64;
        for job in Lines::new(lists.clone(), Parser::new(only)) {
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
        let mut checker = Checker {
            o,
            out: Out::new(progress),
            progress,
            crc_buf: Vec::new(),
            ok: true,
            tally: Tally::default(),
        };
        // The jobs up to the first line of a family whose engine cannot
        // run; that family's error is said after the jobs before it.
        let mut checked = Vec::new();
        let mut refused = None;
        let mut lines = Lines::new(o.files.clone(), Parser::new(only));
        let jobs = std::iter::from_fn(|| {
            if refused.is_some() {
                return None;
            }
            let job = lines.next()?;
            if let CheckJob::Entry { algo, .. } = &job
                && let Some(e) = engine_error(*algo, &mut checked)
            {
                refused = Some(e);
                return None;
            }
            Some(job)
        });
        // Families are given no engine: each runs its configured one, which
        // is checked above before its first job.
        let service = HashService::builder();
        streams::run(service, o.algo, settings, jobs, progress, |job, outcome| {
            checker.report(job, outcome)
        })?;
        if let Some(e) = refused {
            checker.out.flush()?;
            say(&e);
            checker.ok = false;
        }
        checker.out.flush().map(|()| checker.ok)
    })
}

/// A line's computed digest.
enum Got {
    /// A hash's.
    Hash(Digest),
    /// A CRC's big-endian bytes: the last `.1` of `.0`.
    Crc([u8; 8], usize),
}

impl Got {
    fn bytes(&self) -> &[u8] {
        match self {
            Got::Hash(d) => d.as_bytes(),
            Got::Crc(b, n) => &b[8 - n..],
        }
    }
}

/// The state of a check run: the output, the verdict so far, and the
/// counts of the list being read.
struct Checker<'o, 'p> {
    o: &'o Options,
    out: Out<'p>,
    progress: &'p progress::Progress,
    /// The read buffer of CRC lines' files (allocated at the first).
    crc_buf: Vec<u8>,
    ok: bool,
    tally: Tally,
}

impl Checker<'_, '_> {
    /// Reports one job.
    fn report(
        &mut self,
        job: CheckJob,
        outcome: Option<io::Result<Hashed<Digest>>>,
    ) -> io::Result<()> {
        let o = self.o;
        let out = &mut self.out;
        let tally = &mut self.tally;
        match job {
            CheckJob::OpenFailed { list, err } => {
                self.ok = false;
                out.error(&format!(
                    "{}: {}",
                    names::quote(&list),
                    names::describe(&err)
                ))
            }
            CheckJob::Misformatted { list, line, what } => {
                tally.misformatted += 1;
                if o.report == Report::Warn {
                    out.error(&format!("{}: {line}: {what}", names::quote(&list)))?;
                }
                Ok(())
            }
            CheckJob::Entry {
                expected,
                name,
                algo,
                source,
            } => {
                tally.properly_formatted = true;
                let outcome = match algo {
                    Sum::Hash(_) => outcome.map(|r| r.map(|h| (Got::Hash(h.digest), h.changed))),
                    Sum::Crc(v) => {
                        if self.crc_buf.is_empty() {
                            self.crc_buf = vec![0; 1 << 20];
                        }
                        let crc = crcsum::crc_of_source(
                            CrcAlgo::Named(v),
                            &source,
                            &mut self.crc_buf,
                            self.progress,
                        );
                        let width = usize::from(v.spec().width).div_ceil(8);
                        Some(crc.map(|(crc, _)| (Got::Crc(crc.to_be_bytes(), width), false)))
                    }
                };
                let verdict: &[u8] = match outcome {
                    Some(Ok((got, changed))) => {
                        if changed {
                            self.ok = false;
                            out.error(&changed_warning(&name))?;
                        }
                        if matches(&expected, got.bytes()) {
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
                    Some(Err(e)) if o.ignore_missing && e.kind() == io::ErrorKind::NotFound => {
                        return Ok(());
                    }
                    Some(Err(e)) => {
                        tally.unreadable += 1;
                        out.error(&format!("{}: {}", names::quote(&name), names::describe(&e)))?;
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
                let t = std::mem::take(tally);
                let list = names::quote(&list);
                if read_error {
                    self.ok = false;
                    return out.error(&format!("{list}: read error"));
                }
                if !t.properly_formatted {
                    self.ok = false;
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
                self.ok &= t.mismatched == 0
                    && t.unreadable == 0
                    && (!o.strict || t.misformatted == 0)
                    && (!o.ignore_missing || t.matched);
                Ok(())
            }
        }
    }
}
