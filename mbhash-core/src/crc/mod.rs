//! Every CRC from one engine: any spec of the Rocksoft model (the CRC
//! catalogue's parameters, [`CrcSpec`]), the named ones ([`Variant`]:
//! CRC-32/ISO-HDLC, CRC-32C, CRC-64/NVME, CRC-16/T10-DIF, ...), one-shot,
//! streaming, combination and shift.
//!
//! ```
//! use mbhash_core::crc::{self, Crc, CRC32_ISO_HDLC, CRC64_NVME};
//! assert_eq!(crc::checksum(&CRC64_NVME, b"123456789"), 0xAE8B_1486_0A79_9888);
//! let mut c = Crc::new(&CRC32_ISO_HDLC);
//! c.update(b"1234");
//! c.update(b"56789");
//! assert_eq!(c.finalize(), 0xCBF4_3926);
//! let (a, b) = (crc::checksum(&CRC32_ISO_HDLC, b"1234"), crc::checksum(&CRC32_ISO_HDLC, b"56789"));
//! assert_eq!(crc::combine(&CRC32_ISO_HDLC, a, b, 5), 0xCBF4_3926);
//! ```
//!
//! # Values and registers
//!
//! A *CRC* here is a finished value (the catalogue's: `init`, reflection,
//! `xorout` applied), right-aligned in a `u64`. A *register* is the raw
//! state between bytes, right-aligned, in the input's bit order (reflected
//! for a reflected spec), before `refout` and `xorout`: what
//! [`update_register`] takes and returns, for callers with their own seed
//! conventions (ISA-L's `crc16_t10dif(seed, ...)` is
//! `update_register(&CRC16_T10_DIF, seed, data)`; its `crc32_ieee(seed, ...)`
//! is `!update_register(&CRC32_BZIP2, !seed, data)`).
//!
//! # Engines
//!
//! [`CrcEngine`]: `table` (slice-by-16, any CPU), `pclmul` (128-bit
//! carry-less folding), `vpclmul256` (AVX2 + VPCLMULQDQ), `vpclmul512`
//! (AVX-512 + VPCLMULQDQ), and `auto`, which picks per size class by the
//! cost measured on this CPU at first use. Every engine serves every spec
//! (the kernels compute any width as a degree-64 CRC, see
//! `mbhash_simd::crc`). `MBHASH_CRC_ENGINE` names the engine of every spec
//! but CRC-32/ISCSI, which follows `MBHASH_CRC32C_ENGINE` and, under
//! `auto`, runs the CRC32C kernels of [`crate::crc::crc32c`] (its `crc32`
//! instruction kernels are CRC-32C-only specialisations).
//!
//! Without `std` everything works but the environment variable and the
//! measurement: `auto` then takes the widest folding kernel the CPU has,
//! and a spec that is not named runs bit by bit unless its constants are
//! given ([`Crc::with_consts`], a `static` made by the `const fn`
//! [`Consts::new`]).

#[cfg(feature = "std")]
pub(crate) mod classes;
pub mod crc32c;
mod engine;
mod spec;
mod variant;

#[cfg(feature = "std")]
pub use engine::{AutoChoices, ENGINE_VAR, auto_choices};
pub use engine::{
    CrcEngine, CrcKernel, clear_default, configured_engine, engines, ready, select_engine,
    set_default,
};
pub use mbhash_simd::crc::Consts;
pub use spec::{CrcSpec, SpecError};
pub use variant::*;

pub use crate::select::{EngineError, EngineErrorKind};

/// The kernel constants of `spec`: the static ones of a named variant with
/// the same width, polynomial and reflection, else (with `std`) made once
/// per process and kept, for up to 256 such (width, polynomial,
/// reflection); `None` past them and, without `std`, for any spec not
/// named (such specs run bit by bit).
#[inline]
pub fn consts(spec: &CrcSpec) -> Option<&'static Consts> {
    if let Some(c) = variant::named_consts(spec.width, spec.poly, spec.refin) {
        return Some(c);
    }
    #[cfg(feature = "std")]
    {
        engine::user_consts(spec)
    }
    #[cfg(not(feature = "std"))]
    {
        None
    }
}

/// The CRC of `data` under `spec`, on the configured engine.
#[inline]
pub fn checksum(spec: &CrcSpec, data: &[u8]) -> u64 {
    spec.finish_register(update_register(spec, spec.init_register(), data))
}

/// Continues a CRC: from the finished CRC `crc` of some message `A`, the
/// finished CRC of `A` followed by `data`. `append(spec, checksum(spec,
/// b""), data)` is `checksum(spec, data)`.
#[inline]
pub fn append(spec: &CrcSpec, crc: u64, data: &[u8]) -> u64 {
    spec.finish_register(update_register(spec, spec.register_of(crc), data))
}

/// Advances the raw register `reg` (right-aligned, in the input's bit
/// order; see the module documentation) over `data`, on the configured
/// engine. Bits of `reg` above the width are ignored.
#[inline]
pub fn update_register(spec: &CrcSpec, reg: u64, data: &[u8]) -> u64 {
    update_register_of(spec, consts(spec), reg, data)
}

/// [`update_register`] with the spec's constants `consts` (from
/// [`consts`]). Inlined into each arm of [`Variant::update_register`],
/// where the spec and its constants are compile-time values: the tests of
/// the parameters fold away, and what is left is the mask, the current
/// kernel table's load and the kernel's call.
#[inline(always)]
fn update_register_of(
    spec: &CrcSpec,
    consts: Option<&'static Consts>,
    reg: u64,
    data: &[u8],
) -> u64 {
    let reg = reg & spec.mask();
    // CRC-32/ISCSI on the CRC32C engines, whatever its init and xorout.
    if engine::is_crc32c(spec) {
        return u64::from(!crate::crc::crc32c::crc32c_append(!(reg as u32), data));
    }
    match consts {
        Some(c) => {
            // The spec's own width and reflection (equal to the
            // constants'; compile-time values for a named variant).
            let shift = 64 - u32::from(spec.width);
            let normalised = if spec.refin { reg } else { reg << shift };
            let out = engine::update_current(spec.refin, c, normalised, data);
            if spec.refin { out } else { out >> shift }
        }
        None => bitwise_register(spec, reg, data),
    }
}

/// Bytes copied and then checksummed at a time by [`update_register_copy`]:
/// small enough that the checksum reads the copy from L1.
const COPY_CHUNK: usize = 4096;

/// Copies `src` into `dst` and advances the raw register `reg` over the
/// bytes (as ISA-L's `crc16_t10dif_copy`, for T10 protection information
/// inserted while data moves). Where the engine for this length is
/// `vpclmul512`, in one pass (each vector stored as it is loaded for
/// folding); else a chunk at a time, so that the checksum reads each chunk
/// of the source from the first-level cache, where the copy brought it.
/// A named CRC's [`Variant::update_register_copy`] does the same with its
/// constants known.
///
/// # Panics
/// If `dst` and `src` differ in length (as `copy_from_slice`).
pub fn update_register_copy(spec: &CrcSpec, reg: u64, dst: &mut [u8], src: &[u8]) -> u64 {
    copy_on(
        spec,
        consts(spec),
        &CrcKernel::for_spec(spec),
        reg,
        dst,
        src,
    )
}

/// [`update_register_copy`] on `kernel`, with the spec's constants
/// `consts` (from [`consts`]).
fn copy_on(
    spec: &CrcSpec,
    consts: Option<&'static Consts>,
    kernel: &CrcKernel,
    reg: u64,
    dst: &mut [u8],
    src: &[u8],
) -> u64 {
    assert_eq!(
        dst.len(),
        src.len(),
        "update_register_copy: destination and source lengths differ"
    );
    let mut reg = reg & spec.mask();
    // One pass where the CPU has the 512-bit kernel and `kernel` would run
    // it at this length (never below the one-pass kernel's shortest).
    if src.len() >= mbhash_simd::crc::vpclmul512::COPY_MIN
        && let (Some(c), Some(k)) = (consts, mbhash_simd::crc::Vpclmul512::new())
        && kernel.runs_vpclmul512(c, src.len())
    {
        return c.from_normalised(k.update_copy(c, c.to_normalised(reg), dst, src));
    }
    for (d, s) in dst.chunks_mut(COPY_CHUNK).zip(src.chunks(COPY_CHUNK)) {
        d.copy_from_slice(s);
        // From the source, which the copy only read: the checksum does not
        // wait on the copy's stores.
        reg = match consts {
            Some(c) => kernel.update_register(c, reg, s),
            None => bitwise_register(spec, reg, s),
        };
    }
    reg
}

/// The register after `data` bit by bit, for a spec without kernel
/// constants (see [`consts`]).
fn bitwise_register(spec: &CrcSpec, reg: u64, data: &[u8]) -> u64 {
    let s = CrcSpec {
        init: if spec.refin {
            spec::reflect(reg, spec.width)
        } else {
            reg
        },
        refout: spec.refin,
        xorout: 0,
        ..*spec
    };
    s.bitwise(data)
}

/// The CRC of `A` followed by `B` from `crc_a = checksum(A)`,
/// `crc_b = checksum(B)` and the length of `B`, in O(log `len_b`) without
/// the data.
pub fn combine(spec: &CrcSpec, crc_a: u64, crc_b: u64, len_b: u64) -> u64 {
    // reg(A B) = shift(reg(A) ^ init, |B|) ^ reg(B): the register is
    // linear, and reg(B) already holds init shifted over B.
    let ra = spec.register_of(crc_a) ^ spec.init_register();
    let rb = spec.register_of(crc_b);
    spec.finish_register(shift_register(spec, ra, len_b) ^ rb)
}

/// The finished CRC of `A` followed by `n` zero bytes, from the finished
/// CRC of `A`, in O(log n) without touching data.
pub fn shift(spec: &CrcSpec, crc: u64, n: u64) -> u64 {
    spec.finish_register(shift_register(spec, spec.register_of(crc), n))
}

/// The raw register advanced over `n` zero bytes, in O(log n).
pub fn shift_register(spec: &CrcSpec, reg: u64, n: u64) -> u64 {
    let reg = reg & spec.mask();
    match consts(spec) {
        Some(c) => {
            let r = c.to_normalised(reg);
            c.from_normalised(match mbhash_simd::crc::Pclmul::new() {
                Some(k) => k.shift(c, r, n),
                None => c.shift(r, n),
            })
        }
        None => {
            // Square-and-multiply over a stack table, without constants.
            let c = ShiftOnly::new(spec);
            c.shift(reg, n)
        }
    }
}

/// `shift` for a spec without kernel constants (see [`consts`]): the powers
/// `x^(8 * 2^k)` computed on the way.
struct ShiftOnly {
    p: u64,
    width: u8,
    reflected: bool,
}

impl ShiftOnly {
    fn new(spec: &CrcSpec) -> ShiftOnly {
        ShiftOnly {
            p: mbhash_simd::crc::normalised_poly(spec.width, spec.poly),
            width: spec.width,
            reflected: spec.refin,
        }
    }

    fn shift(&self, reg: u64, n: u64) -> u64 {
        use mbhash_simd::crc::mulmod;
        let normal = if self.reflected {
            spec::reflect(reg, self.width)
        } else {
            reg
        };
        let mut r = normal << (64 - self.width as u32);
        let mut power = 1u64 << 8;
        let mut n = n;
        while n > 0 {
            if n & 1 == 1 {
                r = mulmod(r, power, self.p);
            }
            power = mulmod(power, power, self.p);
            n >>= 1;
        }
        let r = r >> (64 - self.width as u32);
        if self.reflected {
            spec::reflect(r, self.width)
        } else {
            r
        }
    }
}

/// A streaming CRC: feed it pieces, read the CRC of their concatenation.
///
/// Implements [`core::hash::Hasher`] (`finish` is the CRC) and, with `std`,
/// [`std::io::Write`] (never fails).
///
/// ```
/// use mbhash_core::crc::{Crc, CRC64_NVME};
/// let mut c = Crc::new(&CRC64_NVME);
/// std::io::copy(&mut &b"123456789"[..], &mut c).unwrap();
/// assert_eq!(c.finalize(), CRC64_NVME.check);
/// c.reset();
/// assert_eq!(c.finalize(), mbhash_core::crc::checksum(&CRC64_NVME, b""));
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Crc {
    spec: CrcSpec,
    consts: Option<&'static Consts>,
    kernel: CrcKernel,
    /// The normalised register with constants, else the spec's register.
    reg: u64,
}

impl Crc {
    /// A CRC of `spec` over the empty message, on the configured engine.
    pub fn new(spec: &CrcSpec) -> Crc {
        Crc::build(spec, consts(spec), CrcKernel::for_spec(spec))
    }

    /// A CRC of `spec` on `engine`.
    ///
    /// # Errors
    /// When this CPU does not run `engine`.
    pub fn with_engine(spec: &CrcSpec, engine: CrcEngine) -> Result<Crc, EngineError> {
        Ok(Crc::build(
            spec,
            consts(spec),
            CrcKernel::new_for(spec, engine)?,
        ))
    }

    /// A CRC of `spec` with the kernel constants `consts` (a `static` made
    /// by [`Consts::new`] from the same width, polynomial and `refin`), for
    /// a spec not named here in a `no_std` build.
    ///
    /// # Panics
    /// If `consts` was made for another width, polynomial or reflection.
    pub fn with_consts(spec: &CrcSpec, consts: &'static Consts) -> Crc {
        assert!(
            consts.width() == spec.width
                && consts.reflected() == spec.refin
                && consts.poly_normal() == spec.poly,
            "constants of another CRC"
        );
        Crc::build(spec, Some(consts), CrcKernel::for_spec(spec))
    }

    fn build(spec: &CrcSpec, consts: Option<&'static Consts>, kernel: CrcKernel) -> Crc {
        let mut c = Crc {
            spec: *spec,
            consts,
            kernel,
            reg: 0,
        };
        c.reset();
        c
    }

    /// Continues from the finished CRC `crc` of some earlier message, as
    /// [`append`] does.
    pub fn with_initial(spec: &CrcSpec, crc: u64) -> Crc {
        let mut c = Crc::new(spec);
        c.set_register(spec.register_of(crc));
        c
    }

    /// The spec.
    pub fn spec(&self) -> &CrcSpec {
        &self.spec
    }

    /// The engine it runs.
    pub fn engine(&self) -> CrcEngine {
        self.kernel.engine()
    }

    /// Back to the empty message.
    pub fn reset(&mut self) {
        self.set_register(self.spec.init_register());
    }

    /// The raw register (right-aligned, in the input's bit order).
    pub fn register(&self) -> u64 {
        match self.consts {
            Some(c) => c.from_normalised(self.reg),
            None => self.reg,
        }
    }

    /// Sets the raw register (bits above the width are ignored).
    pub fn set_register(&mut self, reg: u64) {
        let reg = reg & self.spec.mask();
        self.reg = match self.consts {
            Some(c) => c.to_normalised(reg),
            None => reg,
        };
    }

    /// Appends `data` to the message.
    #[inline]
    pub fn update(&mut self, data: &[u8]) {
        self.reg = match self.consts {
            Some(c) => self.kernel.update_normalised(c, self.reg, data),
            None => bitwise_register(&self.spec, self.reg, data),
        };
    }

    /// Copies `src` into `dst` and appends the bytes to the message (see
    /// [`update_register_copy`]).
    ///
    /// # Panics
    /// If `dst` and `src` differ in length.
    pub fn update_copy(&mut self, dst: &mut [u8], src: &[u8]) {
        // On this CRC's own kernel (the engine it was made with).
        let reg = copy_on(
            &self.spec,
            self.consts,
            &self.kernel,
            self.register(),
            dst,
            src,
        );
        self.set_register(reg);
    }

    /// Appends `n` zero bytes without reading any, in O(log n).
    pub fn shift(&mut self, n: u64) {
        let reg = shift_register(&self.spec, self.register(), n);
        self.set_register(reg);
    }

    /// The finished CRC of everything fed so far (the state is kept: more
    /// can be fed after).
    pub fn finalize(&self) -> u64 {
        self.spec.finish_register(self.register())
    }
}

impl core::hash::Hasher for Crc {
    fn write(&mut self, bytes: &[u8]) {
        self.update(bytes);
    }

    fn finish(&self) -> u64 {
        self.finalize()
    }
}

#[cfg(feature = "std")]
impl std::io::Write for Crc {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.update(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests;
