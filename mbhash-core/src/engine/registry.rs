//! The registry of engines: one alias per hash family, [`EngineFamily`],
//! [`AnyEngine`] and the run-time defaults, generated from the family
//! catalogue ([`for_each_family!`](crate::for_each_family)).

use core::fmt;

use super::{Engine, EngineError, FamilyEngine};
use super::{Md5Kernels, Sha1Kernels, Sha256Kernels, Sha512Kernels, Sm3Kernels};

/// The engine aliases, [`EngineFamily`], [`AnyEngine`] and the per-family
/// defaults, from the family catalogue
/// ([`for_each_family!`](crate::for_each_family)).
macro_rules! engine_families {
    ($($v:ident $ty:ident $engine:ident $kernels:ident $name:literal;)*) => {
        $(
            #[doc = concat!("The ", $name, " family's engine (", stringify!($ty), ").")]
            pub type $engine = Engine<$kernels>;

            impl FamilyEngine for crate::alg::$ty {
                type Engine = $engine;
                const ENGINE_FAMILY: EngineFamily = EngineFamily::$v;
            }
        )*

        /// A family of algorithms that share one list of engines and one
        /// default engine: SHA-224 runs SHA-256's engines, the SHA-512
        /// variants SHA-512's; and CRC32C. (Not [`crate::alg::Family`], the
        /// compile-time trait of a hash family's words and blocks.)
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum EngineFamily {
            $(
                #[doc = concat!("The ", $name, " family ([`", stringify!($engine), "`]).")]
                $v,
            )*
            /// CRC32C ([`crate::crc::crc32c::Crc32cEngine`]).
            Crc32c,
            /// Every other CRC ([`crate::crc::CrcEngine`]): CRC-32, CRC-64/NVME,
            /// CRC-16/T10-DIF, any spec (`MBHASH_CRC_ENGINE`).
            Crc,
        }

        /// An engine of any hash family: what code that holds one engine
        /// per family stores (the service's workers), without a downcast.
        #[derive(Clone, Copy, Debug)]
        pub enum AnyEngine {
            $(
                #[doc = concat!("A ", $name, " engine.")]
                $v($engine),
            )*
        }

        impl EngineFamily {
            /// Every hash family, then CRC32C, then the other CRCs.
            pub const ALL: [EngineFamily; [$(EngineFamily::$v,)* EngineFamily::Crc32c, EngineFamily::Crc].len()] =
                [$(EngineFamily::$v,)* EngineFamily::Crc32c, EngineFamily::Crc];

            /// The family's name in messages: `"sha256"`, `"sha512"`, ...,
            /// `"crc32c"`, `"crc"`.
            pub const fn name(self) -> &'static str {
                match self {
                    $(EngineFamily::$v => $name,)*
                    EngineFamily::Crc32c => "crc32c",
                    EngineFamily::Crc => "crc",
                }
            }

            /// The family with this name ([`EngineFamily::name`]).
            pub fn from_name(name: &str) -> Option<EngineFamily> {
                EngineFamily::ALL.into_iter().find(|f| f.name() == name)
            }
        }

        impl AnyEngine {
            /// The engine's family.
            pub const fn family(self) -> EngineFamily {
                match self {
                    $(AnyEngine::$v(_) => EngineFamily::$v,)*
                }
            }
        }

        /// Makes `name` the default engine of `family` (an [`EngineFamily`], or an
        /// [`Algo`](crate::Algo), which names its family) at run time, for the
        /// whole process, as OpenZFS's writable `zfs_sha256_impl`: see
        /// [`Engine::set_default`] and [`crate::crc::crc32c::set_default`]. The next
        /// kernel call of pools and services, every new manager and hasher, and
        /// the next [`crate::crc::crc32c::crc32c`] run on it. Safe while other threads
        /// hash.
        ///
        /// ```
        /// use mbhash_core::{Algo, engine::{self, EngineFamily}};
        /// engine::set_default(EngineFamily::Sha256, "scalar").unwrap();
        /// assert_eq!(engine::default_name(Algo::Sha224), "scalar");
        /// assert!(engine::set_default(Algo::Sha256, "sha3").is_err());
        /// assert_eq!(engine::default_name(EngineFamily::Sha256), "scalar");
        /// engine::set_default(Algo::Sha256, "auto").unwrap();
        ///
        /// engine::set_default(EngineFamily::Crc32c, "table").unwrap();
        /// assert_eq!(engine::default_name(EngineFamily::Crc32c), "table");
        /// assert_eq!(mbhash_core::crc32c::crc32c(b"123456789"), 0xE306_9283);
        /// engine::set_default(EngineFamily::Crc32c, "auto").unwrap();
        ///
        /// engine::set_default(EngineFamily::Crc, "table").unwrap();
        /// assert_eq!(engine::default_name(EngineFamily::Crc), "table");
        /// engine::clear_default(EngineFamily::Crc);
        /// ```
        ///
        /// # Errors
        /// An unknown or unsupported name (the error lists the family's valid
        /// names); nothing changes.
        pub fn set_default(family: impl Into<EngineFamily>, name: &str) -> Result<(), EngineError> {
            match family.into() {
                $(EngineFamily::$v => $engine::set_default(name),)*
                EngineFamily::Crc32c => crate::crc::crc32c::set_default(name),
                EngineFamily::Crc => crate::crc::set_default(name),
            }
        }

        /// Undoes [`set_default`] for `family` (an [`EngineFamily`] or an
        /// [`Algo`](crate::Algo)): its engine is the one its environment variable
        /// names again (`auto` when unset), as at the start of the process.
        pub fn clear_default(family: impl Into<EngineFamily>) {
            match family.into() {
                $(EngineFamily::$v => $engine::clear_default(),)*
                EngineFamily::Crc32c => crate::crc::crc32c::clear_default(),
                EngineFamily::Crc => crate::crc::clear_default(),
            }
        }

        /// The name of the engine `family` (an [`EngineFamily`] or an
        /// [`Algo`](crate::Algo)) runs by default now.
        pub fn default_name(family: impl Into<EngineFamily>) -> &'static str {
            match family.into() {
                $(EngineFamily::$v => $engine::configured().name(),)*
                EngineFamily::Crc32c => crate::crc::crc32c::engine().name(),
                EngineFamily::Crc => crate::crc::CrcKernel::configured().engine().name(),
            }
        }
    };
}

crate::for_each_family!(@names engine_families);

impl EngineFamily {
    /// The family of an algorithm.
    pub const fn of(algo: crate::Algo) -> EngineFamily {
        crate::with_algo!(algo, A => <<A as crate::alg::Algorithm>::Family as FamilyEngine>::ENGINE_FAMILY)
    }
}

impl From<crate::Algo> for EngineFamily {
    fn from(algo: crate::Algo) -> EngineFamily {
        EngineFamily::of(algo)
    }
}

impl fmt::Display for EngineFamily {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}
