//! [`CrcSpec`]: a CRC in the Rocksoft model of the CRC catalogue, and its
//! validation.

use core::fmt;

/// A CRC in the Rocksoft parameter model that the CRC catalogue uses
/// (Williams, "A Painless Guide to CRC Error Detection Algorithms"):
///
/// * `width`: the register's width in bits, 1 to 64;
/// * `poly`: the generator polynomial in the normal order, without its
///   `x^width` term (CRC-32's `0x04C11DB7`, even for the reflected CRC-32);
/// * `init`: the register before the first byte, in the normal order of the
///   algorithm's register as the catalogue writes it;
/// * `refin`: bytes enter least significant bit first (a reflected CRC);
/// * `refout`: the register is reflected before `xorout` is applied;
/// * `xorout`: XORed into the final value;
/// * `check`: the CRC of the ASCII bytes `"123456789"`;
/// * `name`: the catalogue's name (e.g. `"CRC-32/ISO-HDLC"`).
///
/// `poly`, `init`, `xorout` and `check` must fit in `width` bits:
/// [`CrcSpec::new`] checks that (and the check value) for specs made at run
/// time; the `const` constructor [`CrcSpec::catalogued`] makes the named
/// ones and fails to compile on a value that does not fit.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct CrcSpec {
    /// Register width in bits, 1 to 64.
    pub width: u8,
    /// Generator polynomial, normal order, without the `x^width` term.
    pub poly: u64,
    /// Initial register value (normal order, as the catalogue writes it).
    pub init: u64,
    /// Input reflected (least significant bit of each byte first).
    pub refin: bool,
    /// Output reflected before `xorout`.
    pub refout: bool,
    /// Final XOR.
    pub xorout: u64,
    /// The CRC of `"123456789"`.
    pub check: u64,
    /// The catalogue's name, e.g. `"CRC-64/NVME"`.
    pub name: &'static str,
}

/// Why a [`CrcSpec`] was refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SpecError {
    /// `width` is 0 or above 64.
    Width(u8),
    /// A parameter (`"poly"`, `"init"`, `"xorout"` or `"check"`) has bits
    /// above `width`.
    TooWide(&'static str),
    /// The polynomial is even (no `x^0` term): not a CRC generator (every
    /// catalogued CRC has it, and without it the low bits of the register
    /// never depend on the data).
    EvenPoly,
    /// The spec's `check` is not the CRC of `"123456789"` that its other
    /// parameters give (the computed value).
    Check(u64),
}

impl fmt::Display for SpecError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SpecError::Width(w) => write!(f, "CRC width {w} is outside 1..=64"),
            SpecError::TooWide(what) => {
                write!(f, "CRC parameter {what} has bits above the width")
            }
            SpecError::EvenPoly => f.write_str("CRC polynomial has no x^0 term"),
            SpecError::Check(got) => write!(
                f,
                "CRC check value does not match the parameters (they give {got:#x})"
            ),
        }
    }
}

impl core::error::Error for SpecError {}

/// The mask of the low `width` bits (`width` in 1..=64).
#[inline]
pub(crate) const fn mask(width: u8) -> u64 {
    if width >= 64 {
        u64::MAX
    } else {
        (1u64 << width) - 1
    }
}

/// Reverses the low `width` bits of `v`.
#[inline]
pub(crate) const fn reflect(v: u64, width: u8) -> u64 {
    v.reverse_bits() >> (64 - width as u32)
}

impl CrcSpec {
    /// A spec from the catalogue's parameters, checked at compile time when
    /// used in a `const` (a width out of range or a parameter wider than
    /// `width` fails to compile); the check value is verified by the
    /// tests, not here.
    #[allow(clippy::too_many_arguments)]
    pub const fn catalogued(
        name: &'static str,
        width: u8,
        poly: u64,
        init: u64,
        refin: bool,
        refout: bool,
        xorout: u64,
        check: u64,
    ) -> CrcSpec {
        let spec = CrcSpec {
            width,
            poly,
            init,
            refin,
            refout,
            xorout,
            check,
            name,
        };
        if spec.validate_params().is_err() {
            panic!("invalid CRC parameters");
        }
        spec
    }

    /// A spec given at run time (e.g. from a user), validated: the width is
    /// 1..=64, `poly`, `init`, `xorout` and `check` fit in it, the
    /// polynomial is odd, and `check` is the CRC of `"123456789"` under the
    /// other parameters (computed bit by bit, so a mistyped parameter is
    /// caught).
    ///
    /// # Errors
    /// The first parameter found wrong, as a [`SpecError`].
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        name: &'static str,
        width: u8,
        poly: u64,
        init: u64,
        refin: bool,
        refout: bool,
        xorout: u64,
        check: u64,
    ) -> Result<CrcSpec, SpecError> {
        let spec = CrcSpec {
            width,
            poly,
            init,
            refin,
            refout,
            xorout,
            check,
            name,
        };
        spec.validate()?;
        Ok(spec)
    }

    /// Checks the parameters as [`CrcSpec::new`] does.
    ///
    /// # Errors
    /// As [`CrcSpec::new`].
    pub fn validate(&self) -> Result<(), SpecError> {
        self.validate_params()?;
        let got = self.bitwise(b"123456789");
        if got != self.check {
            return Err(SpecError::Check(got));
        }
        Ok(())
    }

    const fn validate_params(&self) -> Result<(), SpecError> {
        if self.width == 0 || self.width > 64 {
            return Err(SpecError::Width(self.width));
        }
        let m = mask(self.width);
        if self.poly & !m != 0 {
            return Err(SpecError::TooWide("poly"));
        }
        if self.init & !m != 0 {
            return Err(SpecError::TooWide("init"));
        }
        if self.xorout & !m != 0 {
            return Err(SpecError::TooWide("xorout"));
        }
        if self.check & !m != 0 {
            return Err(SpecError::TooWide("check"));
        }
        if self.poly & 1 == 0 {
            return Err(SpecError::EvenPoly);
        }
        Ok(())
    }

    /// The CRC of `data` computed bit by bit from the definition: slow, no
    /// tables, for validation (a spec's parameters must be valid).
    pub const fn bitwise(&self, data: &[u8]) -> u64 {
        let w = self.width as u32;
        let top = 1u64 << (w - 1);
        let m = mask(self.width);
        let mut reg = self.init;
        let mut i = 0;
        while i < data.len() {
            let byte = if self.refin {
                data[i].reverse_bits()
            } else {
                data[i]
            };
            let mut bit = 0;
            while bit < 8 {
                let inb = ((byte >> (7 - bit)) & 1) as u64;
                let fb = ((reg & top) != 0) as u64 ^ inb;
                reg = (reg << 1) & m;
                if fb == 1 {
                    reg ^= self.poly;
                }
                bit += 1;
            }
            i += 1;
        }
        if self.refout {
            reg = reflect(reg, self.width);
        }
        reg ^ self.xorout
    }

    /// The register value the kernels start from: `init` in the input's
    /// bit order (reflected for a reflected CRC).
    #[inline]
    pub const fn init_register(&self) -> u64 {
        if self.refin {
            reflect(self.init, self.width)
        } else {
            self.init
        }
    }

    /// The finished CRC of a raw register (in the input's bit order):
    /// reflected if `refin != refout`, then XORed with `xorout`.
    #[inline]
    pub const fn finish_register(&self, reg: u64) -> u64 {
        let reg = if self.refin != self.refout {
            reflect(reg, self.width)
        } else {
            reg
        };
        reg ^ self.xorout
    }

    /// The raw register (in the input's bit order) whose finished CRC is
    /// `crc`: the inverse of [`CrcSpec::finish_register`], to continue a
    /// CRC from its finished value.
    #[inline]
    pub const fn register_of(&self, crc: u64) -> u64 {
        let reg = (crc & mask(self.width)) ^ self.xorout;
        if self.refin != self.refout {
            reflect(reg, self.width)
        } else {
            reg
        }
    }

    /// The mask of the spec's `width` bits.
    #[inline]
    pub const fn mask(&self) -> u64 {
        mask(self.width)
    }

    /// True if every parameter but the name equals `other`'s.
    pub const fn same_params(&self, other: &CrcSpec) -> bool {
        self.width == other.width
            && self.poly == other.poly
            && self.init == other.init
            && self.refin == other.refin
            && self.refout == other.refout
            && self.xorout == other.xorout
    }
}
