//! Generic CRC kernels: any width from 1 to 64 bits, any polynomial,
//! reflected or not, from one set of constants ([`Consts`]) derived from
//! the parameters by `const fn`.
//!
//! # One register for every width
//!
//! A CRC of width `w` over the polynomial `P` (degree `w`) is computed as a
//! CRC of width 64 over `P' = P * x^(64 - w)`: for a message `M`,
//! `M * x^64 mod P' = x^(64 - w) * (M * x^w mod P)`. So the kernels keep one
//! *normalised* 64-bit register:
//!
//! * not reflected: the `w`-bit register left-aligned, `reg << (64 - w)`
//!   (its low `64 - w` bits stay zero);
//! * reflected: the `w`-bit reflected register as it is, in the low `w`
//!   bits (the high bits stay zero).
//!
//! and every kernel, the table one and the folding ones, does degree-64
//! arithmetic modulo `P'`, whatever `w` is: one code for every width.
//!
//! # The contract
//!
//! Every kernel's `update(consts, reg, data)` advances the normalised raw
//! register over `data`: no initial value, no final XOR, no reflection of
//! the output (that is the spec's business, in `mbhash-core`). Any length,
//! any alignment; no kernel reads outside `data`.
//!
//! Kernels: [`table`] (slice-by-16, portable, no `unsafe`: the oracle and
//! the fallback), and the folding kernels reachable only through their
//! proof tokens.
//!
//! # Polynomial arithmetic
//!
//! In the normal (not reflected) order a `u64` is a polynomial of degree
//! below 64, bit `i` the coefficient of `x^i`. [`Consts::new`] computes
//! every constant in that order with [`mulmod`] and [`xpow`] and reflects
//! the ones a reflected kernel needs.

/// A folding token's `entry_for`: its module's `x86::run` for one
/// orientation as an [`Entry`] (written once for the three tokens).
macro_rules! entry_for {
    () => {
        /// The kernel for constants of one orientation as an [`Entry`]: no
        /// test of the constants' reflection per call. Only for constants
        /// with `reflected() == reflected` (others give a wrong CRC).
        pub fn entry_for(self, reflected: bool) -> Entry {
            #[cfg(target_arch = "x86_64")]
            {
                if reflected {
                    Entry(x86::run::<true>)
                } else {
                    Entry(x86::run::<false>)
                }
            }
            #[cfg(not(target_arch = "x86_64"))]
            {
                let _ = reflected;
                match self {}
            }
        }
    };
}

pub mod pclmul;
pub mod table;
pub mod vpclmul256;
pub mod vpclmul512;

pub use pclmul::Pclmul;
pub use vpclmul256::Vpclmul256;
pub use vpclmul512::Vpclmul512;

/// Distances (in 16-byte steps) of the folding constants kept in
/// [`Consts::fold`]: `fold[k]` moves a 128-bit lane `16 * (k + 1)` bytes on.
pub const FOLDS: usize = 64;

/// Everything the kernels need for one (width, polynomial, reflection):
/// the slice-by-16 tables and the folding and Barrett constants. Built by
/// [`Consts::new`], a `const fn`, so a named CRC's constants are a
/// `static` made at compile time. The fields are private: every `Consts`
/// is made by `new`, so the kernels' constants always agree with each
/// other (the accessors show them, for tests).
#[derive(Clone, Debug)]
#[repr(C, align(64))]
pub struct Consts {
    /// `table[k][b]`: the normalised register after byte `b` followed by
    /// `k` zero bytes, from a zero register.
    pub(crate) table: [[u64; 256]; 16],
    /// `fold[k]`: the two 64-bit constants that move a 128-bit lane
    /// `16 * (k + 1)` bytes on, in the qword order of the lane as the
    /// kernels load it (the constant for the lane's low qword first).
    pub(crate) fold: [[u64; 2]; FOLDS],
    /// `lanes512[t]`: for a 64-byte vector `t` vectors before the last
    /// one, lane `l`'s fold constants (moving it `64 t + 16 (3 - l)` bytes
    /// on) in qwords `2l, 2l + 1`; zero for the last lane of the last
    /// vector, which stays as it is.
    pub(crate) lanes512: [[u64; 8]; 16],
    /// `lanes256[t]`: the same for 32-byte vectors (`32 t + 16 (1 - l)`).
    pub(crate) lanes256: [[u64; 4]; 32],
    /// The constant that multiplies the high-degree half of the last
    /// 128-bit lane onto its low half: `x^128 mod P'` (reflected:
    /// `x^127`, reflected).
    pub(crate) k128: u64,
    /// Barrett: `floor(x^128 / P')` without its `x^64` term.
    pub(crate) mu: u64,
    /// `P'` without its `x^64` term (reflected when the CRC is).
    pub(crate) poly: u64,
    /// Barrett for a reflected CRC, whose carry-less products carry one
    /// factor `x` too many: `floor(x^127 / P')` and `floor(P' / x)`, both
    /// of degree 63, reflected (zero for a CRC that is not reflected).
    pub(crate) barrett_refl: [u64; 2],
    /// `P' mod x` (the `x^0` term, which `floor(P' / x)` leaves out) as a
    /// mask on the high qword: all ones when set (width 64), else zero.
    pub(crate) unit_refl: [u64; 2],
    /// `x2n[k] = x^(8 * 2^k) mod P'` (normal order): the powers of `shift`.
    pub(crate) x2n: [u64; 64],
    /// The width `w` in bits (1 to 64).
    pub(crate) width: u8,
    /// True for a reflected CRC (least significant bit first).
    pub(crate) reflected: bool,
}

/// `a * b mod P'` for polynomials of degree below 64 in the normal order,
/// `p` being `P'` without its `x^64` term. Bit-serial: for constants.
pub const fn mulmod(a: u64, b: u64, p: u64) -> u64 {
    let mut r = 0u64;
    let mut i = 64;
    while i > 0 {
        i -= 1;
        let carry = r >> 63;
        r = (r << 1) ^ (p & 0u64.wrapping_sub(carry));
        if (a >> i) & 1 == 1 {
            r ^= b;
        }
    }
    r
}

/// `x^n mod P'` (normal order), by square-and-multiply.
pub const fn xpow(n: u64, p: u64) -> u64 {
    let mut result = 1u64;
    let mut base = 2u64; // x
    let mut e = n;
    while e > 0 {
        if e & 1 == 1 {
            result = mulmod(result, base, p);
        }
        base = mulmod(base, base, p);
        e >>= 1;
    }
    result
}

/// `floor(x^128 / P')` without its `x^64` term (normal order).
pub const fn barrett_mu(p: u64) -> u64 {
    // x^128 - x^64 * P' = x^64 * p: the remainder after the quotient's
    // leading term; then one quotient bit per degree from 63 down.
    let mut rem = (p as u128) << 64;
    let mut q = 0u64;
    let mut i = 64;
    while i > 0 {
        i -= 1;
        if (rem >> (64 + i)) & 1 == 1 {
            q |= 1 << i;
            rem ^= (1u128 << (64 + i)) ^ ((p as u128) << i);
        }
    }
    q
}

/// `P' = P * x^(64 - width)` without its `x^64` term, normal order, from
/// the catalogue's polynomial (normal order, without its `x^width` term).
pub const fn normalised_poly(width: u8, poly: u64) -> u64 {
    poly << (64 - width as u32)
}

impl Consts {
    /// The constants of the CRC of `width` bits (1 to 64) over `poly` (as
    /// the CRC catalogue writes it: normal order, without the `x^width`
    /// term), reflected or not. `poly` must fit in `width` bits (the spec's
    /// validation in `mbhash-core` guarantees it); bits above are ignored.
    pub const fn new(width: u8, poly: u64, reflected: bool) -> Consts {
        assert!(width >= 1 && width <= 64, "CRC width must be 1..=64");
        let poly = if width == 64 {
            poly
        } else {
            poly & ((1u64 << width) - 1)
        };
        let p = normalised_poly(width, poly);
        let mut fold = [[0u64; 2]; FOLDS];
        let mut k = 0;
        while k < FOLDS {
            let d = 16 * (k as u64 + 1);
            fold[k] = if reflected {
                // Lane = H (low qword) * x^64 + L (high qword), reflected;
                // a reflected carry-less product carries one factor x too
                // few, so the exponents are one lower.
                [
                    xpow(8 * d + 63, p).reverse_bits(),
                    xpow(8 * d - 1, p).reverse_bits(),
                ]
            } else {
                // Lane = H (high qword) * x^64 + L (low qword).
                [xpow(8 * d, p), xpow(8 * d + 64, p)]
            };
            k += 1;
        }
        let mut lanes512 = [[0u64; 8]; 16];
        let mut t = 0;
        while t < 16 {
            let mut l = 0;
            while l < 4 {
                let d = 4 * t + 3 - l; // in lanes
                if d > 0 {
                    lanes512[t][2 * l] = fold[d - 1][0];
                    lanes512[t][2 * l + 1] = fold[d - 1][1];
                }
                l += 1;
            }
            t += 1;
        }
        let mut lanes256 = [[0u64; 4]; 32];
        let mut t = 0;
        while t < 32 {
            let mut l = 0;
            while l < 2 {
                let d = 2 * t + 1 - l;
                if d > 0 {
                    lanes256[t][2 * l] = fold[d - 1][0];
                    lanes256[t][2 * l + 1] = fold[d - 1][1];
                }
                l += 1;
            }
            t += 1;
        }
        let (k128, mu, poly_c) = if reflected {
            (
                xpow(127, p).reverse_bits(),
                barrett_mu(p).reverse_bits(),
                p.reverse_bits(),
            )
        } else {
            (xpow(128, p), barrett_mu(p), p)
        };
        let (barrett_refl, unit_refl) = if reflected {
            // floor(x^127 / P') = floor(floor(x^128 / P') / x).
            let mu127 = (1 << 63) | (barrett_mu(p) >> 1);
            let poly_div_x = (1 << 63) | (p >> 1);
            (
                [mu127.reverse_bits(), poly_div_x.reverse_bits()],
                [0, 0u64.wrapping_sub(p & 1)],
            )
        } else {
            ([0; 2], [0; 2])
        };
        let mut x2n = [0u64; 64];
        x2n[0] = 1 << 8; // x^8
        let mut k = 1;
        while k < 64 {
            x2n[k] = mulmod(x2n[k - 1], x2n[k - 1], p);
            k += 1;
        }
        Consts {
            table: table::make(poly_c, reflected),
            x2n,
            fold,
            lanes512,
            lanes256,
            k128,
            mu,
            poly: poly_c,
            barrett_refl,
            unit_refl,
            width,
            reflected,
        }
    }

    /// The width in bits.
    #[inline]
    pub const fn width(&self) -> u8 {
        self.width
    }

    /// True for a reflected CRC.
    #[inline]
    pub const fn reflected(&self) -> bool {
        self.reflected
    }

    /// The fold constants for `16 * (k + 1)` bytes, `k < FOLDS` (see the
    /// field's documentation).
    pub const fn fold(&self, k: usize) -> [u64; 2] {
        self.fold[k]
    }

    /// `x^128 mod P'` (reflected: `x^127`, reflected).
    pub const fn k128(&self) -> u64 {
        self.k128
    }

    /// Barrett's `floor(x^128 / P')` without its `x^64` term.
    pub const fn mu(&self) -> u64 {
        self.mu
    }

    /// `P'` without its `x^64` term, in the kernel's order.
    pub const fn poly(&self) -> u64 {
        self.poly
    }

    /// A reflected CRC's Barrett constants: `floor(x^127 / P')` and
    /// `floor(P' / x)`, reflected, and the mask of `P' mod x` (see the
    /// fields' documentation); zeros for a CRC that is not reflected.
    pub const fn barrett_refl(&self) -> ([u64; 2], u64) {
        (self.barrett_refl, self.unit_refl[1])
    }

    /// `x^(8 * 2^k) mod P'`, normal order.
    pub const fn x2n(&self, k: usize) -> u64 {
        self.x2n[k]
    }

    /// The normalised register of a `width`-bit register `reg` (see the
    /// module documentation).
    #[inline]
    pub const fn to_normalised(&self, reg: u64) -> u64 {
        if self.reflected {
            reg
        } else {
            reg << (64 - self.width as u32)
        }
    }

    /// Advances the normalised register over `len` zero bytes without
    /// reading them: `reg * x^(8 len) mod P'`, at most 64 multiplications
    /// over [`Consts::x2n`] (bit-serial, portable).
    pub const fn shift(&self, reg: u64, len: u64) -> u64 {
        let p = normalised_poly(self.width, self.poly_normal());
        // In the normal order.
        let mut r = if self.reflected {
            reg.reverse_bits()
        } else {
            reg
        };
        let mut k = 0;
        while k < 64 {
            if (len >> k) & 1 == 1 {
                r = mulmod(r, self.x2n[k], p);
            }
            k += 1;
        }
        if self.reflected { r.reverse_bits() } else { r }
    }

    /// The catalogue's polynomial (normal order, `width` bits).
    pub const fn poly_normal(&self) -> u64 {
        let p = if self.reflected {
            self.poly.reverse_bits()
        } else {
            self.poly
        };
        p >> (64 - self.width as u32)
    }

    /// The `width`-bit register of a normalised one.
    #[inline]
    pub const fn from_normalised(&self, reg: u64) -> u64 {
        if self.reflected {
            reg
        } else {
            reg >> (64 - self.width as u32)
        }
    }
}

/// A kernel's `update` as a plain function pointer, for callers that keep
/// one per size class. Made only by a kernel token (or for the table
/// kernel, which needs no CPU feature), so holding one proves the CPU
/// features its function needs, as the token does.
#[derive(Clone, Copy)]
pub struct Entry(unsafe fn(&Consts, u64, &[u8]) -> u64);

impl Entry {
    /// The table kernel's entry.
    pub const TABLE: Entry = Entry(table::update_unsafe);

    /// Advances the normalised raw register `reg` over `data`.
    #[inline(always)]
    pub fn update(self, consts: &Consts, reg: u64, data: &[u8]) -> u64 {
        // SAFETY: an `Entry` is made only by a token's `entry`, whose
        // detection proved the features the function needs, or is the
        // table kernel's, which needs none.
        unsafe { (self.0)(consts, reg, data) }
    }
}

impl core::fmt::Debug for Entry {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("Entry")
    }
}
