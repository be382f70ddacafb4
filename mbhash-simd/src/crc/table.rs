//! Portable slice-by-16 over the normalised 64-bit register: no `unsafe`,
//! any CPU, any width. The fallback, and the tail of the folding kernels.

use super::Consts;

/// The slice-by-16 tables for `poly` (`P'` without its `x^64` term, in the
/// kernel's order: reflected when `reflected`): `t[k][b]` is the register
/// after byte `b` followed by `k` zero bytes, from zero.
pub const fn make(poly: u64, reflected: bool) -> [[u64; 256]; 16] {
    let mut t = [[0u64; 256]; 16];
    let mut b = 0;
    while b < 256 {
        let mut crc = if reflected {
            b as u64
        } else {
            (b as u64) << 56
        };
        let mut bit = 0;
        while bit < 8 {
            crc = if reflected {
                (crc >> 1) ^ (poly & 0u64.wrapping_sub(crc & 1))
            } else {
                (crc << 1) ^ (poly & 0u64.wrapping_sub(crc >> 63))
            };
            bit += 1;
        }
        t[0][b] = crc;
        b += 1;
    }
    let mut k = 1;
    while k < 16 {
        let mut b = 0;
        while b < 256 {
            let prev = t[k - 1][b];
            t[k][b] = if reflected {
                (prev >> 8) ^ t[0][(prev & 0xff) as usize]
            } else {
                (prev << 8) ^ t[0][(prev >> 56) as usize]
            };
            b += 1;
        }
        k += 1;
    }
    t
}

/// Advances the normalised raw register over `data`, 16 bytes a step.
#[inline]
pub fn update(c: &Consts, reg: u64, data: &[u8]) -> u64 {
    if c.reflected {
        update_reflected(&c.table, reg, data)
    } else {
        update_normal(&c.table, reg, data)
    }
}

/// [`update`] with the signature of an [`super::Entry`].
pub(crate) unsafe fn update_unsafe(c: &Consts, reg: u64, data: &[u8]) -> u64 {
    update(c, reg, data)
}

#[inline]
fn update_reflected(t: &[[u64; 256]; 16], mut crc: u64, data: &[u8]) -> u64 {
    let (blocks, tail) = data.as_chunks::<16>();
    for b in blocks {
        let lo = crc ^ u64::from_le_bytes(b[..8].try_into().unwrap());
        let hi = u64::from_le_bytes(b[8..].try_into().unwrap());
        let mut x = 0;
        for i in 0..8 {
            x ^= t[15 - i][((lo >> (8 * i)) & 0xff) as usize];
            x ^= t[7 - i][((hi >> (8 * i)) & 0xff) as usize];
        }
        crc = x;
    }
    for &b in tail {
        crc = (crc >> 8) ^ t[0][((crc ^ b as u64) & 0xff) as usize];
    }
    crc
}

#[inline]
fn update_normal(t: &[[u64; 256]; 16], mut crc: u64, data: &[u8]) -> u64 {
    let (blocks, tail) = data.as_chunks::<16>();
    for b in blocks {
        let hi = crc ^ u64::from_be_bytes(b[..8].try_into().unwrap());
        let lo = u64::from_be_bytes(b[8..].try_into().unwrap());
        let mut x = 0;
        for i in 0..8 {
            x ^= t[15 - i][((hi >> (56 - 8 * i)) & 0xff) as usize];
            x ^= t[7 - i][((lo >> (56 - 8 * i)) & 0xff) as usize];
        }
        crc = x;
    }
    for &b in tail {
        crc = (crc << 8) ^ t[0][((crc >> 56) ^ b as u64) as usize];
    }
    crc
}
