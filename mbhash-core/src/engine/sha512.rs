//! The SHA-512 family's kernels: scalar, AVX2 one-stream, AVX2 x4, AVX-512 x8.
//!
//! The AVX-512 kernel's rounds come in two forms (latency-first and lean,
//! see `mbhash_simd::sha512::Avx512x8`); which one is faster depends on the
//! core, so the first detection in a process times both and keeps the
//! faster (without `std`, which has no clock, the latency-first one).

use mbhash_simd::sha512::{Avx2x1, Avx2x4, Avx512x8, Block, Compress, State, scalar};

use super::{Kernels, Step};
use crate::alg::Sha512Family;

/// The SHA-512 kernels this CPU runs, as proof tokens.
#[derive(Clone, Copy, Debug)]
pub struct Sha512Kernels {
    avx2_x1: Option<Avx2x1>,
    avx2_x4: Option<Avx2x4>,
    avx512_x8: Option<Avx512x8>,
}

impl Kernels for Sha512Kernels {
    type Family = Sha512Family;
    const FAMILY: &'static str = "sha512";
    const ENV_VAR: &'static str = "MBHASH_SHA512_ENGINE";
    const KINDS: &'static [(&'static str, &'static [Step])] = &[
        ("scalar", &[Step::Scalar]),
        ("avx2-x1", &[Step::Narrow1]),
        ("avx2", &[Step::Mid]),
        ("avx512", &[Step::Wide]),
    ];
    const MID_WIDTH: u32 = 4;
    const WIDE_WIDTH: u32 = 8;

    const DEFAULT_COST: [f32; 6] = [258.0, 145.0, f32::INFINITY, f32::INFINITY, 343.0, 224.0];

    fn detect() -> Self {
        Sha512Kernels {
            avx2_x1: Avx2x1::new(),
            avx2_x4: Avx2x4::new(),
            avx512_x8: Avx512x8::new().map(|k| k.with_lean_rounds(lean_rounds(k))),
        }
    }

    fn has(&self, step: Step) -> bool {
        match step {
            Step::Scalar => true,
            Step::Narrow1 => self.avx2_x1.is_some(),
            Step::Narrow2 | Step::Narrow4 => false,
            Step::Mid => self.avx2_x4.is_some(),
            Step::Wide => self.avx512_x8.is_some(),
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
            _ => scalar::compress(state, blocks),
        }
    }

    fn run_x2(&self, _states: [&mut State; 2], _blocks: [&[Block]; 2]) {
        unreachable!("SHA-512 has no two-lane kernel")
    }

    fn run_x4(&self, _states: [&mut State; 4], _blocks: [&[Block]; 4]) {
        unreachable!("SHA-512 has no four-lane kernel")
    }

    #[inline]
    fn run_group(&self, step: Step, states: &mut [State], blocks: &[&[Block]]) {
        match (step, self.avx512_x8, self.avx2_x4) {
            (Step::Wide, Some(k), _) => {
                let (s, b) = super::group_arrays::<_, _, 8>(states, blocks);
                Compress::<8>::compress(k, s, b);
            }
            (Step::Mid, _, Some(k)) => {
                let (s, b) = super::group_arrays::<_, _, 4>(states, blocks);
                Compress::<4>::compress(k, s, b);
            }
            _ => unreachable!("the plan runs a group only on a detected kernel"),
        }
    }

    super::kernel_cells!(Sha512Kernels, Sha512);
}

/// Whether the AVX-512 kernel runs its rounds in the lean form: measured
/// once per process (racing first callers each measure, the first answer
/// published wins), the latency-first form without a clock.
fn lean_rounds(kernel: Avx512x8) -> bool {
    #[cfg(feature = "std")]
    {
        static LEAN: crate::race::Race<bool> = crate::race::Race::new();
        *LEAN.get_or_init(|| lean_is_faster(kernel))
    }
    #[cfg(not(feature = "std"))]
    {
        let _ = kernel;
        false
    }
}

/// Times both forms of the AVX-512 kernel on eight lanes of four blocks,
/// in alternating trials after a warm-up (the wide units power up, the
/// code is in cache); true if the lean form's fastest trial beats the
/// latency-first form's. About 0.1 ms.
#[cfg(feature = "std")]
fn lean_is_faster(kernel: Avx512x8) -> bool {
    use std::time::{Duration, Instant};
    const WARM_UP: usize = 10;
    const TRIALS: usize = 12;
    const CALLS: usize = 2;
    let data = [[0u8; 128]; 4];
    let blocks: [&[Block]; 8] = [&data[..]; 8];
    let mut states = [mbhash_simd::sha512::IV; 8];
    let forms = [false, true].map(|lean| kernel.with_lean_rounds(lean));
    for form in forms {
        for _ in 0..WARM_UP {
            form.compress(states.each_mut(), blocks);
        }
    }
    let mut best = [Duration::MAX; 2];
    for _ in 0..TRIALS {
        for (form, best) in forms.iter().zip(&mut best) {
            let start = Instant::now();
            for _ in 0..CALLS {
                form.compress(states.each_mut(), core::hint::black_box(blocks));
            }
            *best = (*best).min(start.elapsed());
        }
    }
    core::hint::black_box(states);
    best[1] < best[0]
}
