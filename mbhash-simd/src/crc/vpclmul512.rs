//! Generic CRC by AVX-512 VPCLMULQDQ folding of 64-byte vectors (four
//! 128-bit lanes each), with Barrett reduction: any spec, through its
//! [`Consts`].
//!
//! The shape of [`super::pclmul`], four lanes wide (the bytes past the
//! last whole 16-byte lane join at the end as there); the lanes are grouped into vectors from the end, so that only the first
//! vector may be short: it is loaded with zero lanes in front (leading
//! zeros do not change a CRC whose register goes in front of the first
//! data lane). Up to [`DIRECT_MAX`] vectors, each is folded onto the next
//! by the constants for 64 bytes; longer inputs run [`ACCS`] accumulators
//! 512 bytes a step, each multiplied straight onto the last vector by its
//! own lane constants (`Consts::lanes512`). The four lanes are XORed into one and reduced as in
//! `pclmul`. Inputs shorter than [`MIN_LEN`] run the `pclmul` kernel.

use super::{Consts, Entry};

/// Inputs of at most this many vectors (1 KiB) are multiplied straight
/// onto the end.
pub const DIRECT_MAX: usize = 16;

/// Accumulators of the main loop.
pub const ACCS: usize = 8;

/// How far ahead of the group being folded its lines are prefetched: three
/// groups of the main loop.
const PREFETCH: usize = 3 * 64 * ACCS;

/// Inputs from this length on prefetch (shorter ones are as likely to be in
/// L1 already, where the prefetches only take issue slots: at 4 and 16 KiB
/// in L1 they measured 3-6% slower, at 64 KiB and 1 MiB from L2 4% faster,
/// on Intel Xeon).
const PREFETCH_MIN: usize = 32 << 10;

/// Copies shorter than this are one copy and then the checksum, even on
/// [`Vpclmul512::update_copy`] (one pass needs two groups of the main loop
/// at least). Below 4 KiB the C library's copy of lines in L1 and then the
/// checksum measured faster than one pass: from C on Intel Xeon, per call,
/// one pass against the two steps, 1 KiB 31 against 21 ns, 2 KiB 43-46
/// against 40-42 ns, 4 KiB 77-80 against 80-84 ns, 8 KiB 138-143 against
/// 166-169 ns.
pub const COPY_MIN: usize = 8 * 64 * ACCS;

/// Shorter inputs run the 128-bit kernel. From one vector on this one
/// measured faster (64 bytes: one load, one fold of three lanes onto the
/// fourth, against three dependent 16-byte folds).
pub const MIN_LEN: usize = 64;

/// Proof that the CPU has AVX-512 (F, BW, VL) with VPCLMULQDQ, and
/// PCLMULQDQ.
#[cfg(target_arch = "x86_64")]
#[derive(Clone, Copy, Debug)]
pub struct Vpclmul512 {
    _private: (),
}

/// Proof that the CPU has AVX-512 VPCLMULQDQ (never, on this target).
#[cfg(not(target_arch = "x86_64"))]
#[derive(Clone, Copy, Debug)]
pub enum Vpclmul512 {}

impl Vpclmul512 {
    /// Detects the features; `None` when any is missing or hidden
    /// (`MBHASH_DISABLE=vpclmul`, `avx512` or `pclmul`).
    pub fn new() -> Option<Self> {
        #[cfg(target_arch = "x86_64")]
        {
            use crate::cpu::{Feature, available};
            if available(Feature::Vpclmul)
                && available(Feature::Avx512)
                && super::Pclmul::new().is_some()
            {
                return Some(Vpclmul512 { _private: () });
            }
        }
        None
    }

    /// Advances the normalised register `reg` over `data`.
    #[inline]
    pub fn update(self, c: &Consts, reg: u64, data: &[u8]) -> u64 {
        self.entry().update(c, reg, data)
    }

    /// Copies `src` into `dst` and advances the normalised register over
    /// the bytes, in one pass: each 64-byte vector is stored as soon as it
    /// is loaded for folding (the bytes past the last whole 512-byte group
    /// are copied, then folded, as `update` does).
    ///
    /// # Panics
    /// If `dst` and `src` differ in length.
    pub fn update_copy(self, c: &Consts, reg: u64, dst: &mut [u8], src: &[u8]) -> u64 {
        assert_eq!(dst.len(), src.len(), "update_copy: lengths differ");
        #[cfg(target_arch = "x86_64")]
        {
            // SAFETY: the token proves AVX-512 F/BW/VL, VPCLMULQDQ,
            // PCLMULQDQ, SSSE3 and SSE4.1.
            unsafe { x86::update_copy(c, reg, dst, src) }
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            let _ = (c, reg, dst, src);
            match self {}
        }
    }

    /// The kernel as an [`Entry`].
    pub fn entry(self) -> Entry {
        #[cfg(target_arch = "x86_64")]
        {
            Entry(x86::update)
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            match self {}
        }
    }

    entry_for!();
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use super::super::Consts;
    use super::super::pclmul::x86 as narrow;
    use super::{ACCS, DIRECT_MAX, MIN_LEN, PREFETCH, PREFETCH_MIN};
    use core::arch::x86_64::*;

    /// Lane by lane `H * k_H + L * k_L`, XORed with `acc`.
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,vpclmulqdq,pclmulqdq,sse4.1,ssse3")]
    fn fold(x: __m512i, k: __m512i, acc: __m512i) -> __m512i {
        _mm512_ternarylogic_epi64::<0x96>(
            _mm512_clmulepi64_epi128::<0x00>(x, k),
            _mm512_clmulepi64_epi128::<0x11>(x, k),
            acc,
        )
    }

    /// The lane constants of a vector `t` vectors before the last.
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,vpclmulqdq,pclmulqdq,sse4.1,ssse3")]
    fn lanes(c: &Consts, t: usize) -> __m512i {
        // SAFETY: `lanes512[t]` is 64 readable bytes; the load is unaligned.
        unsafe { _mm512_loadu_si512(c.lanes512[t].as_ptr().cast()) }
    }

    /// The fold constants `k` in every lane.
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,vpclmulqdq,pclmulqdq,sse4.1,ssse3")]
    fn broadcast(c: &Consts, k: usize) -> __m512i {
        _mm512_broadcast_i32x4(narrow::key(c, k))
    }

    /// Puts a vector's bytes in the kernel's lane order.
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,vpclmulqdq,pclmulqdq,sse4.1,ssse3")]
    fn order<const REFL: bool>(x: __m512i) -> __m512i {
        if REFL {
            x
        } else {
            let rev = _mm512_broadcast_i32x4(_mm_set_epi8(
                0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15,
            ));
            _mm512_shuffle_epi8(x, rev)
        }
    }

    /// Loads 64 bytes in the kernel's lane order.
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,vpclmulqdq,pclmulqdq,sse4.1,ssse3")]
    fn load<const REFL: bool>(b: &[u8; 64]) -> __m512i {
        // SAFETY: `b` is 64 readable bytes; the load is unaligned.
        order::<REFL>(unsafe { _mm512_loadu_si512(b.as_ptr().cast()) })
    }

    /// The XOR of the four lanes.
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,vpclmulqdq,pclmulqdq,sse4.1,ssse3")]
    fn collapse(z: __m512i) -> __m128i {
        let x = _mm256_xor_si256(_mm512_castsi512_si256(z), _mm512_extracti64x4_epi64::<1>(z));
        _mm_xor_si128(_mm256_castsi256_si128(x), _mm256_extracti128_si256::<1>(x))
    }

    /// Advances the normalised register over `data`.
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,vpclmulqdq,pclmulqdq,sse4.1,ssse3")]
    pub(super) fn update(c: &Consts, reg: u64, data: &[u8]) -> u64 {
        if c.reflected {
            run::<true>(c, reg, data)
        } else {
            run::<false>(c, reg, data)
        }
    }

    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,vpclmulqdq,pclmulqdq,sse4.1,ssse3")]
    pub(crate) fn run<const REFL: bool>(c: &Consts, reg: u64, data: &[u8]) -> u64 {
        debug_assert_eq!(c.reflected, REFL, "an entry of the other orientation");
        if data.len() < MIN_LEN {
            return narrow::run::<REFL>(c, reg, data);
        }
        if data.len() >= SHORT_MAX {
            return long::<REFL>(c, reg, data);
        }
        body::<REFL, false>(c, reg, data)
    }

    /// [`run`] from [`SHORT_MAX`] bytes on, out of line: its accumulators
    /// need a stack frame, which the short inputs (most calls) do not pay
    /// for.
    #[inline(never)]
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,vpclmulqdq,pclmulqdq,sse4.1,ssse3")]
    fn long<const REFL: bool>(c: &Consts, reg: u64, data: &[u8]) -> u64 {
        body::<REFL, true>(c, reg, data)
    }

    /// Inputs of fewer bytes than this (and at least [`MIN_LEN`]) have
    /// fewer than [`DIRECT_MAX`] vectors after the first: one chain.
    const SHORT_MAX: usize = 64 * DIRECT_MAX;

    /// The body of [`run`] for at least [`MIN_LEN`] bytes; with `LONG`
    /// false, for fewer than [`SHORT_MAX`] only (the accumulators left
    /// out).
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,vpclmulqdq,pclmulqdq,sse4.1,ssse3")]
    fn body<const REFL: bool, const LONG: bool>(c: &Consts, reg: u64, data: &[u8]) -> u64 {
        // Whole vectors (storage blocks are): no lanes in front, no tail.
        if data.len().is_multiple_of(64) {
            let (vectors, _) = data.as_chunks::<64>();
            // (Never empty: a fallback, not a panic, keeps the entry free
            // of a stack frame.)
            let Some((v0, vectors)) = vectors.split_first() else {
                return narrow::run::<REFL>(c, reg, data);
            };
            // The register in front of the first lane: qword 0 reflected,
            // 1 not.
            let at = usize::from(!REFL);
            let v0 = _mm512_xor_si512(
                load::<REFL>(v0),
                _mm512_maskz_set1_epi64(1 << at, reg as i64),
            );
            let z = if !LONG || vectors.len() < DIRECT_MAX {
                direct::<REFL>(c, v0, vectors)
            } else {
                folded::<REFL>(c, v0, vectors)
            };
            return narrow::reduce::<REFL>(c, collapse(z));
        }
        ragged::<REFL, LONG>(c, reg, data)
    }

    /// [`body`] for a length that is not a multiple of 64, out of line:
    /// it needs more registers than a call may use unsaved, which inlined
    /// would have every call save and restore, whole vectors too.
    #[inline(never)]
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,vpclmulqdq,pclmulqdq,sse4.1,ssse3")]
    fn ragged<const REFL: bool, const LONG: bool>(c: &Consts, reg: u64, data: &[u8]) -> u64 {
        let t = data.len() % 16;
        let rest = &data[..data.len() - t];
        // Lanes in front of the first whole vector: 0 to 3.
        let lead = (rest.len() / 16) % 4;
        let rest = &rest[16 * lead..];
        let (vectors, _) = rest.as_chunks::<64>();
        let (v0, vectors) = if lead == 0 {
            let Some((v0, vectors)) = vectors.split_first() else {
                return narrow::run::<REFL>(c, reg, data);
            };
            (load::<REFL>(v0), vectors)
        } else {
            // The first 64 bytes (there are more), moved up by the lanes in
            // front, zeros below. Not a masked load from before `first`:
            // where that memory is unmapped, AMD Zen cores take an assist
            // of about a thousand cycles to suppress the masked-out fault.
            let Some(whole) = data.first_chunk::<64>() else {
                return narrow::run::<REFL>(c, reg, data);
            };
            // SAFETY: `whole` is 64 readable bytes; the load is unaligned.
            let x = unsafe { _mm512_loadu_si512(whole.as_ptr().cast()) };
            let z = _mm512_setzero_si512();
            let raw = match lead {
                1 => _mm512_alignr_epi64::<2>(x, z),
                2 => _mm512_alignr_epi64::<4>(x, z),
                _ => _mm512_alignr_epi64::<6>(x, z),
            };
            (order::<REFL>(raw), vectors)
        };
        // The register in front of the first data lane.
        let at = 2 * ((4 - lead) % 4) + usize::from(!REFL);
        let v0 = _mm512_xor_si512(v0, _mm512_maskz_set1_epi64(1 << at, reg as i64));
        let z = if !LONG || vectors.len() < DIRECT_MAX {
            direct::<REFL>(c, v0, vectors)
        } else {
            folded::<REFL>(c, v0, vectors)
        };
        narrow::reduce::<REFL>(c, narrow::with_tail::<REFL>(c, collapse(z), data, t))
    }

    /// Stores a vector as loaded (memory order).
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,vpclmulqdq,pclmulqdq,sse4.1,ssse3")]
    fn store(d: &mut [u8; 64], x: __m512i) {
        // SAFETY: `d` is 64 writable bytes; the store is unaligned.
        unsafe { _mm512_storeu_si512(d.as_mut_ptr().cast(), x) }
    }

    /// Loads 64 bytes, stores them to `d` and returns them in the kernel's
    /// lane order.
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,vpclmulqdq,pclmulqdq,sse4.1,ssse3")]
    fn load_copy<const REFL: bool>(s: &[u8; 64], d: &mut [u8; 64]) -> __m512i {
        // SAFETY: `s` is 64 readable bytes; the load is unaligned.
        let x = unsafe { _mm512_loadu_si512(s.as_ptr().cast()) };
        // The stored value through an empty `asm!`: a loop that stores
        // what it loaded is otherwise recognised as a copy and rewritten
        // into a `memcpy` call beside a checksum-only loop (two passes,
        // and every accumulator spilled around the call).
        let mut stored = x;
        // SAFETY: the template is empty: it leaves the register as it is
        // and touches nothing else (the token proves AVX-512 F).
        unsafe {
            core::arch::asm!("/* {0} */", inout(zmm_reg) stored, options(pure, nomem, nostack, preserves_flags));
        }
        store(d, stored);
        order::<REFL>(x)
    }

    /// [`super::Vpclmul512::update_copy`] (`dst` as long as `src`).
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,vpclmulqdq,pclmulqdq,sse4.1,ssse3")]
    pub(super) fn update_copy(c: &Consts, reg: u64, dst: &mut [u8], src: &[u8]) -> u64 {
        if c.reflected {
            run_copy::<true>(c, reg, dst, src)
        } else {
            run_copy::<false>(c, reg, dst, src)
        }
    }

    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,vpclmulqdq,pclmulqdq,sse4.1,ssse3")]
    fn run_copy<const REFL: bool>(c: &Consts, reg: u64, dst: &mut [u8], src: &[u8]) -> u64 {
        const GROUP: usize = 64 * ACCS;
        let body = src.len() / GROUP * GROUP;
        if body < super::COPY_MIN {
            // The checksum from the source: not waiting on the copy's
            // stores.
            dst.copy_from_slice(src);
            return run::<REFL>(c, reg, src);
        }
        let (src_body, src_rest) = src.split_at(body);
        let (dst_body, dst_rest) = dst.split_at_mut(body);
        let (groups, _) = src_body.as_chunks::<GROUP>();
        let (out, _) = dst_body.as_chunks_mut::<GROUP>();
        let (first, groups) = groups.split_first().expect("two groups");
        let (out_first, out) = out.split_first_mut().expect("two groups");
        let (v, _) = first.as_chunks::<64>();
        let (o, _) = out_first.as_chunks_mut::<64>();
        let mut acc = [_mm512_setzero_si512(); ACCS];
        for j in 0..ACCS {
            acc[j] = load_copy::<REFL>(&v[j], &mut o[j]);
        }
        // The register in front of the first lane.
        let at = usize::from(!REFL);
        acc[0] = _mm512_xor_si512(acc[0], _mm512_maskz_set1_epi64(1 << at, reg as i64));
        let k = broadcast(c, 4 * ACCS - 1);
        for (g, d) in groups.iter().zip(out.iter_mut()) {
            let (v, _) = g.as_chunks::<64>();
            let (o, _) = d.as_chunks_mut::<64>();
            for j in 0..ACCS {
                acc[j] = fold(acc[j], k, load_copy::<REFL>(&v[j], &mut o[j]));
            }
        }
        let mut z = _mm512_setzero_si512();
        for (j, a) in acc[..ACCS - 1].iter().enumerate() {
            z = fold(*a, lanes(c, ACCS - 1 - j), z);
        }
        let z = end(c, acc[ACCS - 1], z);
        let reg = narrow::reduce::<REFL>(c, collapse(z));
        dst_rest.copy_from_slice(src_rest);
        run::<REFL>(c, reg, src_rest)
    }

    /// The last vector `last`, with every lane but its last multiplied
    /// onto that one, XORed into `z`, as four lanes whose XOR is the
    /// result.
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,vpclmulqdq,pclmulqdq,sse4.1,ssse3")]
    fn end(c: &Consts, last: __m512i, z: __m512i) -> __m512i {
        // The last lane goes in as lane 0 of the addend (the lanes are
        // XORed together next): one extract, no mask.
        let unmoved = _mm512_zextsi128_si512(_mm512_extracti32x4_epi32::<3>(last));
        fold(last, lanes(c, 0), _mm512_xor_si512(z, unmoved))
    }

    /// `v0` and `vectors` (fewer than [`DIRECT_MAX`]) folded one vector
    /// at a time onto the next by the 64-byte constants (one register),
    /// then the last vector's lanes onto its last lane. As in `pclmul`'s
    /// short path: fewer instructions and loads than each vector straight
    /// onto the end by its own constants, and faster with calls back to
    /// back. From [`PAIRED_MIN`] vectors on, two chains.
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,vpclmulqdq,pclmulqdq,sse4.1,ssse3")]
    fn direct<const REFL: bool>(c: &Consts, v0: __m512i, vectors: &[[u8; 64]]) -> __m512i {
        if vectors.len() >= PAIRED_MIN {
            return paired::<REFL>(c, v0, vectors);
        }
        // 64 bytes on: four lanes.
        let k = broadcast(c, 3);
        let mut z = v0;
        for v in vectors {
            z = fold(z, k, load::<REFL>(v));
        }
        end(c, z, _mm512_setzero_si512())
    }

    /// From this many vectors after the first (512 bytes in all), [`direct`]
    /// runs two chains: measured faster on Zen 4 from here, slower below
    /// (where one chain is short and the second costs a constant's load).
    const PAIRED_MIN: usize = 7;

    /// [`direct`] in two chains, the vectors at even and at odd positions,
    /// each vector folded onto the next of its chain by the 128-byte
    /// constants; then the even chain onto the odd one, and any last
    /// vector, by the 64-byte constants. As many folds as one chain, and
    /// half as many in a row.
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,vpclmulqdq,pclmulqdq,sse4.1,ssse3")]
    fn paired<const REFL: bool>(c: &Consts, v0: __m512i, vectors: &[[u8; 64]]) -> __m512i {
        let (v1, rest) = vectors.split_first().expect("PAIRED_MIN vectors");
        let (pairs, tail) = rest.as_chunks::<2>();
        let (mut even, mut odd) = (v0, load::<REFL>(v1));
        // 128 bytes on: eight lanes.
        let k = broadcast(c, 7);
        for [a, b] in pairs {
            even = fold(even, k, load::<REFL>(a));
            odd = fold(odd, k, load::<REFL>(b));
        }
        // 64 bytes on: four lanes. `even` is the vector before `odd`.
        let k = broadcast(c, 3);
        let mut z = fold(even, k, odd);
        if let [t] = tail {
            z = fold(z, k, load::<REFL>(t));
        }
        end(c, z, _mm512_setzero_si512())
    }

    /// At least [`DIRECT_MAX`] vectors after `v0`: [`ACCS`] accumulators.
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,vpclmulqdq,pclmulqdq,sse4.1,ssse3")]
    fn folded<const REFL: bool>(c: &Consts, v0: __m512i, vectors: &[[u8; 64]]) -> __m512i {
        let mut acc = [v0; ACCS];
        for j in 1..ACCS {
            acc[j] = load::<REFL>(&vectors[j - 1]);
        }
        let rest = &vectors[ACCS - 1..];
        let (groups, tail) = rest.as_chunks::<ACCS>();
        // 512 bytes on: 32 lanes.
        let k = broadcast(c, 4 * ACCS - 1);
        let prefetch = 64 * vectors.len() >= PREFETCH_MIN;
        for g in groups {
            // Each line of the group three groups on, into L1: the
            // hardware prefetchers alone leave about 4% on the table from
            // L2 (measured on Intel Xeon). Past the end the address is
            // only a hint: a prefetch never faults.
            if prefetch {
                for v in g {
                    _mm_prefetch::<_MM_HINT_T0>(v.as_ptr().wrapping_add(PREFETCH).cast());
                }
            }
            for j in 0..ACCS {
                acc[j] = fold(acc[j], k, load::<REFL>(&g[j]));
            }
        }
        let t = tail.len();
        let Some((last, middle)) = tail.split_last() else {
            let mut z = _mm512_setzero_si512();
            for (j, a) in acc[..ACCS - 1].iter().enumerate() {
                z = fold(*a, lanes(c, ACCS - 1 - j), z);
            }
            return end(c, acc[ACCS - 1], z);
        };
        let mut z = _mm512_setzero_si512();
        for (j, a) in acc.iter().enumerate() {
            z = fold(*a, lanes(c, ACCS - 1 - j + t), z);
        }
        for (i, v) in middle.iter().enumerate() {
            z = fold(load::<REFL>(v), lanes(c, t - 1 - i), z);
        }
        end(c, load::<REFL>(last), z)
    }
}
