//! The command line's inputs hashed by the core's reader of files
//! ([`mbhash_core::files`]), their outcomes handed on in job order.
//!
//! What is the command line's own: standard input, opened by
//! [`open_stdin`] for the reader, and read once ([`StdinOnce`]); the
//! progress bar, fed with the bytes read.

use std::io::{self, Read};

use mbhash_core::Algo;
use mbhash_core::alg::Algorithm;
use mbhash_core::files::Run;
pub use mbhash_core::files::{Hashed, Job, Outcome, Settings, Source};
use mbhash_core::service;

use crate::progress::Progress;
use mbhash_core::engine::FamilyEngine;

/// The engine type of an algorithm.
pub type EngineOf<A> = <<A as Algorithm>::Family as FamilyEngine>::Engine;

/// Hands out standard input to the first operand that names it; the later
/// ones get [`Source::StdinAgain`].
#[derive(Debug, Default)]
pub struct StdinOnce {
    taken: bool,
}

impl StdinOnce {
    /// The source for an operand `-`.
    pub fn take(&mut self) -> Source {
        if std::mem::replace(&mut self.taken, true) {
            Source::StdinAgain
        } else {
            Source::Stdin
        }
    }

    /// Marks standard input as read (by a checksum list).
    pub fn mark(&mut self) {
        self.taken = true;
    }
}

/// Opens standard input for an operand `-` ([`Source::Stdin`], and
/// [`Source::StdinAgain`], which reads as empty if standard input can be
/// read at all): a read error if descriptor 0 was closed or write-only at
/// start (`crate::stdin`).
fn open_stdin() -> io::Result<Box<dyn Read + Send>> {
    Ok(Box::new(crate::stdin::open()?))
}

/// Hashes every job's input, in its algorithm or else `algo`, and calls
/// `sink` with each job and its outcome, in job order. `sink` returning an
/// error stops the run and returns it.
///
/// `service` says the engines (given with [`service::Builder::engine_of`]);
/// a family given none runs its configured engine: the caller has checked
/// the engines of the families its jobs use.
pub fn run<T, I, F>(
    service: service::Builder,
    algo: Algo,
    settings: Settings,
    jobs: I,
    progress: &Progress,
    sink: F,
) -> io::Result<()>
where
    T: Job,
    I: Iterator<Item = T> + Send,
    F: FnMut(T, Outcome) -> io::Result<()>,
{
    Run::new(service, algo, settings)
        .stdin(&open_stdin)
        .progress(&|n| progress.add(n))
        .run(jobs, sink)
}
