//! The worker's per-algorithm state: engines and open streams.

use std::collections::HashMap;

use crate::engine::{AnyEngine, EngineError, EngineFamily, LaneEngine};
use crate::engine::{FamilyEngine, HashAlgorithm};
use crate::manager::Context;

/// The engines of a worker, one per family (from the family catalogue,
/// [`for_each_family!`](crate::for_each_family)); `None`: the default engine
/// at each batch (`configured()`, which [`crate::engine::set_default`]
/// changes at run time).
macro_rules! engines {
    ($($v:ident $ty:ident $engine:ident $kernels:ident $name:literal;)*) => {
        #[derive(Clone, Copy, Debug, Default)]
        #[allow(non_snake_case)]
        pub(crate) struct Engines {
            $($v: Option<crate::engine::$engine>,)*
        }

        impl Engines {
            /// Runs `engine`'s family on it.
            pub(crate) fn set(&mut self, engine: AnyEngine) {
                match engine {
                    $(AnyEngine::$v(e) => self.$v = Some(e),)*
                }
            }

            /// The engine given for `family`, if any.
            fn given(&self, family: EngineFamily) -> Option<AnyEngine> {
                match family {
                    $(EngineFamily::$v => self.$v.map(AnyEngine::$v),)*
                    EngineFamily::Crc32c | EngineFamily::Crc => None,
                }
            }

            /// Checks the engine variable of every family given no engine.
            pub(crate) fn check_env(&self) -> Result<(), EngineError> {
                $(
                    if self.$v.is_none() {
                        crate::engine::$engine::try_configured()?;
                    }
                )*
                Ok(())
            }
        }
    };
}

crate::for_each_family!(@names engines);

impl Engines {
    /// The worker's engine for family `F`: the one given, else the default.
    pub(crate) fn engine<F: FamilyEngine>(&self) -> F::Engine {
        self.given(F::ENGINE_FAMILY)
            .and_then(F::Engine::from_any)
            .unwrap_or_else(F::Engine::configured)
    }
}

/// What the worker needs to know of a typed algorithm.
pub(crate) trait ServiceAlgorithm: HashAlgorithm {
    /// The worker's table of open streams of this algorithm.
    fn table(streams: &mut Streams) -> &mut HashMap<u64, Context<Self>>;
    /// The worker's engine for this algorithm's family.
    fn engine(engines: &Engines) -> <Self::Family as FamilyEngine>::Engine;
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
                fn engine(engines: &Engines) -> <Self::Family as FamilyEngine>::Engine {
                    engines.engine::<Self::Family>()
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
