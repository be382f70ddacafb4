//! Engines: which kernels run a family's lanes, chosen at run time.
//!
//! This module is the one place that knows about instruction sets. Everything
//! else (the job manager, the hashers) asks an engine for its lane count and
//! calls `compress_lanes` / `compress_one`.
//!
//! Every family has an `auto` engine that picks, per kernel call, the
//! cheapest way to run the lanes that are busy: one wide SIMD pass, a few
//! narrow ones, or interleaved SHA-NI streams. The costs it compares are
//! measured on this CPU the first time `auto` is used (a calibration of well
//! under a millisecond), not assumed.
//!
//! An engine can be forced by name, through an API (`JobManager::with_engine`)
//! or an environment variable read once per process
//! (`MBHASH_SHA256_ENGINE`). An unknown or unsupported name is an
//! [`EngineError`] that lists the valid names; there is no silent fallback.

mod plan;
mod sha256;

pub use plan::{Plan, Step};
pub use sha256::{Sha256Engine, Sha256Kind};

use core::fmt;

use crate::alg::{Family, MAX_LANES};

/// What the job manager needs from an engine.
pub trait LaneEngine<F: Family>: Copy + fmt::Debug + Send + Sync + 'static {
    /// Lanes the manager fills before it runs kernels on a submit (at most
    /// [`MAX_LANES`]).
    fn lanes(&self) -> usize;

    /// Runs the lanes whose bit is set in `busy` over their blocks.
    ///
    /// Every one of the [`MAX_LANES`] lanes, busy or not, holds the same
    /// number of blocks (idle lanes point at some busy lane's blocks), so a
    /// kernel may run them all; the state of an idle lane is garbage after the
    /// call.
    fn compress_lanes(
        &self,
        states: &mut [[F::Word; 8]; MAX_LANES],
        blocks: &[&[F::Block]; MAX_LANES],
        busy: u32,
    );

    /// Runs a single stream (used by the one-stream hashers).
    fn compress_one(&self, state: &mut [F::Word; 8], blocks: &[F::Block]);

    /// The engine's name as accepted by `from_name`.
    fn name(&self) -> &'static str;

    /// The engine named by the family's environment variable, or `auto`.
    ///
    /// # Errors
    /// When the variable names an unknown or unsupported engine.
    fn configured() -> Result<Self, EngineError>;
}

/// Why an engine name was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EngineErrorKind {
    /// No engine has this name.
    Unknown,
    /// The engine exists but this CPU (or `MBHASH_DISABLE`) does not allow it.
    Unsupported,
}

/// An engine name that cannot be used, with the names that can.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EngineError {
    /// The algorithm family, e.g. `"sha256"`.
    pub family: &'static str,
    /// The name that was asked for.
    pub name: String,
    /// Unknown or unsupported.
    pub kind: EngineErrorKind,
    /// Every engine name of the family.
    pub valid: Vec<&'static str>,
    /// The names this CPU supports.
    pub supported: Vec<&'static str>,
    /// Where the name came from, e.g. `"MBHASH_SHA256_ENGINE"`, if not an API call.
    pub source: Option<&'static str>,
}

impl fmt::Display for EngineError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let what = match self.kind {
            EngineErrorKind::Unknown => "unknown",
            EngineErrorKind::Unsupported => "unsupported on this CPU",
        };
        write!(f, "{} engine '{}' is {what}", self.family, self.name)?;
        if let Some(src) = self.source {
            write!(f, " (from {src})")?;
        }
        write!(
            f,
            "; valid engines: {}; supported here: {}",
            self.valid.join(", "),
            self.supported.join(", ")
        )
    }
}

impl std::error::Error for EngineError {}

/// Reads an engine name from `var`; `None` when unset or empty.
fn env_name(var: &str) -> Option<String> {
    std::env::var(var)
        .ok()
        .map(|v| v.trim().to_ascii_lowercase())
        .filter(|v| !v.is_empty())
}
