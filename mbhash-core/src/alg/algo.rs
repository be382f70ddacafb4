//! The list of algorithms, chosen at run time: [`Algo`], its [`Digest`],
//! and the one dispatch macro, [`with_algo!`](crate::with_algo).
//!
//! [`for_each_algorithm!`](crate::for_each_algorithm) holds the one list of
//! every algorithm mbhash computes. [`Algo`] is generated from it, and so
//! is every `match` from an `Algo` to its typed [`Algorithm`]: the
//! service's, the C library's and the command-line tool's. Adding an
//! algorithm is its constants (an [`Algorithm`] marker in [`crate::alg`]),
//! its kernels, and one line in that list (plus its C constants).
//!
//! ```
//! use mbhash_core::{Algo, with_algo, alg::Algorithm};
//! let algo: Algo = "sha512-256".parse().unwrap();
//! let name = with_algo!(algo, A => A::NAME);
//! assert_eq!(name, "sha512-256");
//! assert_eq!(algo.digest(b"abc").as_bytes().len(), 32);
//! ```

use core::fmt;

use super::{Algorithm, Family};

/// Calls the macro `$m` (a macro name in scope) with the catalogue of every
/// algorithm.
///
/// `$m` receives `[ARGS]` (the tokens after the macro's name, if any), then
/// one entry per algorithm:
///
/// ```text
/// #[doc = ...] Variant = Marker {
///     family: Sha256Family, iv: mbhash_simd::sha256::IV, len: 32,
///     name: "sha256", tag: "SHA256", tags: ["SHA256", "SHA2-256"], hashlib: "sha256",
///     hasher: Sha256 "a drop-in for `sha2::Sha256`",
///     manager: Sha256Manager, context: Sha256Context,
///     oid: "2.16.840.1.101.3.4.2.1", sizes: [U32, U64, U40, U104],
/// };
/// ```
///
/// `Marker` is the [`Algorithm`] type generated in [`crate::alg`], `Variant`
/// its [`Algo`]; `family` the [`Family`] in [`crate::alg`]; `iv` the initial
/// value; `len` the digest's bytes; `name` the lower-case name (CLI `-a`,
/// `mbhash engines`); `tag` the BSD tag coreutils writes with `--tag` and
/// `tags` every tag a check line may carry (OpenSSL's and BSD's spellings);
/// `hashlib` Python's name; `hasher`, `manager` and `context` the names of the
/// type aliases (with the hasher's drop-in note); `oid` the ASN.1 object
/// identifier; `sizes` the `digest` crate's typenum sizes of the output, the
/// block, the saved block-level state and the saved hasher state (checked
/// against the family at compile time); `c` the C library's number
/// (`MBH_SHA256`, ...; 7 is `MBH_CRC32C`'s, for the engine functions).
///
/// This is the one list of algorithms: the markers, [`Algo`],
/// [`with_algo!`](crate::with_algo), the hashers, the manager and context
/// aliases, the pool's store, the service's stream tables and the C
/// library's manager union are generated from it. A callback that needs
/// only the variant and marker matches each entry's braces as one token
/// tree (`$v:ident = $t:ident $info:tt;`); `for_each_algorithm!(@names m)`
/// calls `m` with `Variant Marker Family Hasher Manager Context "name"
/// "TAG";` per algorithm.
#[macro_export]
macro_rules! for_each_algorithm {
    (@list [$($m:tt)*] [$($args:tt)*]) => {
        $($m)*! { [$($args)*]
            /// SHA-256 (FIPS 180-4).
            Sha256 = Sha256Alg {
                family: Sha256Family, iv: mbhash_simd::sha256::IV, len: 32,
                name: "sha256", tag: "SHA256", tags: ["SHA256", "SHA2-256"], hashlib: "sha256",
                hasher: Sha256 "a drop-in for `sha2::Sha256`",
                manager: Sha256Manager, context: Sha256Context,
                oid: "2.16.840.1.101.3.4.2.1", sizes: [U32, U64, U40, U104], c: 1,
            };
            /// SHA-224 (SHA-256 family).
            Sha224 = Sha224Alg {
                family: Sha256Family, iv: mbhash_simd::sha256::IV_224, len: 28,
                name: "sha224", tag: "SHA224", tags: ["SHA224", "SHA2-224"], hashlib: "sha224",
                hasher: Sha224 "a drop-in for `sha2::Sha224`",
                manager: Sha224Manager, context: Sha224Context,
                oid: "2.16.840.1.101.3.4.2.4", sizes: [U28, U64, U40, U104], c: 2,
            };
            /// SHA-512.
            Sha512 = Sha512Alg {
                family: Sha512Family, iv: mbhash_simd::sha512::IV, len: 64,
                name: "sha512", tag: "SHA512", tags: ["SHA512", "SHA2-512"], hashlib: "sha512",
                hasher: Sha512 "a drop-in for `sha2::Sha512`",
                manager: Sha512Manager, context: Sha512Context,
                oid: "2.16.840.1.101.3.4.2.3", sizes: [U64, U128, U80, U208], c: 3,
            };
            /// SHA-384 (SHA-512 family).
            Sha384 = Sha384Alg {
                family: Sha512Family, iv: mbhash_simd::sha512::IV_384, len: 48,
                name: "sha384", tag: "SHA384", tags: ["SHA384", "SHA2-384"], hashlib: "sha384",
                hasher: Sha384 "a drop-in for `sha2::Sha384`",
                manager: Sha384Manager, context: Sha384Context,
                oid: "2.16.840.1.101.3.4.2.2", sizes: [U48, U128, U80, U208], c: 4,
            };
            /// SHA-512/256 (SHA-512 family; ZFS's "sha512" checksum).
            Sha512_256 = Sha512_256Alg {
                family: Sha512Family, iv: mbhash_simd::sha512::IV_512_256, len: 32,
                name: "sha512-256", tag: "SHA512/256",
                tags: ["SHA512/256", "SHA2-512/256", "SHA512-256", "SHA512t256"],
                hashlib: "sha512_256",
                hasher: Sha512_256 "a drop-in for `sha2::Sha512_256`",
                manager: Sha512_256Manager, context: Sha512_256Context,
                oid: "2.16.840.1.101.3.4.2.6", sizes: [U32, U128, U80, U208], c: 5,
            };
            /// SHA-512/224 (SHA-512 family).
            Sha512_224 = Sha512_224Alg {
                family: Sha512Family, iv: mbhash_simd::sha512::IV_512_224, len: 28,
                name: "sha512-224", tag: "SHA512/224",
                tags: ["SHA512/224", "SHA2-512/224", "SHA512-224", "SHA512t224"],
                hashlib: "sha512_224",
                hasher: Sha512_224 "a drop-in for `sha2::Sha512_224`",
                manager: Sha512_224Manager, context: Sha512_224Context,
                oid: "2.16.840.1.101.3.4.2.5", sizes: [U28, U128, U80, U208], c: 6,
            };
            /// MD5 (RFC 1321): not collision-resistant; for S3 ETags, rsync and
            /// checksums of record.
            Md5 = Md5Alg {
                family: Md5Family, iv: mbhash_simd::md5::IV, len: 16,
                name: "md5", tag: "MD5", tags: ["MD5"], hashlib: "md5",
                hasher: Md5 "a drop-in for `md5::Md5` (crate `md-5`)",
                manager: Md5Manager, context: Md5Context,
                oid: "1.2.840.113549.2.5", sizes: [U16, U64, U24, U88], c: 8,
            };
            /// SHA-1 (FIPS 180-4): not collision-resistant; for git, dedup
            /// stores and checksums of record.
            Sha1 = Sha1Alg {
                family: Sha1Family, iv: mbhash_simd::sha1::IV, len: 20,
                name: "sha1", tag: "SHA1", tags: ["SHA1"], hashlib: "sha1",
                hasher: Sha1 "a drop-in for `sha1::Sha1`",
                manager: Sha1Manager, context: Sha1Context,
                oid: "1.3.14.3.2.26", sizes: [U20, U64, U28, U92], c: 9,
            };
            /// SM3 (GB/T 32905-2016).
            Sm3 = Sm3Alg {
                family: Sm3Family, iv: mbhash_simd::sm3::IV, len: 32,
                name: "sm3", tag: "SM3", tags: ["SM3"], hashlib: "sm3",
                hasher: Sm3 "a drop-in for `sm3::Sm3`",
                manager: Sm3Manager, context: Sm3Context,
                oid: "1.2.156.10197.1.401", sizes: [U32, U64, U40, U104], c: 10,
            };
        }
    };
    // The names only: `$m! { Variant Marker Family Hasher Manager Context
    // "name" "TAG"; ... }`, for code that needs no more of an entry.
    (@names $m:ident) => {
        $crate::for_each_algorithm! { @list [$crate::__algorithm_names] [$m] }
    };
    ($m:ident $(, $($args:tt)*)?) => {
        $crate::for_each_algorithm! { @list [$m] [$($($args)*)?] }
    };
}

/// [`for_each_algorithm!`](crate::for_each_algorithm)`(@names m)`: calls `m`
/// with each algorithm's variant, marker, family, hasher, manager and
/// context names, its name and its tag.
#[doc(hidden)]
#[macro_export]
macro_rules! __algorithm_names {
    ([$m:ident] $($(#[$doc:meta])* $v:ident = $t:ident {
        family: $family:ident, iv: $iv:path, len: $len:literal,
        name: $name:literal, tag: $tag:literal, tags: [$($tags:literal),*], hashlib: $hashlib:literal,
        hasher: $hasher:ident $hdoc:literal, manager: $manager:ident, context: $context:ident,
        oid: $oid:literal, sizes: [$out:ident, $block:ident, $core_state:ident, $state:ident], c: $c:literal $(,)?
    };)*) => {
        $m! { $($v $t $family $hasher $manager $context $name $tag;)* }
    };
}

/// Runs `$body` with the type alias `$A` set to the [`Algorithm`] marker of
/// the [`Algo`] `$algo`: the one dispatch from a run-time algorithm to the
/// generic code.
///
/// ```
/// use mbhash_core::{Algo, with_algo, hash_many};
/// let digests: Vec<Vec<u8>> = Algo::ALL
///     .iter()
///     .map(|a| with_algo!(*a, A => hash_many::<A>(&[b"abc"])[0].as_ref().to_vec()))
///     .collect();
/// assert_eq!(digests[0].len(), 32);
/// ```
#[macro_export]
macro_rules! with_algo {
    ($algo:expr, $A:ident => $body:expr) => {
        $crate::for_each_algorithm!(@list [$crate::__with_algo_match] [($algo), $A, ($body)])
    };
}

/// The `match` of [`with_algo!`](crate::with_algo).
#[doc(hidden)]
#[macro_export]
macro_rules! __with_algo_match {
    ([($algo:expr), $A:ident, ($body:expr)] $($(#[$doc:meta])* $v:ident = $t:ident $info:tt;)*) => {
        match $algo {
            $(
                $crate::Algo::$v => {
                    type $A = $crate::alg::$t;
                    $body
                }
            )*
        }
    };
}

macro_rules! algo_enum {
    ([] $($(#[$doc:meta])* $v:ident = $t:ident $info:tt;)*) => {
        /// An algorithm chosen at run time: every algorithm mbhash computes.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Algo {
            $($(#[$doc])* $v,)*
        }

        impl Algo {
            /// Every algorithm, in a fixed order.
            pub const ALL: [Algo; [$(Algo::$v),*].len()] = [$(Algo::$v),*];

            /// The lower-case name, e.g. `"sha512-256"` (as [`Algorithm::NAME`]).
            pub const fn name(self) -> &'static str {
                match self {
                    $(Algo::$v => <crate::alg::$t as Algorithm>::NAME,)*
                }
            }

            /// Bytes of the digest.
            pub const fn output_len(self) -> usize {
                match self {
                    $(Algo::$v => core::mem::size_of::<<crate::alg::$t as Algorithm>::Output>(),)*
                }
            }

            /// Bytes per block of the algorithm's family.
            pub const fn block_len(self) -> usize {
                match self {
                    $(Algo::$v => <<crate::alg::$t as Algorithm>::Family as Family>::BLOCK_LEN,)*
                }
            }
        }

        $(const _: () = assert!(matches!(<crate::alg::$t as Algorithm>::ALGO, Algo::$v));)*
    };
}

crate::for_each_algorithm!(algo_enum);

/// The longest digest of any algorithm, in bytes.
pub const MAX_OUTPUT_LEN: usize = 64;

const _: () = {
    let mut i = 0;
    while i < Algo::ALL.len() {
        assert!(Algo::ALL[i].output_len() <= MAX_OUTPUT_LEN);
        assert!(Algo::ALL[i] as usize == i);
        // 0 is no algorithm, 7 the C library's CRC32C (an engine family).
        assert!(Algo::ALL[i].c_id() != 0 && Algo::ALL[i].c_id() != 7);
        let mut j = 0;
        while j < i {
            assert!(Algo::ALL[i].c_id() != Algo::ALL[j].c_id());
            j += 1;
        }
        i += 1;
    }
};

impl Algo {
    /// The algorithm with this name (as [`Algo::name`] spells it).
    pub fn from_name(name: &str) -> Option<Algo> {
        Algo::ALL.into_iter().find(|a| a.name() == name)
    }

    /// The BSD-style tag, as coreutils' `--tag` writes it: `SHA256`, and
    /// `SHA512/256` for the truncated SHA-512 variants (after FIPS 180-4).
    pub fn tag(self) -> &'static str {
        with_algo!(self, A => A::TAG)
    }

    /// Every tag a check line of the algorithm may carry (coreutils', BSD's
    /// and OpenSSL's spellings), [`Algo::tag`] first.
    pub const fn check_tags(self) -> &'static [&'static str] {
        with_algo!(self, A => A::CHECK_TAGS)
    }

    /// Python's `hashlib` name, e.g. `"sha512_256"`.
    pub const fn hashlib_name(self) -> &'static str {
        with_algo!(self, A => A::HASHLIB)
    }

    /// The C library's number (`MBH_SHA256` = 1, ...).
    pub const fn c_id(self) -> u32 {
        with_algo!(self, A => A::C_ID)
    }

    /// The index of the algorithm in [`Algo::ALL`].
    pub const fn index(self) -> usize {
        self as usize
    }
}

impl fmt::Display for Algo {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// An algorithm name that `Algo`'s [`FromStr`](core::str::FromStr) does not know.
#[cfg(feature = "std")]
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownAlgo(pub std::string::String);

#[cfg(feature = "std")]
impl fmt::Display for UnknownAlgo {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "unknown algorithm '{}' (known: ", self.0)?;
        for (i, a) in Algo::ALL.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            f.write_str(a.name())?;
        }
        f.write_str(")")
    }
}

#[cfg(feature = "std")]
impl std::error::Error for UnknownAlgo {}

#[cfg(feature = "std")]
impl core::str::FromStr for Algo {
    type Err = UnknownAlgo;
    fn from_str(s: &str) -> Result<Algo, UnknownAlgo> {
        Algo::from_name(s).ok_or_else(|| UnknownAlgo(s.into()))
    }
}

/// A digest of any [`Algo`]: its bytes (28 to 64 of them) and the algorithm.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Digest {
    algo: Algo,
    /// The digest, then zeros.
    bytes: [u8; MAX_OUTPUT_LEN],
}

impl Digest {
    /// The digest `bytes` of `algo`; `None` if the length is not
    /// `algo.output_len()`.
    pub fn from_bytes(algo: Algo, bytes: &[u8]) -> Option<Digest> {
        (bytes.len() == algo.output_len()).then(|| {
            let mut d = Digest {
                algo,
                bytes: [0; MAX_OUTPUT_LEN],
            };
            d.bytes[..bytes.len()].copy_from_slice(bytes);
            d
        })
    }

    /// The digest of a typed algorithm's output.
    pub fn of<A: Algorithm>(out: &A::Output) -> Digest {
        Digest::from_bytes(A::ALGO, out.as_ref()).expect("the output length of the algorithm")
    }

    /// The algorithm.
    pub fn algo(&self) -> Algo {
        self.algo
    }

    /// The digest's bytes.
    pub fn as_bytes(&self) -> &[u8] {
        &self.bytes[..self.algo.output_len()]
    }

    /// Lower-case hexadecimal, as `sha256sum` prints it.
    #[cfg(feature = "std")]
    pub fn to_hex(&self) -> std::string::String {
        use std::string::ToString;
        self.to_string()
    }
}

impl AsRef<[u8]> for Digest {
    fn as_ref(&self) -> &[u8] {
        self.as_bytes()
    }
}

impl PartialEq<[u8]> for Digest {
    fn eq(&self, other: &[u8]) -> bool {
        self.as_bytes() == other
    }
}

impl fmt::Display for Digest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for b in self.as_bytes() {
            write!(f, "{b:02x}")?;
        }
        Ok(())
    }
}

impl fmt::Debug for Digest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Digest({}:{self})", self.algo)
    }
}
