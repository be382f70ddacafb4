//! CRC32C (Castagnoli) kernels.
//!
//! The contract, shared by every kernel in this module ([`Kernel`]):
//!
//! * the polynomial is Castagnoli's, `0x1EDC6F41`, processed bit-reflected
//!   ([`POLY`] = `0x82F63B78`), as in iSCSI (RFC 3720), SCTP, ext4 and Btrfs;
//! * `update(crc, data)` advances the *raw* CRC register over `data`: no
//!   initial value and no final inversion. The finished CRC of a message is
//!   `!k.update(!0, data)`;
//! * `shift(crc, len)` advances the raw register over `len` zero bytes without
//!   reading them (multiplication by `x^(8*len)` modulo the polynomial), the
//!   building block of CRC combination;
//! * any length, any alignment; kernels never read outside `data`.
//!
//! Kernels: [`Table`] (portable slice-by-8, always available), [`Sse42`]
//! (the `crc32` instruction on six interleaved streams, recombined with
//! PCLMULQDQ), [`Vpclmul`] (AVX-512 VPCLMULQDQ folding, fused with `crc32`
//! streams from 800 bytes on; one `crc32` chain below 160 bytes),
//! [`VpclmulFold`] (AVX-512 VPCLMULQDQ folding alone, eight accumulators).
//! The SIMD kernels are reachable only through their proof tokens.
//!
//! ```
//! use mbhash_simd::crc32c::{Kernel, Sse42, Table};
//! let check = !Table.update(!0, b"123456789");
//! assert_eq!(check, 0xE306_9283);
//! if let Some(k) = Sse42::new() {
//!     assert_eq!(!k.update(!0, b"123456789"), check);
//! }
//! ```
//!
//! # Polynomial arithmetic
//!
//! A `u32` here is a polynomial of degree below 32 in the *reflected* order:
//! bit `i` is the coefficient of `x^(31-i)`, so `0x8000_0000` is `1` and
//! [`POLY`] is `x^32 mod P` written that way. The raw register after a
//! message `M` of `n` bytes starting from `c` is `c*x^(8n) + M*x^32 mod P`.
//!
//! `P = (x + 1) * q(x)` with `q` irreducible of degree 31, so the powers of
//! `x` modulo `P` repeat with period `2^31 - 1` (a prime): `x^(2^31) = x`.
//! [`xpow`] uses that to reduce any exponent below `2^31` before a
//! square-and-multiply over the table [`X2N`] of `x^(2^k) mod P`; the
//! kernels' `shift` does the same at run time with 4-bit windows ([`X16`]),
//! at most eight multiplications. All kernel constants are computed from
//! these `const fn`s at compile time.

/// Runs six `crc32` streams of equal length over `[&[[u8; 8]]; 6]`,
/// updating the registers `[u64; 6]` (a macro so that it inlines into each
/// kernel entry with that entry's target features).
#[cfg(target_arch = "x86_64")]
macro_rules! streams {
    ($c:expr, $s:expr) => {{
        let [s0, s1, s2, s3, s4, s5]: [&[[u8; 8]]; 6] = $s;
        let n = s0.len();
        let (s1, s2, s3, s4, s5) = (&s1[..n], &s2[..n], &s3[..n], &s4[..n], &s5[..n]);
        let [mut c0, mut c1, mut c2, mut c3, mut c4, mut c5]: [u64; 6] = $c;
        for i in 0..n {
            c0 = _mm_crc32_u64(c0, u64::from_le_bytes(s0[i]));
            c1 = _mm_crc32_u64(c1, u64::from_le_bytes(s1[i]));
            c2 = _mm_crc32_u64(c2, u64::from_le_bytes(s2[i]));
            c3 = _mm_crc32_u64(c3, u64::from_le_bytes(s3[i]));
            c4 = _mm_crc32_u64(c4, u64::from_le_bytes(s4[i]));
            c5 = _mm_crc32_u64(c5, u64::from_le_bytes(s5[i]));
        }
        $c = [c0, c1, c2, c3, c4, c5];
    }};
}
#[cfg(target_arch = "x86_64")]
pub(crate) use streams;

pub mod sse42;
pub mod table;
pub mod vpclmul;
pub mod vpclmul_fold;

pub use sse42::Sse42;
pub use table::Table;
pub use vpclmul::Vpclmul;
pub use vpclmul_fold::VpclmulFold;

/// The Castagnoli polynomial, bit-reflected (`0x1EDC6F41` reversed; the
/// `x^32` term is implicit).
pub const POLY: u32 = 0x82F6_3B78;

/// The period of `x` modulo the polynomial: `x^ORDER mod P = 1`.
pub const ORDER: u64 = (1 << 31) - 1;

/// A CRC32C kernel.
///
/// Implemented by every token type; all kernels give identical results.
pub trait Kernel: Copy {
    /// Advances the raw CRC register `crc` over `data`.
    fn update(self, crc: u32, data: &[u8]) -> u32;

    /// Advances the raw CRC register `crc` over `len` zero bytes, i.e.
    /// returns `crc * x^(8*len) mod P`, in O(log len) time.
    fn shift(self, crc: u32, len: u64) -> u32;

    /// [`Kernel::update`] as a function pointer, for inputs of at most
    /// `max_len` bytes (a kernel may return a narrower entry for short
    /// inputs): for callers that keep one per size class and make one
    /// indirect call, with no dispatch of their own.
    fn entry(self, max_len: usize) -> Entry;
}

/// A kernel's `update` as a plain function pointer (see
/// [`Kernel::entry`]). Made only by a kernel token, so holding one proves
/// the CPU features its function needs, as the token does.
///
/// The function has the C calling convention, which cannot unwind: a call
/// of one needs no landing pad, so that a C entry point (which aborts on
/// an unwinding panic) can end in a jump to it rather than a call, with no
/// stack frame of its own. A panic in a kernel, a bug (none panics on any
/// input), aborts the process.
#[derive(Clone, Copy)]
pub struct Entry(unsafe extern "C" fn(u32, *const u8, usize) -> u32);

/// The [`Entry`] of a kernel function `fn(u32, &[u8]) -> u32`: a shim
/// with the C calling convention and the function's target features (so
/// that the function inlines into it), made in the module that has the
/// token.
macro_rules! entry {
    ($(#[$feature:meta])* $f:path) => {{
        $(#[$feature])*
        unsafe extern "C" fn entry(crc: u32, ptr: *const u8, len: usize) -> u32 {
            // SAFETY: called only by `Entry::update`, with the pointer and
            // length of a slice.
            let data = unsafe { core::slice::from_raw_parts(ptr, len) };
            $f(crc, data)
        }
        $crate::crc32c::Entry(entry)
    }};
}
pub(crate) use entry;

impl Entry {
    /// Advances the raw CRC register `crc` over `data`.
    #[inline(always)]
    pub fn update(self, crc: u32, data: &[u8]) -> u32 {
        // SAFETY: an `Entry` is made only by `Kernel::entry` of a token,
        // whose detection proved the features the function needs (or from
        // a function that needs none), and `data` is a slice.
        unsafe { (self.0)(crc, data.as_ptr(), data.len()) }
    }
}

impl core::fmt::Debug for Entry {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("Entry")
    }
}

/// Multiplies two polynomials modulo `P`, both in the reflected order.
///
/// Bit-serial and slow (about a hundred cycles): meant for compile-time
/// constants. [`table::mul`] is the fast portable version.
pub const fn mul(a: u32, b: u32) -> u32 {
    let mut b = b;
    let mut product = 0;
    let mut i = 0;
    while i < 32 {
        // Bit 31 - i of `a` is the coefficient of x^i; b holds B * x^i.
        let take = 0u32.wrapping_sub((a >> (31 - i)) & 1);
        product ^= b & take;
        b = (b >> 1) ^ (POLY & 0u32.wrapping_sub(b & 1));
        i += 1;
    }
    product
}

/// `x^(2^k) mod P` for `k` in `0..31` (and `x^(2^31) = x` again).
pub static X2N: [u32; 31] = X2N_CONST;

// The same table as a `const`, for the `const fn`s below.
const X2N_CONST: [u32; 31] = x2n_table();

const fn x2n_table() -> [u32; 31] {
    let mut t = [0u32; 31];
    t[0] = 0x4000_0000; // x
    let mut k = 1;
    while k < 31 {
        t[k] = mul(t[k - 1], t[k - 1]);
        k += 1;
    }
    t
}

/// `x^(d * 16^k) mod P` for the hexadecimal digits `d` of an exponent
/// below `2^32` (`k` in `0..8`), each entry times `x^bias`: the 4-bit
/// windows of the square-and-multiply over [`X2N`], so that any power of
/// `x` takes at most eight multiplications. With `bias = 0` it is
/// [`X16`]; kernels whose multiplication carries an extra factor use a bias
/// that cancels it.
pub const fn x16_table(bias: u64) -> [[u32; 16]; 8] {
    let mut t = [[0u32; 16]; 8];
    let scale = xpow(bias);
    let mut k = 0;
    while k < 8 {
        let base = X2N_CONST[4 * k]; // x^(16^k)
        t[k][0] = scale;
        let mut d = 1;
        while d < 16 {
            t[k][d] = mul(t[k][d - 1], base);
            d += 1;
        }
        k += 1;
    }
    t
}

/// `X16[k][d] = x^(d * 16^k) mod P` (see [`x16_table`]).
pub static X16: [[u32; 16]; 8] = x16_table(0);

/// Reduces the exponent of `x^(8*len)` modulo [`ORDER`]: the result `e`
/// satisfies `x^e = x^(8*len) mod P` and `e < 2^31`.
pub const fn shift_exponent(len: u64) -> u32 {
    // 8*len as u128 cannot overflow; fold the Mersenne modulus.
    let e = (len as u128) * 8;
    (e % ORDER as u128) as u32
}

/// `x^n mod P`, computed with [`mul`] (use at compile time).
pub const fn xpow(n: u64) -> u32 {
    let mut e = n % ORDER;
    let mut result = 0x8000_0000; // 1
    let mut k = 0;
    while e != 0 {
        if e & 1 != 0 {
            result = mul(result, X2N_CONST[k]);
        }
        e >>= 1;
        k += 1;
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn period_is_two_to_the_31_minus_1() {
        // x^(2^31) = x: squaring the last table entry gives the first again.
        assert_eq!(mul(X2N[30], X2N[30]), X2N[0]);
        // 2^31 - 1 is prime, so the order of x is exactly that (x is not 1).
        assert_ne!(X2N[0], 0x8000_0000);
        assert_eq!(xpow(ORDER), 0x8000_0000);
    }

    #[test]
    fn x16_is_powers() {
        for (k, row) in X16.iter().enumerate() {
            for (d, &v) in row.iter().enumerate() {
                assert_eq!(v, xpow(d as u64 * 16u64.pow(k as u32)), "k {k} d {d}");
            }
        }
    }

    #[test]
    fn xpow_small_powers() {
        // x^0..x^31 are single bits; x^32 is the polynomial itself.
        for n in 0..32 {
            assert_eq!(xpow(n), 0x8000_0000 >> n);
        }
        assert_eq!(xpow(32), POLY);
        assert_eq!(xpow(33), mul(POLY, 0x4000_0000));
    }

    #[test]
    fn shift_exponent_reduces() {
        assert_eq!(shift_exponent(0), 0);
        assert_eq!(shift_exponent(1), 8);
        assert_eq!(xpow(shift_exponent(u64::MAX) as u64), {
            // x^(8 * (2^64 - 1)) by repeated squaring of x^8 over 64 bits.
            let mut acc = 0x8000_0000u32;
            let mut base = xpow(8);
            for _ in 0..64 {
                acc = mul(acc, base);
                base = mul(base, base);
            }
            acc
        });
    }
}
