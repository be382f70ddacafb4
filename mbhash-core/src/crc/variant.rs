//! The named CRCs: one row each, with its kernels' constants made at
//! compile time.

use super::spec::CrcSpec;
use mbhash_simd::crc::Consts;

/// Generates the spec constants, [`Variant`], its names and its static
/// kernel constants from one table.
macro_rules! variants {
    ($(
        $(#[$doc:meta])*
        $variant:ident, $konst:ident, $cli:literal, $aliases:expr,
        $name:literal, $width:literal, $poly:literal, $init:literal,
        $refin:literal, $refout:literal, $xorout:literal, $check:literal;
    )*) => {
        $(
            $(#[$doc])*
            pub const $konst: CrcSpec = CrcSpec::catalogued(
                $name, $width, $poly, $init, $refin, $refout, $xorout, $check,
            );
        )*

        /// A named CRC: every spec this crate knows by name, with its
        /// kernel constants built at compile time.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Variant {
            $( $(#[$doc])* $variant, )*
        }

        impl Variant {
            /// Every named CRC, in a fixed order.
            pub const ALL: &'static [Variant] = &[$(Variant::$variant,)*];

            /// The spec.
            pub const fn spec(self) -> &'static CrcSpec {
                match self {
                    $(Variant::$variant => &$konst,)*
                }
            }

            /// The lower-case name used by the command line (`crc64-nvme`).
            pub const fn name(self) -> &'static str {
                match self {
                    $(Variant::$variant => $cli,)*
                }
            }

            /// Other accepted lower-case names.
            pub const fn aliases(self) -> &'static [&'static str] {
                match self {
                    $(Variant::$variant => $aliases,)*
                }
            }

            /// The kernel constants, made at compile time (shared by the
            /// variants of the same width, polynomial and reflection).
            #[inline]
            pub fn consts(self) -> &'static Consts {
                match self {
                    $(Variant::$variant => {
                        named_consts($width, $poly, $refin).expect("a named CRC's constants")
                    })*
                }
            }

            /// Advances the raw register `reg` (right-aligned, in the
            /// input's bit order; bits above the width are ignored) over
            /// `data` on the configured engine, as
            /// [`super::update_register`] of the spec does. Each variant's
            /// arm is that function specialised for the variant (its
            /// constants, width and reflection known at compile time), so
            /// a caller that names the variant pays for no look-up of
            /// constants and no test of the spec's parameters (always
            /// inlined, as [`Variant::checksum`]: a constant variant then
            /// leaves its arm alone).
            #[inline(always)]
            pub fn update_register(self, reg: u64, data: &[u8]) -> u64 {
                match self {
                    $(Variant::$variant => super::update_register_of(
                        &$konst,
                        named_consts($width, $poly, $refin),
                        reg,
                        data,
                    ),)*
                }
            }

            /// The CRC of `data`, as [`super::checksum`] of the spec. Each
            /// arm is specialised for its variant, as in
            /// [`Variant::update_register`], seed and finish included: a
            /// variant known only at run time (`mbh_crc`, the command
            /// line) costs one jump on it.
            #[inline(always)]
            pub fn checksum(self, data: &[u8]) -> u64 {
                self.finish_from(CrcSpec::init_register, data)
            }

            /// Continues a CRC of the variant, as [`super::append`] of its
            /// spec (specialised per arm, as [`Variant::checksum`]).
            #[inline]
            pub fn append(self, crc: u64, data: &[u8]) -> u64 {
                self.finish_from(|spec| spec.register_of(crc), data)
            }

            /// The finished CRC of `data` from the register `start` gives
            /// for the variant's spec, in one arm per variant.
            #[inline(always)]
            fn finish_from(self, start: impl Fn(&CrcSpec) -> u64, data: &[u8]) -> u64 {
                match self {
                    $(Variant::$variant => {
                        let spec = &$konst;
                        spec.finish_register(super::update_register_of(
                            spec,
                            named_consts($width, $poly, $refin),
                            start(spec),
                            data,
                        ))
                    })*
                }
            }
        }
    };
}

variants! {
    /// CRC-32/ISO-HDLC: zlib, gzip, PNG, Ethernet (ISA-L `crc32_gzip_refl`).
    Crc32IsoHdlc, CRC32_ISO_HDLC, "crc32", &["crc32-iso-hdlc", "crc32b"],
    "CRC-32/ISO-HDLC", 32, 0x04C1_1DB7, 0xFFFF_FFFF, true, true, 0xFFFF_FFFF, 0xCBF4_3926;
    /// CRC-32/BZIP2, the non-reflected CRC-32 (ISA-L `crc32_ieee`).
    Crc32Bzip2, CRC32_BZIP2, "crc32-bzip2", &["crc32-ieee"],
    "CRC-32/BZIP2", 32, 0x04C1_1DB7, 0xFFFF_FFFF, false, false, 0xFFFF_FFFF, 0xFC89_1918;
    /// CRC-32/CKSUM: POSIX `cksum` (before its length is appended).
    Crc32Cksum, CRC32_CKSUM, "crc32-cksum", &["crc32-posix"],
    "CRC-32/CKSUM", 32, 0x04C1_1DB7, 0, false, false, 0xFFFF_FFFF, 0x765E_7680;
    /// CRC-32/ISCSI, CRC32C (Castagnoli): iSCSI, SCTP, ext4, Btrfs.
    Crc32Iscsi, CRC32_ISCSI, "crc32c", &["crc32-iscsi"],
    "CRC-32/ISCSI", 32, 0x1EDC_6F41, 0xFFFF_FFFF, true, true, 0xFFFF_FFFF, 0xE306_9283;
    /// CRC-64/NVME (ISA-L `crc64_rocksoft_refl`): NVMe protection information.
    Crc64Nvme, CRC64_NVME, "crc64-nvme", &["crc64-rocksoft", "crc64-rocksoft-refl"],
    "CRC-64/NVME", 64, 0xAD93_D235_94C9_3659, 0xFFFF_FFFF_FFFF_FFFF, true, true,
    0xFFFF_FFFF_FFFF_FFFF, 0xAE8B_1486_0A79_9888;
    /// CRC-64/XZ (ISA-L `crc64_ecma_refl`).
    Crc64Xz, CRC64_XZ, "crc64-xz", &["crc64-ecma-refl", "crc64-go-ecma"],
    "CRC-64/XZ", 64, 0x42F0_E1EB_A9EA_3693, 0xFFFF_FFFF_FFFF_FFFF, true, true,
    0xFFFF_FFFF_FFFF_FFFF, 0x995D_C9BB_DF19_39FA;
    /// CRC-64/ECMA-182.
    Crc64Ecma182, CRC64_ECMA_182, "crc64-ecma-182", &["crc64-ecma"],
    "CRC-64/ECMA-182", 64, 0x42F0_E1EB_A9EA_3693, 0, false, false, 0, 0x6C40_DF5F_0B49_7347;
    /// CRC-64/WE (ISA-L `crc64_ecma_norm`).
    Crc64We, CRC64_WE, "crc64-we", &["crc64-ecma-norm"],
    "CRC-64/WE", 64, 0x42F0_E1EB_A9EA_3693, 0xFFFF_FFFF_FFFF_FFFF, false, false,
    0xFFFF_FFFF_FFFF_FFFF, 0x62EC_59E3_F1A4_F00A;
    /// CRC-64/GO-ISO (ISA-L `crc64_iso_refl`).
    Crc64GoIso, CRC64_GO_ISO, "crc64-go-iso", &["crc64-iso-refl"],
    "CRC-64/GO-ISO", 64, 0x1B, 0xFFFF_FFFF_FFFF_FFFF, true, true,
    0xFFFF_FFFF_FFFF_FFFF, 0xB909_56C7_75A4_1001;
    /// CRC-64/REDIS (Jones' polynomial, zero initial value and final XOR).
    Crc64Redis, CRC64_REDIS, "crc64-redis", &[],
    "CRC-64/REDIS", 64, 0xAD93_D235_94C9_35A9, 0, true, true, 0, 0xE9C6_D914_C4B8_D9CA;
    /// ISA-L's `crc64_iso_norm`: the ISO polynomial, not reflected, with
    /// ISA-L's inversions (not in the catalogue).
    Crc64IsoNorm, CRC64_ISO_NORM, "crc64-iso-norm", &[],
    "CRC-64/ISO-NORM", 64, 0x1B, 0xFFFF_FFFF_FFFF_FFFF, false, false,
    0xFFFF_FFFF_FFFF_FFFF, 0x1B00_415A_776C_026F;
    /// ISA-L's `crc64_jones_refl`: Jones' polynomial, reflected, with
    /// ISA-L's inversions (not in the catalogue; CRC-64/REDIS has none).
    Crc64JonesRefl, CRC64_JONES_REFL, "crc64-jones-refl", &[],
    "CRC-64/JONES-REFL", 64, 0xAD93_D235_94C9_35A9, 0xFFFF_FFFF_FFFF_FFFF, true, true,
    0xFFFF_FFFF_FFFF_FFFF, 0x3558_E8E9_79F6_0D7E;
    /// ISA-L's `crc64_jones_norm`: Jones' polynomial, not reflected, with
    /// ISA-L's inversions (not in the catalogue).
    Crc64JonesNorm, CRC64_JONES_NORM, "crc64-jones-norm", &[],
    "CRC-64/JONES-NORM", 64, 0xAD93_D235_94C9_35A9, 0xFFFF_FFFF_FFFF_FFFF, false, false,
    0xFFFF_FFFF_FFFF_FFFF, 0xDCF9_0FB7_D3A9_94F3;
    /// ISA-L's `crc64_rocksoft_norm`: the Rocksoft (NVMe) polynomial, not
    /// reflected, with ISA-L's inversions (not in the catalogue).
    Crc64RocksoftNorm, CRC64_ROCKSOFT_NORM, "crc64-rocksoft-norm", &[],
    "CRC-64/ROCKSOFT-NORM", 64, 0xAD93_D235_94C9_3659, 0xFFFF_FFFF_FFFF_FFFF, false, false,
    0xFFFF_FFFF_FFFF_FFFF, 0xC0E3_40D3_ED32_F595;
    /// CRC-16/T10-DIF: SCSI and NVMe protection information (ISA-L
    /// `crc16_t10dif`).
    Crc16T10Dif, CRC16_T10_DIF, "crc16-t10dif", &["crc16-t10-dif"],
    "CRC-16/T10-DIF", 16, 0x8BB7, 0, false, false, 0, 0xD0DB;
}

/// Generates the static constants of each (width, polynomial, reflection)
/// of the named CRCs, and their lookup.
macro_rules! named_consts {
    ($($name:ident = ($width:literal, $poly:literal, $refin:literal);)*) => {
        $(static $name: Consts = Consts::new($width, $poly, $refin);)*

        /// The compile-time constants for (width, polynomial, reflection), if a
        /// named CRC has them.
        #[inline]
        pub(crate) fn named_consts(width: u8, poly: u64, refin: bool) -> Option<&'static Consts> {
            match (width, poly, refin) {
                $(($width, $poly, $refin) => Some(&$name),)*
                _ => None,
            }
        }
    };
}

named_consts! {
    CRC32_REFL = (32, 0x04C1_1DB7, true);
    CRC32_NORM = (32, 0x04C1_1DB7, false);
    CRC32C_REFL = (32, 0x1EDC_6F41, true);
    NVME_REFL = (64, 0xAD93_D235_94C9_3659, true);
    NVME_NORM = (64, 0xAD93_D235_94C9_3659, false);
    ECMA_REFL = (64, 0x42F0_E1EB_A9EA_3693, true);
    ECMA_NORM = (64, 0x42F0_E1EB_A9EA_3693, false);
    ISO_REFL = (64, 0x1B, true);
    ISO_NORM = (64, 0x1B, false);
    JONES_REFL = (64, 0xAD93_D235_94C9_35A9, true);
    JONES_NORM = (64, 0xAD93_D235_94C9_35A9, false);
    T10DIF_NORM = (16, 0x8BB7, false);
}

impl Variant {
    /// The named CRC called `name` (its [`Variant::name`], an alias, or the
    /// catalogue's name in any case, e.g. `CRC-64/NVME`).
    pub fn from_name(name: &str) -> Option<Variant> {
        Variant::ALL.iter().copied().find(|v| {
            v.name() == name
                || v.aliases().contains(&name)
                || v.spec().name.eq_ignore_ascii_case(name)
        })
    }

    /// Copies `src` into `dst` and advances the raw register `reg` over the
    /// bytes, as [`super::update_register_copy`] of the spec. Below the
    /// one-pass kernel's shortest length a copy and then
    /// [`Variant::update_register`], with no look-up of the spec's
    /// constants or engine (CRC-16/T10-DIF inserted per 512 B sector).
    ///
    /// # Panics
    /// If `dst` and `src` differ in length (as `copy_from_slice`).
    #[inline]
    pub fn update_register_copy(self, reg: u64, dst: &mut [u8], src: &[u8]) -> u64 {
        if src.len() < mbhash_simd::crc::vpclmul512::COPY_MIN {
            dst.copy_from_slice(src);
            // From the source, which the copy only read.
            return self.update_register(reg, src) & self.spec().mask();
        }
        super::update_register_copy(self.spec(), reg, dst, src)
    }

    /// The named CRC with the same parameters as `spec` (whatever its name).
    pub fn of(spec: &CrcSpec) -> Option<Variant> {
        Variant::ALL
            .iter()
            .copied()
            .find(|v| v.spec().same_params(spec))
    }
}
