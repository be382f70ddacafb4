//! The CRC algorithms of `mbhash sum -a` (`crc`, `crc32b`, every named
//! CRC): their names, specs and tags, apart from the summing
//! (`crcsum.rs`) so that the argument parser needs nothing else.

use mbhash_core::crc::{CrcSpec, Variant};

/// The CRC algorithms of `-a`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CrcAlgo {
    /// `-a crc`: POSIX `cksum`.
    Cksum,
    /// `-a crc32b`: coreutils 9.6's `cksum -a crc32b`.
    Crc32b,
    /// A named CRC, in the `sha256sum` line forms.
    Named(Variant),
}

impl CrcAlgo {
    /// The CRC algorithm `-a name` means (lower-case names, the catalogue's
    /// in any case), if any.
    pub fn from_name(name: &str) -> Option<CrcAlgo> {
        match name {
            "crc" => Some(CrcAlgo::Cksum),
            "crc32b" => Some(CrcAlgo::Crc32b),
            _ => Variant::from_name(&name.to_ascii_lowercase())
                .or_else(|| Variant::from_name(name))
                .map(CrcAlgo::Named),
        }
    }

    /// The names `-a` lists.
    pub fn names() -> Vec<&'static str> {
        let mut v = vec!["crc", "crc32b"];
        v.extend(Variant::ALL.iter().map(|v| v.name()));
        v
    }

    /// The spec computed over the data.
    pub fn spec(self) -> &'static CrcSpec {
        match self {
            CrcAlgo::Cksum => Variant::Crc32Cksum.spec(),
            CrcAlgo::Crc32b => Variant::Crc32IsoHdlc.spec(),
            CrcAlgo::Named(v) => v.spec(),
        }
    }

    /// True for the two `cksum` forms.
    pub fn is_cksum(self) -> bool {
        matches!(self, CrcAlgo::Cksum | CrcAlgo::Crc32b)
    }

    /// The tag of `--tag` lines: the name in upper case (`CRC64-NVME`).
    pub fn tag(self) -> String {
        match self {
            CrcAlgo::Cksum => "CRC".into(),
            CrcAlgo::Crc32b => "CRC32B".into(),
            CrcAlgo::Named(v) => v.name().to_ascii_uppercase(),
        }
    }
}

/// The refusal of `-c` with `-a crc` or `-a crc32b`, in coreutils' words
/// (the named CRCs' lines are checked).
pub const CHECK_REFUSED: &str = "--check is not supported with --algorithm={bsd,sysv,crc,crc32b}";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_resolve() {
        assert_eq!(CrcAlgo::from_name("crc"), Some(CrcAlgo::Cksum));
        assert_eq!(CrcAlgo::from_name("crc32b"), Some(CrcAlgo::Crc32b));
        assert_eq!(
            CrcAlgo::from_name("crc64-nvme"),
            Some(CrcAlgo::Named(Variant::Crc64Nvme))
        );
        assert_eq!(
            CrcAlgo::from_name("CRC-64/NVME"),
            Some(CrcAlgo::Named(Variant::Crc64Nvme))
        );
        assert_eq!(CrcAlgo::from_name("sha256"), None);
    }
}
