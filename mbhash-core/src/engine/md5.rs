//! The MD5 kernels: scalar, AVX2 x16 (two interleaved sets of eight lanes),
//! AVX-512 x16 and AVX-512 x32 (two interleaved sets of sixteen lanes, as
//! isa-l_crypto's x16x2). No one-lane SIMD kernel: a one-stream hasher runs
//! the scalar kernel, or the narrowest SIMD kernel if the one-stream
//! calibration measures it cheaper.
//!
//! Steps: `Mid` is a 16-lane kernel, `Wide` the 32-lane one. Two kernels
//! run 16 lanes: the `avx2` engine runs AVX2 x16, the `avx512` engine (16
//! lanes, as before the 32-lane kernel was used) and `auto` run AVX-512 x16
//! where the CPU has it ([`Kernels::for_engine`]).

use mbhash_simd::md5::{Avx2x16, Avx512x16, Avx512x32, Block, Compress, State, scalar};

use super::{Kernels, Step};
use crate::alg::Md5Family;

/// The MD5 kernels this CPU runs, as proof tokens.
#[derive(Clone, Copy, Debug)]
pub struct Md5Kernels {
    avx2_x16: Option<Avx2x16>,
    avx512_x16: Option<Avx512x16>,
    avx512_x32: Option<Avx512x32>,
}

impl Kernels for Md5Kernels {
    type Family = Md5Family;
    const FAMILY: &'static str = "md5";
    const ENV_VAR: &'static str = "MBHASH_MD5_ENGINE";
    const KINDS: &'static [(&'static str, &'static [Step])] = &[
        ("scalar", &[Step::Scalar]),
        ("avx2", &[Step::Mid]),
        ("avx512", &[Step::Mid]),
        ("avx512-x32", &[Step::Wide]),
    ];
    // MD5's steps are one serial chain: two interleaved sets of lanes hide
    // its latency (1.9x the eight-lane AVX2 kernel per block, 1.9x the
    // sixteen-lane AVX-512 kernel).
    const MID_WIDTH: u32 = 16;
    const WIDE_WIDTH: u32 = 32;

    // Mid: AVX-512 x16 (AVX2 x16 costs 192 ns where AVX-512 is hidden);
    // Wide: AVX-512 x32, 1.9x the 16-lane kernel per lane-block.
    const DEFAULT_COST: [f32; 6] = [
        100.0,
        f32::INFINITY,
        f32::INFINITY,
        f32::INFINITY,
        133.0,
        140.0,
    ];

    fn detect() -> Self {
        Md5Kernels {
            avx2_x16: Avx2x16::new(),
            avx512_x16: Avx512x16::new(),
            avx512_x32: Avx512x32::new(),
        }
    }

    fn for_engine(self, name: &str) -> Self {
        match name {
            // The AVX2 kernel as the 16-lane step, even where AVX-512 is.
            "avx2" => Md5Kernels {
                avx512_x16: None,
                avx512_x32: None,
                ..self
            },
            // Sixteen lanes of AVX-512, never AVX2 in their place.
            "avx512" => Md5Kernels {
                avx2_x16: None,
                avx512_x32: None,
                ..self
            },
            _ => self,
        }
    }

    fn has(&self, step: Step) -> bool {
        match step {
            Step::Scalar => true,
            Step::Narrow1 | Step::Narrow2 | Step::Narrow4 => false,
            Step::Mid => self.avx512_x16.is_some() || self.avx2_x16.is_some(),
            Step::Wide => self.avx512_x32.is_some(),
        }
    }

    fn step_name(step: Step) -> &'static str {
        match step {
            Step::Scalar => "scalar",
            Step::Narrow1 | Step::Narrow2 | Step::Narrow4 => "none",
            Step::Mid => "x16",
            Step::Wide => "x32",
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
        match (step, self.avx512_x32, self.avx512_x16, self.avx2_x16) {
            (Step::Wide, Some(k), _, _) => group::<_, 32>(k, states, blocks),
            (Step::Mid, _, Some(k), _) => group::<_, 16>(k, states, blocks),
            (Step::Mid, _, None, Some(k)) => group::<_, 16>(k, states, blocks),
            _ => unreachable!("the plan runs a group only on a detected kernel"),
        }
    }

    super::kernel_cells!(Md5Kernels, Md5);
}

/// One group on the kernel `k`. Not inlined: each kernel's arrays of lane
/// references (768 bytes for 32 lanes) are on the stack only while it runs.
#[inline(never)]
fn group<C: Compress<N>, const N: usize>(k: C, states: &mut [State], blocks: &[&[Block]]) {
    let (s, b) = super::group_arrays::<_, _, N>(states, blocks);
    k.compress(s, b);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::{Engine, LaneEngine};

    /// Each named engine runs the kernel its name says, and as many lanes:
    /// `avx2` the AVX2 kernel even where AVX-512 is, `avx512` sixteen lanes
    /// of AVX-512 (what the name meant before the 32-lane kernel),
    /// `avx512-x32` the 32-lane kernel, `auto` every kernel, 32 lanes
    /// where AVX-512 is.
    #[test]
    fn named_engines_run_their_own_kernels() {
        let all = Md5Kernels::detect();
        let engine = |name| Engine::<Md5Kernels>::from_name(name);
        if all.avx2_x16.is_some() {
            let e = engine("avx2").expect("avx2 is supported");
            assert!(e.kernels.avx2_x16.is_some());
            assert!(e.kernels.avx512_x16.is_none() && e.kernels.avx512_x32.is_none());
            assert_eq!(e.lanes(), 16);
        } else {
            assert!(engine("avx2").is_err());
        }
        if all.avx512_x16.is_some() {
            let e = engine("avx512").expect("avx512 is supported");
            assert!(e.kernels.avx512_x16.is_some());
            assert!(e.kernels.avx2_x16.is_none() && e.kernels.avx512_x32.is_none());
            assert_eq!(e.lanes(), 16);
            assert_eq!(e.choose(u32::MAX >> 16), Step::Mid);
        } else {
            mbhash_test_support::skip_or_require("avx512", "md5 avx512 engines", "no AVX-512");
            assert!(engine("avx512").is_err());
        }
        if all.avx512_x32.is_some() {
            let e = engine("avx512-x32").expect("avx512-x32 is supported");
            assert!(e.kernels.avx512_x32.is_some());
            assert_eq!(e.lanes(), 32);
            for k in 1..=32 {
                assert_eq!(e.choose(u32::MAX >> (32 - k)), Step::Wide, "{k} lanes");
            }
            assert_eq!(Engine::<Md5Kernels>::auto_uncalibrated().lanes(), 32);
        } else {
            assert!(engine("avx512-x32").is_err());
        }
    }

    /// With the default costs (AVX-512 x16 133 ns, x32 140 ns per call),
    /// `auto` runs sixteen lanes or fewer in one half on the 16-lane kernel
    /// and anything in both halves on the 32-lane one.
    #[test]
    fn auto_by_cost_picks_sixteen_or_thirty_two() {
        let plan = super::super::Plan::new(Md5Kernels::DEFAULT_COST, 16, 32);
        assert_eq!(plan.choose(1), Step::Scalar);
        assert_eq!(plan.choose(0xffff), Step::Mid);
        assert_eq!(plan.choose(0xffff_0000), Step::Mid);
        assert_eq!(plan.choose(0x1_ffff), Step::Wide);
        assert_eq!(plan.choose(0x0001_0001), Step::Wide);
        assert_eq!(plan.choose(u32::MAX), Step::Wide);
    }
}
