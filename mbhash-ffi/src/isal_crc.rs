//! A drop-in ABI for ISA-L's CRC functions (`include/isa-l/crc.h` and
//! `crc64.h`, hand-written at ISA-L's include paths): the thirteen
//! functions ISA-L dispatches by CPU (`crc16_t10dif`, `crc16_t10dif_copy`,
//! `crc32_ieee`, `crc32_gzip_refl`, `crc32_iscsi`,
//! `crc64_{ecma,iso,jones,rocksoft}_{refl,norm}`) and their `*_base` forms,
//! with ISA-L's names, signatures and seed conventions, so that a program
//! written for ISA-L's CRCs links against libmbhash instead of libisal.
//!
//! Each function is the core's register-level update
//! ([`crc::update_register`]) of the variant with the same polynomial and
//! reflection, with ISA-L's seed handling around it: `crc16_t10dif` and
//! `crc32_iscsi` take and return the register itself, every other one the
//! register inverted (`~seed` in, `~register` out). The `*_base` forms run
//! the table engine (ISA-L's `*_base` are its portable code), the others
//! the configured engine.
//!
//! ISA-L's functions return no error code, so the misuses it would crash
//! on are defined here instead: a NULL buffer (or, for the copy, a NULL
//! source or destination) is read as no bytes and gives the seed back; a
//! length over `PTRDIFF_MAX`, which no buffer can have, likewise; a
//! negative `crc32_iscsi` length is 0 (as ISA-L's base code takes it).
//! `crc16_t10dif_copy` with overlapping buffers gives the CRC of the source
//! as it was and copies as `memmove` does. A Rust panic (a bug) aborts
//! rather than return a wrong CRC.

use core::ffi::{c_int, c_uint};

use mbhash_core::crc::{self, Crc, CrcEngine, CrcKernel, Variant};

/// Runs `f`; a panic in it (a bug in mbhash: nothing here panics on any
/// input) aborts the process after the panic hook has printed it. These
/// functions have no error code, and returning some value would hand the
/// caller a wrong CRC, which it would store or compare as a good one.
///
/// No `catch_unwind` is needed for that, and none is paid for on every
/// call: every caller is an `extern "C"` function, out of which a panic
/// cannot unwind; the language aborts the process there (since Rust
/// 1.81; the workspace needs 1.89).
#[inline(always)]
fn or_abort<T>(f: impl FnOnce() -> T) -> T {
    f()
}

/// The buffer of a C pointer and length, or `None` for a NULL pointer or
/// a length no buffer can have (the caller gets its seed back).
///
/// # Safety
/// A non-NULL `ptr` is readable for `len` bytes, unchanged during the call.
unsafe fn buffer<'a>(ptr: *const u8, len: u64) -> Option<&'a [u8]> {
    // The length first, then NULL: a valid buffer passes two tests.
    if len > isize::MAX as u64 {
        return None;
    }
    if ptr.is_null() {
        return if len == 0 { Some(&[]) } else { None };
    }
    // SAFETY: non-NULL, at most isize::MAX bytes, readable (the caller's
    // contract).
    Some(unsafe { core::slice::from_raw_parts(ptr, len as usize) })
}

/// How a function treats its seed.
#[derive(Clone, Copy)]
enum Seed {
    /// The register itself (`crc16_t10dif`, `crc32_iscsi`).
    Raw,
    /// Inverted in and out (the others).
    Inverted,
}

/// The engine a function runs.
#[derive(Clone, Copy)]
enum Run {
    /// The configured engine (the multi-binary functions).
    Configured,
    /// The table engine (the `*_base` functions).
    Table,
}

/// The register of `v` advanced over `data` from ISA-L's `seed`.
#[inline(always)]
fn isal(v: Variant, seed: Seed, run: Run, seed_value: u64, data: &[u8]) -> u64 {
    let spec = v.spec();
    let mask = spec.mask();
    let reg = match seed {
        Seed::Raw => seed_value & mask,
        Seed::Inverted => !seed_value & mask,
    };
    let out = match run {
        // The variant's own specialisation (`v` is a constant in each
        // function below).
        Run::Configured => v.update_register(reg, data),
        Run::Table => match CrcKernel::new_for(spec, CrcEngine::Table) {
            Ok(k) => k.update_register(v.consts(), reg, data),
            // The table engine runs on every CPU.
            Err(_) => crc::update_register(spec, reg, data),
        },
    };
    match seed {
        Seed::Raw => out & mask,
        Seed::Inverted => !out & mask,
    }
}

/// The body of the `(seed, buf, len)` functions: ISA-L's value, or the
/// seed for a buffer that cannot be read.
///
/// # Safety
/// A non-NULL `buf` is readable for `len` bytes.
#[inline(always)]
unsafe fn call(v: Variant, seed: Seed, run: Run, seed_value: u64, buf: *const u8, len: u64) -> u64 {
    // SAFETY: forwarded contract.
    match unsafe { buffer(buf, len) } {
        Some(data) => or_abort(|| isal(v, seed, run, seed_value, data)),
        None => seed_value,
    }
}

/// Defines `(seed, buf, len)` functions of ISA-L's shape.
macro_rules! isal_fns {
    ($($(#[$doc:meta])* $name:ident, $t:ty, $buf:ty, $variant:ident, $seed:ident, $run:ident;)*) => {$(
        $(#[$doc])*
        ///
        /// # Safety
        /// `buf` is NULL or readable for `len` bytes.
        #[unsafe(no_mangle)]
        pub unsafe extern "C" fn $name(init_crc: $t, buf: $buf, len: u64) -> $t {
            // SAFETY: forwarded contract.
            unsafe {
                call(Variant::$variant, Seed::$seed, Run::$run, u64::from(init_crc), buf as *const u8, len)
                    as $t
            }
        }
    )*};
}

isal_fns! {
    /// ISA-L's `crc16_t10dif`: CRC-16/T10-DIF, the register from `init_crc`.
    crc16_t10dif, u16, *const u8, Crc16T10Dif, Raw, Configured;
    /// ISA-L's `crc16_t10dif_base`: [`crc16_t10dif`] on the table engine.
    crc16_t10dif_base, u16, *mut u8, Crc16T10Dif, Raw, Table;
    /// ISA-L's `crc32_ieee`: CRC-32/BZIP2 continued from `init_crc`.
    crc32_ieee, u32, *const u8, Crc32Bzip2, Inverted, Configured;
    /// ISA-L's `crc32_ieee_base`: [`crc32_ieee`] on the table engine.
    crc32_ieee_base, u32, *mut u8, Crc32Bzip2, Inverted, Table;
    /// ISA-L's `crc32_gzip_refl`: CRC-32/ISO-HDLC (zlib's `crc32`) continued
    /// from `init_crc`.
    crc32_gzip_refl, u32, *const u8, Crc32IsoHdlc, Inverted, Configured;
    /// ISA-L's `crc32_gzip_refl_base`: [`crc32_gzip_refl`] on the table engine.
    crc32_gzip_refl_base, u32, *mut u8, Crc32IsoHdlc, Inverted, Table;
    /// ISA-L's `crc64_ecma_refl`: CRC-64/XZ continued from `init_crc`.
    crc64_ecma_refl, u64, *const u8, Crc64Xz, Inverted, Configured;
    /// ISA-L's `crc64_ecma_norm`: CRC-64/WE continued from `init_crc`.
    crc64_ecma_norm, u64, *const u8, Crc64We, Inverted, Configured;
    /// ISA-L's `crc64_iso_refl`: CRC-64/GO-ISO continued from `init_crc`.
    crc64_iso_refl, u64, *const u8, Crc64GoIso, Inverted, Configured;
    /// ISA-L's `crc64_iso_norm`.
    crc64_iso_norm, u64, *const u8, Crc64IsoNorm, Inverted, Configured;
    /// ISA-L's `crc64_jones_refl`.
    crc64_jones_refl, u64, *const u8, Crc64JonesRefl, Inverted, Configured;
    /// ISA-L's `crc64_jones_norm`.
    crc64_jones_norm, u64, *const u8, Crc64JonesNorm, Inverted, Configured;
    /// ISA-L's `crc64_rocksoft_refl`: CRC-64/NVME continued from `init_crc`.
    crc64_rocksoft_refl, u64, *const u8, Crc64Nvme, Inverted, Configured;
    /// ISA-L's `crc64_rocksoft_norm`.
    crc64_rocksoft_norm, u64, *const u8, Crc64RocksoftNorm, Inverted, Configured;
    /// ISA-L's `crc64_ecma_refl_base`.
    crc64_ecma_refl_base, u64, *const u8, Crc64Xz, Inverted, Table;
    /// ISA-L's `crc64_ecma_norm_base`.
    crc64_ecma_norm_base, u64, *const u8, Crc64We, Inverted, Table;
    /// ISA-L's `crc64_iso_refl_base`.
    crc64_iso_refl_base, u64, *const u8, Crc64GoIso, Inverted, Table;
    /// ISA-L's `crc64_iso_norm_base`.
    crc64_iso_norm_base, u64, *const u8, Crc64IsoNorm, Inverted, Table;
    /// ISA-L's `crc64_jones_refl_base`.
    crc64_jones_refl_base, u64, *const u8, Crc64JonesRefl, Inverted, Table;
    /// ISA-L's `crc64_jones_norm_base`.
    crc64_jones_norm_base, u64, *const u8, Crc64JonesNorm, Inverted, Table;
    /// ISA-L's `crc64_rocksoft_refl_base`.
    crc64_rocksoft_refl_base, u64, *const u8, Crc64Nvme, Inverted, Table;
    /// ISA-L's `crc64_rocksoft_norm_base`.
    crc64_rocksoft_norm_base, u64, *const u8, Crc64RocksoftNorm, Inverted, Table;
}

/// The length of ISA-L's `int` argument: a negative one is 0.
fn iscsi_len(len: c_int) -> u64 {
    u64::try_from(len).unwrap_or(0)
}

/// ISA-L's `crc32_iscsi(buffer, len, init_crc)`: CRC-32C (Castagnoli), the
/// register from `init_crc` (seed `0xFFFFFFFF` and invert the result for
/// CRC-32/ISCSI). Note ISA-L's argument order.
///
/// # Safety
/// `buffer` is NULL or readable for `len` bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn crc32_iscsi(buffer: *mut u8, len: c_int, init_crc: c_uint) -> c_uint {
    // SAFETY: forwarded contract.
    unsafe {
        call(
            Variant::Crc32Iscsi,
            Seed::Raw,
            Run::Configured,
            u64::from(init_crc),
            buffer.cast_const(),
            iscsi_len(len),
        ) as c_uint
    }
}

/// ISA-L's `crc32_iscsi_base`: [`crc32_iscsi`] on the table engine.
///
/// # Safety
/// `buffer` is NULL or readable for `len` bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn crc32_iscsi_base(buffer: *mut u8, len: c_int, crc_init: c_uint) -> c_uint {
    // SAFETY: forwarded contract.
    unsafe {
        call(
            Variant::Crc32Iscsi,
            Seed::Raw,
            Run::Table,
            u64::from(crc_init),
            buffer.cast_const(),
            iscsi_len(len),
        ) as c_uint
    }
}

/// The body of `crc16_t10dif_copy` and its base form, inlined into each:
/// the usual call (the configured engine, disjoint buffers) straight to
/// the core's copying checksum, anything else in one out-of-line call, so
/// that the usual one keeps no stack frame for the others.
///
/// # Safety
/// As for [`crc16_t10dif_copy`].
#[inline(always)]
unsafe fn t10dif_copy(run: Run, seed: u16, dst: *mut u8, src: *const u8, len: u64) -> u16 {
    if len == 0 || dst.is_null() || src.is_null() || len > isize::MAX as u64 {
        return seed;
    }
    let n = len as usize;
    let (s, d) = (src as usize, dst as usize);
    let overlap = s < d.wrapping_add(n) && d < s.wrapping_add(n);
    if overlap || matches!(run, Run::Table) {
        // SAFETY: forwarded contract; `n` is `len`, at most isize::MAX.
        return unsafe { t10dif_copy_other(run, seed, dst, src, n, overlap) };
    }
    // SAFETY: disjoint (checked), readable and writable for `n` bytes
    // (the caller's contract).
    let (from, to) = unsafe {
        (
            core::slice::from_raw_parts(src, n),
            core::slice::from_raw_parts_mut(dst, n),
        )
    };
    let v = Variant::Crc16T10Dif;
    // The core's checksum while copying, the variant's own (a copy and
    // the variant's checksum when short, one pass where it runs the
    // 512-bit kernel). The register of CRC-16/T10-DIF is the CRC itself,
    // as `Seed::Raw` takes it.
    or_abort(|| (v.update_register_copy(u64::from(seed), to, from) & v.spec().mask()) as u16)
}

/// [`t10dif_copy`] for overlapping buffers (either engine) or, for the
/// base form, disjoint ones: `n` bytes, none of the pointers NULL.
///
/// # Safety
/// As for [`crc16_t10dif_copy`], with `n` at most `isize::MAX`.
#[inline(never)]
unsafe fn t10dif_copy_other(
    run: Run,
    seed: u16,
    dst: *mut u8,
    src: *const u8,
    n: usize,
    overlap: bool,
) -> u16 {
    or_abort(|| {
        let v = Variant::Crc16T10Dif;
        if overlap {
            // SAFETY: `src` is readable for `n` bytes (the caller's
            // contract); no reference to `dst` exists meanwhile.
            let value = isal(v, Seed::Raw, run, u64::from(seed), unsafe {
                core::slice::from_raw_parts(src, n)
            }) as u16;
            // SAFETY: both readable/writable for `n` bytes; `copy` allows
            // the overlap.
            unsafe { core::ptr::copy(src, dst, n) };
            return value;
        }
        // SAFETY: disjoint (checked by the caller), readable and writable
        // for `n` bytes (the caller's contract).
        let (from, to) = unsafe {
            (
                core::slice::from_raw_parts(src, n),
                core::slice::from_raw_parts_mut(dst, n),
            )
        };
        let spec = v.spec();
        // Disjoint buffers come here from the base form only: the core's
        // checksum while copying on the table engine (a piece at a time,
        // each read from the first-level cache).
        debug_assert!(matches!(run, Run::Table));
        let mut c = Crc::with_engine(spec, CrcEngine::Table).unwrap_or_else(|_| Crc::new(spec));
        c.set_register(u64::from(seed));
        c.update_copy(to, from);
        (c.register() & spec.mask()) as u16
    })
}

/// ISA-L's `crc16_t10dif_copy(init_crc, dst, src, len)`: the CRC-16/T10-DIF
/// of `src` from `init_crc` (as [`crc16_t10dif`]) while copying `len` bytes
/// from `src` to `dst` (T10 protection information insert).
///
/// # Safety
/// `src` is NULL or readable for `len` bytes, `dst` is NULL or writable for
/// `len` bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn crc16_t10dif_copy(
    init_crc: u16,
    dst: *mut u8,
    src: *mut u8,
    len: u64,
) -> u16 {
    // SAFETY: forwarded contract.
    unsafe { t10dif_copy(Run::Configured, init_crc, dst, src.cast_const(), len) }
}

/// ISA-L's `crc16_t10dif_copy_base`: [`crc16_t10dif_copy`] on the table
/// engine.
///
/// # Safety
/// As for [`crc16_t10dif_copy`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn crc16_t10dif_copy_base(
    init_crc: u16,
    dst: *mut u8,
    src: *mut u8,
    len: u64,
) -> u16 {
    // SAFETY: forwarded contract.
    unsafe { t10dif_copy(Run::Table, init_crc, dst, src.cast_const(), len) }
}
