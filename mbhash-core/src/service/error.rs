//! What the service refuses: a job it did not accept, a service that could
//! not start.

use core::fmt;

use crate::engine::EngineError;

/// A job the service did not accept, with its buffer.
pub enum Rejected<B> {
    /// The queue was full (only from the `try_` forms).
    Full(B),
    /// The service is shut down.
    ShutDown(B),
}

impl<B> Rejected<B> {
    /// The buffer that was submitted.
    pub fn into_inner(self) -> B {
        match self {
            Rejected::Full(b) | Rejected::ShutDown(b) => b,
        }
    }

    /// True for [`Rejected::Full`].
    pub fn is_full(&self) -> bool {
        matches!(self, Rejected::Full(_))
    }

    pub(crate) fn map<C>(self, f: impl FnOnce(B) -> C) -> Rejected<C> {
        match self {
            Rejected::Full(b) => Rejected::Full(f(b)),
            Rejected::ShutDown(b) => Rejected::ShutDown(f(b)),
        }
    }
}

impl<B> fmt::Debug for Rejected<B> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Rejected::Full(_) => f.write_str("Full(..)"),
            Rejected::ShutDown(_) => f.write_str("ShutDown(..)"),
        }
    }
}

impl<B> fmt::Display for Rejected<B> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Rejected::Full(_) => "the hash service's queue is full",
            Rejected::ShutDown(_) => "the hash service is shut down",
        })
    }
}

impl<B> std::error::Error for Rejected<B> {}

/// Why a service could not start. (Threads that cannot be spawned are no
/// such reason: see [`Builder::workers`](super::Builder::workers).)
#[derive(Debug)]
pub enum BuildError {
    /// The configured engine (an environment variable) is invalid.
    Engine(EngineError),
}

impl fmt::Display for BuildError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BuildError::Engine(e) => write!(f, "hash service: {e}"),
        }
    }
}

impl std::error::Error for BuildError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            BuildError::Engine(e) => Some(e),
        }
    }
}
