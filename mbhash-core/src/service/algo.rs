//! The worker's per-algorithm state: engines and open streams.

use std::collections::HashMap;

use crate::alg::{Algorithm, Family, Sha256Family, Sha512Family};
use crate::engine::{Sha256Engine, Sha512Engine};
use crate::manager::Context;

/// The engines of a worker, one per family; `None`: the default engine
/// at each batch ([`Sha256Engine::configured`], which
/// [`crate::engine::set_default`] changes at run time).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Engines {
    pub(crate) sha256: Option<Sha256Engine>,
    pub(crate) sha512: Option<Sha512Engine>,
}

/// A family whose engine a worker holds.
pub(crate) trait WorkerFamily: Family {
    /// The worker's engine for this family.
    fn engine(engines: &Engines) -> Self::Engine;
}

impl WorkerFamily for Sha256Family {
    fn engine(engines: &Engines) -> Sha256Engine {
        engines.sha256.unwrap_or_else(Sha256Engine::configured)
    }
}

impl WorkerFamily for Sha512Family {
    fn engine(engines: &Engines) -> Sha512Engine {
        engines.sha512.unwrap_or_else(Sha512Engine::configured)
    }
}

/// What the worker needs to know of a typed algorithm.
pub(crate) trait ServiceAlgorithm: Algorithm {
    /// The worker's table of open streams of this algorithm.
    fn table(streams: &mut Streams) -> &mut HashMap<u64, Context<Self>>;
    /// The worker's engine for this algorithm's family.
    fn engine(engines: &Engines) -> <Self::Family as Family>::Engine;
}

macro_rules! streams {
    ([] $($(#[$doc:meta])* $v:ident = $t:ident $info:tt;)*) => {
        /// The open streams of a worker, one table per algorithm.
        #[derive(Default)]
        #[allow(non_snake_case)]
        pub(crate) struct Streams {
            $($v: HashMap<u64, Context<crate::alg::$t>>,)*
        }

        $(
            impl ServiceAlgorithm for crate::alg::$t {
                fn table(streams: &mut Streams) -> &mut HashMap<u64, Context<Self>> {
                    &mut streams.$v
                }
                fn engine(engines: &Engines) -> <Self::Family as Family>::Engine {
                    <Self::Family as WorkerFamily>::engine(engines)
                }
            }
        )*
    };
}

crate::for_each_algorithm!(streams);

impl Streams {
    /// Forgets the stream `id` of `algo`, if open.
    pub(crate) fn remove(&mut self, algo: crate::Algo, id: u64) {
        crate::with_algo!(algo, A => {
            A::table(self).remove(&id);
        })
    }
}
