//! `auto`'s calibration: the cost of each kernel on this CPU, measured so
//! that a busy machine (another thread on the core, a preemption in the
//! middle, a vector unit still powering up) does not change the choice.
//!
//! Every kernel is first run for a while on its own (clocks and the wide
//! vector units settle, caches fill), then timed in many short trials that
//! visit the kernels in turn; a kernel's cost is its fastest trial. A trial
//! lasts a couple of microseconds: one that a preemption or an interrupt
//! lands in is slow and loses to the clean ones, and the busy thread's
//! turns fall between trials of every kernel alike. About half a millisecond
//! per family.

use std::time::{Duration, Instant};

use super::{Engine, Kernels, Plan, Step};
use crate::alg::{Family, MAX_LANES};

/// Blocks per lane per kernel call.
const BLOCKS: usize = 8;
/// Warm-up per kernel before timing.
const WARM_UP: Duration = Duration::from_micros(30);
/// Target length of one timed trial (several calls of a fast kernel).
const TRIAL: Duration = Duration::from_micros(2);
/// Timed trials per kernel in a round; the fastest of all rounds counts.
const TRIALS_PER_ROUND: usize = 5;
/// Rounds at least (the first one sets the bests) and at most.
const MIN_ROUNDS: usize = 3;
const MAX_ROUNDS: usize = 10;
/// Blocks per call of the one-stream calibration.
const ONE_BLOCKS: usize = 2;
/// Timed calls per kernel of the one-stream calibration.
const ONE_TRIALS: usize = 5;

impl<K: Kernels> Engine<K> {
    /// Measures each available kernel: nanoseconds per block per call with
    /// all of its lanes busy.
    pub(super) fn calibrate(&self) -> Plan {
        let data = [<K::Family as Family>::ZERO_BLOCK; BLOCKS];
        let blocks: [&[<K::Family as Family>::Block]; MAX_LANES] = [&data[..]; MAX_LANES];
        let mut states = [<K::Family as Family>::State::default(); MAX_LANES];
        let steps = Step::ALL.map(|s| self.kernels.has(s));

        // Warm-up, and the calls per trial of each kernel.
        let mut calls = [0usize; 6];
        for (i, step) in Step::ALL.into_iter().enumerate() {
            if !steps[i] {
                continue;
            }
            let start = Instant::now();
            let mut n = 0u32;
            while n < 2 || start.elapsed() < WARM_UP {
                self.run_full(step, &mut states, &blocks);
                n += 1;
            }
            let per_call = start.elapsed().as_secs_f64() / f64::from(n);
            calls[i] = ((TRIAL.as_secs_f64() / per_call).ceil() as usize).clamp(1, 64);
        }

        // Rounds of trials until two rounds in a row improve no kernel's
        // best by more than a percent (a preemption or a slow phase is left
        // behind).
        let mut best = [f32::INFINITY; 6];
        let mut quiet_rounds = 0;
        for round in 0..MAX_ROUNDS {
            let mut improved = false;
            for _ in 0..TRIALS_PER_ROUND {
                for (i, step) in Step::ALL.into_iter().enumerate() {
                    if !steps[i] {
                        continue;
                    }
                    // An untimed lead-in call: the switch from the previous
                    // kernel (on Intel cores, 256-bit to 512-bit code pays a
                    // few hundred nanoseconds) is not this kernel's cost.
                    self.run_full(step, &mut states, &blocks);
                    let t = Instant::now();
                    for _ in 0..calls[i] {
                        self.run_full(step, &mut states, &blocks);
                    }
                    let ns = t.elapsed().as_nanos() as f32 / (calls[i] * BLOCKS) as f32;
                    improved |= ns < best[i] * 0.99;
                    best[i] = best[i].min(ns);
                }
            }
            quiet_rounds = if improved { 0 } else { quiet_rounds + 1 };
            if round + 1 >= MIN_ROUNDS && quiet_rounds >= 2 {
                break;
            }
        }
        core::hint::black_box(&states);
        Plan::new(
            best.map(|c| c.max(f32::MIN_POSITIVE)),
            K::MID_WIDTH,
            K::WIDE_WIDTH,
        )
    }

    /// The step a one-stream hasher on `auto` runs, measured in some
    /// microseconds: the scalar kernel against the one-lane SIMD kernel
    /// (SHA-NI, the AVX2 message schedule) or, where the CPU has none, the
    /// narrowest multi-lane kernel it has (its other lanes running
    /// copies, as [`Single`](super::Single) runs it). Each is called once
    /// untimed, then timed in [`ONE_TRIALS`] alternating single calls of
    /// [`ONE_BLOCKS`] blocks; a kernel's cost is its fastest call. Wider
    /// kernels are not timed: a call of more lanes does more work for the
    /// one busy lane, which is what the full calibration measures for
    /// managers.
    pub(super) fn calibrate_one(kernels: &K) -> Step {
        let engine = Engine {
            name: "auto",
            code: 0,
            lanes: 1,
            plan: Plan::only(&[Step::Scalar], K::MID_WIDTH, K::WIDE_WIDTH),
            kernels: *kernels,
        };
        let simd = [
            Step::Narrow1,
            Step::Narrow2,
            Step::Narrow4,
            Step::Mid,
            Step::Wide,
        ]
        .into_iter()
        .find(|s| kernels.has(*s));
        let Some(simd) = simd else {
            return Step::Scalar;
        };
        let candidates = [Step::Scalar, simd];
        let data = [<K::Family as Family>::ZERO_BLOCK; ONE_BLOCKS];
        let blocks: [&[<K::Family as Family>::Block]; MAX_LANES] = [&data[..]; MAX_LANES];
        let mut states = [<K::Family as Family>::State::default(); MAX_LANES];
        let mut best = [u64::MAX; 2];
        for step in candidates {
            engine.run_full(step, &mut states, &blocks);
        }
        for _ in 0..ONE_TRIALS {
            for (i, step) in candidates.into_iter().enumerate() {
                let t = Instant::now();
                engine.run_full(step, &mut states, &blocks);
                best[i] = best[i].min(t.elapsed().as_nanos() as u64);
            }
        }
        core::hint::black_box(&states);
        if best[1] <= best[0] {
            simd
        } else {
            Step::Scalar
        }
    }

    /// Runs one call of `step` with all of its lanes busy (calibration).
    fn run_full(
        &self,
        step: Step,
        states: &mut [<K::Family as Family>::State; MAX_LANES],
        blocks: &[&[<K::Family as Family>::Block]; MAX_LANES],
    ) {
        let k = &self.kernels;
        let [a, b, c, d, ..] = states;
        match step {
            Step::Scalar | Step::Narrow1 => k.run_one(step, a, blocks[0]),
            Step::Narrow2 => k.run_x2([a, b], [blocks[0], blocks[1]]),
            Step::Narrow4 => k.run_x4([a, b, c, d], [blocks[0], blocks[1], blocks[2], blocks[3]]),
            Step::Mid | Step::Wide => {
                let w = Self::width(step) as usize;
                k.run_group(step, &mut states[..w], &blocks[..w]);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::vec::Vec;

    use super::*;
    use crate::engine::{NarrowSplit, Sha256Kernels, Sha512Kernels};

    /// The one-stream calibration picks a one-lane-capable step the CPU
    /// has: scalar, or the narrowest SIMD kernel, never a wider one.
    #[test]
    fn the_one_stream_calibration_picks_a_narrow_kernel_it_has() {
        fn check<K: Kernels>() {
            let kernels = K::detect();
            let step = Engine::<K>::calibrate_one(&kernels);
            assert!(kernels.has(step), "{} chose {step:?}", K::FAMILY);
            let narrowest = Step::ALL.into_iter().skip(1).find(|s| kernels.has(*s));
            assert!(
                step == Step::Scalar || Some(step) == narrowest,
                "{} chose {step:?}, narrowest SIMD step {narrowest:?}",
                K::FAMILY
            );
        }
        check::<Sha256Kernels>();
        check::<Sha512Kernels>();
        check::<crate::engine::Md5Kernels>();
    }

    /// MD5's calibration measures both of its AVX-512 kernels where the CPU
    /// has them (16 and 32 lanes), and `auto` then runs every busy mask on
    /// one of the steps it measured.
    #[test]
    fn md5_calibration_measures_sixteen_and_thirty_two_lanes() {
        use crate::engine::Md5Kernels;
        let engine = Engine::<Md5Kernels>::auto_uncalibrated();
        let plan = engine.calibrate();
        for step in Step::ALL {
            assert_eq!(
                plan.allows(step),
                engine.kernels.has(step),
                "{step:?}: measured exactly where the CPU has it"
            );
        }
        if engine.kernels.has(Step::Wide) {
            assert_eq!(engine.lanes, 32);
            for busy in [3, 0xffff, 0x1_0001, u32::MAX] {
                assert!(plan.allows(plan.choose(busy)), "{busy:#x}");
            }
        }
    }

    /// What a plan runs for lanes `0..k`: a step, or for the narrow kernels
    /// the whole mix.
    #[derive(Clone, Copy, Debug, PartialEq)]
    enum Choice {
        Step(Step),
        Narrow(NarrowSplit),
    }

    fn mask(k: u32) -> u32 {
        if k >= 32 { u32::MAX } else { (1 << k) - 1 }
    }

    fn choice(plan: &Plan, k: u32) -> Choice {
        match plan.choose(mask(k)) {
            Step::Narrow1 | Step::Narrow2 | Step::Narrow4 => Choice::Narrow(plan.narrow_split(k).0),
            step => Choice::Step(step),
        }
    }

    /// The cost of `c` for lanes `0..k` by `plan`'s measured costs.
    fn cost<K: Kernels>(plan: &Plan, c: Choice, k: u32) -> f32 {
        match c {
            Choice::Narrow(s) => {
                let times = |n: u32, step| {
                    if n == 0 {
                        0.0
                    } else {
                        n as f32 * plan.cost(step)
                    }
                };
                times(s.x4, Step::Narrow4) + times(s.x2, Step::Narrow2) + times(s.x1, Step::Narrow1)
            }
            Choice::Step(Step::Scalar) => k as f32 * plan.cost(Step::Scalar),
            Choice::Step(step) => {
                let w = Engine::<K>::width(step);
                k.div_ceil(w) as f32 * plan.cost(step)
            }
        }
    }

    /// Runs `f` while more spinning threads than there are cores compete
    /// for them.
    fn under_load<R>(f: impl FnOnce() -> R) -> R {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        let stop = Arc::new(AtomicBool::new(false));
        let threads: Vec<_> = (0..cores + 2)
            .map(|i| {
                let stop = Arc::clone(&stop);
                std::thread::spawn(move || {
                    let mut x = i as u64 | 1;
                    while !stop.load(Ordering::Relaxed) {
                        for _ in 0..1000 {
                            x = core::hint::black_box(
                                x.wrapping_mul(6364136223846793005) ^ (x >> 7),
                            );
                        }
                    }
                    x
                })
            })
            .collect();
        // Let them all get going before the measurement starts.
        std::thread::sleep(Duration::from_millis(20));
        let r = f();
        stop.store(true, Ordering::Relaxed);
        for t in threads {
            let _ = t.join();
        }
        r
    }

    fn names<K: Kernels>(plan: &Plan, lanes: u32) -> std::string::String {
        use core::fmt::Write;
        let mut s = std::string::String::new();
        for k in 1..=lanes {
            let _ = write!(s, "{k}:{} ", Engine::<K>::step_name(plan.choose(mask(k))));
        }
        s
    }

    /// Elementwise the lower of two plans' costs (noise only ever adds
    /// time, so the lower is the better estimate).
    fn best_of<K: Kernels>(a: &Plan, b: &Plan) -> Plan {
        Plan::new(
            core::array::from_fn(|i| a.cost(Step::ALL[i]).min(b.cost(Step::ALL[i]))),
            K::MID_WIDTH,
            K::WIDE_WIDTH,
        )
    }

    /// One attempt: calibrates three times as things are and once with
    /// competing threads, and checks the loaded calibration's choice for
    /// every count of busy lanes against the best estimate of the true
    /// costs (each kernel's lowest cost over all four). The loaded choice
    /// must be the best one, or where two ways are within a few percent of
    /// each other (a tie that noise may break either way), one of them.
    fn busy_attempt<K: Kernels>() -> Result<(), std::string::String> {
        const TIE: f32 = 1.08;
        let engine = Engine::<K>::auto_uncalibrated();
        let lanes = engine.lanes as u32;
        let started = Instant::now();
        let mut quiet = engine.calibrate();
        let took = started.elapsed();
        for _ in 0..2 {
            quiet = best_of::<K>(&quiet, &engine.calibrate());
        }
        let busy = under_load(|| engine.calibrate());
        let truth = best_of::<K>(&quiet, &busy);
        std::eprintln!(
            "{} calibration {took:?}\n  quiet: {}\n  busy:  {}\n  best:  {}",
            K::FAMILY,
            names::<K>(&quiet, lanes),
            names::<K>(&busy, lanes),
            names::<K>(&truth, lanes),
        );
        for k in 1..=lanes {
            let (t, b) = (choice(&truth, k), choice(&busy, k));
            let (tc, bc) = (cost::<K>(&truth, t, k), cost::<K>(&truth, b, k));
            if t != b && bc > tc * TIE {
                return Err(std::format!(
                    "{}: {k} busy lanes: the best costs choose {t:?} ({tc:.1} ns), the busy \
                     calibration {b:?} ({bc:.1} ns by the best costs)\nquiet costs {:?}\n\
                     busy costs {:?}",
                    K::FAMILY,
                    Step::ALL.map(|s| quiet.cost(s)),
                    Step::ALL.map(|s| busy.cost(s)),
                ));
            }
        }
        Ok(())
    }

    /// Calibrating on a loaded machine chooses what a quiet one does.
    ///
    /// Both families run in one test, one after the other: as two tests run
    /// side by side, one's competing threads landed in the other's quiet
    /// calibrations. Other tests of this binary may still run meanwhile, so
    /// a failed attempt is repeated (three in all, each printed); a
    /// calibration that loses to load fails all three.
    #[test]
    fn busy_calibration_chooses_as_quiet() {
        fn family<K: Kernels>() {
            let mut errors = Vec::new();
            for _ in 0..3 {
                match busy_attempt::<K>() {
                    Ok(()) => return,
                    Err(e) => {
                        std::eprintln!("attempt failed: {e}");
                        errors.push(e);
                    }
                }
            }
            panic!("{}", errors.join("\n"));
        }
        family::<Sha256Kernels>();
        family::<Sha512Kernels>();
    }
}
