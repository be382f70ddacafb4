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
    assert_eq!(
        CrcKernel::configured().engine(),
        configured_engine().unwrap_or(CrcEngine::Auto)
    );
}
