//! The generic CRC API (`mbhash_core::crc`) on every engine the CPU has:
//! named variants and user specs against a bit-by-bit reference written
//! here, the `crc` crate and `crc-fast`; streaming, `combine`, `shift`,
//! spec validation and engine selection.

mod common;

use common::Rng;
use mbhash_core::crc::{
    self, CRC16_T10_DIF, CRC32_ISCSI, CRC64_NVME, Crc, CrcEngine, CrcSpec, EngineErrorKind,
    SpecError, Variant,
};
use std::hash::Hasher;
use std::io::Write;

/// The CRC of `data` bit by bit from the Rocksoft model (independent of the
/// crate's tables and constants).
fn reference(s: &CrcSpec, data: &[u8]) -> u64 {
    let w = s.width as u32;
    let mask = if w == 64 { u64::MAX } else { (1 << w) - 1 };
    let mut r = s.init;
    for &byte in data {
        let byte = if s.refin { byte.reverse_bits() } else { byte };
        for bit in (0..8).rev() {
            let feedback = ((r >> (w - 1)) & 1) ^ u64::from((byte >> bit) & 1);
            r = (r << 1) & mask;
            if feedback == 1 {
                r ^= s.poly;
            }
        }
    }
    if s.refout {
        r = r.reverse_bits() >> (64 - w);
    }
    r ^ s.xorout
}

/// The engines this CPU runs, a visible skip for the others.
fn engines() -> Vec<CrcEngine> {
    CrcEngine::ALL
        .into_iter()
        .filter(|e| {
            let ok = e.is_supported();
            if !ok {
                use mbhash_simd::cpu::{Feature, unavailable_reason};
                let feature = match e {
                    CrcEngine::Pclmul => Feature::Pclmul,
                    CrcEngine::Vpclmul256 => Feature::Vpclmul256,
                    _ => Feature::Vpclmul,
                };
                mbhash_test_support::token_or_skip::<()>(
                    feature.name(),
                    unavailable_reason(feature),
                    &format!("crc engine {e}"),
                    None,
                );
            }
            ok
        })
        .collect()
}

/// The `crc` crate's algorithm for a spec.
fn crc_crate(s: &CrcSpec) -> ::crc::Crc<u64> {
    let alg: &'static ::crc::Algorithm<u64> = Box::leak(Box::new(::crc::Algorithm {
        width: s.width,
        poly: s.poly,
        init: s.init,
        refin: s.refin,
        refout: s.refout,
        xorout: s.xorout,
        check: s.check,
        residue: 0,
    }));
    ::crc::Crc::<u64>::new(alg)
}

/// `crc-fast`'s computation of a spec (widths 16, 32, 64 with
/// `refin == refout`; named variants through its own enum).
/// A CRC function of the data.
type CrcFn = Box<dyn Fn(&[u8]) -> u64>;

fn crc_fast(s: &CrcSpec) -> Option<CrcFn> {
    use crc_fast::CrcAlgorithm as A;
    let named = match Variant::of(s) {
        Some(Variant::Crc32IsoHdlc) => Some(A::Crc32IsoHdlc),
        Some(Variant::Crc32Bzip2) => Some(A::Crc32Bzip2),
        Some(Variant::Crc32Cksum) => Some(A::Crc32Cksum),
        Some(Variant::Crc32Iscsi) => Some(A::Crc32Iscsi),
        Some(Variant::Crc64Nvme) => Some(A::Crc64Nvme),
        Some(Variant::Crc64Xz) => Some(A::Crc64Xz),
        Some(Variant::Crc64Ecma182) => Some(A::Crc64Ecma182),
        Some(Variant::Crc64We) => Some(A::Crc64We),
        Some(Variant::Crc64GoIso) => Some(A::Crc64GoIso),
        Some(Variant::Crc64Redis) => Some(A::Crc64Redis),
        Some(Variant::Crc16T10Dif) => Some(A::Crc16T10Dif),
        _ => None,
    };
    if let Some(a) = named {
        return Some(Box::new(move |d| crc_fast::checksum(a, d)));
    }
    if ![16, 32, 64].contains(&s.width) || s.refin != s.refout {
        return None;
    }
    let p = crc_fast::CrcParams::new(s.name, s.width, s.poly, s.init, s.refin, s.xorout, s.check);
    Some(Box::new(move |d| crc_fast::checksum_with_params(p, d)))
}

/// Specs not named here, from the CRC catalogue.
fn user_specs() -> Vec<CrcSpec> {
    let mk = |name, w, poly, init, refin, refout, xorout, check| {
        CrcSpec::new(name, w, poly, init, refin, refout, xorout, check).expect(name)
    };
    vec![
        mk(
            "CRC-32/MPEG-2",
            32,
            0x04C1_1DB7,
            0xFFFF_FFFF,
            false,
            false,
            0,
            0x0376_E6E7,
        ),
        mk("CRC-16/ARC", 16, 0x8005, 0, true, true, 0, 0xBB3D),
        mk("CRC-8/SMBUS", 8, 0x07, 0, false, false, 0, 0xF4),
        mk(
            "CRC-64/MS",
            64,
            0x259C_84CB_A642_6349,
            u64::MAX,
            true,
            true,
            0,
            0x75D4_B74F_024E_CEEA,
        ),
        mk("CRC-12/UMTS", 12, 0x80F, 0, false, true, 0, 0xDAF),
        mk("CRC-5/USB", 5, 0x05, 0x1F, true, true, 0x1F, 0x19),
        mk(
            "CRC-40/GSM",
            40,
            0x00_0482_0009,
            0,
            false,
            false,
            0xFF_FFFF_FFFF,
            0xD4_164F_C646,
        ),
    ]
}

fn all_specs() -> Vec<CrcSpec> {
    Variant::ALL
        .iter()
        .map(|v| *v.spec())
        .chain(user_specs())
        .collect()
}

#[test]
fn check_values_of_every_named_variant() {
    let catalogue: &[(&str, u64)] = &[
        ("crc32", 0xCBF4_3926),
        ("crc32-bzip2", 0xFC89_1918),
        ("crc32-cksum", 0x765E_7680),
        ("crc32c", 0xE306_9283),
        ("crc64-nvme", 0xAE8B_1486_0A79_9888),
        ("crc64-xz", 0x995D_C9BB_DF19_39FA),
        ("crc64-ecma-182", 0x6C40_DF5F_0B49_7347),
        ("crc64-go-iso", 0xB909_56C7_75A4_1001),
        ("crc64-redis", 0xE9C6_D914_C4B8_D9CA),
        ("crc16-t10dif", 0xD0DB),
        ("crc64-we", 0x62EC_59E3_F1A4_F00A),
    ];
    for &(name, check) in catalogue {
        let v = Variant::from_name(name).expect(name);
        assert_eq!(v.spec().check, check, "{name}");
    }
    for v in Variant::ALL {
        let s = v.spec();
        assert_eq!(reference(s, b"123456789"), s.check, "{}", s.name);
        assert_eq!(crc_crate(s).checksum(b"123456789"), s.check, "{}", s.name);
        if let Some(f) = crc_fast(s) {
            assert_eq!(f(b"123456789"), s.check, "crc-fast {}", s.name);
        }
        assert_eq!(crc::checksum(s, b"123456789"), s.check, "{}", s.name);
        assert_eq!(v.checksum(b"123456789"), s.check, "{}", s.name);
        for e in engines() {
            let mut c = Crc::with_engine(s, e).unwrap();
            c.update(b"123456789");
            assert_eq!(c.finalize(), s.check, "{} on {e}", s.name);
        }
        assert_eq!(Variant::from_name(v.name()), Some(*v));
        assert_eq!(Variant::from_name(s.name), Some(*v));
        for a in v.aliases() {
            assert_eq!(Variant::from_name(a), Some(*v), "{a}");
        }
    }
    // ISA-L's names for the catalogue's variants.
    assert_eq!(
        Variant::from_name("crc64-rocksoft-refl"),
        Some(Variant::Crc64Nvme)
    );
    assert_eq!(Variant::from_name("crc32-ieee"), Some(Variant::Crc32Bzip2));
    assert_eq!(Variant::from_name("crc99"), None);
}

/// Every spec on every engine against the reference, the `crc` crate and
/// `crc-fast`, on lengths 0..=300 and around 512, 4 KiB and 64 KiB, at
/// random offsets, one-shot and streamed in random pieces.
#[test]
fn every_engine_against_the_references() {
    let mut rng = Rng::new(0x25_0001);
    let buf = rng.bytes((64 << 10) + 64);
    let lengths: Vec<usize> = (0..=300)
        .chain(511..=513)
        .chain(4095..=4097)
        .chain([(64 << 10) - 1, 64 << 10, (64 << 10) + 1])
        .collect();
    let engines = engines();
    for s in all_specs() {
        let theirs = crc_crate(&s);
        let fast = crc_fast(&s);
        for &len in &lengths {
            let off = rng.below(16);
            let data = &buf[off..off + len];
            let want = reference(&s, data);
            assert_eq!(theirs.checksum(data), want, "crc crate {} {len}", s.name);
            if let Some(f) = &fast {
                assert_eq!(f(data), want, "crc-fast {} {len}", s.name);
            }
            assert_eq!(crc::checksum(&s, data), want, "{} length {len}", s.name);
            for &e in &engines {
                let mut c = Crc::with_engine(&s, e).unwrap();
                c.update(data);
                assert_eq!(
                    c.finalize(),
                    want,
                    "{} on {e}, length {len} offset {off}",
                    s.name
                );
                // In pieces.
                c.reset();
                let mut rest = data;
                while !rest.is_empty() {
                    let n = rng.below(rest.len().min(5000) + 1);
                    let (a, b) = rest.split_at(n);
                    c.update(a);
                    rest = b;
                }
                assert_eq!(
                    c.finalize(),
                    want,
                    "{} on {e} in pieces, length {len}",
                    s.name
                );
            }
        }
    }
}

#[test]
fn one_mebibyte_on_every_engine() {
    let mut rng = Rng::new(0x25_0002);
    let buf = rng.bytes((1 << 20) + 16);
    let engines = engines();
    for s in [
        CRC64_NVME,
        CRC16_T10_DIF,
        *Variant::Crc32Bzip2.spec(),
        user_specs()[0],
    ] {
        for off in [0, 7] {
            let data = &buf[off..off + (1 << 20)];
            let want = crc_crate(&s).checksum(data);
            for &e in &engines {
                let mut c = Crc::with_engine(&s, e).unwrap();
                c.update(data);
                assert_eq!(c.finalize(), want, "{} on {e}, offset {off}", s.name);
            }
        }
    }
}

/// Every variant's own entry points (`Variant::update_register`,
/// `checksum`, `append`: each variant's arm specialised at compile time,
/// what the C library's per-variant functions run) against the bit-by-bit
/// reference and the spec-level functions: every length 0..=300 at every
/// alignment 0..64, and longer lengths around the kernels' size classes,
/// with a register that is not the initial one.
#[test]
fn variant_entry_points_against_the_reference() {
    let mut rng = Rng::new(0x25_0009);
    let buf = rng.bytes((64 << 10) + 128);
    for &v in Variant::ALL {
        let s = v.spec();
        let check = |off: usize, len: usize, reg: u64| {
            let data = &buf[off..off + len];
            let want = reference(s, data);
            assert_eq!(
                v.checksum(data),
                want,
                "{} length {len} offset {off}",
                s.name
            );
            assert_eq!(
                v.update_register(reg, data),
                crc::update_register(s, reg, data),
                "{} register {reg:#x}, length {len} offset {off}",
                s.name
            );
            let head = rng_cut(len, off);
            let (a, b) = data.split_at(head);
            assert_eq!(
                v.append(v.checksum(a), b),
                want,
                "{} append at {head}",
                s.name
            );
            // Bits above the width are ignored, as `crc::update_register` does.
            assert_eq!(
                v.update_register(reg | !s.mask(), data),
                v.update_register(reg, data),
                "{} high bits, length {len}",
                s.name
            );
        };
        for len in 0..=300 {
            for off in 0..64 {
                check(
                    off,
                    len,
                    (len as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) & s.mask(),
                );
            }
        }
        for len in [511, 512, 513, 1023, 1024, 4095, 4096, 4097, 65535, 65536] {
            let off = rng.below(64);
            check(off, len, rng.below(1 << 16) as u64 & s.mask());
        }
    }
}

/// A cut point of a `len`-byte piece that varies with the length and the
/// offset (the appended piece is often shorter than 16 bytes, where the
/// kernels take the table).
fn rng_cut(len: usize, off: usize) -> usize {
    if len == 0 {
        0
    } else {
        (len * 7 + off) % (len + 1)
    }
}

#[test]
fn register_level_update_and_append() {
    let mut rng = Rng::new(0x25_0003);
    let data = rng.bytes(3000);
    for s in all_specs() {
        let whole = crc::checksum(&s, &data);
        for _ in 0..20 {
            let cut = rng.below(data.len() + 1);
            let (a, b) = data.split_at(cut);
            assert_eq!(
                crc::append(&s, crc::checksum(&s, a), b),
                whole,
                "{}",
                s.name
            );
            // The register from init, then finished: the same CRC.
            let reg = crc::update_register(&s, s.init_register(), a);
            let reg = crc::update_register(&s, reg, b);
            assert_eq!(s.finish_register(reg), whole, "{}", s.name);
            let mut c = Crc::with_initial(&s, crc::checksum(&s, a));
            c.update(b);
            assert_eq!(c.finalize(), whole, "{}", s.name);
        }
    }
    // ISA-L's conventions: crc16_t10dif(seed) is the register itself;
    // crc32_ieee(seed) and crc64_*(seed) invert the seed and the result.
    let t10 = &CRC16_T10_DIF;
    assert_eq!(crc::update_register(t10, 0, b"123456789"), 0xD0DB);
    let bzip2 = Variant::Crc32Bzip2.spec();
    let ieee =
        |seed: u64, d: &[u8]| !crc::update_register(bzip2, !seed & 0xFFFF_FFFF, d) & 0xFFFF_FFFF;
    assert_eq!(ieee(0, b"123456789"), 0xFC89_1918);
    assert_eq!(ieee(ieee(0, b"1234"), b"56789"), 0xFC89_1918);
}

#[test]
fn combine_and_shift_against_concatenation() {
    let mut rng = Rng::new(0x25_0004);
    let data = rng.bytes(70_000);
    let zeros = vec![0u8; 70_000];
    for s in all_specs() {
        for _ in 0..30 {
            let len = rng.below(data.len());
            let cut = rng.below(len + 1);
            let (a, b) = data[..len].split_at(cut);
            let (ca, cb) = (crc::checksum(&s, a), crc::checksum(&s, b));
            assert_eq!(
                crc::combine(&s, ca, cb, b.len() as u64),
                crc::checksum(&s, &data[..len]),
                "{} combine at {cut} of {len}",
                s.name
            );
            let n = rng.below(zeros.len());
            let mut joined = a.to_vec();
            joined.extend_from_slice(&zeros[..n]);
            let want = crc::checksum(&s, &joined);
            assert_eq!(crc::shift(&s, ca, n as u64), want, "{} shift {n}", s.name);
            let mut c = Crc::new(&s);
            c.update(a);
            c.shift(n as u64);
            assert_eq!(c.finalize(), want, "{} Crc::shift {n}", s.name);
        }
        // Empty pieces.
        let c = crc::checksum(&s, &data[..10]);
        assert_eq!(crc::combine(&s, c, crc::checksum(&s, b""), 0), c);
        assert_eq!(crc::combine(&s, crc::checksum(&s, b""), c, 10), c);
        // Associativity over huge lengths (no data could be that long).
        let (x, y, z) = (
            crc::checksum(&s, b"x"),
            crc::checksum(&s, b"yy"),
            crc::checksum(&s, b"zzz"),
        );
        for (n1, n2) in [(1u64 << 40, 5u64), (u64::MAX / 2, u64::MAX / 3)] {
            let left = crc::combine(&s, crc::combine(&s, x, y, n1), z, n2);
            let right = crc::combine(&s, x, crc::combine(&s, y, z, n2), n1.wrapping_add(n2));
            if n1.checked_add(n2).is_some() {
                assert_eq!(left, right, "{} {n1} + {n2}", s.name);
            }
        }
    }
}

#[test]
fn hasher_and_writer() {
    let mut rng = Rng::new(0x25_0005);
    let data = rng.bytes(10_000);
    for s in all_specs() {
        let mut h = Crc::new(&s);
        Hasher::write(&mut h, &data[..5000]);
        h.write_all(&data[5000..]).unwrap();
        h.flush().unwrap();
        assert_eq!(h.finish(), crc::checksum(&s, &data), "{}", s.name);
        assert_eq!(h.spec(), &s);
        let mut w = Crc::new(&s);
        std::io::copy(&mut &data[..], &mut w).unwrap();
        assert_eq!(w.finalize(), h.finalize());
        w.reset();
        assert_eq!(w.finalize(), crc::checksum(&s, b""));
    }
}

#[test]
fn spec_validation() {
    let ok = *Variant::Crc32IsoHdlc.spec();
    assert_eq!(ok.validate(), Ok(()));
    let new = |w, poly, init, xorout, check| {
        CrcSpec::new("test", w, poly, init, true, true, xorout, check)
    };
    assert_eq!(new(0, 1, 0, 0, 0), Err(SpecError::Width(0)));
    assert_eq!(new(65, 1, 0, 0, 0), Err(SpecError::Width(65)));
    assert_eq!(new(16, 0x1_8005, 0, 0, 0), Err(SpecError::TooWide("poly")));
    assert_eq!(
        new(16, 0x8005, 0x1_0000, 0, 0),
        Err(SpecError::TooWide("init"))
    );
    assert_eq!(
        new(16, 0x8005, 0, 0x1_0000, 0),
        Err(SpecError::TooWide("xorout"))
    );
    assert_eq!(
        new(16, 0x8005, 0, 0, 0x1_0000),
        Err(SpecError::TooWide("check"))
    );
    assert_eq!(new(16, 0x8004, 0, 0, 0), Err(SpecError::EvenPoly));
    // CRC-16/ARC with a wrong check value: the error gives the right one.
    assert_eq!(new(16, 0x8005, 0, 0, 0xBB3E), Err(SpecError::Check(0xBB3D)));
    assert!(new(16, 0x8005, 0, 0, 0xBB3D).is_ok());
    let msg = new(65, 1, 0, 0, 0).unwrap_err().to_string();
    assert!(msg.contains("65"), "{msg}");
}

#[test]
fn engine_selection() {
    for e in crc::engines() {
        assert_eq!(CrcEngine::from_name(e.name()), Some(e));
        match crc::select_engine(e.name()) {
            Ok(got) => assert!(got == e && e.is_supported()),
            Err(err) => {
                assert!(!e.is_supported());
                assert_eq!(err.kind(), EngineErrorKind::Unsupported);
                assert!(Crc::with_engine(&CRC64_NVME, e).is_err());
            }
        }
    }
    assert_eq!(crc::select_engine(" table "), Ok(CrcEngine::Table));
    let err = crc::select_engine("avx9000").unwrap_err();
    assert_eq!(err.kind(), EngineErrorKind::Unknown);
    let msg = err.to_string();
    for name in [
        "auto",
        "table",
        "pclmul",
        "vpclmul256",
        "vpclmul512",
        "avx9000",
        "crc",
    ] {
        assert!(msg.contains(name), "{msg}");
    }
    // auto ran the cheapest kernel it measured, per class and orientation.
    let choices = crc::auto_choices();
    for reflected in [false, true] {
        for (lo, _, timed) in choices.classes() {
            let k = choices.choice_for(reflected, lo);
            if reflected {
                assert_eq!(choices.choice(lo), k);
            }
            assert!(k.is_supported() && k != CrcEngine::Auto, "{k}");
            let c = choices.cost(reflected, k, timed).expect("timed");
            for other in CrcEngine::KERNELS {
                if let Some(o) = choices.cost(reflected, other, timed) {
                    assert!(c <= o, "{k} {c} vs {other} {o} at {timed}");
                }
            }
        }
    }
}

#[test]
fn configured_engine_follows_the_variable() {
    let asked = std::env::var(crc::ENGINE_VAR).unwrap_or_default();
    let c = Crc::new(&CRC64_NVME);
    if asked.trim().is_empty() {
        assert_eq!(crc::configured_engine(), Ok(CrcEngine::Auto));
        assert_eq!(c.engine(), CrcEngine::Auto);
        return;
    }
    match crc::select_engine(&asked.to_ascii_lowercase()) {
        Ok(e) => {
            assert_eq!(crc::configured_engine(), Ok(e));
            assert_eq!(c.engine(), e);
        }
        Err(_) => {
            let err = crc::configured_engine().unwrap_err();
            assert!(err.to_string().contains(crc::ENGINE_VAR), "{err}");
            assert_eq!(c.engine(), CrcEngine::Auto);
        }
    }
}

/// CRC-32/ISCSI through the generic API equals CRC32C's own.
#[test]
fn crc32c_through_the_generic_api() {
    let mut rng = Rng::new(0x25_0006);
    let data = rng.bytes(20_000);
    for len in (0..300).chain([1023, 4096, 20_000]) {
        let d = &data[..len];
        let want = u64::from(mbhash_core::crc32c::crc32c(d));
        assert_eq!(crc::checksum(&CRC32_ISCSI, d), want, "{len}");
        for e in engines() {
            let mut c = Crc::with_engine(&CRC32_ISCSI, e).unwrap();
            c.update(d);
            assert_eq!(c.finalize(), want, "{e} {len}");
        }
    }
}

#[test]
fn copy_and_checksum() {
    let mut rng = Rng::new(0x25_0007);
    let src = rng.bytes(20_000);
    for s in all_specs() {
        // Around the one-pass kernel's shortest length too, and from an
        // odd address.
        let min = mbhash_simd::crc::vpclmul512::COPY_MIN;
        for len in [
            0,
            1,
            55,
            64,
            100,
            1023,
            1024,
            1025,
            min - 1,
            min,
            min + 1,
            19_999,
        ] {
            let from = &src[1..=len];
            let want = reference(&s, from);
            let mut dst = vec![0u8; len];
            let reg = crc::update_register_copy(&s, s.init_register(), &mut dst, from);
            assert_eq!(dst, from);
            assert_eq!(s.finish_register(reg), want, "{} {len}", s.name);
            if let Some(v) = crc::Variant::of(&s) {
                let mut dst = vec![0u8; len];
                let reg = v.update_register_copy(s.init_register(), &mut dst, from);
                assert_eq!(dst, from, "{v:?} {len}");
                assert_eq!(s.finish_register(reg), want, "{v:?} {len}");
            }
            // On every engine, each CRC its own.
            for e in engines() {
                let mut c = Crc::with_engine(&s, e).unwrap();
                let mut dst2 = vec![0u8; len];
                c.update(&src[..1]);
                c.update_copy(&mut dst2, from);
                assert_eq!(dst2, dst);
                assert_eq!(
                    c.finalize(),
                    reference(&s, &src[..=len]),
                    "{} {e} {len}",
                    s.name
                );
            }
        }
    }
    let unequal = std::panic::catch_unwind(|| {
        crc::update_register_copy(&CRC16_T10_DIF, 0, &mut [0u8; 3], &[0u8; 4])
    });
    assert!(unequal.is_err());
}
