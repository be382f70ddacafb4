//! The MD5 kernels: scalar, AVX2 x16 (two interleaved sets of eight lanes),
//! AVX-512 x16 (no one-lane SIMD
//! kernel: a one-stream hasher runs the scalar kernel, or the narrowest
//! SIMD kernel if the one-stream calibration measures it cheaper).

use mbhash_simd::md5::{Avx2x16, Avx512x16, Block, Compress, State, scalar};

use super::{Kernels, Step};
use crate::alg::Md5Family;

/// The MD5 kernels this CPU runs, as proof tokens.
#[derive(Clone, Copy, Debug)]
pub struct Md5Kernels {
    avx2_x16: Option<Avx2x16>,
    avx512_x16: Option<Avx512x16>,
}

impl Kernels for Md5Kernels {
    type Family = Md5Family;
    const FAMILY: &'static str = "md5";
    const ENV_VAR: &'static str = "MBHASH_MD5_ENGINE";
    const KINDS: &'static [(&'static str, &'static [Step])] = &[
        ("scalar", &[Step::Scalar]),
        ("avx2", &[Step::Mid]),
        ("avx512", &[Step::Wide]),
    ];
    // MD5's steps are one serial chain: two interleaved sets of eight AVX2
    // lanes hide its latency (1.9x the eight-lane kernel per block).
    const MID_WIDTH: u32 = 16;
    const WIDE_WIDTH: u32 = 16;

    const DEFAULT_COST: [f32; 6] = [
        100.0,
        f32::INFINITY,
        f32::INFINITY,
        f32::INFINITY,
        192.0,
        133.0,
    ];

    fn detect() -> Self {
        Md5Kernels {
            avx2_x16: Avx2x16::new(),
            avx512_x16: Avx512x16::new(),
        }
    }

    fn has(&self, step: Step) -> bool {
        match step {
            Step::Scalar => true,
            Step::Narrow1 | Step::Narrow2 | Step::Narrow4 => false,
            Step::Mid => self.avx2_x16.is_some(),
            Step::Wide => self.avx512_x16.is_some(),
        }
    }

    fn step_name(step: Step) -> &'static str {
        match step {
            Step::Scalar => "scalar",
            Step::Narrow1 | Step::Narrow2 | Step::Narrow4 => "none",
            Step::Mid => "avx2",
            Step::Wide => "avx512",
        }
    }

    #[inline]
    fn run_one(&self, _step: Step, state: &mut State, blocks: &[Block]) {
        scalar::compress(state, blocks);
    }

    #[inline]
    fn run_x2(&self, _states: [&mut State; 2], _blocks: [&[Block]; 2]) {
        unreachable!("MD5 has no two-lane kernel, so the plan never runs one")
    }

    #[inline]
    fn run_x4(&self, _states: [&mut State; 4], _blocks: [&[Block]; 4]) {
        unreachable!("MD5 has no four-lane kernel, so the plan never runs one")
    }

    #[inline]
    fn run_group(&self, step: Step, states: &mut [State], blocks: &[&[Block]]) {
        match (step, self.avx512_x16, self.avx2_x16) {
            (Step::Wide, Some(k), _) => {
                let (s, b) = super::group_arrays::<_, _, 16>(states, blocks);
                Compress::<16>::compress(k, s, b);
            }
            (Step::Mid, _, Some(k)) => {
                let (s, b) = super::group_arrays::<_, _, 16>(states, blocks);
                Compress::<16>::compress(k, s, b);
            }
            _ => unreachable!("the plan runs a group only on a detected kernel"),
        }
    }

    super::kernel_cells!(Md5Kernels, Md5);
}
