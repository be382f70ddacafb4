//! Every generic CRC kernel against a bit-by-bit reference written here
//! from the Rocksoft definition (no tables, no constants of the crate), on
//! many widths, polynomials and both bit orders; and the kernels' constants
//! re-derived independently.

mod common;

use common::{Rng, token_or_skip};
use mbhash_simd::cpu::Feature;
use mbhash_simd::crc::{Consts, FOLDS, Pclmul, Vpclmul256, Vpclmul512, table};

/// (width, polynomial in the catalogue's normal order, reflected): the
/// widths 16, 32 and 64 of the storage CRCs in both orders, and others.
const SPECS: &[(u8, u64, bool)] = &[
    (16, 0x8BB7, false),                // CRC-16/T10-DIF
    (16, 0x8005, true),                 // CRC-16/ARC
    (32, 0x04C1_1DB7, true),            // CRC-32/ISO-HDLC
    (32, 0x04C1_1DB7, false),           // CRC-32/BZIP2
    (32, 0x1EDC_6F41, true),            // CRC-32/ISCSI
    (64, 0xAD93_D235_94C9_3659, true),  // CRC-64/NVME
    (64, 0x42F0_E1EB_A9EA_3693, false), // CRC-64/ECMA-182
    (64, 0x1B, true),                   // CRC-64/GO-ISO
    (64, 0x1B, false),                  // ISA-L crc64_iso_norm
    (8, 0x07, false),                   // CRC-8/SMBUS
    (5, 0x05, true),                    // CRC-5/USB
    (12, 0x80F, false),                 // CRC-12/UMTS's polynomial
    (40, 0x00_0482_0009, false),        // CRC-40/GSM
    (1, 0x1, false),                    // parity
];

/// The register (`width` bits, in the input's bit order) after `data`,
/// from `reg`, bit by bit: the Rocksoft model's shift register, with the
/// bytes reflected first for a reflected CRC and the register reflected
/// in and out.
fn reference(width: u8, poly: u64, refin: bool, reg: u64, data: &[u8]) -> u64 {
    let mask = if width == 64 {
        u64::MAX
    } else {
        (1 << width) - 1
    };
    let flip = |v: u64| v.reverse_bits() >> (64 - width);
    let mut r = if refin { flip(reg) } else { reg };
    for &byte in data {
        let byte = if refin { byte.reverse_bits() } else { byte };
        for bit in (0..8).rev() {
            let feedback = ((r >> (width - 1)) & 1) ^ u64::from((byte >> bit) & 1);
            r = (r << 1) & mask;
            if feedback == 1 {
                r ^= poly;
            }
        }
    }
    if refin { flip(r) } else { r }
}

/// A kernel's `update` on the `width`-bit register.
type Update<'a> = &'a dyn Fn(&Consts, u64, &[u8]) -> u64;

fn run(c: &Consts, kernel: Update<'_>, reg: u64, data: &[u8]) -> u64 {
    c.from_normalised(kernel(c, c.to_normalised(reg), data))
}

/// The length and alignment matrix: lengths 0..=300, around 448 and 512
/// (where the 512-bit kernel's short path goes from one chain to two),
/// some between, around 1 KiB (where the 256- and 512-bit kernels leave
/// their short path), 4 KiB,
/// 64 KiB and 1 MiB, each at every offset 0..16, from a random register,
/// against the bit-by-bit reference; lengths 0..=300 at the offsets
/// 16..64 against the table kernel.
fn check_kernel(name: &str, kernel: Update<'_>) {
    let mut rng = Rng::new(0xc5c5_0025);
    let mut buf = vec![0u8; (1 << 20) + 32];
    rng.fill(&mut buf);
    let lengths: Vec<usize> = (0..=300)
        .chain(447..=449)
        .chain(511..=513)
        .chain(575..=577)
        .chain((520..1023).step_by(37))
        .chain(1023..=1025)
        .chain(4095..=4097)
        .chain([(64 << 10) - 1, 64 << 10, (64 << 10) + 1, 1 << 20])
        .collect();
    for &(width, poly, refin) in SPECS {
        let c = Consts::new(width, poly, refin);
        let mask = if width == 64 {
            u64::MAX
        } else {
            (1 << width) - 1
        };
        for &len in &lengths {
            // The longest inputs at a few offsets (the bit-by-bit
            // reference is slow), every other length at all sixteen.
            let offsets: &[usize] = if len >= 64 << 10 {
                &[0, 1, 15]
            } else {
                &[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15]
            };
            for &off in offsets {
                let data = &buf[off..off + len];
                let reg = rng.next_u64() & mask;
                let want = reference(width, poly, refin, reg, data);
                assert_eq!(
                    run(&c, kernel, reg, data),
                    want,
                    "{name}: width {width} poly {poly:#x} refin {refin}, length {len} offset {off} from {reg:#x}"
                );
            }
        }
        // The other alignments of a cache line, 16..64, for every length
        // to 300, against the table kernel (itself checked against the
        // reference above): a vector kernel's loads and its first and last
        // partial lanes at every offset.
        for len in 0..=300 {
            for off in 16..64 {
                let data = &buf[off..off + len];
                let reg = rng.next_u64() & mask;
                let want = c.from_normalised(table::update(&c, c.to_normalised(reg), data));
                assert_eq!(
                    run(&c, kernel, reg, data),
                    want,
                    "{name}: width {width} poly {poly:#x} refin {refin}, length {len} offset {off} from {reg:#x}"
                );
            }
        }
        // Zero and all-ones registers on a few lengths.
        for len in [0, 16, 64, 1000] {
            for reg in [0, mask] {
                let data = &buf[3..3 + len];
                assert_eq!(
                    run(&c, kernel, reg, data),
                    reference(width, poly, refin, reg, data),
                    "{name}: width {width} poly {poly:#x}, length {len} from {reg:#x}"
                );
            }
        }
    }
}

#[test]
fn table_kernel() {
    check_kernel("table", &table::update);
}

#[test]
fn pclmul_kernel() {
    if let Some(k) = token_or_skip(Feature::Pclmul, "crc pclmul", Pclmul::new()) {
        check_kernel("pclmul", &move |c, r, d| k.update(c, r, d));
    }
}

/// The entries for one orientation (what `auto`'s and a forced engine's
/// tables hold), each given constants of its orientation.
#[test]
fn pclmul_oriented_entries() {
    if let Some(k) = token_or_skip(Feature::Pclmul, "crc pclmul", Pclmul::new()) {
        check_kernel("pclmul oriented", &move |c, r, d| {
            k.entry_for(c.reflected()).update(c, r, d)
        });
    }
}

#[test]
fn vpclmul256_kernel() {
    if let Some(k) = token_or_skip(Feature::Vpclmul256, "crc vpclmul256", Vpclmul256::new()) {
        check_kernel("vpclmul256", &move |c, r, d| k.update(c, r, d));
    }
}

/// The entries for one orientation (what `auto`'s and a forced engine's
/// tables hold), each given constants of its orientation.
#[test]
fn vpclmul256_oriented_entries() {
    if let Some(k) = token_or_skip(Feature::Vpclmul256, "crc vpclmul256", Vpclmul256::new()) {
        check_kernel("vpclmul256 oriented", &move |c, r, d| {
            k.entry_for(c.reflected()).update(c, r, d)
        });
    }
}

#[test]
fn vpclmul512_kernel() {
    if let Some(k) = token_or_skip(Feature::Vpclmul, "crc vpclmul512", Vpclmul512::new()) {
        check_kernel("vpclmul512", &move |c, r, d| k.update(c, r, d));
    }
}

/// The entries for one orientation (what `auto`'s and a forced engine's
/// tables hold), each given constants of its orientation.
#[test]
fn vpclmul512_oriented_entries() {
    if let Some(k) = token_or_skip(Feature::Vpclmul, "crc vpclmul512", Vpclmul512::new()) {
        check_kernel("vpclmul512 oriented", &move |c, r, d| {
            k.entry_for(c.reflected()).update(c, r, d)
        });
    }
}

/// `x^n mod P'` by `n` multiplications by `x` (shift and reduce), where
/// `P' = P * x^(64 - width)`: independent of the crate's square-and-multiply.
fn slow_xpow(n: u64, width: u8, poly: u64) -> u64 {
    let p = poly << (64 - width);
    let mut r = 1u64;
    for _ in 0..n {
        let carry = r >> 63;
        r <<= 1;
        if carry == 1 {
            r ^= p;
        }
    }
    r
}

/// The carry-less product of two 64-bit polynomials.
fn clmul(a: u64, b: u64) -> u128 {
    (0..64)
        .filter(|i| (b >> i) & 1 == 1)
        .fold(0u128, |acc, i| acc ^ ((a as u128) << i))
}

#[test]
fn constants_rederived() {
    for &(width, poly, refin) in SPECS {
        let c = Consts::new(width, poly, refin);
        let rev = |v: u64| if refin { v.reverse_bits() } else { v };
        for k in 0..FOLDS {
            let d = 16 * (k as u64 + 1);
            let want = if refin {
                [
                    rev(slow_xpow(8 * d + 63, width, poly)),
                    rev(slow_xpow(8 * d - 1, width, poly)),
                ]
            } else {
                [
                    slow_xpow(8 * d, width, poly),
                    slow_xpow(8 * d + 64, width, poly),
                ]
            };
            assert_eq!(c.fold(k), want, "width {width} poly {poly:#x} fold {k}");
        }
        let k128 = if refin {
            rev(slow_xpow(127, width, poly))
        } else {
            slow_xpow(128, width, poly)
        };
        assert_eq!(c.k128(), k128, "width {width} poly {poly:#x}");
        // Barrett: mu = floor(x^128 / P'), so x^128 + mu * P' (= mu * P'
        // + x^128 over GF(2)) has degree below 64; with mu = x^64 + m and
        // P' = x^64 + p: x^128 + (x^64 + m)(x^64 + p) = x^64 (m + p) + m p.
        let p = poly << (64 - width);
        let m = rev(c.mu());
        let mp = clmul(m, p);
        let high = (mp >> 64) as u64 ^ m ^ p;
        assert_eq!(high, 0, "width {width} poly {poly:#x}: mu");
        assert_eq!(rev(c.poly()), p);
        // A reflected CRC's Barrett: m' = floor(x^127 / P'), so x^127 + m'
        // P' has degree below 64; floor(P' / x) * x + (P' mod x) = P'.
        let ([mu127, poly_div_x], unit) = c.barrett_refl();
        if refin {
            let (m, d) = (mu127.reverse_bits(), poly_div_x.reverse_bits());
            let rem = (1u128 << 127) ^ ((m as u128) << 64) ^ clmul(m, p);
            assert_eq!(rem >> 64, 0, "width {width} poly {poly:#x}: mu127");
            let e = u128::from(unit & 1);
            assert_eq!(unit, 0u64.wrapping_sub(unit & 1), "unit mask");
            assert_eq!(((d as u128) << 1) ^ e, (1u128 << 64) | p as u128);
        } else {
            assert_eq!((mu127, poly_div_x, unit), (0, 0, 0));
        }
        for k in 0..20 {
            assert_eq!(c.x2n(k), slow_xpow(8 << k, width, poly), "x2n {k}");
        }
    }
}

#[test]
fn shifts_agree_on_huge_lengths() {
    let Some(k) = token_or_skip(Feature::Pclmul, "crc pclmul shift", Pclmul::new()) else {
        return;
    };
    let mut rng = Rng::new(8);
    for &(width, poly, refin) in SPECS {
        let c = Consts::new(width, poly, refin);
        for _ in 0..50 {
            let reg = c.to_normalised(rng.next_u64() >> (64 - width));
            let n = rng.next_u64() >> rng.below(64);
            assert_eq!(k.shift(&c, reg, n), c.shift(reg, n), "width {width} n {n}");
        }
    }
}

#[test]
fn shift_is_an_update_over_zeros() {
    let zeros = vec![0u8; 70_000];
    let mut rng = Rng::new(7);
    let pclmul = token_or_skip(Feature::Pclmul, "crc pclmul shift", Pclmul::new());
    for &(width, poly, refin) in SPECS {
        let c = Consts::new(width, poly, refin);
        let mask = if width == 64 {
            u64::MAX
        } else {
            (1 << width) - 1
        };
        for n in [0, 1, 2, 3, 15, 16, 17, 255, 4096, 65_537, 70_000] {
            let reg = rng.next_u64() & mask;
            let want = reference(width, poly, refin, reg, &zeros[..n]);
            let got = c.from_normalised(c.shift(c.to_normalised(reg), n as u64));
            assert_eq!(got, want, "width {width} poly {poly:#x} n {n}");
            if let Some(k) = pclmul {
                let got = c.from_normalised(k.shift(&c, c.to_normalised(reg), n as u64));
                assert_eq!(got, want, "pclmul: width {width} poly {poly:#x} n {n}");
            }
        }
    }
}

#[test]
fn vpclmul512_copy_kernel() {
    let Some(k) = token_or_skip(Feature::Vpclmul, "crc vpclmul512 copy", Vpclmul512::new()) else {
        return;
    };
    let mut rng = Rng::new(9);
    let mut src = vec![0u8; 70_000];
    rng.fill(&mut src);
    for &(width, poly, refin) in SPECS {
        let c = Consts::new(width, poly, refin);
        // Either side of the one-pass kernel's shortest body and of a
        // whole group past it, too.
        let min = mbhash_simd::crc::vpclmul512::COPY_MIN;
        for len in [
            0,
            100,
            1023,
            1024,
            1025,
            1536,
            min - 1,
            min,
            min + 1,
            min + 511,
            min + 512,
            65_536 + 17,
        ] {
            let off = rng.below(16);
            let s = &src[off..off + len];
            let mut dst = vec![0u8; len + 1];
            let reg = rng.next_u64() >> (64 - width);
            let got = c.from_normalised(k.update_copy(&c, c.to_normalised(reg), &mut dst[1..], s));
            assert_eq!(&dst[1..], s, "copy, length {len}");
            assert_eq!(
                got,
                reference(width, poly, refin, reg, s),
                "width {width} poly {poly:#x} refin {refin}, length {len}"
            );
        }
    }
}
