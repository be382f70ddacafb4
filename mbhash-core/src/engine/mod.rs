//! Engines: which kernels run a family's lanes, chosen at run time.
//!
//! This module is the one place that knows about instruction sets. Everything
//! else (the job manager, the hashers) asks an engine for its lane count and
//! calls `compress_lanes` / `compress_one`.
//!
//! Every family has an `auto` engine that picks, per kernel call, the
//! cheapest way to run the lanes that are busy: one wide SIMD pass, a few
//! narrow ones, or interleaved SHA-NI streams. The costs it compares are
//! measured on this CPU the first time `auto` is used (a calibration of about
//! half a millisecond per family that a busy machine does not sway: see
//! `calibrate.rs`), not assumed.
//!
//! An engine can be forced by name, through an API (`JobManager::with_engine`)
//! or an environment variable read once per process
//! (`MBHASH_SHA256_ENGINE`, `MBHASH_SHA512_ENGINE`). An unknown or unsupported
//! name is an [`EngineError`] that lists the valid names; there is no silent
//! fallback.
//!
//! ```
//! use mbhash_core::engine::Sha256Engine;
//! let scalar = Sha256Engine::from_name("scalar").unwrap();
//! assert_eq!(scalar.name(), "scalar");
//! let err = Sha256Engine::from_name("sha3").unwrap_err();
//! assert!(err.to_string().contains("valid engines: auto, scalar"));
//! ```

#[cfg(feature = "std")]
mod calibrate;
mod kernels;
mod lanes_engine;
mod md5;
mod plan;
mod registry;
mod sha1;
mod sha256;
mod sha512;
mod sm3;

#[cfg(feature = "std")]
pub use crate::select::from_env;
pub use crate::select::{EngineError, EngineErrorKind, EngineNames};
pub(crate) use kernels::kernel_cells;
pub use kernels::{Kernels, Single, SingleStream};
pub use lanes_engine::Engine;
pub use md5::Md5Kernels;
pub use plan::{NarrowSplit, Plan, Step};
pub use registry::*;
pub use sha1::Sha1Kernels;
pub use sha256::Sha256Kernels;
pub use sha512::Sha512Kernels;
pub use sm3::Sm3Kernels;

use core::fmt;

use crate::alg::{Algorithm, Family};
use lanes_engine::group_arrays;

/// A family's engines: what a family of the catalogue
/// ([`Family`], words and blocks only) runs on. Implemented for every
/// family, from the catalogue.
pub trait FamilyEngine: Family {
    /// The engine type that runs this family's kernels.
    type Engine: LaneEngine<Self>;
    /// The family's engines, default and environment variable.
    const ENGINE_FAMILY: EngineFamily;
}

/// An [`Algorithm`] whose family has engines ([`FamilyEngine`]): every
/// algorithm of the catalogue. What the managers, hashers and services are
/// generic over.
pub trait HashAlgorithm: Algorithm<Family: FamilyEngine> {}

impl<A: Algorithm> HashAlgorithm for A where A::Family: FamilyEngine {}

/// What the job manager needs from an engine.
pub trait LaneEngine<F: Family>: Copy + fmt::Debug + Send + Sync + 'static {
    /// Lanes the manager fills before it runs kernels on a submit (at most
    /// [`MAX_LANES`](crate::alg::MAX_LANES)).
    fn lanes(&self) -> usize;

    /// Runs the lanes whose bit is set in `busy` over their blocks.
    ///
    /// `states` and `blocks` have one entry per lane, any number of lanes
    /// up to [`MAX_LANES`](crate::alg::MAX_LANES); `busy` names lanes below that number. Every
    /// lane, busy or not, holds the same number of blocks (idle lanes point
    /// at some busy lane's blocks), so a kernel may run them all; the state
    /// of an idle lane is garbage after the call.
    fn compress_lanes(&self, states: &mut [F::State], blocks: &[&[F::Block]], busy: u32);

    /// Runs the lanes whose bit is set in `busy`, lane `i` over
    /// `blocks_of(i)` (the same number of blocks in every busy lane), if
    /// the engine runs them lane by lane (one-stream or few-stream kernels,
    /// whose calls touch only busy lanes), and returns true; returns false,
    /// having done nothing, if they take a wide kernel (the caller then
    /// builds every lane's blocks for [`LaneEngine::compress_lanes`]).
    /// `states` covers every lane of `busy`. A round of a few short jobs
    /// on SHA-NI spends a good part of its time on those arrays otherwise.
    #[inline]
    fn compress_sparse<'b>(
        &self,
        states: &mut [F::State],
        blocks_of: impl Fn(usize) -> &'b [F::Block],
        busy: u32,
    ) -> bool {
        let _ = (states, blocks_of, busy);
        false
    }

    /// Runs a single stream.
    fn compress_one(&self, state: &mut F::State, blocks: &[F::Block]);

    /// The engine's one-stream kernel as a value of a few bytes: what a
    /// one-stream hasher keeps (an engine, with its plan for every lane
    /// count, is over a hundred bytes to copy).
    type Single: SingleStream<F>;

    /// This engine's one-stream kernel.
    fn single(&self) -> Self::Single;

    /// The configured engine's one-stream kernel: `configured().single()`,
    /// without building the whole engine.
    fn configured_single() -> Self::Single;

    /// The engine's name as accepted by `from_name`.
    fn name(&self) -> &'static str;

    /// The family's engine with this name.
    ///
    /// # Errors
    /// Unknown or unsupported names; the error lists the valid ones.
    fn from_name(name: &str) -> Result<Self, EngineError>;

    /// True if the family's engine with this name runs on this CPU.
    fn is_supported(name: &str) -> bool;

    /// Every engine name of the family, `auto` first.
    fn names() -> impl Iterator<Item = &'static str>;

    /// The engine as a value of the one type of every family's engines.
    fn into_any(self) -> AnyEngine;

    /// The engine in `any`, if it is one of this family's.
    fn from_any(any: AnyEngine) -> Option<Self>;

    /// The engine named by the family's environment variable, or `auto`
    /// when it is unset.
    ///
    /// # Errors
    /// When the variable names an unknown or unsupported engine.
    fn try_configured() -> Result<Self, EngineError>;

    /// The engine named by the family's environment variable; `auto` when
    /// it is unset or names an engine that cannot run (that error is
    /// [`LaneEngine::try_configured`]'s). Never panics, never prints.
    fn configured() -> Self;

    /// [`LaneEngine::try_configured`], kept for the process (see
    /// [`Engine::configured_static`]).
    #[cfg(feature = "std")]
    fn configured_static() -> &'static Result<Self, EngineError>;

    /// The process's calibrated `auto` engine.
    #[cfg(feature = "std")]
    fn auto_static() -> &'static Self;

    /// The physical floor of a hasher that many streams share on this
    /// engine, against one stream by itself (see
    /// [`Engine::floor_vs_one_stream`]).
    #[cfg(feature = "std")]
    fn floor_vs_one_stream(&self) -> f32;
}
