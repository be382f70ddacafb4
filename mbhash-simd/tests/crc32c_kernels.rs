//! Every CRC32C kernel against the table kernel and the `crc` crate.

mod common;

use common::{Rng, token_or_skip};
use mbhash_simd::cpu::{self, Feature};
use mbhash_simd::crc32c::{
    self, Kernel, Sse42, Table, Vpclmul, VpclmulFold, vpclmul, vpclmul_fold,
};

const ISCSI: crc::Crc<u32> = crc::Crc::<u32>::new(&crc::CRC_32_ISCSI);

/// The finished CRC (initial `!0`, final inversion) through `kernel`.
fn finished<K: Kernel>(kernel: K, data: &[u8]) -> u32 {
    !kernel.update(!0, data)
}

/// The check value and the CRC32C examples of RFC 3720, appendix B.4.
fn known_answers<K: Kernel>(kernel: K, name: &str) {
    let incrementing: Vec<u8> = (0..32).collect();
    let decrementing: Vec<u8> = (0..32).rev().collect();
    let cases: [(&str, &[u8], u32); 5] = [
        ("check", b"123456789", 0xE306_9283),
        ("32 zeros", &[0x00; 32], 0x8A91_36AA),
        ("32 ones", &[0xFF; 32], 0x62A8_AB43),
        ("incrementing", &incrementing, 0x46DD_794E),
        ("decrementing", &decrementing, 0x113F_DB5C),
    ];
    for (what, data, expected) in cases {
        assert_eq!(finished(kernel, data), expected, "{name}: {what}");
    }
}

/// One input: the finished CRC against the `crc` crate, and the raw update
/// from a random register against the table kernel.
fn check_one<K: Kernel>(kernel: K, name: &str, rng: &mut Rng, data: &[u8]) {
    let len = data.len();
    assert_eq!(
        finished(kernel, data),
        ISCSI.checksum(data),
        "{name}: length {len}"
    );
    let start = rng.next_u64() as u32;
    let expected = crc32c::table::update(start, data);
    assert_eq!(
        kernel.update(start, data),
        expected,
        "{name}: length {len} from {start:#010x}"
    );
    // The entry points, for this length's size class and for any length.
    let class_max = usize::MAX.checked_shr(len.leading_zeros()).unwrap_or(0);
    for max_len in [class_max, usize::MAX] {
        assert_eq!(
            kernel.entry(max_len).update(start, data),
            expected,
            "{name}: entry({max_len}), length {len}"
        );
    }
}

/// The shared harness: every length 0..=2600, lengths around the kernels'
/// block sizes, a few random lengths up to 1 MiB, all at random offsets;
/// then `shift` against updates over zeros and against itself.
fn check_kernel<K: Kernel>(kernel: K, name: &str) {
    known_answers(kernel, name);
    let mut rng = Rng::new(0x5eed_c32c);
    let mut buf = vec![0u8; (1 << 20) + 64];
    rng.fill(&mut buf);

    // Every length up to 2600 covers the single chain, folding alone (every
    // partial first vector and first group), and fused inputs of one to
    // four groups with every head length.
    for len in 0..=2600 {
        let offset = rng.below(64);
        check_one(kernel, name, &mut rng, &buf[offset..offset + len]);
    }
    // Around the kernels' block sizes: the SSE4.2 fixed block (6 KiB), the
    // VPCLMULQDQ kernel's longest variable input and its fixed blocks.
    let (long, block) = (vpclmul::LONG, vpclmul::BLOCK);
    // vpclmul-fold: the end of the direct path, the first lengths with a
    // loop step, every head length (around multiples of its step).
    let fold_direct = 64 * vpclmul_fold::DIRECT_MAX;
    let fold_step = vpclmul_fold::STEP;
    let around = [
        fold_direct,
        fold_direct + fold_step,
        fold_direct + 2 * fold_step,
        8 << 10,
        3 * 1024,
        4 * 1024,
        6144,
        2 * 6144,
        long,
        long + block,
        long + 2 * block,
        long + 3 * block,
        3 * 8192,
    ];
    let around = around.into_iter().flat_map(|base| base - 9..=base + 9);
    for len in around {
        let offset = rng.below(64);
        check_one(kernel, name, &mut rng, &buf[offset..offset + len]);
    }
    for _ in 0..6 {
        let len = rng.below((1 << 20) + 1);
        let offset = rng.below(64);
        check_one(kernel, name, &mut rng, &buf[offset..offset + len]);
    }
    // Uniform bytes hit the all-zero and all-one products.
    for fill in [0x00, 0xFF] {
        let data = vec![fill; 70_001];
        for len in [300, 4099, 70_001] {
            check_one(kernel, name, &mut rng, &data[..len]);
        }
    }

    let zeros = vec![0u8; 5000];
    for len in (0..=300).chain([1000, 4095, 4096, 4097, 5000]) {
        let start = rng.next_u64() as u32;
        assert_eq!(
            kernel.shift(start, len as u64),
            crc32c::table::update(start, &zeros[..len]),
            "{name}: shift by {len}"
        );
    }
    for _ in 0..200 {
        let start = rng.next_u64() as u32;
        let a = rng.next_u64() >> 2;
        let b = rng.next_u64() >> 2;
        assert_eq!(
            kernel.shift(kernel.shift(start, a), b),
            kernel.shift(start, a + b),
            "{name}: shift by {a} then {b}"
        );
        assert_eq!(kernel.shift(start, a), crc32c::table::shift(start, a));
    }
    assert_eq!(
        kernel.shift(0x1234_5678, u64::MAX),
        crc32c::table::shift(0x1234_5678, u64::MAX)
    );
}

/// The first feature the kernel needs that is unavailable, to explain a skip.
fn missing(needs: &[Feature]) -> Feature {
    needs
        .iter()
        .copied()
        .find(|&f| !cpu::available(f))
        .unwrap_or(needs[0])
}

#[test]
fn table() {
    check_kernel(Table, "crc32c table");
}

#[test]
fn sse42() {
    let needs = missing(&[Feature::Sse42, Feature::Pclmul]);
    if let Some(k) = token_or_skip(needs, "crc32c sse42", Sse42::new()) {
        check_kernel(k, "crc32c sse42");
    }
}

#[test]
fn vpclmul() {
    let needs = missing(&[
        Feature::Vpclmul,
        Feature::Avx512,
        Feature::Sse42,
        Feature::Pclmul,
    ]);
    if let Some(k) = token_or_skip(needs, "crc32c vpclmul", Vpclmul::new()) {
        check_kernel(k, "crc32c vpclmul");
    }
}

#[test]
fn vpclmul_fold() {
    let needs = missing(&[
        Feature::Vpclmul,
        Feature::Avx512,
        Feature::Sse42,
        Feature::Pclmul,
    ]);
    if let Some(k) = token_or_skip(needs, "crc32c vpclmul-fold", VpclmulFold::new()) {
        check_kernel(k, "crc32c vpclmul-fold");
    }
}

/// Concatenation through raw registers: crc(A || B) from the parts.
#[test]
fn shift_combines_parts() {
    let mut rng = Rng::new(7);
    let mut data = vec![0u8; 10_000];
    rng.fill(&mut data);
    for _ in 0..100 {
        let split = rng.below(data.len() + 1);
        let (a, b) = data.split_at(split);
        let whole = crc32c::table::update(!0, &data);
        let parts = crc32c::table::shift(crc32c::table::update(!0, a), b.len() as u64)
            ^ crc32c::table::update(0, b);
        assert_eq!(parts, whole, "split at {split}");
    }
}
