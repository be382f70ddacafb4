//! The VPCLMULQDQ CRC32C kernels on inputs that start in the first 64
//! bytes of a page whose page in front is not readable: right at every
//! length. (A masked load reaching into the page in front, fault-suppressed,
//! made AMD Zen 5 take a fault assist of about 1500 cycles at each call,
//! 280-340 ns against 6-15 ns; there the kernels load the first vector from
//! the input's own address and move its bytes up in the register. Its cost
//! is measured by the benchmarks, not asserted here.)

mod common;

use common::token_or_skip;
use mbhash_simd::cpu::{self, Feature};
use mbhash_simd::crc32c::{self, Kernel, Vpclmul, VpclmulFold};

/// Two pages, the first `PROT_NONE`; unmapped when dropped.
struct Guarded {
    base: *mut u8,
    page: usize,
}

impl Guarded {
    fn new() -> Guarded {
        // SAFETY: sysconf has no preconditions.
        let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) } as usize;
        // SAFETY: an anonymous private mapping of two pages, checked below.
        let base = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                2 * page,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                -1,
                0,
            )
        };
        assert_ne!(base, libc::MAP_FAILED, "mmap");
        // SAFETY: the first page of the mapping just made.
        assert_eq!(unsafe { libc::mprotect(base, page, libc::PROT_NONE) }, 0);
        Guarded {
            base: base.cast(),
            page,
        }
    }

    /// The second (readable) page.
    fn data(&mut self) -> &mut [u8] {
        // SAFETY: the second page of the mapping is readable and writable,
        // owned by `self` and borrowed mutably here.
        unsafe { std::slice::from_raw_parts_mut(self.base.add(self.page), self.page) }
    }
}

impl Drop for Guarded {
    fn drop(&mut self) {
        // SAFETY: the mapping made in `new`, unmapped once.
        unsafe { libc::munmap(self.base.cast(), 2 * self.page) };
    }
}

fn check<K: Kernel>(k: K, name: &str) {
    let mut g = Guarded::new();
    let page = g.data();
    for (i, b) in page.iter_mut().enumerate() {
        *b = (i as u32).wrapping_mul(2_654_435_761) as u8;
    }
    let page: &[u8] = page;
    // At the start of the page, and a few bytes into it (where the first
    // vector's zeros in front would still reach into the page before).
    for start in [0, 1, 2, 15, 16, 33, 63] {
        for len in 0..=1100 {
            let data = &page[start..start + len];
            assert_eq!(
                k.update(!0, data),
                crc32c::table::update(!0, data),
                "{name}: length {len}, {start} bytes into a page"
            );
        }
    }
}

/// The first of these features this CPU lacks (else the first).
fn missing(needs: &[Feature]) -> Feature {
    needs
        .iter()
        .copied()
        .find(|&f| !cpu::available(f))
        .unwrap_or(needs[0])
}

const NEEDS: [Feature; 4] = [
    Feature::Vpclmul,
    Feature::Avx512,
    Feature::Sse42,
    Feature::Pclmul,
];

#[test]
fn vpclmul_at_page_start() {
    if let Some(k) = token_or_skip(missing(&NEEDS), "crc32c vpclmul", Vpclmul::new()) {
        check(k, "crc32c vpclmul");
    }
}

#[test]
fn vpclmul_fold_at_page_start() {
    if let Some(k) = token_or_skip(missing(&NEEDS), "crc32c vpclmul-fold", VpclmulFold::new()) {
        check(k, "crc32c vpclmul-fold");
    }
}
