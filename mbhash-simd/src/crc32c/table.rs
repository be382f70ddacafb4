//! Portable CRC32C, slice-by-8: no `unsafe`, any CPU.
//!
//! It is the oracle every other kernel is tested against, and the fallback
//! where the CPU has no CRC instructions.

use super::{Kernel, POLY, X16, shift_exponent};

/// The portable kernel; always available.
#[derive(Clone, Copy, Debug, Default)]
pub struct Table;

impl Table {
    /// Always `Some`: the table kernel needs no CPU feature.
    pub fn new() -> Option<Self> {
        Some(Table)
    }
}

impl Kernel for Table {
    fn update(self, crc: u32, data: &[u8]) -> u32 {
        update(crc, data)
    }

    fn shift(self, crc: u32, len: u64) -> u32 {
        shift(crc, len)
    }

    fn entry(self, _max_len: usize) -> super::Entry {
        super::entry!(update)
    }
}

/// The slice-by-8 tables: `TABLES[k][b]` is the raw CRC of byte `b`
/// followed by `k` zero bytes, starting from a zero register.
pub static TABLES: [[u32; 256]; 8] = make_tables();

const fn make_tables() -> [[u32; 256]; 8] {
    let mut t = [[0u32; 256]; 8];
    let mut b = 0;
    while b < 256 {
        let mut crc = b as u32;
        let mut bit = 0;
        while bit < 8 {
            crc = (crc >> 1) ^ (POLY & 0u32.wrapping_sub(crc & 1));
            bit += 1;
        }
        t[0][b] = crc;
        b += 1;
    }
    let mut k = 1;
    while k < 8 {
        let mut b = 0;
        while b < 256 {
            let prev = t[k - 1][b];
            t[k][b] = (prev >> 8) ^ t[0][(prev & 0xff) as usize];
            b += 1;
        }
        k += 1;
    }
    t
}

/// Advances the raw CRC register `crc` over `data`, eight bytes per step.
pub fn update(crc: u32, data: &[u8]) -> u32 {
    let t = &TABLES;
    let mut crc = crc;
    let (words, tail) = data.as_chunks::<8>();
    for w in words {
        let lo = crc ^ u32::from_le_bytes([w[0], w[1], w[2], w[3]]);
        let hi = u32::from_le_bytes([w[4], w[5], w[6], w[7]]);
        // Two groups of four lookups, XORed separately and joined last (the
        // order of Linux lib/crc32): the `hi` group does not depend on the
        // previous register, so it issues while the `lo` chain waits.
        let from_lo = (t[7][(lo & 0xff) as usize] ^ t[6][((lo >> 8) & 0xff) as usize])
            ^ (t[5][((lo >> 16) & 0xff) as usize] ^ t[4][(lo >> 24) as usize]);
        let from_hi = (t[3][(hi & 0xff) as usize] ^ t[2][((hi >> 8) & 0xff) as usize])
            ^ (t[1][((hi >> 16) & 0xff) as usize] ^ t[0][(hi >> 24) as usize]);
        crc = from_lo ^ from_hi;
    }
    for &byte in tail {
        crc = (crc >> 8) ^ t[0][((crc ^ byte as u32) & 0xff) as usize];
    }
    crc
}

/// Advances the raw CRC register `crc` over `len` zero bytes:
/// `crc * x^(8*len) mod P`, with at most eight multiplications.
pub fn shift(crc: u32, len: u64) -> u32 {
    let e = shift_exponent(len);
    // Two independent chains (the CPU overlaps them), joined at the end.
    let mut acc = [crc, 0x8000_0000];
    let mut used = 0;
    for (k, row) in X16.iter().enumerate() {
        let d = (e >> (4 * k)) & 15;
        if d != 0 {
            acc[used & 1] = mul(acc[used & 1], row[d as usize]);
            used += 1;
        }
    }
    if used > 1 {
        mul(acc[0], acc[1])
    } else {
        acc[0]
    }
}

/// Multiplies two reflected polynomials modulo `P` (portable and fast: a
/// 4-bit windowed carry-less product, reduced with four table lookups).
pub fn mul(a: u32, b: u32) -> u32 {
    // The integer carry-less product of the reflected operands has bit m at
    // x^(62-m); one shift puts it in the 64-bit reflected order (bit m at
    // x^(63-m)).
    let p = clmul32(a, b) << 1;
    reduce64(p)
}

/// Carry-less product of two 32-bit integers.
fn clmul32(a: u32, b: u32) -> u64 {
    let b = b as u64;
    let mut window = [0u64; 16];
    for i in 1..16 {
        window[i] = (window[i >> 1] << 1) ^ (b & 0u64.wrapping_sub(i as u64 & 1));
    }
    let mut product = 0;
    for k in 0..8 {
        product ^= window[((a >> (4 * k)) & 15) as usize] << (4 * k);
    }
    product
}

/// Reduces a 64-bit reflected polynomial modulo `P`. The low half holds
/// `x^63..x^32`, i.e. `L * x^32`, which is the raw CRC of those four bytes
/// from a zero register; the high half is already reduced.
fn reduce64(p: u64) -> u32 {
    let t = &TABLES;
    let lo = p as u32;
    let from_lo = (t[3][(lo & 0xff) as usize] ^ t[2][((lo >> 8) & 0xff) as usize])
        ^ (t[1][((lo >> 16) & 0xff) as usize] ^ t[0][(lo >> 24) as usize]);
    from_lo ^ (p >> 32) as u32
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Bit-at-a-time CRC: the definition.
    fn bitwise(mut crc: u32, data: &[u8]) -> u32 {
        for &b in data {
            crc ^= b as u32;
            for _ in 0..8 {
                crc = (crc >> 1) ^ (POLY & 0u32.wrapping_sub(crc & 1));
            }
        }
        crc
    }

    #[test]
    fn check_value() {
        assert_eq!(!update(!0, b"123456789"), 0xE306_9283);
    }

    #[test]
    fn slice_by_8_matches_bitwise() {
        let data: Vec<u8> = (0..300u32).map(|i| (i * 7 + i / 3) as u8).collect();
        for len in 0..data.len() {
            for crc in [0, !0, 0x1234_5678] {
                assert_eq!(update(crc, &data[..len]), bitwise(crc, &data[..len]));
            }
        }
    }

    #[test]
    fn fast_mul_matches_const_mul() {
        let mut x = 0x9E37_79B9u32;
        for _ in 0..1000 {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            let y = x.rotate_left(11) ^ 0xA5A5_0F0F;
            assert_eq!(mul(x, y), super::super::mul(x, y));
        }
    }

    #[test]
    fn shift_is_update_over_zeros() {
        let zeros = [0u8; 600];
        for len in 0..zeros.len() {
            assert_eq!(
                shift(0xDEAD_BEEF, len as u64),
                update(0xDEAD_BEEF, &zeros[..len])
            );
        }
    }
}
