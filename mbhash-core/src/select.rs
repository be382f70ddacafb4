//! Choosing an engine by name: [`EngineNames`], the one error of engine
//! selection ([`EngineError`]) and the one reading of an engine variable
//! ([`from_env`]).

use core::fmt;

/// A family's engines as names: what an [`EngineError`] lists.
///
/// Implemented by every family's engine type (`Engine<K>` for SHA-256 and
/// SHA-512, `crc32c::Crc32cKernel` for CRC32C): the one model by which an
/// engine is chosen by name.
pub trait EngineNames {
    /// Family name in messages, e.g. `"sha256"`, `"crc32c"`.
    const FAMILY: &'static str;
    /// The environment variable that names the configured engine.
    const ENV_VAR: &'static str;
    /// Engine name number `i` (`auto` excepted), in a fixed order; `None`
    /// past the last (at most 32).
    fn engine_name(i: usize) -> Option<&'static str>;
    /// True if the engine named `engine_name(i)` runs on this CPU.
    fn name_supported(i: usize) -> bool;
}

/// Why an engine name was refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum EngineErrorKind {
    /// No engine has this name.
    Unknown,
    /// The engine exists but this CPU (or `MBHASH_DISABLE`) does not allow it.
    Unsupported,
}

/// An engine name that cannot be used, with the names that can: the one
/// error of engine selection, for every family (SHA-256, SHA-512, CRC32C).
///
/// It allocates nothing (a name longer than [`EngineError::NAME_MAX`] bytes
/// is kept truncated).
#[derive(Clone, Debug)]
pub struct EngineError {
    /// The algorithm family, e.g. `"sha256"`.
    pub family: &'static str,
    name: [u8; EngineError::NAME_MAX],
    name_len: u8,
    /// Unknown or unsupported.
    pub kind: EngineErrorKind,
    names: fn(usize) -> Option<&'static str>,
    supported: u32,
    /// Where the name came from, e.g. `"MBHASH_SHA256_ENGINE"`, if not an API call.
    pub source: Option<&'static str>,
}

impl EngineError {
    /// Bytes of the refused name that are kept.
    pub const NAME_MAX: usize = 32;

    /// The error for `name` in the family of the engine type `E`.
    pub fn new<E: EngineNames>(name: &str, kind: EngineErrorKind) -> EngineError {
        let mut supported = 0;
        for i in (0..32).take_while(|i| E::engine_name(*i).is_some()) {
            if E::name_supported(i) {
                supported |= 1 << i;
            }
        }
        let mut stored = [0u8; EngineError::NAME_MAX];
        let mut len = name.len().min(EngineError::NAME_MAX);
        while !name.is_char_boundary(len) {
            len -= 1;
        }
        stored[..len].copy_from_slice(&name.as_bytes()[..len]);
        EngineError {
            family: E::FAMILY,
            name: stored,
            name_len: len as u8,
            kind,
            names: E::engine_name,
            supported,
            source: None,
        }
    }

    /// The name that was asked for (at most [`EngineError::NAME_MAX`] bytes).
    pub fn name(&self) -> &str {
        core::str::from_utf8(&self.name[..self.name_len as usize]).unwrap_or("")
    }

    /// Unknown or unsupported.
    pub fn kind(&self) -> EngineErrorKind {
        self.kind
    }

    /// Every engine name of the family, `auto` first.
    pub fn valid(&self) -> impl Iterator<Item = &'static str> + '_ {
        core::iter::once("auto").chain((0..32).map_while(self.names))
    }

    /// The names this CPU supports, `auto` first.
    pub fn supported(&self) -> impl Iterator<Item = &'static str> + '_ {
        core::iter::once("auto").chain(
            (0..32)
                .map_while(self.names)
                .enumerate()
                .filter(|(i, _)| self.supported & (1 << i) != 0)
                .map(|(_, n)| n),
        )
    }
}

impl PartialEq for EngineError {
    fn eq(&self, other: &Self) -> bool {
        self.family == other.family
            && self.name() == other.name()
            && self.kind == other.kind
            && self.supported == other.supported
            && self.source == other.source
    }
}

impl Eq for EngineError {}

impl fmt::Display for EngineError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let what = match self.kind {
            EngineErrorKind::Unknown => "unknown",
            EngineErrorKind::Unsupported => "unsupported on this CPU",
        };
        write!(f, "{} engine '{}' is {what}", self.family, self.name())?;
        if let Some(src) = self.source {
            write!(f, " (from {src})")?;
        }
        let list = |f: &mut fmt::Formatter<'_>, names: &mut dyn Iterator<Item = &str>| {
            for (i, n) in names.enumerate() {
                if i > 0 {
                    f.write_str(", ")?;
                }
                f.write_str(n)?;
            }
            Ok(())
        };
        f.write_str("; valid engines: ")?;
        list(f, &mut self.valid())?;
        f.write_str("; supported here: ")?;
        list(f, &mut self.supported())
    }
}

impl core::error::Error for EngineError {}

/// The engine that the family's environment variable (`E::ENV_VAR`) names:
/// `auto()` when it is unset or blank, else `from_name` of its trimmed
/// lower-case value (an error then names the variable); a value that is
/// not UTF-8 is an unknown name. The one reading of an engine variable, for
/// every family; it never prints.
#[cfg(feature = "std")]
pub fn from_env<E: EngineNames, T>(
    from_name: impl FnOnce(&str) -> Result<T, EngineError>,
    auto: impl FnOnce() -> T,
) -> Result<T, EngineError> {
    let result = match std::env::var(E::ENV_VAR) {
        Err(std::env::VarError::NotPresent) => return Ok(auto()),
        Err(std::env::VarError::NotUnicode(raw)) => Err(EngineError::new::<E>(
            &raw.to_string_lossy(),
            EngineErrorKind::Unknown,
        )),
        Ok(v) => {
            let v = v.trim().to_ascii_lowercase();
            if v.is_empty() {
                return Ok(auto());
            }
            from_name(&v)
        }
    };
    result.map_err(|mut e| {
        e.source = Some(E::ENV_VAR);
        e
    })
}
