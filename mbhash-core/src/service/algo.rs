//! The service's run-time algorithm choice and its digest type.

use core::fmt;
use core::str::FromStr;
use std::collections::HashMap;

use crate::Hasher;
use crate::alg::{self, Algorithm, Family};
use crate::engine::{Sha256Engine, Sha512Engine};
use crate::manager::Context;

/// An algorithm chosen at run time: every SHA-2 algorithm mbhash computes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Algo {
    /// SHA-256.
    Sha256,
    /// SHA-224.
    Sha224,
    /// SHA-512.
    Sha512,
    /// SHA-384.
    Sha384,
    /// SHA-512/256 (ZFS's "sha512" checksum).
    Sha512_256,
    /// SHA-512/224.
    Sha512_224,
}

impl Algo {
    /// Every algorithm, in a fixed order.
    pub const ALL: [Algo; 6] = [
        Algo::Sha256,
        Algo::Sha224,
        Algo::Sha512,
        Algo::Sha384,
        Algo::Sha512_256,
        Algo::Sha512_224,
    ];

    /// The lower-case name, e.g. `"sha512-256"` (as [`Algorithm::NAME`]).
    pub const fn name(self) -> &'static str {
        match self {
            Algo::Sha256 => alg::Sha256::NAME,
            Algo::Sha224 => alg::Sha224::NAME,
            Algo::Sha512 => alg::Sha512::NAME,
            Algo::Sha384 => alg::Sha384::NAME,
            Algo::Sha512_256 => alg::Sha512_256::NAME,
            Algo::Sha512_224 => alg::Sha512_224::NAME,
        }
    }

    /// The algorithm with this name (as [`Algo::name`] spells it).
    pub fn from_name(name: &str) -> Option<Algo> {
        Algo::ALL.into_iter().find(|a| a.name() == name)
    }

    /// Bytes of the digest.
    pub const fn output_len(self) -> usize {
        match self {
            Algo::Sha256 | Algo::Sha512_256 => 32,
            Algo::Sha224 | Algo::Sha512_224 => 28,
            Algo::Sha512 => 64,
            Algo::Sha384 => 48,
        }
    }

    /// Hashes `data` at once on the calling thread, with the configured
    /// engine's one-stream path (the [`Hasher`]): what a lone service request
    /// is compared with.
    ///
    /// # Panics
    /// If the engine environment variable is invalid (see
    /// [`crate::JobManager::new`]).
    pub fn digest(self, data: &[u8]) -> Digest {
        dispatch!(self, A => Digest::of::<A>(&Hasher::<A>::hash(data)))
    }

    /// The index of the algorithm in [`Algo::ALL`].
    pub(crate) const fn index(self) -> usize {
        self as usize
    }
}

impl fmt::Display for Algo {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// An algorithm name that [`Algo::from_str`] does not know.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownAlgo(pub String);

impl fmt::Display for UnknownAlgo {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names: Vec<&str> = Algo::ALL.iter().map(|a| a.name()).collect();
        write!(
            f,
            "unknown algorithm '{}' (known: {})",
            self.0,
            names.join(", ")
        )
    }
}

impl std::error::Error for UnknownAlgo {}

impl FromStr for Algo {
    type Err = UnknownAlgo;
    fn from_str(s: &str) -> Result<Algo, UnknownAlgo> {
        Algo::from_name(s).ok_or_else(|| UnknownAlgo(s.to_string()))
    }
}

/// A digest of any [`Algo`]: its bytes (28 to 64 of them) and the algorithm.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Digest {
    algo: Algo,
    /// The digest, then zeros.
    bytes: [u8; 64],
}

impl Digest {
    /// The digest `bytes` of `algo`; `None` if the length is not
    /// `algo.output_len()`.
    pub fn from_bytes(algo: Algo, bytes: &[u8]) -> Option<Digest> {
        (bytes.len() == algo.output_len()).then(|| {
            let mut d = Digest {
                algo,
                bytes: [0; 64],
            };
            d.bytes[..bytes.len()].copy_from_slice(bytes);
            d
        })
    }

    /// The digest of a typed algorithm's output.
    pub(crate) fn of<A: ServiceAlgorithm>(out: &A::Output) -> Digest {
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
    pub fn to_hex(&self) -> String {
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

/// The engines of a worker, one per family.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Engines {
    pub(crate) sha256: Sha256Engine,
    pub(crate) sha512: Sha512Engine,
}

/// The open streams of a worker, one table per algorithm.
#[derive(Default)]
pub(crate) struct Streams {
    sha256: HashMap<u64, Context<alg::Sha256>>,
    sha224: HashMap<u64, Context<alg::Sha224>>,
    sha512: HashMap<u64, Context<alg::Sha512>>,
    sha384: HashMap<u64, Context<alg::Sha384>>,
    sha512_256: HashMap<u64, Context<alg::Sha512_256>>,
    sha512_224: HashMap<u64, Context<alg::Sha512_224>>,
}

impl Streams {
    /// Forgets the stream `id` of `algo`, if open.
    pub(crate) fn remove(&mut self, algo: Algo, id: u64) {
        dispatch!(algo, A => {
            A::table(self).remove(&id);
        })
    }
}

/// What the worker needs to know of a typed algorithm.
pub(crate) trait ServiceAlgorithm: Algorithm {
    /// The run-time name of the algorithm.
    const ALGO: Algo;
    /// The worker's table of open streams of this algorithm.
    fn table(streams: &mut Streams) -> &mut HashMap<u64, Context<Self>>;
    /// The worker's engine for this algorithm's family.
    fn engine(engines: &Engines) -> <Self::Family as Family>::Engine;
}

macro_rules! service_algorithm {
    ($($ty:ident, $variant:ident, $table:ident, $engine:ident;)*) => {$(
        impl ServiceAlgorithm for alg::$ty {
            const ALGO: Algo = Algo::$variant;
            fn table(streams: &mut Streams) -> &mut HashMap<u64, Context<Self>> {
                &mut streams.$table
            }
            fn engine(engines: &Engines) -> <Self::Family as Family>::Engine {
                engines.$engine
            }
        }
    )*};
}

service_algorithm! {
    Sha256, Sha256, sha256, sha256;
    Sha224, Sha224, sha224, sha256;
    Sha512, Sha512, sha512, sha512;
    Sha384, Sha384, sha384, sha512;
    Sha512_256, Sha512_256, sha512_256, sha512;
    Sha512_224, Sha512_224, sha512_224, sha512;
}
