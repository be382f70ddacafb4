//! `auto`: every supported kernel timed on one length per size class, the
//! cheapest kept (the one timing of every CRC's `auto`, `crc::classes`).

use super::Crc32cEngine;
use super::kernel::{One, Selected};
use crate::crc::classes::{CLASSES, TIMED_CLASSES, cheapest, class, class_length, measure};
use crate::race::Race;
use mbhash_simd::crc32c::Table;

/// What `auto` measured: nanoseconds per call of each kernel
/// ([`Crc32cEngine::KERNELS`] order; infinite when unsupported) for each
/// size class it timed.
#[derive(Clone, Debug)]
pub struct AutoChoices {
    cost: [[f64; 4]; TIMED_CLASSES + 1],
    choice: [Crc32cEngine; TIMED_CLASSES + 1],
}

impl AutoChoices {
    /// The size classes `auto` timed: `(smallest length, largest length,
    /// length timed)` of each, in order; the last class also covers every
    /// longer input.
    pub fn classes(&self) -> impl Iterator<Item = (usize, usize, usize)> + '_ {
        (1..=TIMED_CLASSES).map(|b| {
            let hi = if b == TIMED_CLASSES {
                usize::MAX
            } else {
                (1 << b) - 1
            };
            (1 << (b - 1), hi, class_length(b))
        })
    }

    /// The kernel `auto` runs for `len` bytes.
    pub fn choice(&self, len: usize) -> Crc32cEngine {
        self.choice[class(len).min(TIMED_CLASSES)]
    }

    /// Nanoseconds per call `auto` measured for `kernel` on the length timed
    /// for `len`'s class (`None` for `auto` or an unsupported kernel).
    pub fn cost(&self, kernel: Crc32cEngine, len: usize) -> Option<f64> {
        let i = Crc32cEngine::KERNELS.iter().position(|&k| k == kernel)?;
        let c = self.cost[class(len).clamp(1, TIMED_CLASSES)][i];
        c.is_finite().then_some(c)
    }
}

/// What `auto` chose per size class, and the costs it measured.
pub fn auto_choices() -> &'static AutoChoices {
    &calibrated().1
}

/// The `auto` engine, calibrated at first use.
pub(super) fn auto() -> &'static Selected {
    &calibrated().0
}

fn calibrated() -> &'static (Selected, AutoChoices) {
    static AUTO: Race<(Selected, AutoChoices)> = Race::new();
    AUTO.get_or_init(calibrate)
}

/// Times every supported kernel on one length per size class and keeps the
/// cheapest (the one timing of every CRC's `auto`, `crc::classes`).
fn calibrate() -> (Selected, AutoChoices) {
    use std::hint::black_box;
    let kernels = Crc32cEngine::KERNELS.map(One::new);
    let table = Crc32cEngine::KERNELS
        .iter()
        .position(|&k| k == Crc32cEngine::Table);
    let [cost] = measure(kernels.map(|k| k.is_some()), table, |_, i, data| {
        if let Some(k) = kernels[i] {
            black_box(k.update(0, data));
        }
    });
    let table_kernel = One::Table(Table);
    let picked = cheapest(&cost, table.unwrap_or(0)).map(|i| kernels[i].unwrap_or(table_kernel));
    let mut by_class = [picked[TIMED_CLASSES]; CLASSES];
    by_class[..=TIMED_CLASSES].copy_from_slice(&picked);
    // `shift` does not depend on the data: the fastest kernel that has one
    // of its own (every SIMD kernel uses the PCLMULQDQ `shift`).
    let shift = kernels[1..]
        .iter()
        .flatten()
        .next()
        .copied()
        .unwrap_or(table_kernel);
    let choices = AutoChoices {
        cost,
        choice: picked.map(One::engine),
    };
    (Selected::new(Crc32cEngine::Auto, by_class, shift), choices)
}
