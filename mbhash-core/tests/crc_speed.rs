//! A quick timing of the CRC engines against `crc-fast` (not a test of
//! correctness, and it asserts nothing): run with
//! `cargo test --release -p mbhash-core --test crc_speed -- --ignored --nocapture`
//! on a quiet core (`taskset -c 1`).

use mbhash_core::crc::{CRC16_T10_DIF, CRC32_ISO_HDLC, CRC64_NVME, Crc, CrcEngine, CrcSpec};
use std::hint::black_box;
use std::time::Instant;

/// Median GB/s of `f` over `data`.
fn gbps(data: &[u8], mut f: impl FnMut(&[u8]) -> u64) -> f64 {
    let per_round = ((4 << 20) / data.len()).clamp(16, 1 << 16);
    let mut rates = Vec::new();
    for round in 0..15 {
        let t = Instant::now();
        for _ in 0..per_round {
            black_box(f(black_box(data)));
        }
        let s = t.elapsed().as_secs_f64();
        if round >= 2 {
            rates.push((data.len() * per_round) as f64 / s / 1e9);
        }
    }
    rates.sort_by(f64::total_cmp);
    rates[rates.len() / 2]
}

#[test]
#[ignore = "timing, run by hand in release mode"]
fn speed_against_crc_fast() {
    let specs: [(&CrcSpec, crc_fast::CrcAlgorithm); 3] = [
        (&CRC64_NVME, crc_fast::CrcAlgorithm::Crc64Nvme),
        (&CRC32_ISO_HDLC, crc_fast::CrcAlgorithm::Crc32IsoHdlc),
        (&CRC16_T10_DIF, crc_fast::CrcAlgorithm::Crc16T10Dif),
    ];
    let data: Vec<u8> = (0..(1 << 20) + 64).map(|i| (i * 131 + 7) as u8).collect();
    for (spec, alg) in specs {
        println!("{}", spec.name);
        for len in [64usize, 100, 512, 1000, 4096, 65536, 1 << 20] {
            let piece = &data[1..1 + len];
            let theirs = gbps(piece, |d| crc_fast::checksum(alg, d));
            let mut line = format!("  {len:>8} B  crc-fast {theirs:6.2} GB/s");
            for e in CrcEngine::ALL.into_iter().filter(|e| e.is_supported()) {
                let c = Crc::with_engine(spec, e).unwrap();
                let ours = gbps(piece, |d| {
                    let mut c = c;
                    c.update(d);
                    c.finalize()
                });
                line += &format!("  {e} {ours:6.2} ({:.2}x)", ours / theirs);
            }
            let one = gbps(piece, |d| mbhash_core::crc::checksum(spec, d));
            line += &format!("  checksum() {one:6.2} ({:.2}x)", one / theirs);
            println!("{line}");
        }
    }
}

/// A spec not named here against a named one of the same width (the same
/// kernels over constants made at run time), at 64 KiB.
#[test]
#[ignore = "timing, run by hand in release mode"]
fn speed_of_a_user_spec() {
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
    let ms = CrcSpec::new(
        "CRC-64/MS",
        64,
        0x259C_84CB_A642_6349,
        u64::MAX,
        true,
        true,
        0,
        0x75D4_B74F_024E_CEEA,
    )
    .unwrap();
    let data: Vec<u8> = (0..65536).map(|i| (i * 131 + 7) as u8).collect();
    for (user, named) in [(mpeg2, mbhash_core::crc::CRC32_BZIP2), (ms, CRC64_NVME)] {
        let u = gbps(&data, |d| mbhash_core::crc::checksum(&user, d));
        let n = gbps(&data, |d| mbhash_core::crc::checksum(&named, d));
        println!(
            "{} {u:.2} GB/s, {} {n:.2} GB/s: {:.2}x",
            user.name,
            named.name,
            u / n
        );
    }
}

/// Nanoseconds per `combine` over lengths with many bits set.
#[test]
#[ignore = "timing, run by hand in release mode"]
fn speed_of_combine() {
    for spec in [&CRC64_NVME, &CRC32_ISO_HDLC, &CRC16_T10_DIF] {
        let t = Instant::now();
        let mut acc = 0u64;
        let n = 100_000u64;
        for i in 0..n {
            let len = black_box(i.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 20);
            acc ^= mbhash_core::crc::combine(spec, acc, 0x1234, len);
        }
        black_box(acc);
        let ns = t.elapsed().as_nanos() as f64 / n as f64;
        println!("{}: combine {ns:.0} ns (44-bit lengths)", spec.name);
    }
}

/// Copy and checksum (ISA-L's `crc16_t10dif_copy`) against a copy followed
/// by a checksum, at 64 KiB, 1 MiB and 8 MiB.
#[test]
#[ignore = "timing, run by hand in release mode"]
fn speed_of_copy_and_checksum() {
    for size in [65536usize, 1 << 20, 8 << 20] {
        let src: Vec<u8> = (0..size).map(|i| (i * 131 + 7) as u8).collect();
        let mut buf = vec![0u8; src.len() + 4096];
        // A destination 4 KiB apart from the source (as two page-aligned
        // buffers are) and one 1 KiB off that.
        for shift in [0usize, 1024] {
            let dst = &mut buf[shift..shift + src.len()];
            let fused = gbps(&src, |s| {
                mbhash_core::crc::update_register_copy(&CRC16_T10_DIF, 0, dst, s)
            });
            let apart = gbps(&src, |s| {
                dst.copy_from_slice(s);
                mbhash_core::crc::update_register(&CRC16_T10_DIF, 0, black_box(&*dst))
            });
            println!(
                "{size} B T10-DIF, destination +{shift}: copy+crc {fused:.2} GB/s, memcpy then crc {apart:.2} GB/s: {:.2}x",
                fused / apart
            );
        }
    }
}
