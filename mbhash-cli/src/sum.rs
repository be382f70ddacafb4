//! `mbhash sum`: checksums of files, as coreutils' `sha256sum` family writes
//! and checks them, computed as independent streams of the multi-buffer
//! engine.

use std::ffi::OsString;
use std::io::{self, IsTerminal, Write};
use std::process::ExitCode;

use mbhash_core::engine::LaneEngine;
use mbhash_core::service::HashService;

use crate::args::{self, HELP, Options};
use crate::check;
use crate::names;
use crate::output::{Out, changed_warning, push_sum_line, say};
use crate::progress;
use crate::streams::{self, EngineOf, Settings};
use crate::walk::{self, Walk, What};
use mbhash_core::engine::HashAlgorithm;

/// The program name in messages.
pub const PROG: &str = "mbhash";

/// `mbhash sum ARGS...`.
pub fn main(args: &[OsString]) -> ExitCode {
    let mut o = match args::parse(args) {
        Ok(o) => o,
        Err(refusal) => {
            say(&refusal.msg);
            if refusal.usage {
                let _ = writeln!(
                    io::stderr(),
                    "Try '{PROG} sum --help' for more information."
                );
            }
            return ExitCode::FAILURE;
        }
    };
    if o.help || o.version {
        let text = if o.help {
            HELP.to_string()
        } else {
            format!("mbhash {}\n", env!("CARGO_PKG_VERSION"))
        };
        return match crate::output::Stdout::new().write_all(text.as_bytes()) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => crate::output::write_failed(&e),
        };
    }
    let named = !o.files.is_empty();
    if o.files.is_empty() {
        o.files.push("-".into());
    }
    let result = if o.check {
        check::run(&o, settings(&o), show_progress(&o))
    } else if let Some(crc) = o.crc {
        crate::crcsum::run(&o, crc, named, show_progress(&o))
    } else {
        mbhash_core::with_algo!(o.algo, A => run::<A>(&o))
    };
    // Last, as coreutils closes it: a standard input read while closed.
    let stdin = crate::stdin::close_error();
    if let Some(e) = &stdin {
        say(&format!("standard input: {}", names::describe(e)));
    }
    match result {
        Ok(true) if stdin.is_none() => ExitCode::SUCCESS,
        Ok(_) => ExitCode::FAILURE,
        Err(e) => crate::output::write_failed(&e),
    }
}

fn threads(o: &Options) -> usize {
    o.jobs.unwrap_or_else(|| {
        std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(1)
    })
}

/// How the hashing is spread.
fn settings(o: &Options) -> Settings {
    Settings {
        no_cache: o.no_cache,
        warn_changed: o.warn_changed,
        ..Settings::new(threads(o))
    }
}

/// Whether a progress bar may show.
fn show_progress(o: &Options) -> bool {
    !o.no_progress && io::stderr().is_terminal()
}

/// Runs sum mode; `Ok(false)` when some file failed.
fn run<A: HashAlgorithm>(o: &Options) -> io::Result<bool> {
    let engine = match EngineOf::<A>::try_configured() {
        Ok(e) => e,
        Err(e) => {
            say(&e.to_string());
            return Ok(false);
        }
    };
    let settings = settings(o);
    let show = show_progress(o);
    let files = o.files.clone();
    let recursive = o.recursive;
    let estimate =
        move |cancelled: &dyn Fn() -> bool| walk::total_size(&files, recursive, cancelled);
    progress::with_progress(show, Some(&estimate), |progress| {
        let mut out = Out::new(progress);
        let mut ok = true;
        let inputs = Walk::new(o.files.clone(), o.recursive);
        let service = HashService::builder().engine_of::<A>(engine);
        let r = streams::run(
            service,
            A::ALGO,
            settings,
            inputs,
            progress,
            |input, outcome| {
                let err = match (outcome, input.what) {
                    (Some(Ok(hashed)), _) => {
                        push_sum_line(out.line(), o, &input.name, hashed.digest.as_bytes());
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
                        return out
                            .error(&format!("{}: skipped: {why}", names::quote(&input.name)));
                    }
                    (None, What::Hash(_)) => return Ok(()),
                };
                ok = false;
                out.error(&format!(
                    "{}: {}",
                    names::quote(&input.name),
                    names::describe(&err)
                ))
            },
        );
        r.and_then(|()| out.flush()).map(|()| ok)
    })
}
