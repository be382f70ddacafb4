//! ISA-L (`crc32_iscsi` and every CRC of its `crc.h`/`crc64.h`), ISA-L
//! crypto (the multi-buffer SHA-256, SHA-512, MD5, SHA-1 and SM3
//! managers), OpenSSL's libcrypto (one-stream digests), libdeflate and zlib
//! (their `crc32`) as the peers `mbhash bench` measures against, when
//! build.rs found them (cfgs `mbhash_isal`, `mbhash_isal_crypto`,
//! `mbhash_openssl`, `mbhash_libdeflate`, `mbhash_zlib`). Without them the
//! types here are empty: constructors return `None`.
//!
//! The crate holds the C bindings, the one place of the CLI's code that
//! needs `unsafe`, so that the CLI itself forbids it. Not published.

#![cfg_attr(docsrs, feature(doc_cfg))]
/// Printed once when ISA-L crypto was not found at build time.
pub const CRYPTO_MISSING: &str = "ISA-L crypto not found (set MBHASH_ISAL_CRYPTO_DIR to a \
     directory with lib/libisal_crypto.a and include/isa-l_crypto/, and rebuild); no isal rows";

/// Printed once when OpenSSL's libcrypto was not found at build time.
pub const OPENSSL_MISSING: &str = "OpenSSL's libcrypto not found (install libssl-dev, or set \
     MBHASH_OPENSSL_DIR to a directory with lib/libcrypto.so and include/openssl/, and \
     rebuild); no openssl rows";

/// Printed once when ISA-L was not found at build time.
pub const CRC_MISSING: &str = "ISA-L not found (install libisal-dev, or set MBHASH_ISAL_DIR to \
     a directory with libisal.a, and rebuild); no isal rows";

/// Prints `msg` to stderr the first time it is passed.
pub fn note_once(msg: &'static str) {
    use std::collections::HashSet;
    use std::sync::Mutex;
    static SEEN: Mutex<Option<HashSet<&'static str>>> = Mutex::new(None);
    let mut seen = SEEN.lock().unwrap_or_else(|e| e.into_inner());
    if seen.get_or_insert_with(HashSet::new).insert(msg) {
        eprintln!("{msg}");
    }
}

/// Printed once when libdeflate was not found at build time.
pub const LIBDEFLATE_MISSING: &str = "libdeflate not found (install libdeflate-dev and \
     rebuild); no libdeflate rows";

/// Printed once when zlib was not found at build time.
pub const ZLIB_MISSING: &str = "zlib not found (install zlib1g-dev and rebuild); no zlib rows";

#[cfg(mbhash_isal)]
mod crc_ffi {
    unsafe extern "C" {
        /// ISA-L's `crc32_iscsi` with the standard pre- and post-inversion
        /// (`peers/isal_crc_shim.c`).
        pub fn mbb_isal_crc32c(buf: *const u8, len: usize) -> u32;
        /// 1 when the function numbered `f` (`IsalCrcFn`) is linked.
        pub fn mbb_isal_crc_has(f: core::ffi::c_int) -> core::ffi::c_int;
        /// The function numbered `f` over `len` bytes from seed 0.
        pub fn mbb_isal_crc(f: core::ffi::c_int, buf: *const u8, len: usize) -> u64;
    }
}

/// The CRC functions of ISA-L's `crc.h` and `crc64.h`. Each, called from
/// seed 0 (`crc32_iscsi`: with its standard inversions), computes one of
/// mbhash's named CRCs: [`IsalCrcFn::for_variant`] takes mbhash's name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IsalCrcFn {
    /// `crc16_t10dif`: CRC-16/T10-DIF.
    Crc16T10dif = 0,
    /// `crc32_ieee`: CRC-32/BZIP2.
    Crc32Ieee = 1,
    /// `crc32_gzip_refl`: CRC-32/ISO-HDLC.
    Crc32GzipRefl = 2,
    /// `crc32_iscsi`: CRC-32/ISCSI (CRC32C).
    Crc32Iscsi = 3,
    /// `crc64_ecma_refl`: CRC-64/XZ.
    Crc64EcmaRefl = 4,
    /// `crc64_ecma_norm`: CRC-64/WE.
    Crc64EcmaNorm = 5,
    /// `crc64_iso_refl`: CRC-64/GO-ISO.
    Crc64IsoRefl = 6,
    /// `crc64_iso_norm`.
    Crc64IsoNorm = 7,
    /// `crc64_jones_refl`.
    Crc64JonesRefl = 8,
    /// `crc64_jones_norm`.
    Crc64JonesNorm = 9,
    /// `crc64_rocksoft_refl`: CRC-64/NVME.
    Crc64RocksoftRefl = 10,
    /// `crc64_rocksoft_norm`.
    Crc64RocksoftNorm = 11,
}

impl IsalCrcFn {
    /// The ISA-L function computing mbhash's named CRC `name` (mbhash's
    /// primary name, e.g. `crc64-nvme`), if ISA-L has one.
    pub fn for_variant(name: &str) -> Option<Self> {
        Some(match name {
            "crc16-t10dif" => Self::Crc16T10dif,
            "crc32-bzip2" => Self::Crc32Ieee,
            "crc32" => Self::Crc32GzipRefl,
            "crc32c" => Self::Crc32Iscsi,
            "crc64-xz" => Self::Crc64EcmaRefl,
            "crc64-we" => Self::Crc64EcmaNorm,
            "crc64-go-iso" => Self::Crc64IsoRefl,
            "crc64-iso-norm" => Self::Crc64IsoNorm,
            "crc64-jones-refl" => Self::Crc64JonesRefl,
            "crc64-jones-norm" => Self::Crc64JonesNorm,
            "crc64-nvme" => Self::Crc64RocksoftRefl,
            "crc64-rocksoft-norm" => Self::Crc64RocksoftNorm,
            _ => return None,
        })
    }

    /// ISA-L's name of the function.
    pub fn name(self) -> &'static str {
        match self {
            Self::Crc16T10dif => "crc16_t10dif",
            Self::Crc32Ieee => "crc32_ieee",
            Self::Crc32GzipRefl => "crc32_gzip_refl",
            Self::Crc32Iscsi => "crc32_iscsi",
            Self::Crc64EcmaRefl => "crc64_ecma_refl",
            Self::Crc64EcmaNorm => "crc64_ecma_norm",
            Self::Crc64IsoRefl => "crc64_iso_refl",
            Self::Crc64IsoNorm => "crc64_iso_norm",
            Self::Crc64JonesRefl => "crc64_jones_refl",
            Self::Crc64JonesNorm => "crc64_jones_norm",
            Self::Crc64RocksoftRefl => "crc64_rocksoft_refl",
            Self::Crc64RocksoftNorm => "crc64_rocksoft_norm",
        }
    }
}

/// ISA-L's `crc32_iscsi` (its run-time dispatch), when linked.
#[cfg(mbhash_isal)]
#[derive(Clone, Copy)]
pub struct IsalCrc(());

/// ISA-L's `crc32_iscsi`: not linked in this build.
#[cfg(not(mbhash_isal))]
#[derive(Clone, Copy)]
pub enum IsalCrc {}

impl IsalCrc {
    /// The peer, when this build links ISA-L.
    pub fn new() -> Option<Self> {
        #[cfg(mbhash_isal)]
        return Some(Self(()));
        #[cfg(not(mbhash_isal))]
        None
    }

    /// The standard CRC32C of `data` (as `crc32c::crc32c`).
    pub fn crc32c(&self, data: &[u8]) -> u32 {
        #[cfg(mbhash_isal)]
        {
            // SAFETY: the shim reads `data.len()` bytes from the pointer, in
            // chunks ISA-L's `int` length can hold, and writes nothing.
            unsafe { crc_ffi::mbb_isal_crc32c(data.as_ptr(), data.len()) }
        }
        #[cfg(not(mbhash_isal))]
        {
            let _ = data;
            match *self {}
        }
    }
}

impl IsalCrc {
    /// True when this build links function `f` (the Rocksoft CRC-64s came
    /// with ISA-L 2.31).
    pub fn has(&self, f: IsalCrcFn) -> bool {
        #[cfg(mbhash_isal)]
        {
            // SAFETY: a query on a constant table.
            unsafe { crc_ffi::mbb_isal_crc_has(f as core::ffi::c_int) != 0 }
        }
        #[cfg(not(mbhash_isal))]
        {
            let _ = f;
            match *self {}
        }
    }

    /// ISA-L's function `f` over `data` from seed 0: the value of the
    /// mbhash variant it computes. `None` when `f` is not linked.
    pub fn checksum(&self, f: IsalCrcFn, data: &[u8]) -> Option<u64> {
        if !self.has(f) {
            return None;
        }
        #[cfg(mbhash_isal)]
        {
            // SAFETY: the shim reads `data.len()` bytes from the pointer
            // (ISA-L's 64-bit lengths; `crc32_iscsi` in chunks its `int`
            // holds) and writes nothing; `f` is linked, checked above.
            Some(unsafe { crc_ffi::mbb_isal_crc(f as core::ffi::c_int, data.as_ptr(), data.len()) })
        }
        #[cfg(not(mbhash_isal))]
        {
            let _ = data;
            match *self {}
        }
    }
}

/// libdeflate's `libdeflate_crc32`, when linked.
#[cfg(mbhash_libdeflate)]
#[derive(Clone, Copy)]
pub struct Libdeflate(());

/// libdeflate: not linked in this build.
#[cfg(not(mbhash_libdeflate))]
#[derive(Clone, Copy)]
pub enum Libdeflate {}

#[cfg(mbhash_libdeflate)]
unsafe extern "C" {
    fn libdeflate_crc32(crc: u32, buf: *const core::ffi::c_void, len: usize) -> u32;
}

impl Libdeflate {
    /// The peer, when this build links libdeflate.
    pub fn new() -> Option<Self> {
        #[cfg(mbhash_libdeflate)]
        return Some(Self(()));
        #[cfg(not(mbhash_libdeflate))]
        None
    }

    /// CRC-32/ISO-HDLC of `data` (`libdeflate_crc32(0, ...)`).
    pub fn crc32(&self, data: &[u8]) -> u32 {
        #[cfg(mbhash_libdeflate)]
        {
            // SAFETY: libdeflate reads `data.len()` bytes from the pointer
            // and writes nothing.
            unsafe { libdeflate_crc32(0, data.as_ptr().cast(), data.len()) }
        }
        #[cfg(not(mbhash_libdeflate))]
        {
            let _ = data;
            match *self {}
        }
    }
}

/// zlib's `crc32`, when linked.
#[cfg(mbhash_zlib)]
#[derive(Clone, Copy)]
pub struct Zlib(());

/// zlib: not linked in this build.
#[cfg(not(mbhash_zlib))]
#[derive(Clone, Copy)]
pub enum Zlib {}

#[cfg(mbhash_zlib)]
unsafe extern "C" {
    fn crc32(crc: core::ffi::c_ulong, buf: *const u8, len: core::ffi::c_uint)
    -> core::ffi::c_ulong;
}

impl Zlib {
    /// The peer, when this build links zlib.
    pub fn new() -> Option<Self> {
        #[cfg(mbhash_zlib)]
        return Some(Self(()));
        #[cfg(not(mbhash_zlib))]
        None
    }

    /// CRC-32/ISO-HDLC of `data` (zlib's `crc32` from 0, in pieces its
    /// `uInt` length holds).
    pub fn crc32(&self, data: &[u8]) -> u32 {
        #[cfg(mbhash_zlib)]
        {
            let mut crc: core::ffi::c_ulong = 0;
            for piece in data.chunks(1 << 30) {
                // SAFETY: zlib reads `piece.len()` (< 2^32) bytes from the
                // pointer and writes nothing.
                crc = unsafe { crc32(crc, piece.as_ptr(), piece.len() as core::ffi::c_uint) };
            }
            crc as u32
        }
        #[cfg(not(mbhash_zlib))]
        {
            let _ = data;
            match *self {}
        }
    }
}

#[cfg(mbhash_isal_crypto)]
mod mgr_ffi {
    use core::ffi::{c_char, c_int, c_void};
    unsafe extern "C" {
        pub fn mbb_isal_variants(bits: c_int) -> usize;
        pub fn mbb_isal_variant_name(bits: c_int, i: usize) -> *const c_char;
        pub fn mbb_isal_variant_usable(bits: c_int, i: usize) -> c_int;
        pub fn mbb_isal_new(bits: c_int, i: usize, max: usize) -> *mut c_void;
        pub fn mbb_isal_run(
            h: *mut c_void,
            msgs: *const *const u8,
            lens: *const u32,
            n: usize,
            out: *mut u8,
        ) -> c_int;
        pub fn mbb_isal_free(h: *mut c_void);
        pub fn mbb_isal_fam_variants(fam: c_int) -> usize;
        pub fn mbb_isal_fam_variant_name(fam: c_int, i: usize) -> *const c_char;
        pub fn mbb_isal_fam_variant_usable(fam: c_int, i: usize) -> c_int;
        pub fn mbb_isal_fam_new(fam: c_int, i: usize, max: usize) -> *mut c_void;
        pub fn mbb_isal_fam_run(
            h: *mut c_void,
            msgs: *const *const u8,
            lens: *const u32,
            n: usize,
            out: *mut u8,
        ) -> c_int;
        pub fn mbb_isal_fam_free(h: *mut c_void);
    }

    /// The shim's entry points for one family: SHA-256/SHA-512 through
    /// `mbb_isal_*`, MD5/SHA-1/SM3 through `mbb_isal_fam_*`.
    pub struct Api {
        pub variants: unsafe extern "C" fn(c_int) -> usize,
        pub name: unsafe extern "C" fn(c_int, usize) -> *const c_char,
        pub usable: unsafe extern "C" fn(c_int, usize) -> c_int,
        pub new: unsafe extern "C" fn(c_int, usize, usize) -> *mut c_void,
        pub run: unsafe extern "C" fn(
            *mut c_void,
            *const *const u8,
            *const u32,
            usize,
            *mut u8,
        ) -> c_int,
        pub free: unsafe extern "C" fn(*mut c_void),
    }

    pub const SHA2: Api = Api {
        variants: mbb_isal_variants,
        name: mbb_isal_variant_name,
        usable: mbb_isal_variant_usable,
        new: mbb_isal_new,
        run: mbb_isal_run,
        free: mbb_isal_free,
    };

    pub const FAM: Api = Api {
        variants: mbb_isal_fam_variants,
        name: mbb_isal_fam_variant_name,
        usable: mbb_isal_fam_variant_usable,
        new: mbb_isal_fam_new,
        run: mbb_isal_fam_run,
        free: mbb_isal_fam_free,
    };
}

/// Which ISA-L crypto manager family.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bits {
    /// `sha256_ctx_mgr_*`: 32-byte digests.
    Sha256,
    /// `sha512_ctx_mgr_*`: 64-byte digests.
    Sha512,
    /// `md5_ctx_mgr_*`: 16-byte digests.
    Md5,
    /// `sha1_ctx_mgr_*`: 20-byte digests.
    Sha1,
    /// `sm3_ctx_mgr_*`: 32-byte digests.
    Sm3,
}

impl Bits {
    /// The ISA-L family for an mbhash algorithm name, if ISA-L has one.
    pub fn for_algo(name: &str) -> Option<Self> {
        match name {
            "sha256" => Some(Self::Sha256),
            "sha512" => Some(Self::Sha512),
            "md5" => Some(Self::Md5),
            "sha1" => Some(Self::Sha1),
            "sm3" => Some(Self::Sm3),
            _ => None,
        }
    }

    /// Digest bytes.
    pub fn digest_len(self) -> usize {
        match self {
            Self::Sha256 | Self::Sm3 => 32,
            Self::Sha512 => 64,
            Self::Md5 => 16,
            Self::Sha1 => 20,
        }
    }

    #[cfg(mbhash_isal_crypto)]
    fn c(self) -> core::ffi::c_int {
        match self {
            Self::Sha256 => 256,
            Self::Sha512 => 512,
            Self::Md5 => 5,
            Self::Sha1 => 1,
            Self::Sm3 => 3,
        }
    }

    #[cfg(mbhash_isal_crypto)]
    fn api(self) -> &'static mgr_ffi::Api {
        match self {
            Self::Sha256 | Self::Sha512 => &mgr_ffi::SHA2,
            Self::Md5 | Self::Sha1 | Self::Sm3 => &mgr_ffi::FAM,
        }
    }
}

/// The managers of this family that this build links and this CPU runs:
/// `dispatch` (ISA-L's own choice) and the per-instruction-set ones
/// (`sse_ni`, `avx2`, `avx512`, `avx512_ni`), as (index, name).
pub fn variants(bits: Bits) -> Vec<(usize, String)> {
    #[cfg(mbhash_isal_crypto)]
    {
        // SAFETY: plain queries on static tables; the names are static,
        // NUL-terminated strings.
        unsafe {
            let api = bits.api();
            (0..(api.variants)(bits.c()))
                .filter(|&i| (api.usable)(bits.c(), i) != 0)
                .map(|i| {
                    let name = core::ffi::CStr::from_ptr((api.name)(bits.c(), i));
                    (i, name.to_string_lossy().into_owned())
                })
                .collect()
        }
    }
    #[cfg(not(mbhash_isal_crypto))]
    {
        let _ = bits;
        Vec::new()
    }
}

/// One ISA-L crypto manager with room for `max` whole messages.
#[cfg(mbhash_isal_crypto)]
pub struct Manager {
    h: core::ptr::NonNull<core::ffi::c_void>,
    bits: Bits,
    max: usize,
    ptrs: Vec<*const u8>,
    lens: Vec<u32>,
}

/// One ISA-L crypto manager: not linked in this build.
#[cfg(not(mbhash_isal_crypto))]
pub enum Manager {}

impl Manager {
    /// Variant `index` (from [`variants`]) for up to `max` messages.
    pub fn new(bits: Bits, index: usize, max: usize) -> Option<Self> {
        #[cfg(mbhash_isal_crypto)]
        {
            // SAFETY: the shim checks `index` and the CPU and returns NULL
            // when it cannot build the manager.
            let h = unsafe { (bits.api().new)(bits.c(), index, max) };
            Some(Self {
                h: core::ptr::NonNull::new(h)?,
                bits,
                max,
                ptrs: Vec::with_capacity(max),
                lens: Vec::with_capacity(max),
            })
        }
        #[cfg(not(mbhash_isal_crypto))]
        {
            let _ = (bits, index, max);
            None
        }
    }

    /// Hashes each of `msgs` whole into `out` (digests back to back).
    pub fn run(&mut self, msgs: &[&[u8]], out: &mut [u8]) -> Result<(), String> {
        #[cfg(mbhash_isal_crypto)]
        {
            if msgs.len() > self.max || out.len() != msgs.len() * self.bits.digest_len() {
                return Err("isal: too many messages or a wrong output size".into());
            }
            self.ptrs.clear();
            self.lens.clear();
            for m in msgs {
                self.ptrs.push(m.as_ptr());
                self.lens.push(
                    u32::try_from(m.len()).map_err(|_| "isal: message over 4 GiB".to_string())?,
                );
            }
            // SAFETY: the handle is live; `ptrs[k]` points at `lens[k]`
            // readable bytes (borrowed for this call); `out` holds
            // `msgs.len()` digests; `msgs.len() <= max`, checked above.
            let rc = unsafe {
                (self.bits.api().run)(
                    self.h.as_ptr(),
                    self.ptrs.as_ptr(),
                    self.lens.as_ptr(),
                    msgs.len(),
                    out.as_mut_ptr(),
                )
            };
            if rc == 0 {
                Ok(())
            } else {
                Err("isal: a job did not complete".into())
            }
        }
        #[cfg(not(mbhash_isal_crypto))]
        {
            let _ = (msgs, out);
            match *self {}
        }
    }
}

#[cfg(mbhash_isal_crypto)]
impl Drop for Manager {
    fn drop(&mut self) {
        // SAFETY: the handle came from `mbb_isal_new` and is freed once.
        unsafe { (self.bits.api().free)(self.h.as_ptr()) }
    }
}

#[cfg(mbhash_openssl)]
mod ssl_ffi {
    use core::ffi::{c_char, c_int, c_void};
    unsafe extern "C" {
        pub fn mbb_openssl_md(name: *const c_char) -> *const c_void;
        pub fn mbb_openssl_md_size(md: *const c_void) -> c_int;
        pub fn mbb_openssl_digest(
            md: *const c_void,
            data: *const u8,
            len: usize,
            out: *mut u8,
        ) -> c_int;
    }
}

/// One of OpenSSL's digests (`EVP_Digest`, one whole message per call),
/// when this build links libcrypto.
#[cfg(mbhash_openssl)]
pub struct OpenSsl {
    md: core::ptr::NonNull<core::ffi::c_void>,
    len: usize,
}

/// One of OpenSSL's digests: not linked in this build.
#[cfg(not(mbhash_openssl))]
pub enum OpenSsl {}

impl OpenSsl {
    /// The digest of OpenSSL's name `name` ("MD5", "SHA1", "SM3",
    /// "SHA256", ...), if this build links libcrypto and it has it.
    pub fn new(name: &core::ffi::CStr) -> Option<Self> {
        #[cfg(mbhash_openssl)]
        {
            // SAFETY: `name` is NUL-terminated; the shim returns NULL or a
            // fetched digest that lives for the process (never freed).
            let md = unsafe { ssl_ffi::mbb_openssl_md(name.as_ptr()) };
            let md = core::ptr::NonNull::new(md.cast_mut())?;
            // SAFETY: `md` is a live digest from `mbb_openssl_md`.
            let len = unsafe { ssl_ffi::mbb_openssl_md_size(md.as_ptr()) };
            Some(Self {
                md,
                len: usize::try_from(len).ok().filter(|&l| l > 0 && l <= 64)?,
            })
        }
        #[cfg(not(mbhash_openssl))]
        {
            let _ = name;
            None
        }
    }

    /// Digest bytes.
    pub fn len(&self) -> usize {
        #[cfg(mbhash_openssl)]
        return self.len;
        #[cfg(not(mbhash_openssl))]
        match *self {}
    }

    /// Never true: a digest has bytes.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Hashes `data` into `out[..self.len()]`.
    ///
    /// # Panics
    /// If `out` is shorter than the digest, or OpenSSL fails.
    pub fn digest(&self, data: &[u8], out: &mut [u8]) {
        #[cfg(mbhash_openssl)]
        {
            assert!(out.len() >= self.len, "openssl: output too short");
            // SAFETY: `md` is live; `data` is readable for its length; `out`
            // has room for the digest (checked above).
            let rc = unsafe {
                ssl_ffi::mbb_openssl_digest(
                    self.md.as_ptr(),
                    data.as_ptr(),
                    data.len(),
                    out.as_mut_ptr(),
                )
            };
            assert_eq!(rc, 0, "openssl: EVP_Digest failed");
        }
        #[cfg(not(mbhash_openssl))]
        {
            let _ = (data, out);
            match *self {}
        }
    }
}
