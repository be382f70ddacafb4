//! Every named CRC for C callers: one entry taking a CRC id (`mbh_crc`,
//! `mbh_crc_append`, `mbh_crc_combine`), names and widths, and a function
//! pair per catalogued variant (`mbh_crc32`, `mbh_crc64_nvme`, ...).
//!
//! The ids are a number space of their own (`mbh_crc_id`, the `MBH_CRC_*`
//! constants), apart from the hash algorithms' `MBH_SHA*`: one per
//! [`Variant`] of the core's catalogue, matched exhaustively, so that a new
//! variant fails to compile here until it has an id.

use core::ffi::{CStr, c_char};

use mbhash_core::crc::{self, Variant};

use crate::boundary::{boundary, bytes, mbh_result, name_str, non_null, write_out};
use crate::engine::engine_error;

/// A named CRC: one of the `MBH_CRC_*` constants (a number space of its
/// own, not the `MBH_SHA*` algorithms). 0 is no CRC.
pub type mbh_crc_id = u32;

/// CRC-32/ISO-HDLC: zlib's and gzip's `crc32`, PNG, Ethernet (name `"crc32"`).
pub const MBH_CRC_32_ISO_HDLC: mbh_crc_id = 1;
/// CRC-32/BZIP2: the CRC-32 polynomial, not reflected (`"crc32-bzip2"`).
pub const MBH_CRC_32_BZIP2: mbh_crc_id = 2;
/// CRC-32/CKSUM: POSIX `cksum`'s CRC of the bytes given (`cksum` itself
/// also feeds the length; see the README) (`"crc32-cksum"`).
pub const MBH_CRC_32_CKSUM: mbh_crc_id = 3;
/// CRC-32/ISCSI: CRC32C, Castagnoli (`"crc32c"`); the same values as
/// `mbh_crc32c`.
pub const MBH_CRC_32_ISCSI: mbh_crc_id = 4;
/// CRC-64/NVME: NVMe protection information (`"crc64-nvme"`).
pub const MBH_CRC_64_NVME: mbh_crc_id = 5;
/// CRC-64/XZ (`"crc64-xz"`).
pub const MBH_CRC_64_XZ: mbh_crc_id = 6;
/// CRC-64/ECMA-182 (`"crc64-ecma-182"`).
pub const MBH_CRC_64_ECMA_182: mbh_crc_id = 7;
/// CRC-64/WE (`"crc64-we"`).
pub const MBH_CRC_64_WE: mbh_crc_id = 8;
/// CRC-64/GO-ISO (`"crc64-go-iso"`).
pub const MBH_CRC_64_GO_ISO: mbh_crc_id = 9;
/// CRC-64/REDIS: Jones' polynomial (`"crc64-redis"`).
pub const MBH_CRC_64_REDIS: mbh_crc_id = 10;
/// ISA-L's `crc64_iso_norm` from seed 0 (`"crc64-iso-norm"`; not in the
/// CRC catalogue).
pub const MBH_CRC_64_ISO_NORM: mbh_crc_id = 11;
/// ISA-L's `crc64_jones_refl` from seed 0 (`"crc64-jones-refl"`; not in
/// the CRC catalogue).
pub const MBH_CRC_64_JONES_REFL: mbh_crc_id = 12;
/// ISA-L's `crc64_jones_norm` from seed 0 (`"crc64-jones-norm"`; not in
/// the CRC catalogue).
pub const MBH_CRC_64_JONES_NORM: mbh_crc_id = 13;
/// ISA-L's `crc64_rocksoft_norm` from seed 0 (`"crc64-rocksoft-norm"`; not
/// in the CRC catalogue).
pub const MBH_CRC_64_ROCKSOFT_NORM: mbh_crc_id = 14;
/// CRC-16/T10-DIF: SCSI and NVMe protection information
/// (`"crc16-t10dif"`).
pub const MBH_CRC_16_T10_DIF: mbh_crc_id = 15;
/// One more than the largest id: the ids are `1 .. MBH_CRC_COUNT - 1`.
pub const MBH_CRC_COUNT: mbh_crc_id = 16;

/// The id of a variant (exhaustive: a new variant needs an id here).
const fn id_of(v: Variant) -> mbh_crc_id {
    match v {
        Variant::Crc32IsoHdlc => MBH_CRC_32_ISO_HDLC,
        Variant::Crc32Bzip2 => MBH_CRC_32_BZIP2,
        Variant::Crc32Cksum => MBH_CRC_32_CKSUM,
        Variant::Crc32Iscsi => MBH_CRC_32_ISCSI,
        Variant::Crc64Nvme => MBH_CRC_64_NVME,
        Variant::Crc64Xz => MBH_CRC_64_XZ,
        Variant::Crc64Ecma182 => MBH_CRC_64_ECMA_182,
        Variant::Crc64We => MBH_CRC_64_WE,
        Variant::Crc64GoIso => MBH_CRC_64_GO_ISO,
        Variant::Crc64Redis => MBH_CRC_64_REDIS,
        Variant::Crc64IsoNorm => MBH_CRC_64_ISO_NORM,
        Variant::Crc64JonesRefl => MBH_CRC_64_JONES_REFL,
        Variant::Crc64JonesNorm => MBH_CRC_64_JONES_NORM,
        Variant::Crc64RocksoftNorm => MBH_CRC_64_ROCKSOFT_NORM,
        Variant::Crc16T10Dif => MBH_CRC_16_T10_DIF,
    }
}

/// The variant of each id (`None` for 0), made from [`id_of`] at compile
/// time: a lookup per call, not a search.
static BY_ID: [Option<Variant>; MBH_CRC_COUNT as usize] = {
    let mut t = [None; MBH_CRC_COUNT as usize];
    let mut i = 0;
    while i < Variant::ALL.len() {
        let v = Variant::ALL[i];
        assert!(t[id_of(v) as usize].is_none(), "two variants of one id");
        t[id_of(v) as usize] = Some(v);
        i += 1;
    }
    t
};

/// The variant of an id, or `MBH_UNKNOWN_CRC`.
#[inline]
fn variant(id: mbh_crc_id) -> Result<Variant, mbh_result> {
    BY_ID
        .get(id as usize)
        .copied()
        .flatten()
        .ok_or(mbh_result::MBH_UNKNOWN_CRC)
}

/// The C string of a variant's name (`Variant::name`, checked equal by a
/// test), indexed by id.
static NAMES: [&CStr; MBH_CRC_COUNT as usize] = [
    c"",
    c"crc32",
    c"crc32-bzip2",
    c"crc32-cksum",
    c"crc32c",
    c"crc64-nvme",
    c"crc64-xz",
    c"crc64-ecma-182",
    c"crc64-we",
    c"crc64-go-iso",
    c"crc64-redis",
    c"crc64-iso-norm",
    c"crc64-jones-refl",
    c"crc64-jones-norm",
    c"crc64-rocksoft-norm",
    c"crc16-t10dif",
];

/// `MBH_INVALID_ARGUMENT` if a CRC value has bits above the variant's
/// width (it cannot be a CRC of that variant).
fn fits(v: Variant, value: u64) -> Result<u64, mbh_result> {
    if value & !v.spec().mask() == 0 {
        Ok(value)
    } else {
        Err(mbh_result::MBH_INVALID_ARGUMENT)
    }
}

/// The finished CRC of `A` followed by `data`, from `crc` = CRC(A) (a
/// value of the variant's width).
#[inline(always)]
fn append_value(v: Variant, crc: u64, data: &[u8]) -> u64 {
    v.append(crc, data)
}

/// The error of the engine variable the variant follows
/// (`MBHASH_CRC32C_ENGINE` for CRC-32/ISCSI, `MBHASH_CRC_ENGINE` for the
/// others) when it names an engine that cannot run, as every `mbh_*`
/// function that chooses an engine reports it (the CRC itself would run
/// `auto`).
///
/// After the first call, one load and a comparison (`ready`): the
/// variable is read once per process, and only its error is worth asking
/// for again.
#[inline(always)]
fn engine_ok(v: Variant) -> Result<(), mbh_result> {
    let ready = match v {
        Variant::Crc32Iscsi => mbhash_core::crc32c::Crc32cKernel::ready_default().is_some(),
        _ => crc::ready(),
    };
    if ready { Ok(()) } else { engine_ok_slow(v) }
}

/// [`engine_ok`] before the first CRC, or while the variable has an
/// error to report.
#[cold]
#[inline(never)]
fn engine_ok_slow(v: Variant) -> Result<(), mbh_result> {
    match v {
        Variant::Crc32Iscsi => mbhash_core::crc32c::Crc32cKernel::try_default().map(drop),
        _ => crc::configured_engine().map(drop),
    }
    .map_err(|e| engine_error(&e))
}

/// Writes the CRC of the `len` bytes at `data`, in the variant `id`, to
/// `*crc_out` (in its low bits: 16, 32 or 64, `mbh_crc_width`).
///
/// `data` may be NULL when `len` is 0. `MBH_UNKNOWN_CRC` for an id that is
/// no `MBH_CRC_*`; `MBH_NULL_ARGUMENT`, `MBH_LENGTH_OVERFLOW` (over
/// `PTRDIFF_MAX` bytes) as everywhere; `MBH_UNKNOWN_ENGINE` /
/// `MBH_UNSUPPORTED_ENGINE` if the engine variable the CRC follows
/// (`MBHASH_CRC32C_ENGINE` for CRC-32/ISCSI, `MBHASH_CRC_ENGINE` for every
/// other) names an engine that cannot run, as for every `mbh_*` function
/// that chooses an engine.
///
/// ```c
/// uint64_t crc;
/// mbh_crc(MBH_CRC_64_NVME, "123456789", 9, &crc); /* 0xAE8B14860A799888 */
/// ```
///
/// # Safety
/// `data` is NULL or readable for `len` bytes; `crc_out` is NULL or
/// writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mbh_crc(
    id: mbh_crc_id,
    data: *const u8,
    len: usize,
    crc_out: *mut u64,
) -> mbh_result {
    boundary(|| {
        let v = variant(id)?;
        non_null(crc_out)?;
        engine_ok(v)?;
        // SAFETY: the caller's contract, checked (non-NULL unless empty, at
        // most isize::MAX bytes).
        let data = unsafe { bytes(data, len) }?;
        let value = v.checksum(data);
        // SAFETY: non-NULL (checked) and writable (the caller's contract).
        unsafe { write_out(crc_out, value) };
        Ok(())
    })
}

/// Continues a CRC: from `crc`, the finished CRC (variant `id`) of some
/// message `A`, writes the finished CRC of `A` followed by the `len` bytes
/// at `data`. `mbh_crc_append(id, crc_of_empty, ...)` is `mbh_crc(id, ...)`
/// (for most variants the CRC of the empty message is not 0: take it from
/// `mbh_crc(id, NULL, 0, &c)`). `MBH_INVALID_ARGUMENT` if `crc` has bits
/// above the variant's width; other errors as `mbh_crc`.
///
/// # Safety
/// `data` is NULL or readable for `len` bytes; `crc_out` is NULL or
/// writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mbh_crc_append(
    id: mbh_crc_id,
    crc: u64,
    data: *const u8,
    len: usize,
    crc_out: *mut u64,
) -> mbh_result {
    boundary(|| {
        let v = variant(id)?;
        non_null(crc_out)?;
        let crc = fits(v, crc)?;
        engine_ok(v)?;
        // SAFETY: the caller's contract, checked.
        let data = unsafe { bytes(data, len) }?;
        let value = append_value(v, crc, data);
        // SAFETY: non-NULL (checked) and writable (the caller's contract).
        unsafe { write_out(crc_out, value) };
        Ok(())
    })
}

/// The CRC (variant `id`) of `A` followed by `B`, written to `*crc_out`,
/// from `crc_a` = CRC(A), `crc_b` = CRC(B) and the length of `B` alone:
/// O(log `len_b`), without the data, for any length up to 2^64 - 1.
/// `MBH_INVALID_ARGUMENT` if `crc_a` or `crc_b` has bits above the width;
/// engine errors as for `mbh_crc`.
///
/// # Safety
/// `crc_out` is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mbh_crc_combine(
    id: mbh_crc_id,
    crc_a: u64,
    crc_b: u64,
    len_b: u64,
    crc_out: *mut u64,
) -> mbh_result {
    boundary(|| {
        let v = variant(id)?;
        non_null(crc_out)?;
        let (a, b) = (fits(v, crc_a)?, fits(v, crc_b)?);
        engine_ok(v)?;
        let value = crc::combine(v.spec(), a, b, len_b);
        // SAFETY: non-NULL (checked) and writable (the caller's contract).
        unsafe { write_out(crc_out, value) };
        Ok(())
    })
}

/// Writes the id of the named CRC called `name` to `*id_out`: its
/// lower-case name (`mbh_crc_name`, as `mbhash sum -a` takes it), an alias
/// (`"crc32b"`, `"crc64-rocksoft"`, ...) or the catalogue's name in any case
/// (`"CRC-64/NVME"`). `MBH_UNKNOWN_CRC` for any other name.
///
/// # Safety
/// `name` is NULL or a NUL-terminated string; `id_out` is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mbh_crc_from_name(
    name: *const c_char,
    id_out: *mut mbh_crc_id,
) -> mbh_result {
    boundary(|| {
        non_null(name)?;
        non_null(id_out)?;
        // SAFETY: non-NULL and NUL-terminated (the caller's contract).
        let name = unsafe { name_str(name) }.ok_or(mbh_result::MBH_UNKNOWN_CRC)?;
        let v = Variant::from_name(name).ok_or(mbh_result::MBH_UNKNOWN_CRC)?;
        // SAFETY: non-NULL (checked) and writable (the caller's contract).
        unsafe { write_out(id_out, id_of(v)) };
        Ok(())
    })
}

/// Writes the lower-case name of the CRC `id` (a static string, e.g.
/// `"crc64-nvme"`) to `*name_out`.
///
/// # Safety
/// `name_out` is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mbh_crc_name(id: mbh_crc_id, name_out: *mut *const c_char) -> mbh_result {
    boundary(|| {
        let v = variant(id)?;
        non_null(name_out)?;
        let name = NAMES[id_of(v) as usize];
        // SAFETY: non-NULL (checked) and writable (the caller's contract).
        unsafe { write_out(name_out, name.as_ptr()) };
        Ok(())
    })
}

/// Writes the width in bits of the CRC `id` (16, 32 or 64) to
/// `*width_out`.
///
/// # Safety
/// `width_out` is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mbh_crc_width(id: mbh_crc_id, width_out: *mut u32) -> mbh_result {
    boundary(|| {
        let v = variant(id)?;
        non_null(width_out)?;
        // SAFETY: non-NULL (checked) and writable (the caller's contract).
        unsafe { write_out(width_out, u32::from(v.spec().width)) };
        Ok(())
    })
}

/// The body of the per-variant one-shot functions.
///
/// # Safety
/// As for [`mbh_crc`].
#[inline(always)]
unsafe fn one_shot(v: Variant, data: *const u8, len: usize) -> Result<u64, mbh_result> {
    engine_ok(v)?;
    // SAFETY: the caller's contract, checked (non-NULL unless empty, at most
    // isize::MAX bytes).
    let data = unsafe { bytes(data, len) }?;
    Ok(v.checksum(data))
}

/// The body of the per-variant `_append` functions.
///
/// # Safety
/// As for [`mbh_crc_append`].
#[inline(always)]
unsafe fn appended(v: Variant, crc: u64, data: *const u8, len: usize) -> Result<u64, mbh_result> {
    engine_ok(v)?;
    // SAFETY: the caller's contract, checked.
    let data = unsafe { bytes(data, len) }?;
    Ok(append_value(v, crc, data))
}

// The per-variant functions, written out (cbindgen reads no macros): each
// variant's CRC in its own width, and its `_append` form.

/// CRC-16/T10-DIF (`MBH_CRC_16_T10_DIF`): `0xD0DB` for `"123456789"`.
///
/// The CRC of the `len` bytes at `data`, written to `*crc_out`; `data` may
/// be NULL when `len` is 0. Errors as for `mbh_crc`.
///
/// # Safety
/// `data` is NULL or readable for `len` bytes; `crc_out` is NULL or
/// writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mbh_crc16_t10dif(
    data: *const u8,
    len: usize,
    crc_out: *mut u16,
) -> mbh_result {
    boundary(|| {
        non_null(crc_out)?;
        // SAFETY: forwarded contract.
        let value = unsafe { one_shot(Variant::Crc16T10Dif, data, len) }? as u16;
        // SAFETY: non-NULL (checked) and writable (the caller's contract).
        unsafe { write_out(crc_out, value) };
        Ok(())
    })
}

/// Continues `mbh_crc16_t10dif`: from its value `crc` for some message `A`, writes
/// the CRC of `A` followed by the `len` bytes at `data` to `*crc_out`.
///
/// # Safety
/// `data` is NULL or readable for `len` bytes; `crc_out` is NULL or
/// writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mbh_crc16_t10dif_append(
    crc: u16,
    data: *const u8,
    len: usize,
    crc_out: *mut u16,
) -> mbh_result {
    boundary(|| {
        non_null(crc_out)?;
        // SAFETY: forwarded contract.
        let value = unsafe { appended(Variant::Crc16T10Dif, u64::from(crc), data, len) }? as u16;
        // SAFETY: non-NULL (checked) and writable (the caller's contract).
        unsafe { write_out(crc_out, value) };
        Ok(())
    })
}

/// CRC-32/ISO-HDLC (`MBH_CRC_32_ISO_HDLC`), zlib's `crc32`: `0xCBF43926`
/// for `"123456789"`; `mbh_crc32_append(c, ...)` is zlib's `crc32(c, ...)`.
///
/// The CRC of the `len` bytes at `data`, written to `*crc_out`; `data` may
/// be NULL when `len` is 0. Errors as for `mbh_crc`.
///
/// # Safety
/// `data` is NULL or readable for `len` bytes; `crc_out` is NULL or
/// writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mbh_crc32(data: *const u8, len: usize, crc_out: *mut u32) -> mbh_result {
    boundary(|| {
        non_null(crc_out)?;
        // SAFETY: forwarded contract.
        let value = unsafe { one_shot(Variant::Crc32IsoHdlc, data, len) }? as u32;
        // SAFETY: non-NULL (checked) and writable (the caller's contract).
        unsafe { write_out(crc_out, value) };
        Ok(())
    })
}

/// Continues `mbh_crc32`: from its value `crc` for some message `A`, writes
/// the CRC of `A` followed by the `len` bytes at `data` to `*crc_out`.
///
/// # Safety
/// `data` is NULL or readable for `len` bytes; `crc_out` is NULL or
/// writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mbh_crc32_append(
    crc: u32,
    data: *const u8,
    len: usize,
    crc_out: *mut u32,
) -> mbh_result {
    boundary(|| {
        non_null(crc_out)?;
        // SAFETY: forwarded contract.
        let value = unsafe { appended(Variant::Crc32IsoHdlc, u64::from(crc), data, len) }? as u32;
        // SAFETY: non-NULL (checked) and writable (the caller's contract).
        unsafe { write_out(crc_out, value) };
        Ok(())
    })
}

/// CRC-32/BZIP2 (`MBH_CRC_32_BZIP2`): `0xFC891918` for `"123456789"`.
///
/// The CRC of the `len` bytes at `data`, written to `*crc_out`; `data` may
/// be NULL when `len` is 0. Errors as for `mbh_crc`.
///
/// # Safety
/// `data` is NULL or readable for `len` bytes; `crc_out` is NULL or
/// writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mbh_crc32_bzip2(
    data: *const u8,
    len: usize,
    crc_out: *mut u32,
) -> mbh_result {
    boundary(|| {
        non_null(crc_out)?;
        // SAFETY: forwarded contract.
        let value = unsafe { one_shot(Variant::Crc32Bzip2, data, len) }? as u32;
        // SAFETY: non-NULL (checked) and writable (the caller's contract).
        unsafe { write_out(crc_out, value) };
        Ok(())
    })
}

/// Continues `mbh_crc32_bzip2`: from its value `crc` for some message `A`, writes
/// the CRC of `A` followed by the `len` bytes at `data` to `*crc_out`.
///
/// # Safety
/// `data` is NULL or readable for `len` bytes; `crc_out` is NULL or
/// writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mbh_crc32_bzip2_append(
    crc: u32,
    data: *const u8,
    len: usize,
    crc_out: *mut u32,
) -> mbh_result {
    boundary(|| {
        non_null(crc_out)?;
        // SAFETY: forwarded contract.
        let value = unsafe { appended(Variant::Crc32Bzip2, u64::from(crc), data, len) }? as u32;
        // SAFETY: non-NULL (checked) and writable (the caller's contract).
        unsafe { write_out(crc_out, value) };
        Ok(())
    })
}

/// CRC-32/CKSUM (`MBH_CRC_32_CKSUM`) of the bytes alone: `0x765E7680`
/// for `"123456789"`. POSIX `cksum` prints the CRC of the data followed
/// by its length (least significant byte first, without trailing zero
/// bytes): `mbh_crc32_cksum_append` over those bytes gives it.
///
/// The CRC of the `len` bytes at `data`, written to `*crc_out`; `data` may
/// be NULL when `len` is 0. Errors as for `mbh_crc`.
///
/// # Safety
/// `data` is NULL or readable for `len` bytes; `crc_out` is NULL or
/// writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mbh_crc32_cksum(
    data: *const u8,
    len: usize,
    crc_out: *mut u32,
) -> mbh_result {
    boundary(|| {
        non_null(crc_out)?;
        // SAFETY: forwarded contract.
        let value = unsafe { one_shot(Variant::Crc32Cksum, data, len) }? as u32;
        // SAFETY: non-NULL (checked) and writable (the caller's contract).
        unsafe { write_out(crc_out, value) };
        Ok(())
    })
}

/// Continues `mbh_crc32_cksum`: from its value `crc` for some message `A`, writes
/// the CRC of `A` followed by the `len` bytes at `data` to `*crc_out`.
///
/// # Safety
/// `data` is NULL or readable for `len` bytes; `crc_out` is NULL or
/// writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mbh_crc32_cksum_append(
    crc: u32,
    data: *const u8,
    len: usize,
    crc_out: *mut u32,
) -> mbh_result {
    boundary(|| {
        non_null(crc_out)?;
        // SAFETY: forwarded contract.
        let value = unsafe { appended(Variant::Crc32Cksum, u64::from(crc), data, len) }? as u32;
        // SAFETY: non-NULL (checked) and writable (the caller's contract).
        unsafe { write_out(crc_out, value) };
        Ok(())
    })
}

/// CRC-64/NVME (`MBH_CRC_64_NVME`): `0xAE8B14860A799888` for
/// `"123456789"`.
///
/// The CRC of the `len` bytes at `data`, written to `*crc_out`; `data` may
/// be NULL when `len` is 0. Errors as for `mbh_crc`.
///
/// # Safety
/// `data` is NULL or readable for `len` bytes; `crc_out` is NULL or
/// writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mbh_crc64_nvme(
    data: *const u8,
    len: usize,
    crc_out: *mut u64,
) -> mbh_result {
    boundary(|| {
        non_null(crc_out)?;
        // SAFETY: forwarded contract.
        let value = unsafe { one_shot(Variant::Crc64Nvme, data, len) }?;
        // SAFETY: non-NULL (checked) and writable (the caller's contract).
        unsafe { write_out(crc_out, value) };
        Ok(())
    })
}

/// Continues `mbh_crc64_nvme`: from its value `crc` for some message `A`, writes
/// the CRC of `A` followed by the `len` bytes at `data` to `*crc_out`.
///
/// # Safety
/// `data` is NULL or readable for `len` bytes; `crc_out` is NULL or
/// writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mbh_crc64_nvme_append(
    crc: u64,
    data: *const u8,
    len: usize,
    crc_out: *mut u64,
) -> mbh_result {
    boundary(|| {
        non_null(crc_out)?;
        // SAFETY: forwarded contract.
        let value = unsafe { appended(Variant::Crc64Nvme, crc, data, len) }?;
        // SAFETY: non-NULL (checked) and writable (the caller's contract).
        unsafe { write_out(crc_out, value) };
        Ok(())
    })
}

/// CRC-64/XZ (`MBH_CRC_64_XZ`): `0x995DC9BBDF1939FA` for `"123456789"`.
///
/// The CRC of the `len` bytes at `data`, written to `*crc_out`; `data` may
/// be NULL when `len` is 0. Errors as for `mbh_crc`.
///
/// # Safety
/// `data` is NULL or readable for `len` bytes; `crc_out` is NULL or
/// writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mbh_crc64_xz(
    data: *const u8,
    len: usize,
    crc_out: *mut u64,
) -> mbh_result {
    boundary(|| {
        non_null(crc_out)?;
        // SAFETY: forwarded contract.
        let value = unsafe { one_shot(Variant::Crc64Xz, data, len) }?;
        // SAFETY: non-NULL (checked) and writable (the caller's contract).
        unsafe { write_out(crc_out, value) };
        Ok(())
    })
}

/// Continues `mbh_crc64_xz`: from its value `crc` for some message `A`, writes
/// the CRC of `A` followed by the `len` bytes at `data` to `*crc_out`.
///
/// # Safety
/// `data` is NULL or readable for `len` bytes; `crc_out` is NULL or
/// writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mbh_crc64_xz_append(
    crc: u64,
    data: *const u8,
    len: usize,
    crc_out: *mut u64,
) -> mbh_result {
    boundary(|| {
        non_null(crc_out)?;
        // SAFETY: forwarded contract.
        let value = unsafe { appended(Variant::Crc64Xz, crc, data, len) }?;
        // SAFETY: non-NULL (checked) and writable (the caller's contract).
        unsafe { write_out(crc_out, value) };
        Ok(())
    })
}

/// CRC-64/ECMA-182 (`MBH_CRC_64_ECMA_182`): `0x6C40DF5F0B497347` for
/// `"123456789"`.
///
/// The CRC of the `len` bytes at `data`, written to `*crc_out`; `data` may
/// be NULL when `len` is 0. Errors as for `mbh_crc`.
///
/// # Safety
/// `data` is NULL or readable for `len` bytes; `crc_out` is NULL or
/// writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mbh_crc64_ecma_182(
    data: *const u8,
    len: usize,
    crc_out: *mut u64,
) -> mbh_result {
    boundary(|| {
        non_null(crc_out)?;
        // SAFETY: forwarded contract.
        let value = unsafe { one_shot(Variant::Crc64Ecma182, data, len) }?;
        // SAFETY: non-NULL (checked) and writable (the caller's contract).
        unsafe { write_out(crc_out, value) };
        Ok(())
    })
}

/// Continues `mbh_crc64_ecma_182`: from its value `crc` for some message `A`, writes
/// the CRC of `A` followed by the `len` bytes at `data` to `*crc_out`.
///
/// # Safety
/// `data` is NULL or readable for `len` bytes; `crc_out` is NULL or
/// writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mbh_crc64_ecma_182_append(
    crc: u64,
    data: *const u8,
    len: usize,
    crc_out: *mut u64,
) -> mbh_result {
    boundary(|| {
        non_null(crc_out)?;
        // SAFETY: forwarded contract.
        let value = unsafe { appended(Variant::Crc64Ecma182, crc, data, len) }?;
        // SAFETY: non-NULL (checked) and writable (the caller's contract).
        unsafe { write_out(crc_out, value) };
        Ok(())
    })
}

/// CRC-64/WE (`MBH_CRC_64_WE`): `0x62EC59E3F1A4F00A` for `"123456789"`.
///
/// The CRC of the `len` bytes at `data`, written to `*crc_out`; `data` may
/// be NULL when `len` is 0. Errors as for `mbh_crc`.
///
/// # Safety
/// `data` is NULL or readable for `len` bytes; `crc_out` is NULL or
/// writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mbh_crc64_we(
    data: *const u8,
    len: usize,
    crc_out: *mut u64,
) -> mbh_result {
    boundary(|| {
        non_null(crc_out)?;
        // SAFETY: forwarded contract.
        let value = unsafe { one_shot(Variant::Crc64We, data, len) }?;
        // SAFETY: non-NULL (checked) and writable (the caller's contract).
        unsafe { write_out(crc_out, value) };
        Ok(())
    })
}

/// Continues `mbh_crc64_we`: from its value `crc` for some message `A`, writes
/// the CRC of `A` followed by the `len` bytes at `data` to `*crc_out`.
///
/// # Safety
/// `data` is NULL or readable for `len` bytes; `crc_out` is NULL or
/// writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mbh_crc64_we_append(
    crc: u64,
    data: *const u8,
    len: usize,
    crc_out: *mut u64,
) -> mbh_result {
    boundary(|| {
        non_null(crc_out)?;
        // SAFETY: forwarded contract.
        let value = unsafe { appended(Variant::Crc64We, crc, data, len) }?;
        // SAFETY: non-NULL (checked) and writable (the caller's contract).
        unsafe { write_out(crc_out, value) };
        Ok(())
    })
}

/// CRC-64/GO-ISO (`MBH_CRC_64_GO_ISO`): `0xB90956C775A41001` for
/// `"123456789"`.
///
/// The CRC of the `len` bytes at `data`, written to `*crc_out`; `data` may
/// be NULL when `len` is 0. Errors as for `mbh_crc`.
///
/// # Safety
/// `data` is NULL or readable for `len` bytes; `crc_out` is NULL or
/// writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mbh_crc64_go_iso(
    data: *const u8,
    len: usize,
    crc_out: *mut u64,
) -> mbh_result {
    boundary(|| {
        non_null(crc_out)?;
        // SAFETY: forwarded contract.
        let value = unsafe { one_shot(Variant::Crc64GoIso, data, len) }?;
        // SAFETY: non-NULL (checked) and writable (the caller's contract).
        unsafe { write_out(crc_out, value) };
        Ok(())
    })
}

/// Continues `mbh_crc64_go_iso`: from its value `crc` for some message `A`, writes
/// the CRC of `A` followed by the `len` bytes at `data` to `*crc_out`.
///
/// # Safety
/// `data` is NULL or readable for `len` bytes; `crc_out` is NULL or
/// writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mbh_crc64_go_iso_append(
    crc: u64,
    data: *const u8,
    len: usize,
    crc_out: *mut u64,
) -> mbh_result {
    boundary(|| {
        non_null(crc_out)?;
        // SAFETY: forwarded contract.
        let value = unsafe { appended(Variant::Crc64GoIso, crc, data, len) }?;
        // SAFETY: non-NULL (checked) and writable (the caller's contract).
        unsafe { write_out(crc_out, value) };
        Ok(())
    })
}

/// CRC-64/REDIS (`MBH_CRC_64_REDIS`): `0xE9C6D914C4B8D9CA` for
/// `"123456789"`.
///
/// The CRC of the `len` bytes at `data`, written to `*crc_out`; `data` may
/// be NULL when `len` is 0. Errors as for `mbh_crc`.
///
/// # Safety
/// `data` is NULL or readable for `len` bytes; `crc_out` is NULL or
/// writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mbh_crc64_redis(
    data: *const u8,
    len: usize,
    crc_out: *mut u64,
) -> mbh_result {
    boundary(|| {
        non_null(crc_out)?;
        // SAFETY: forwarded contract.
        let value = unsafe { one_shot(Variant::Crc64Redis, data, len) }?;
        // SAFETY: non-NULL (checked) and writable (the caller's contract).
        unsafe { write_out(crc_out, value) };
        Ok(())
    })
}

/// Continues `mbh_crc64_redis`: from its value `crc` for some message `A`, writes
/// the CRC of `A` followed by the `len` bytes at `data` to `*crc_out`.
///
/// # Safety
/// `data` is NULL or readable for `len` bytes; `crc_out` is NULL or
/// writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mbh_crc64_redis_append(
    crc: u64,
    data: *const u8,
    len: usize,
    crc_out: *mut u64,
) -> mbh_result {
    boundary(|| {
        non_null(crc_out)?;
        // SAFETY: forwarded contract.
        let value = unsafe { appended(Variant::Crc64Redis, crc, data, len) }?;
        // SAFETY: non-NULL (checked) and writable (the caller's contract).
        unsafe { write_out(crc_out, value) };
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_and_names_follow_the_catalogue() {
        assert_eq!(Variant::ALL.len(), MBH_CRC_COUNT as usize - 1);
        for (i, v) in Variant::ALL.iter().enumerate() {
            let id = id_of(*v);
            assert!((1..MBH_CRC_COUNT).contains(&id), "{v:?}");
            assert_eq!(variant(id), Ok(*v));
            assert_eq!(NAMES[id as usize].to_str(), Ok(v.name()), "{v:?}");
            // No two variants share an id.
            assert!(Variant::ALL[..i].iter().all(|w| id_of(*w) != id));
        }
        assert_eq!(variant(0), Err(mbh_result::MBH_UNKNOWN_CRC));
        assert_eq!(variant(MBH_CRC_COUNT), Err(mbh_result::MBH_UNKNOWN_CRC));
    }
}
