//! The C ABI of mbhash: `libmbhash.so`, `libmbhash.a` and `include/mbhash.h`.
//!
//! The header is generated from this crate by cbindgen (`cbindgen.toml`) and
//! committed; a test regenerates it and fails on any difference. Everything
//! the C caller sees is documented on the items below and copied into the
//! header.
//!
//! Conventions (the rustls-ffi model):
//!
//! * Every fallible function returns an [`mbh_result`]; [`mbh_result_str`]
//!   turns a code into text. Codes are never reused.
//! * Outputs go through out-parameters, written only on success.
//! * A buffer pointer is followed by its length; the pointer may be NULL only
//!   when the length is 0. Any other NULL pointer argument is
//!   [`mbh_result::MBH_NULL_ARGUMENT`].
//! * Handles live in caller memory ([`mbh_ctx`], and [`mbh_manager`] with
//!   `mbh_manager_init`) or on the heap (`mbh_manager_new` /
//!   `mbh_manager_free`); sizes and alignments are constants.
//! * Every export is wrapped in a panic boundary: a Rust panic becomes
//!   [`mbh_result::MBH_PANIC`], never an unwind into C.
//!
//! Two builds: the default one (feature `std`) for programs, and without
//! `std` the kernel-style library (`kernel/build.sh`, profile `kernel`): the
//! crate is then `no_std`, allocates nothing, leaves out what needs the heap
//! (`mbh_manager_new` / `_free`, `mbh_hash_many*`, `mbh_crc*`, the ISA-L
//! CRC drop-in), and a
//! panic traps instead of becoming `MBH_PANIC` (see [`MBH_KERNEL_STACK_MAX`]
//! for the rest).
//!
//! Soundness at the boundary: the Rust [`mbhash_core::JobManager`] borrows
//! contexts and data for its lifetime. Here the manager is given `'static`
//! references made from the caller's pointers, under the documented
//! contract (a context and its data stay valid and untouched until the
//! context comes back from `mbh_submit` or `mbh_flush`). A context carries an
//! atomic in-flight flag outside the Rust context; `mbh_submit` wins that flag
//! before it makes the one `&mut` reference, so a context in flight is refused
//! and never aliased. Every other function that reads the Rust context checks
//! the flag first.

#![cfg_attr(docsrs, feature(doc_cfg))]
#![cfg_attr(not(any(feature = "std", test)), no_std)]
#![allow(non_camel_case_types)]

// Without `std` the code is written against `core` alone. The kernel-style
// build (profile `kernel`: `panic = "abort"`) links nothing else. A build
// without `std` that unwinds on panic (the dev profile, e.g. `cargo clippy
// --no-default-features`) cannot link its static and shared libraries
// without an unwinding runtime, which only `std` has: such a build links
// `std` for that, and nothing else of it is used (its prelude stays out).
#[cfg(all(not(feature = "std"), not(test), panic = "unwind"))]
extern crate std;

mod alg;
mod boundary;
mod crc;
mod crc32c;
mod ctx;
mod engine;
/// cbindgen:ignore
#[cfg(target_pointer_width = "64")]
mod isal;
/// cbindgen:ignore
#[cfg(target_pointer_width = "64")]
mod isal_crc;
mod kernel;
mod manager;
#[cfg(feature = "std")]
mod many;
mod pool;
#[cfg(feature = "std")]
mod service;
#[cfg(feature = "std")]
mod verity;

pub use alg::*;
pub use boundary::{mbh_result, mbh_result_str};
pub use crc::*;
pub use crc32c::*;
pub use ctx::*;
pub use engine::*;
pub use kernel::*;
pub use manager::*;
#[cfg(feature = "std")]
pub use many::*;
pub use pool::*;
#[cfg(feature = "std")]
pub use service::*;
#[cfg(feature = "std")]
pub use verity::*;

use core::ffi::c_char;

/// The library version, e.g. `"0.1.0"`, as a static NUL-terminated string.
///
/// # Safety
/// None: callable at any time. The string is never freed.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mbh_version() -> *const c_char {
    concat!(env!("CARGO_PKG_VERSION"), "\0").as_ptr().cast()
}
