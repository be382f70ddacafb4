use super::*;

#[test]
fn check_values() {
    for v in Variant::ALL {
        let s = v.spec();
        assert_eq!(s.bitwise(b"123456789"), s.check, "{}", s.name);
        assert_eq!(checksum(s, b"123456789"), s.check, "{}", s.name);
        assert_eq!(v.checksum(b"123456789"), s.check, "{}", s.name);
        assert_eq!(Variant::from_name(v.name()), Some(*v));
    }
}

#[test]
fn engines_quick() {
    let data: Vec<u8> = (0..5000u32).map(|i| (i * 7 + i / 13) as u8).collect();
    for v in Variant::ALL {
        let s = v.spec();
        for e in CrcEngine::ALL {
            let Ok(mut c) = Crc::with_engine(s, e) else {
                continue;
            };
            for len in [
                0, 1, 15, 16, 17, 31, 32, 48, 63, 64, 65, 127, 128, 129, 200, 255, 256, 300, 511,
                512, 1024, 1025, 1100, 2047, 4096, 4097, 5000,
            ] {
                c.reset();
                c.update(&data[..len]);
                assert_eq!(
                    c.finalize(),
                    s.bitwise(&data[..len]),
                    "{} {e} {len}",
                    s.name
                );
            }
        }
    }
}

#[test]
fn set_default_switches_the_engine() {
    set_default("table").unwrap();
    assert_eq!(CrcKernel::configured().engine(), CrcEngine::Table);
    assert_eq!(configured_engine(), Ok(CrcEngine::Table));
    assert_eq!(Crc::new(&CRC64_NVME).engine(), CrcEngine::Table);
    assert_eq!(checksum(&CRC64_NVME, b"123456789"), CRC64_NVME.check);
    assert!(set_default("avx9000").is_err());
    assert_eq!(CrcKernel::configured().engine(), CrcEngine::Table);
    clear_default();
    // The one-shot functions choose again at their next call.
    assert_eq!(checksum(&CRC64_NVME, b"123456789"), CRC64_NVME.check);
    assert_eq!(ready(), configured_engine().is_ok());
    assert_eq!(
        CrcKernel::configured().engine(),
        configured_engine().unwrap_or(CrcEngine::Auto)
    );
    set_default("table").unwrap();
    assert!(ready());
    assert_eq!(
        Variant::Crc16T10Dif.checksum(b"123456789"),
        CRC16_T10_DIF.check
    );
    clear_default();
}

/// The paths of a `no_std` build for a spec without constants (bit by
/// bit, and `shift` without the constants' table) agree with the kernels.
#[test]
fn paths_without_constants_agree() {
    let data: Vec<u8> = (0..3000u32).map(|i| (i * 31 + i / 7) as u8).collect();
    let twelve = CrcSpec::new("CRC-12/UMTS", 12, 0x80F, 0, false, true, 0, 0xDAF).unwrap();
    for s in Variant::ALL.iter().map(|v| *v.spec()).chain([twelve]) {
        for (len, reg) in [(0, 0), (1, 1), (100, 0x1234), (3000, u64::MAX)] {
            let reg = reg & s.mask();
            assert_eq!(
                bitwise_register(&s, reg, &data[..len]),
                update_register(&s, reg, &data[..len]),
                "{} {len}",
                s.name
            );
        }
        for n in [0u64, 1, 7, 4096, 1 << 40, u64::MAX] {
            let reg = 0x5A5A_5A5A_5A5A_5A5A & s.mask();
            assert_eq!(
                ShiftOnly::new(&s).shift(reg, n),
                shift_register(&s, reg, n),
                "{} {n}",
                s.name
            );
        }
    }
}

#[test]
fn with_consts_takes_a_static() {
    static MPEG2_CONSTS: Consts = Consts::new(32, 0x04C1_1DB7, false);
    let mpeg2 = CrcSpec::new(
        "CRC-32/MPEG-2",
        32,
        0x04C1_1DB7,
        0xFFFF_FFFF,
        false,
        false,
        0,
        0x0376_E6E7,
    )
    .unwrap();
    let mut c = Crc::with_consts(&mpeg2, &MPEG2_CONSTS);
    c.update(b"123456789");
    assert_eq!(c.finalize(), 0x0376_E6E7);
    let wrong = std::panic::catch_unwind(|| Crc::with_consts(&CRC64_NVME, &MPEG2_CONSTS));
    assert!(wrong.is_err());
}

#[test]
fn user_constants_are_kept_up_to_a_bound() {
    use crate::race::Race;
    static HEAD: Race<engine::Node> = Race::new();
    let spec = |poly| CrcSpec {
        poly,
        ..CRC16_T10_DIF
    };
    let a = engine::find_or_add(&HEAD, &spec(0x1021), 2).expect("room");
    assert!(core::ptr::eq(
        a,
        engine::find_or_add(&HEAD, &spec(0x1021), 2).unwrap()
    ));
    let b = engine::find_or_add(&HEAD, &spec(0x8005), 2).expect("room");
    assert!(!core::ptr::eq(a, b));
    assert_eq!(b.poly_normal(), 0x8005);
    // Full: a third is refused, the two kept are still found.
    assert!(engine::find_or_add(&HEAD, &spec(0x3D65), 2).is_none());
    assert!(core::ptr::eq(
        b,
        engine::find_or_add(&HEAD, &spec(0x8005), 2).unwrap()
    ));
}
