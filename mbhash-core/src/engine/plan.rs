//! The per-call choice of kernels for a set of busy lanes.

/// One way to run some lanes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Step {
    /// The portable kernel, one lane per call.
    Scalar,
    /// A one-lane hardware kernel (SHA-NI).
    Narrow1,
    /// A two-lane interleaved hardware kernel (SHA-NI x2).
    Narrow2,
    /// A four-lane interleaved hardware kernel (SHA-NI x4).
    Narrow4,
    /// A mid-width SIMD kernel (AVX2) over an aligned group of lanes.
    Mid,
    /// The widest SIMD kernel (AVX-512) over an aligned group of lanes.
    Wide,
}

impl Step {
    /// Every step, in cost-table order.
    pub const ALL: [Step; 6] = [
        Step::Scalar,
        Step::Narrow1,
        Step::Narrow2,
        Step::Narrow4,
        Step::Mid,
        Step::Wide,
    ];
}

/// How a set of busy lanes runs on the narrow (interleaved) kernels: so many
/// calls of each width. A call may run fewer busy lanes than its width (the
/// rest are dummies).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NarrowSplit {
    /// Calls of the four-lane kernel.
    pub x4: u32,
    /// Calls of the two-lane kernel.
    pub x2: u32,
    /// Calls of the one-lane kernel.
    pub x1: u32,
}

/// Costs of each step (time per block per call, any unit) and group widths.
///
/// A step that is not allowed has an infinite cost. The plan for a busy mask
/// is the way of least total cost: one SIMD call per aligned group that holds
/// a busy lane, or the cheapest mix of narrow calls, or scalar per lane. The
/// narrow mixes are worked out once, when the plan is made.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Plan {
    cost: [f32; 6],
    mid_width: u8,
    wide_width: u8,
    /// `choose(1)`, worked out once: the one-stream hashers ask for it on
    /// every call.
    one: Step,
    /// The narrow splits for 0 to 16 busy lanes, worked out once, as call
    /// counts `[x4, x2, x1]` (each at most 16): 51 bytes where
    /// `(NarrowSplit, f32)` pairs took 272, so that an engine (which every
    /// manager and hasher holds by value) is small to copy. The cost of a
    /// split is recomputed from the counts, by the same sum.
    narrow: [[u8; 3]; MAX_NARROW + 1],
    /// `choose` of the lowest `k` lanes, for `k` up to 32, worked out once:
    /// lanes fill lowest first, so a round's busy lanes are most often
    /// these.
    packed: [Step; MAX_PACKED + 1],
}

/// Busy lanes the narrow splits are precomputed for: the lanes of the
/// families with narrow kernels (SHA-NI), 16 at most. More busy lanes
/// (only MD5 has more, and no narrow kernel) are worked out when asked.
const MAX_NARROW: usize = 16;
/// Busy lanes the packed choices are precomputed for: every lane count.
const MAX_PACKED: usize = crate::alg::MAX_LANES;

impl Plan {
    /// A plan from per-step costs (indexed like [`Step::ALL`]; infinite for a
    /// step that may not run) and the widths of the SIMD kernels.
    pub fn new(cost: [f32; 6], mid_width: u32, wide_width: u32) -> Plan {
        // A width of 32 or more already makes one group of any busy mask.
        let width = |w: u32| w.min(255) as u8;
        let mut plan = Plan {
            cost,
            mid_width: width(mid_width),
            wide_width: width(wide_width),
            one: Step::Scalar,
            narrow: [[0; 3]; MAX_NARROW + 1],
            packed: [Step::Scalar; MAX_PACKED + 1],
        };
        for k in 0..=MAX_NARROW {
            let split = plan.compute_narrow_split(k as u32).0;
            // At most k.div_ceil(4) + 1 calls of a width for k <= 16 lanes.
            let count = |n: u32| u8::try_from(n).expect("a few calls");
            plan.narrow[k] = [count(split.x4), count(split.x2), count(split.x1)];
        }
        for k in 1..=MAX_PACKED {
            plan.packed[k] = plan.choose_any(u32::MAX >> (32 - k));
        }
        plan.one = plan.packed[1];
        plan
    }

    /// A plan that allows exactly the listed steps, at unit cost.
    pub fn only(steps: &[Step], mid_width: u32, wide_width: u32) -> Plan {
        let mut cost = [f32::INFINITY; 6];
        for s in steps {
            cost[*s as usize] = 1.0;
        }
        Plan::new(cost, mid_width, wide_width)
    }

    /// The step for one busy lane (precomputed [`Plan::choose`]`(1)`).
    #[inline]
    pub fn one(&self) -> Step {
        self.one
    }

    /// The cost per block of one call of `step` (infinite if not allowed).
    pub fn cost(&self, step: Step) -> f32 {
        self.cost[step as usize]
    }

    /// True if `step` is allowed.
    pub fn allows(&self, step: Step) -> bool {
        self.cost[step as usize].is_finite()
    }

    /// Aligned groups of `width` lanes that hold a busy lane.
    #[inline]
    fn groups(busy: u32, width: u32) -> u32 {
        if width == 0 {
            return u32::MAX;
        }
        let mask = if width >= 32 {
            u32::MAX
        } else {
            (1u32 << width) - 1
        };
        let mut n = 0;
        let mut rest = busy;
        while rest != 0 {
            let g = rest.trailing_zeros() / width;
            n += 1;
            rest &= !(mask << (g * width));
        }
        n
    }

    /// The cheapest mix of narrow calls for `k` busy lanes, and its cost
    /// (infinite when no narrow step is allowed).
    #[inline]
    pub fn narrow_split(&self, k: u32) -> (NarrowSplit, f32) {
        match self.narrow.get(k as usize) {
            Some(&[x4, x2, x1]) => {
                let split = NarrowSplit {
                    x4: x4.into(),
                    x2: x2.into(),
                    x1: x1.into(),
                };
                // No split of allowed steps covers the lanes: stored as
                // no calls, at infinite cost.
                let covered = 4 * split.x4 + 2 * split.x2 + split.x1 >= k;
                let cost = if covered {
                    self.split_cost(split)
                } else {
                    f32::INFINITY
                };
                (split, cost)
            }
            None => self.compute_narrow_split(k),
        }
    }

    /// The calls of [`Plan::narrow_split`] without their cost: what a round
    /// that has chosen a narrow step runs (a table read, no arithmetic).
    #[inline]
    pub fn narrow_calls(&self, k: u32) -> NarrowSplit {
        match self.narrow.get(k as usize) {
            Some(&[x4, x2, x1]) => NarrowSplit {
                x4: x4.into(),
                x2: x2.into(),
                x1: x1.into(),
            },
            None => self.compute_narrow_split(k).0,
        }
    }

    /// The cost of the narrow calls of `split`. A step used zero times
    /// costs nothing, even if not allowed.
    #[inline]
    fn split_cost(&self, split: NarrowSplit) -> f32 {
        let times = |n: u32, step: Step| {
            if n == 0 {
                0.0
            } else {
                n as f32 * self.cost(step)
            }
        };
        times(split.x4, Step::Narrow4)
            + times(split.x2, Step::Narrow2)
            + times(split.x1, Step::Narrow1)
    }

    fn compute_narrow_split(&self, k: u32) -> (NarrowSplit, f32) {
        let mut best = (
            NarrowSplit {
                x4: 0,
                x2: 0,
                x1: 0,
            },
            f32::INFINITY,
        );
        // No narrow step: nothing to search (a round of more lanes than
        // the table holds asks here).
        if k > 0
            && [Step::Narrow1, Step::Narrow2, Step::Narrow4]
                .iter()
                .all(|s| !self.allows(*s))
        {
            return best;
        }
        // Every x4 count up to "one partly filled x4 call", then pairs and
        // singles (or a pair with a dummy) for the rest.
        for x4 in 0..=k.div_ceil(4) {
            let rest = k.saturating_sub(4 * x4);
            for x2 in 0..=rest.div_ceil(2) {
                let x1 = rest.saturating_sub(2 * x2);
                let split = NarrowSplit { x4, x2, x1 };
                let cost = self.split_cost(split);
                if cost < best.1 {
                    best = (split, cost);
                }
            }
        }
        best
    }

    /// The cheapest step for the lanes in `busy` (not empty). For the narrow
    /// kernels it returns the widest one the split uses; [`Plan::narrow_split`]
    /// gives the whole mix.
    #[inline]
    pub fn choose(&self, busy: u32) -> Step {
        // The lowest k lanes (a mask of ones from bit 0): looked up.
        if busy != 0
            && busy & busy.wrapping_add(1) == 0
            && let Some(step) = self.packed.get(busy.trailing_ones() as usize)
        {
            return *step;
        }
        self.choose_any(busy)
    }

    /// [`Plan::choose`], worked out.
    fn choose_any(&self, busy: u32) -> Step {
        let k = busy.count_ones();
        let (split, narrow) = self.narrow_split(k);
        let narrow_step = if split.x4 > 0 {
            Step::Narrow4
        } else if split.x2 > 0 {
            Step::Narrow2
        } else {
            Step::Narrow1
        };
        let options = [
            (Step::Scalar, k as f32 * self.cost(Step::Scalar)),
            (narrow_step, narrow),
            (
                Step::Mid,
                Self::groups(busy, self.mid_width.into()) as f32 * self.cost(Step::Mid),
            ),
            (
                Step::Wide,
                Self::groups(busy, self.wide_width.into()) as f32 * self.cost(Step::Wide),
            ),
        ];
        let mut best = (Step::Scalar, f32::INFINITY);
        for (step, cost) in options {
            if cost < best.1 {
                best = (step, cost);
            }
        }
        best.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Costs of a family with a 16-lane and a 32-lane kernel and no
    /// narrow one (MD5's defaults).
    const X32_COSTS: [f32; 6] = [
        100.0,
        f32::INFINITY,
        f32::INFINITY,
        f32::INFINITY,
        133.0,
        140.0,
    ];

    #[test]
    fn fixed_plans_pick_their_step() {
        for step in Step::ALL {
            let plan = Plan::only(&[step], 8, 16);
            for busy in [1u32, 3, 0x81, 0xffff] {
                assert_eq!(plan.choose(busy), step, "{step:?} {busy:#x}");
            }
        }
    }

    #[test]
    fn narrow_split_covers_every_lane() {
        let plan = Plan::new([10.0, 1.0, 1.3, 1.8, 3.0, 4.0], 8, 16);
        for k in 1..=16 {
            let (s, cost) = plan.narrow_split(k);
            assert!(4 * s.x4 + 2 * s.x2 + s.x1 >= k, "{k}: {s:?}");
            assert_eq!(plan.narrow_calls(k), s, "{k}");
            assert!(cost.is_finite());
        }
        // 3 lanes: one x4 call with a dummy (1.8) beats x2 + x1 (2.3).
        assert_eq!(
            plan.narrow_split(3).0,
            NarrowSplit {
                x4: 1,
                x2: 0,
                x1: 0
            }
        );
        assert_eq!(
            plan.narrow_split(2).0,
            NarrowSplit {
                x4: 0,
                x2: 1,
                x1: 0
            }
        );
        assert_eq!(
            plan.narrow_split(1).0,
            NarrowSplit {
                x4: 0,
                x2: 0,
                x1: 1
            }
        );
    }

    #[test]
    fn thin_lanes_go_narrow_full_lanes_go_wide() {
        let plan = Plan::new([10.0, 1.0, 1.3, 1.8, 3.0, 4.0], 8, 16);
        assert_eq!(plan.choose(0b1), Step::Narrow1);
        assert_eq!(plan.choose(0b11), Step::Narrow2);
        assert_eq!(plan.choose(0b1111), Step::Narrow4);
        assert_eq!(plan.choose(0xffff), Step::Wide);
        // 8 lanes in one AVX2 group cost 3.0; two x4 calls 3.6.
        assert_eq!(plan.choose(0xff), Step::Mid);
        // One lane in each half: two AVX2 calls (6.0), one wide (4.0), a pair (1.3).
        assert_eq!(plan.choose(0x0101), Step::Narrow2);
    }

    #[test]
    fn stored_splits_are_the_computed_ones() {
        let plans = [
            Plan::new([10.0, 1.0, 1.3, 1.8, 3.0, 4.0], 8, 16),
            Plan::new([10.0, 1.0, f32::INFINITY, 1.8, 3.0, 4.0], 8, 16),
            Plan::only(&[Step::Narrow2], 8, 16),
            Plan::only(&[Step::Mid], 8, 16),
            Plan::only(&[Step::Scalar, Step::Wide], 8, 16),
        ];
        for plan in plans {
            for k in 0..=MAX_NARROW as u32 {
                let (stored, computed) = (plan.narrow_split(k), plan.compute_narrow_split(k));
                assert_eq!(stored.1.to_bits(), computed.1.to_bits(), "{plan:?} {k}");
                if computed.1.is_finite() {
                    assert_eq!(stored.0, computed.0, "{plan:?} {k}");
                }
            }
        }
        // No narrow step: no narrow split runs a busy lane.
        assert_eq!(
            Plan::only(&[Step::Mid], 8, 16).narrow_split(3).1,
            f32::INFINITY
        );
    }

    #[test]
    fn looked_up_choices_are_the_computed_ones() {
        let plans = [
            Plan::new([10.0, 1.0, 1.3, 1.8, 3.0, 4.0], 8, 16),
            Plan::new([10.0, 1.0, 1.3, 2.9, 3.0, 4.0], 8, 16),
            Plan::only(&[Step::Mid], 8, 16),
            Plan::only(&[Step::Wide], 4, 8),
            Plan::new(X32_COSTS, 16, 32),
            Plan::only(&[Step::Wide], 16, 32),
        ];
        for plan in plans {
            for k in 1..=32 {
                let busy = u32::MAX >> (32 - k);
                assert_eq!(plan.choose(busy), plan.choose_any(busy), "{plan:?} {k}");
            }
            assert_eq!(plan.one(), plan.choose_any(1));
        }
    }

    #[test]
    fn two_lane_only_plan_runs_an_odd_lane_with_a_dummy() {
        let plan = Plan::only(&[Step::Narrow2], 8, 16);
        assert_eq!(
            plan.narrow_split(3).0,
            NarrowSplit {
                x4: 0,
                x2: 2,
                x1: 0
            }
        );
    }

    /// A 32-lane kernel: one group holds every lane, and the wider masks
    /// than the narrow table are chosen as the ones within it.
    #[test]
    fn thirty_two_lanes_make_one_wide_group() {
        let plan = Plan::new(X32_COSTS, 16, 32);
        assert_eq!(Plan::groups(u32::MAX, 32), 1);
        assert_eq!(Plan::groups(0x8000_0001, 16), 2);
        assert_eq!(plan.choose(0x8000_0000), Step::Scalar);
        assert_eq!(plan.choose(0xffff), Step::Mid);
        assert_eq!(plan.choose(0x8000_0001), Step::Wide);
        assert_eq!(plan.choose(u32::MAX), Step::Wide);
        assert_eq!(plan.narrow_split(32).1, f32::INFINITY);
        assert_eq!(plan.narrow_split(0).1, 0.0);
    }
}
