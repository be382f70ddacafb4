//! The kernel-style library: what a kernel caller must know (on
//! [`MBH_KERNEL_STACK_MAX`], so that cbindgen copies it into the header),
//! and the panic handler and personality routine of the `no_std` build.

/// The most stack, in bytes, that any one call into the kernel-style library
/// uses: the return address and every frame below it. Measured by
/// `mbhash-ffi/kernel/check.sh` on every export, algorithm and engine: at
/// most 4160 bytes (`mbh_submit`; `isal_sha512_ctx_mgr_submit` 4008,
/// `mbh_flush` 3920 and `isal_sha512_ctx_mgr_flush` 3848, the others, the
/// isa-l_crypto drop-in's MD5, SHA-1 and SM3 managers included, under
/// 3300);
/// this bound leaves a third more for other compilers' inlining, and the
/// check fails above it.
///
/// Kernel-style use: the static library built without the `std` feature,
/// for callers such as an OS kernel's storage stack (an SPL-like layer):
///
/// - Build it with one command, `mbhash-ffi/kernel/build.sh`, which prints
///   the archive's path (`target/kernel-lib/kernel/libmbhash.a`). It is
///   `no_std`: no allocator, no thread-local storage, no C library.
/// - It needs only `memcpy`, `memset`, `memmove`, `memcmp` and `bcmp` from
///   the caller (`bcmp` is `memcmp` reduced to equal / not equal, which the
///   compiler emits for comparisons). It defines `rust_eh_personality`, a
///   trap that is never called (nothing unwinds).
/// - Save and restore the FPU/SIMD state around every call (Linux
///   `kernel_fpu_begin()` / `kernel_fpu_end()`, FreeBSD `fpu_kern_enter()` /
///   `fpu_kern_leave()`): the kernels use SSE, AVX2, AVX-512 and SHA-NI
///   registers, and the rest of the code SSE registers.
/// - No call blocks, sleeps, allocates or takes a lock. A submit that fills
///   the lanes, or a flush, hashes until a job finishes: submit bounded
///   chunks (e.g. 64 KiB) to bound the time spent between `_fpu_begin` and
///   `_fpu_end`.
/// - Managers and contexts live in the caller's memory: `mbh_manager_init`
///   (or `mbh_manager_init_with_engine`) ... `mbh_manager_fini`, and
///   `mbh_ctx_init`; the isa-l_crypto compatible functions too. Not in this
///   library: `mbh_manager_new`, `mbh_manager_new_with_engine`,
///   `mbh_manager_free`, `mbh_hash_many` and `mbh_hash_many_with_engine`.
/// - CRCs: every `mbh_crc32c*` and `mbh_crc*` function and the ISA-L CRC
///   drop-in (`crc32_iscsi`, `crc16_t10dif`, `crc64_*`, ...) are in it, on
///   the same kernels as in the `std` library.
/// - Engines: the default is `auto` on default costs (no environment
///   variables are read; for the CRCs, the widest kernel the CPU has);
///   `mbh_manager_init_with_engine` names one, `mbh_set_engine` sets a
///   family's default (`MBH_CRC32C` and `MBH_CRC` included). CPU
///   features are detected with CPUID and XGETBV at first use and cached in
///   atomics.
/// - A panic (a bug in mbhash) executes `ud2`: an invalid-opcode trap.
pub const MBH_KERNEL_STACK_MAX: usize = 6144;

/// The most stack, in bytes, that `mbh_pool_hash` uses: the combining
/// caller keeps a job manager on its stack (its contexts live in the pool).
/// Measured by `mbhash-ffi/kernel/check.sh`, alone and with another
/// thread's jobs joining the lanes: 5160 bytes, within
/// `MBH_KERNEL_STACK_MAX` today; the check fails above this bound.
/// Call it from threads with 10 KiB of stack to spare (a storage stack's
/// worker threads), not from interrupt context. Unlike the
/// rest of the library, `mbh_pool_hash` may sleep and takes the host's
/// locks, through the pool's `mbh_pool_ops`.
pub const MBH_KERNEL_POOL_STACK_MAX: usize = 10240;

/// Without `std` (the kernel-style library, built with `panic = "abort"`), a
/// panic (a bug in mbhash) stops the machine where it is: an invalid-opcode
/// trap, which a kernel reports as an oops with the faulting address.
#[cfg(all(not(feature = "std"), not(test), panic = "abort"))]
#[panic_handler]
fn panic(_: &core::panic::PanicInfo<'_>) -> ! {
    mbhash_simd::trap()
}

/// The personality routine named by the unwind tables of `core` and
/// `compiler_builtins`, which the toolchain ships built for unwinding. With
/// `panic = "abort"` nothing unwinds (a panic traps), so no unwinder ever
/// calls it; it exists so that the library links without one. It traps if
/// called.
#[cfg(all(not(feature = "std"), not(test), panic = "abort"))]
#[unsafe(no_mangle)]
extern "C" fn rust_eh_personality() -> ! {
    mbhash_simd::trap()
}
