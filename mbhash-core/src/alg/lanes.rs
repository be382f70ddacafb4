//! Per-lane arrays sized by their family: the lane count as a type.
//!
//! Stable Rust has no `[T; F::LANES]` for a generic `F`, so each family
//! names its lane count as a type ([`Family::Lanes`], `Lanes<16>` for
//! SHA-256, `Lanes<32>` for MD5), and [`LaneCount`] gives the arrays of that
//! length: the lane set's states and jobs, and any other per-lane array
//! ([`LaneArray`]), so that a family of few lanes does not pay for MD5's 32
//! on the stack.

use super::{Family, MAX_LANES};

/// The per-lane arrays of a set of `N` lanes.
pub trait LaneCount<F: Family, J>: 'static {
    /// Lanes in the set (at most [`MAX_LANES`]).
    const N: usize;
    /// `[F::State; N]`.
    type States: AsRef<[F::State]> + AsMut<[F::State]>;
    /// `[Option<J>; N]`.
    type Jobs: AsRef<[Option<J>]> + AsMut<[Option<J>]>;
    /// `[T; N]`: any other per-lane array.
    type Array<T>: AsRef<[T]> + AsMut<[T]>;
    /// Zeroed states.
    fn states() -> Self::States;
    /// No job.
    fn jobs() -> Self::Jobs;
    /// `[f(0), ..., f(N - 1)]`.
    fn array<T>(f: impl FnMut(usize) -> T) -> Self::Array<T>;
}

/// `[T; F::LANES]`: an array with an entry per lane of the family `F`.
pub type LaneArray<F, T> = <<F as Family>::Lanes<()> as LaneCount<F, ()>>::Array<T>;

/// A [`LaneArray`] of `f(i)` for each lane `i` of the family `F`.
#[inline(always)]
pub fn lane_array<F: Family, T>(f: impl FnMut(usize) -> T) -> LaneArray<F, T> {
    <F::Lanes<()> as LaneCount<F, ()>>::array(f)
}

/// `N` lanes: the [`LaneCount`] of a lane set of `N` lanes.
#[derive(Debug)]
pub enum Lanes<const N: usize> {}

impl<F: Family, J, const N: usize> LaneCount<F, J> for Lanes<N> {
    const N: usize = {
        assert!(N >= 1 && N <= MAX_LANES, "1 to 32 lanes");
        N
    };
    type States = [F::State; N];
    type Jobs = [Option<J>; N];
    type Array<T> = [T; N];
    #[inline(always)]
    fn states() -> Self::States {
        [F::State::default(); N]
    }
    #[inline(always)]
    fn jobs() -> Self::Jobs {
        core::array::from_fn(|_| None)
    }
    #[inline(always)]
    fn array<T>(f: impl FnMut(usize) -> T) -> Self::Array<T> {
        core::array::from_fn(f)
    }
}

/// Indices of the set bits of `mask`, lowest first.
#[inline]
pub(crate) fn lanes_of(mask: u32) -> impl Iterator<Item = usize> {
    let mut m = mask;
    core::iter::from_fn(move || {
        (m != 0).then(|| {
            let i = m.trailing_zeros() as usize;
            m &= m - 1;
            i
        })
    })
}
