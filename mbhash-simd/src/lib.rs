//! Hash kernels for mbhash: the only crate in the workspace that names
//! `core::arch`.
//!
//! One module per family: the hashes [`sha256`], [`sha512`] and [`md5`],
//! and the checksum [`crc32c`].
//!
//! Every kernel follows one narrow contract: it compresses *whole blocks*
//! into one or more chaining states, the same number of blocks in every
//! lane. Kernels know nothing about message lengths, padding or jobs; that is
//! `mbhash-core`'s business.
//!
//! A SIMD kernel is reachable only through a *proof token*: a zero-sized value
//! such as [`sha256::Avx2x8`] whose constructor `new()` returns `Some` only
//! after run-time detection found the CPU features it needs. Holding the token
//! is what makes the (safe) `compress` call sound. On targets other than
//! x86-64 the tokens are uninhabited, so code that dispatches over them needs
//! no `#[cfg]`.
//!
//! Every SIMD kernel file has one shape. The file is named after the ISA and
//! the lane count (`avx512_x16.rs`; `shani.rs` serves several lane counts)
//! and its token after the file (`Avx512x16`). `new()` is the only
//! constructor of the token; each `Compress<N>` impl is one `unsafe` call
//! into `x86::compress(token, states, blocks)`, the only function compiled
//! with `#[target_feature]`, which checks the block counts itself. The
//! word-sliced lane kernels write their rounds once per family, in
//! `multilane`, over a `Vector` trait that each kernel implements for a
//! private wrapper of its register type: only the token creates values of
//! it, so every value proves the CPU features and the round code is safe.
//!
//! ```
//! use mbhash_simd::sha256::{self, Compress};
//! let mut state = sha256::IV;
//! let block = [0u8; 64];
//! sha256::scalar::compress(&mut state, &[block]);
//! if let Some(k) = sha256::Avx2x8::new() {
//!     let mut lanes = [sha256::IV; 8];
//!     let one = [block];
//!     let blocks = [&one[..]; 8];
//!     let [a, b, c, d, e, f, g, h] = &mut lanes;
//!     k.compress([a, b, c, d, e, f, g, h], blocks);
//!     assert!(lanes.iter().all(|l| *l == state));
//! }
//! ```
#![cfg_attr(docsrs, feature(doc_cfg))]
#![cfg_attr(not(any(feature = "std", test)), no_std)]

pub mod cpu;

/// Returns the common block count of the lanes' `blocks`, panicking if they
/// differ (a bug in the caller; kernels never read past a slice).
#[inline(always)]
#[allow(dead_code)] // used by the SIMD kernels, which are x86-64 only
pub(crate) fn common_len<B, const N: usize>(blocks: &[&[B]; N]) -> usize {
    let n = blocks[0].len();
    assert!(
        blocks.iter().all(|b| b.len() == n),
        "every lane must hold the same number of blocks"
    );
    n
}
pub mod crc;
pub mod crc32c;
pub mod md5;
pub mod sha1;
pub mod sha256;
pub mod sha512;
pub mod sm3;

/// Stops the program at once: an invalid-opcode trap (`ud2`) on x86-64, a
/// spin loop elsewhere. For a `no_std` panic handler (the kernel-style C
/// library), which has no process to abort and must not unwind.
#[inline(always)]
pub fn trap() -> ! {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: `ud2` touches no memory, registers or flags; it raises #UD,
    // so control never comes back here (hence `noreturn`).
    unsafe {
        core::arch::asm!("ud2", options(noreturn, nomem, nostack))
    }
    #[cfg(not(target_arch = "x86_64"))]
    loop {
        core::hint::spin_loop();
    }
}
