//! Size classes and the timing of kernels per class: what `auto` of the
//! CRC engines and of CRC32C ([`crate::crc::crc32c`]) measure at first use.
//!
//! Class `b` holds the lengths of bit length `b` (`2^(b-1) ..= 2^b - 1`;
//! class 0 is the empty input). `auto` times every supported kernel on the
//! smallest length of each class up to [`TIMED_CLASSES`], a power of two
//! (buffers of storage stacks mostly are, and a kernel's cost can change
//! within a class), and keeps the cheapest per class.

/// Size classes of any length.
pub(crate) const CLASSES: usize = usize::BITS as usize + 1;

/// The size class of a length.
#[inline]
pub(crate) fn class(len: usize) -> usize {
    (usize::BITS - len.leading_zeros()) as usize
}

/// The longest input of a size class.
pub(crate) const fn class_max(b: usize) -> usize {
    if b >= usize::BITS as usize {
        usize::MAX
    } else {
        (1 << b) - 1
    }
}

/// The largest size class `auto` times; longer inputs take its choice
/// (every kernel is in its steady loop by then).
pub(crate) const TIMED_CLASSES: usize = 17;

/// The length `auto` times for class `b`: its smallest, a power of two.
pub(crate) const fn class_length(b: usize) -> usize {
    if b == 0 { 0 } else { 1 << (b - 1) }
}

/// A table kernel is timed up to this class; its cost beyond grows with the
/// length alone (the same loop at every length), so it is scaled from there
/// rather than measured at length (which would take milliseconds).
pub(crate) const TABLE_TIMED: usize = 12;

/// Microseconds of untimed warm-up before the first measurement (see
/// [`measure`]).
const WARM_UP_US: u128 = 600;

/// Nanoseconds per call of each of `K` kernels per timed class (infinite
/// where a kernel is absent).
pub(crate) type Costs<const K: usize> = [[f64; K]; TIMED_CLASSES + 1];

/// Times `K` kernels in each of `V` variants (a CRC's orientations, say) on
/// one length per size class: the minimum over a few rounds of a batch of
/// calls that lasts about a microsecond (the minimum, so that a round
/// disturbed by another thread does not count), the kernels interleaved
/// within each round, after an untimed warm-up. `present[i]` says whether
/// kernel `i` runs here, `table` which one is the table kernel (timed up to
/// [`TABLE_TIMED`] and scaled beyond); `run(v, i, data)` runs kernel `i` of
/// variant `v` once.
///
/// The variants are swept in order and the first is swept again last, each
/// kernel keeping its lower cost: the first sweep can run while the core
/// still powers its 512-bit units up, or while the host takes the CPU as a
/// whole, and a kernel timed slow in every round of it then loses classes
/// it wins (Intel Xeon under KVM: CRC-64 `vpclmul512` not reflected read
/// 96 ns at 4 KiB in one process, 65 in the next, and `auto` ran
/// `vpclmul256` from 2 KiB on in about 1 process in 8).
pub(crate) fn measure<const K: usize, const V: usize>(
    present: [bool; K],
    table: Option<usize>,
    mut run: impl FnMut(usize, usize, &[u8]),
) -> [Costs<K>; V] {
    use std::hint::black_box;
    use std::time::Instant;
    const ROUNDS: usize = 5;
    /// Bytes hashed per timed batch: enough that a batch of the fast
    /// kernels lasts about a microsecond at every length, far above the
    /// clock's resolution and the cost of reading it (a batch of one
    /// 4 KiB call, timed to the 10 ns a virtual machine's clock may give,
    /// cannot tell kernels 10% apart).
    const BATCH: usize = 64 << 10;
    /// The same for the table kernel, some fifty times slower per byte:
    /// its batches last as long with fewer bytes.
    const TABLE_BATCH: usize = 4 << 10;
    /// Calls per batch at least (the longest classes) and at most (the
    /// shortest, where the batch's length is what matters).
    const MIN_CALLS: usize = 4;
    const MAX_CALLS: usize = 256;

    let mut cost = [[[f64::INFINITY; K]; TIMED_CLASSES + 1]; V];
    let mut data = vec![0u8; class_length(TIMED_CLASSES)];
    let mut x = 0x9e37_79b9_u32;
    for b in data.iter_mut() {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        *b = x as u8;
    }
    // Warm-up: a core that has not run 512-bit instructions for a while
    // runs them slowly (at a fraction of their rate, for up to about half a
    // millisecond on Intel Xeon) while it powers those units up; timed
    // then, the AVX-512 kernels lose classes they win. So each kernel first
    // runs for about that long, untimed.
    let warm = Instant::now();
    while warm.elapsed().as_micros() < WARM_UP_US {
        for v in 0..V {
            for i in (0..K).filter(|&i| present[i] && Some(i) != table) {
                run(v, i, black_box(&data[..data.len().min(4096)]));
            }
        }
    }
    for v in (0..V).chain(0..V.min(1)) {
        for _ in 0..ROUNDS {
            for (b, row) in cost[v].iter_mut().enumerate().skip(1) {
                let piece = &data[..class_length(b)];
                for (i, slot) in row.iter_mut().enumerate() {
                    if !present[i] || (Some(i) == table && b > TABLE_TIMED) {
                        continue;
                    }
                    let batch = if Some(i) == table { TABLE_BATCH } else { BATCH };
                    let calls = (batch / (piece.len() + 32)).clamp(MIN_CALLS, MAX_CALLS);
                    let t = Instant::now();
                    for _ in 0..calls {
                        run(v, i, black_box(piece));
                    }
                    let ns = t.elapsed().as_nanos() as f64 / calls as f64;
                    *slot = slot.min(ns);
                }
            }
        }
    }
    if let Some(t) = table {
        for variant in cost.iter_mut() {
            for b in TABLE_TIMED + 1..=TIMED_CLASSES {
                let scale = class_length(b) as f64 / class_length(TABLE_TIMED) as f64;
                variant[b][t] = variant[TABLE_TIMED][t] * scale;
            }
        }
    }
    cost
}

/// The cheapest kernel of each timed class (`default` where none was
/// timed); class 0, the empty input, takes class 1's.
pub(crate) fn cheapest<const K: usize>(
    cost: &Costs<K>,
    default: usize,
) -> [usize; TIMED_CLASSES + 1] {
    let mut picked = [default; TIMED_CLASSES + 1];
    for (b, row) in cost.iter().enumerate().skip(1) {
        if let Some(i) = (0..K)
            .filter(|&i| row[i].is_finite())
            .min_by(|&i, &j| row[i].total_cmp(&row[j]))
        {
            picked[b] = i;
        }
    }
    picked[0] = picked[1];
    picked
}
