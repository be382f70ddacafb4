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
    /// A mid-width SIMD kernel (AVX2) over an aligned group of lanes.
    Mid,
    /// The widest SIMD kernel (AVX-512) over an aligned group of lanes.
    Wide,
}

impl Step {
    /// Every step, in cost-table order.
    pub const ALL: [Step; 5] = [
        Step::Scalar,
        Step::Narrow1,
        Step::Narrow2,
        Step::Mid,
        Step::Wide,
    ];
}

/// Costs of each step (time per block per call, any unit) and group widths.
///
/// A step that is not allowed has an infinite cost. The plan for a busy mask
/// is the step of least total cost, where a SIMD step costs one call per
/// aligned group that holds a busy lane, and a narrow step one call per lane
/// (or pair).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Plan {
    /// Cost per block of one call of each step, indexed like [`Step::ALL`].
    pub cost: [f32; 5],
    /// Lanes of the mid-width kernel.
    pub mid_width: u32,
    /// Lanes of the wide kernel.
    pub wide_width: u32,
}

impl Plan {
    /// A plan that allows exactly the listed steps, at unit cost.
    pub fn only(steps: &[Step], mid_width: u32, wide_width: u32) -> Plan {
        let mut cost = [f32::INFINITY; 5];
        for s in steps {
            cost[*s as usize] = 1.0;
        }
        Plan {
            cost,
            mid_width,
            wide_width,
        }
    }

    /// True if `step` is allowed.
    pub fn allows(&self, step: Step) -> bool {
        self.cost[step as usize].is_finite()
    }

    fn groups(busy: u32, width: u32) -> u32 {
        let mask = if width >= 32 {
            u32::MAX
        } else {
            (1u32 << width) - 1
        };
        (0..32 / width.max(1))
            .filter(|g| busy & (mask << (g * width)) != 0)
            .count() as u32
    }

    /// The cheapest step for the lanes in `busy` (not empty).
    #[inline]
    pub fn choose(&self, busy: u32) -> Step {
        let k = busy.count_ones() as f32;
        let c = &self.cost;
        let narrow = if c[Step::Narrow2 as usize].is_finite() {
            let pairs = (busy.count_ones() / 2) as f32;
            let odd = (busy.count_ones() % 2) as f32;
            let single = if odd > 0.0 && !c[Step::Narrow1 as usize].is_finite() {
                // An odd lane runs in a pair with a dummy partner.
                c[Step::Narrow2 as usize]
            } else {
                c[Step::Narrow1 as usize]
            };
            pairs * c[Step::Narrow2 as usize] + odd * single
        } else {
            k * c[Step::Narrow1 as usize]
        };
        let options = [
            (Step::Scalar, k * c[Step::Scalar as usize]),
            (Step::Narrow2, narrow),
            (
                Step::Mid,
                Self::groups(busy, self.mid_width) as f32 * c[Step::Mid as usize],
            ),
            (
                Step::Wide,
                Self::groups(busy, self.wide_width) as f32 * c[Step::Wide as usize],
            ),
        ];
        let mut best = (Step::Scalar, f32::INFINITY);
        for (step, cost) in options {
            if cost < best.1 {
                best = (step, cost);
            }
        }
        match best.0 {
            Step::Narrow2 if !c[Step::Narrow2 as usize].is_finite() => Step::Narrow1,
            s => s,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fixed_plans_pick_their_step() {
        for step in [Step::Scalar, Step::Narrow1, Step::Mid, Step::Wide] {
            let plan = Plan::only(&[step], 8, 16);
            for busy in [1u32, 3, 0x81, 0xffff] {
                assert_eq!(plan.choose(busy), step);
            }
        }
        let x2 = Plan::only(&[Step::Narrow2], 8, 16);
        assert_eq!(x2.choose(1), Step::Narrow2);
        assert_eq!(x2.choose(0b111), Step::Narrow2);
    }

    #[test]
    fn thin_lanes_go_narrow_full_lanes_go_wide() {
        let plan = Plan {
            cost: [10.0, 1.0, 1.1, 2.0, 2.2],
            mid_width: 8,
            wide_width: 16,
        };
        assert_eq!(plan.choose(0b1), Step::Narrow1);
        assert_eq!(plan.choose(0b11), Step::Narrow2);
        assert_eq!(plan.choose(0xffff), Step::Wide);
        // 8 lanes in one AVX2 group cost 2.0; four SHA-NI pairs cost 4.4.
        assert_eq!(plan.choose(0xff), Step::Mid);
        // One lane in each half: two AVX2 calls (4.0) vs one wide (2.2) vs a pair (1.1).
        assert_eq!(plan.choose(0x0101), Step::Narrow2);
    }
}
