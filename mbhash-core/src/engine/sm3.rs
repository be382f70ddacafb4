use mbhash_simd::sm3::{Avx2x1, Avx2x8, Avx512x16, Block, Compress, Portable, State};

use super::{Kernels, Step};
use crate::alg::Sm3Family;

/// The SM3 kernels this CPU runs, as proof tokens.
#[derive(Clone, Copy, Debug)]
pub struct Sm3Kernels {
    avx2_x1: Option<Avx2x1>,
    avx2_x8: Option<Avx2x8>,
    avx512_x16: Option<Avx512x16>,
}

impl Kernels for Sm3Kernels {
    type Family = Sm3Family;
    const FAMILY: &'static str = "sm3";
    const ENV_VAR: &'static str = "MBHASH_SM3_ENGINE";
    const KINDS: &'static [(&'static str, &'static [Step])] = &[
        ("scalar", &[Step::Scalar]),
        ("avx2-x1", &[Step::Narrow1]),
        ("avx2", &[Step::Mid]),
        ("avx512", &[Step::Wide]),
    ];
    const MID_WIDTH: u32 = 8;
    const WIDE_WIDTH: u32 = 16;

    const DEFAULT_COST: [f32; 6] = [
        200.0,
        f32::INFINITY,
        f32::INFINITY,
        f32::INFINITY,
        318.0,
        203.0,
    ];

    fn detect() -> Self {
        Sm3Kernels {
            avx2_x1: Avx2x1::new(),
            avx2_x8: Avx2x8::new(),
            avx512_x16: Avx512x16::new(),
        }
    }

    fn has(&self, step: Step) -> bool {
        match step {
            Step::Scalar => true,
            Step::Narrow1 => self.avx2_x1.is_some(),
            Step::Narrow2 | Step::Narrow4 => false,
            Step::Mid => self.avx2_x8.is_some(),
            Step::Wide => self.avx512_x16.is_some(),
        }
    }

    fn step_name(step: Step) -> &'static str {
        match step {
            Step::Scalar => "scalar",
            Step::Narrow1 => "avx2-x1",
            Step::Narrow2 | Step::Narrow4 => "none",
            Step::Mid => "avx2",
            Step::Wide => "avx512",
        }
    }

    #[inline]
    fn run_one(&self, step: Step, state: &mut State, blocks: &[Block]) {
        match (step, self.avx2_x1) {
            (Step::Narrow1, Some(k)) => Compress::<1>::compress(k, [state], [blocks]),
            _ => Compress::<1>::compress(Portable, [state], [blocks]),
        }
    }

    #[inline]
    fn run_x2(&self, _states: [&mut State; 2], _blocks: [&[Block]; 2]) {
        unreachable!("SM3 has no two-lane kernel, so the plan never runs one")
    }

    #[inline]
    fn run_x4(&self, _states: [&mut State; 4], _blocks: [&[Block]; 4]) {
        unreachable!("SM3 has no four-lane kernel, so the plan never runs one")
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

    super::kernel_cells!(Sm3Kernels, Sm3);
}
