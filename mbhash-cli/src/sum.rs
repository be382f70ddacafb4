//! `mbhash sum`: checksums of files, as coreutils' `sha256sum` family writes
//! and checks them, computed as independent streams of the multi-buffer
//! engine.

use std::ffi::OsString;
use std::io::{self, IsTerminal, Write};
use std::process::ExitCode;

use mbhash_core::alg::Algorithm;
use mbhash_core::engine::LaneEngine;

use crate::args::{self, HELP, Options};
use crate::check;
use crate::names;
use crate::output::{Out, changed_warning, push_hex, say};
use crate::progress;
use crate::streams::{self, EngineOf, Settings};
use crate::walk::{self, Walk, What};

/// The program name in messages.
pub const PROG: &str = "mbhash";

/// `mbhash sum ARGS...`.
pub fn main(args: &[OsString]) -> ExitCode {
    let mut o = match args::parse(args) {
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
