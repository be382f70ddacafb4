//! The SHA-256 family's kernels: scalar, SHA-NI x1/x2/x4, AVX2 x8, AVX-512 x16.

use mbhash_simd::sha256::{Avx2x8, Avx512x16, Block, Compress, ShaNi, State, scalar};

use super::{Kernels, Step};
use crate::alg::Sha256Family;

/// The SHA-256 kernels this CPU runs, as proof tokens.
#[derive(Clone, Copy, Debug)]
pub struct Sha256Kernels {
    shani: Option<ShaNi>,
    avx2_x8: Option<Avx2x8>,
    avx512_x16: Option<Avx512x16>,
}

impl Kernels for Sha256Kernels {
    type Family = Sha256Family;
    const FAMILY: &'static str = "sha256";
    const ENV_VAR: &'static str = "MBHASH_SHA256_ENGINE";
    const KINDS: &'static [(&'static str, &'static [Step])] = &[
        ("scalar", &[Step::Scalar]),
        ("shani", &[Step::Narrow1]),
        ("shani-x2", &[Step::Narrow2]),
        ("shani-x4", &[Step::Narrow4]),
        ("avx2", &[Step::Mid]),
        ("avx512", &[Step::Wide]),
    ];
    const MID_WIDTH: u32 = 8;
    const WIDE_WIDTH: u32 = 16;

    const DEFAULT_COST: [f32; 6] = [192.0, 34.0, 41.0, 72.0, 264.0, 149.0];

    fn detect() -> Self {
        Sha256Kernels {
            shani: ShaNi::new(),
            avx2_x8: Avx2x8::new(),
            avx512_x16: Avx512x16::new(),
        }
    }

    fn has(&self, step: Step) -> bool {
        match step {
            Step::Scalar => true,
            Step::Narrow1 | Step::Narrow2 | Step::Narrow4 => self.shani.is_some(),
            Step::Mid => self.avx2_x8.is_some(),
            Step::Wide => self.avx512_x16.is_some(),
        }
    }

    fn step_name(step: Step) -> &'static str {
        match step {
            Step::Scalar => "scalar",
            Step::Narrow1 => "shani",
            Step::Narrow2 => "shani-x2",
            Step::Narrow4 => "shani-x4",
            Step::Mid => "avx2",
            Step::Wide => "avx512",
        }
    }

    #[inline]
    fn run_one(&self, step: Step, state: &mut State, blocks: &[Block]) {
        match (step, self.shani) {
            (Step::Narrow1, Some(k)) => Compress::<1>::compress(k, [state], [blocks]),
            _ => scalar::compress(state, blocks),
        }
    }

    #[inline]
    fn run_x2(&self, states: [&mut State; 2], blocks: [&[Block]; 2]) {
        let k = self.shani.expect("the plan runs x2 only with SHA-NI");
        Compress::<2>::compress(k, states, blocks);
    }

    #[inline]
    fn run_x4(&self, states: [&mut State; 4], blocks: [&[Block]; 4]) {
        let k = self.shani.expect("the plan runs x4 only with SHA-NI");
        Compress::<4>::compress(k, states, blocks);
    }

    #[inline]
    fn run_group(&self, step: Step, states: &mut [State], blocks: &[&[Block]]) {
        match (step, self.avx512_x16, self.avx2_x8) {
            (Step::Wide, Some(k), _) => {
                let (s, b) = super::group_arrays::<_, _, 16>(states, blocks);
                Compress::<16>::compress(k, s, b);
            }
            (Step::Mid, _, Some(k)) => {
                let (s, b) = super::group_arrays::<_, _, 8>(states, blocks);
                Compress::<8>::compress(k, s, b);
            }
            _ => unreachable!("the plan runs a group only on a detected kernel"),
        }
    }

    super::kernel_cells!(Sha256Kernels, Sha256);
}
