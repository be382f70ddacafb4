//! A drop-in ABI for isa-l_crypto's multi-buffer SHA-256, SHA-512, MD5,
//! SHA-1 and SM3 (`sha256_mb.h`, `sha512_mb.h`, `md5_mb.h`, `sha1_mb.h`,
//! `sm3_mb.h`, versions 2.25 and 2.26 on 64-bit targets).
//!
//! A C program written for isa-l_crypto compiles unchanged against the
//! headers in `include/isa-l_crypto/` (hand-written, not generated: they
//! follow isa-l_crypto's include paths and macros) and links against
//! libmbhash instead of libisal_crypto. The exports are
//! `isal_<fam>_ctx_mgr_{init,submit,flush}` for `<fam>` in `sha256`,
//! `sha512`, `md5`, `sha1`, `sm3` (the 2.25 API: `int` error codes, results
//! through `ctx_out`) and the deprecated `<fam>_ctx_mgr_{init,submit,flush}`
//! (which return the context or NULL).
//!
//! The layers are isa-l_crypto's:
//!
//! * `layout`: the structures C sees, byte for byte as isa-l_crypto lays
//!   them out (a job at offset 0 of each context; the manager's size), and
//!   our own lane state inside the manager's memory;
//! * `lanes`: the job manager ("scheduler"): jobs of whole blocks in SIMD
//!   lanes, on the lane scheduler of `mbhash-core`
//!   ([`LaneSet`](mbhash_core::lanes::LaneSet)), on the family's default
//!   engine read at every call (`api::engine`: what `mbh_set_engine` set,
//!   else the environment's; without `std`, looked up once, `engine_cell`);
//! * `ctx`: the context layer: flags, errors, partial blocks and padding
//!   in the context's `partial_block_buffer`, exactly as isa-l_crypto does;
//! * `api`: the exports, their argument checks and panic boundaries.
//!
//! Everything lives in caller memory: that API has no free call.
//!
//! Soundness: contexts, managers and data are C objects reached through
//! raw pointers. Each export checks its pointers (non-NULL, aligned to 8,
//! an initialised manager) before it makes a reference; references to a
//! context last only while no lane can read it, and the lane manager keeps
//! raw pointers only. A context already in a lane is refused whatever its
//! status field says, so no context is ever in two lanes. Memory handed over
//! by C is taken as initialised: the fields read before they are written
//! (`status`, `error`, `total_length`, `partial_block_buffer_length` and the
//! partial block of an open stream) are those that `hash_ctx_init` and a
//! `FIRST` submit set up.

mod api;
mod ctx;
#[cfg(not(feature = "std"))]
mod engine_cell;
mod lanes;
mod layout;

/// `ISAL_HASH_FIRST`.
const HASH_FIRST: u32 = 1;
/// `ISAL_HASH_LAST`.
const HASH_LAST: u32 = 2;
/// `ISAL_HASH_ENTIRE`: the only bits a flags value may have.
const HASH_ENTIRE: u32 = 3;

/// `ISAL_HASH_CTX_STS_IDLE`.
const STS_IDLE: u32 = 0;
/// `ISAL_HASH_CTX_STS_PROCESSING`.
const STS_PROCESSING: u32 = 1;
/// `ISAL_HASH_CTX_STS_LAST`.
const STS_LAST: u32 = 2;
/// `ISAL_HASH_CTX_STS_COMPLETE`.
const STS_COMPLETE: u32 = 4;

/// `ISAL_HASH_CTX_ERROR_NONE`.
const ERROR_NONE: i32 = 0;
/// `ISAL_HASH_CTX_ERROR_INVALID_FLAGS`.
const ERROR_INVALID_FLAGS: i32 = -1;
/// `ISAL_HASH_CTX_ERROR_ALREADY_PROCESSING`.
const ERROR_ALREADY_PROCESSING: i32 = -2;
/// `ISAL_HASH_CTX_ERROR_ALREADY_COMPLETED`.
const ERROR_ALREADY_COMPLETED: i32 = -3;

/// `ISAL_STS_BEING_PROCESSED` (a job's status).
const JOB_BEING_PROCESSED: u32 = 1;
/// `ISAL_STS_COMPLETED` (a job's status).
const JOB_COMPLETED: u32 = 2;
