//! CRC32C's API, engines, calibration and combination against the
//! reference.

use super::*;
use std::hash::Hasher;
use std::io::Write;

use mbhash_test_support::Rng;

fn supported() -> Vec<Crc32cEngine> {
    engines().into_iter().filter(|e| e.is_supported()).collect()
}

/// An error lists each engine once (`auto` first), as the SHA
/// families' errors do.
#[test]
fn an_engine_error_lists_each_engine_once() {
    let msg = select_engine("bogus").unwrap_err().to_string();
    let list = msg.split("valid engines: ").nth(1).expect(&msg);
    let valid: Vec<&str> = list.split(';').next().unwrap().split(", ").collect();
    let want: Vec<&str> = engines().iter().map(|e| e.name()).collect();
    assert_eq!(valid, want, "{msg}");
}

#[test]
fn check_value() {
    assert_eq!(crc32c(b"123456789"), 0xE306_9283);
    assert_eq!(crc32c(b""), 0);
    for e in supported() {
        assert_eq!(crc32c_with(e, 0, b"123456789"), Ok(0xE306_9283), "{e}");
    }
}

#[test]
fn engines_agree_with_the_crc_crate() {
    let theirs = crc::Crc::<u32>::new(&crc::CRC_32_ISCSI);
    let mut rng = Rng::new(1);
    let data = rng.bytes(20_000);
    for len in (0..300).chain([1023, 1024, 4096, 8191, 8193, 20_000]) {
        let expected = theirs.checksum(&data[..len]);
        assert_eq!(crc32c(&data[..len]), expected, "length {len}");
        for e in supported() {
            assert_eq!(
                crc32c_with(e, 0, &data[..len]),
                Ok(expected),
                "{e}, length {len}"
            );
        }
    }
}

#[test]
fn append_is_whole() {
    let mut rng = Rng::new(2);
    let data = rng.bytes(5000);
    let whole = crc32c(&data);
    for _ in 0..200 {
        let cut = rng.below(data.len() + 1);
        let (a, b) = data.split_at(cut);
        assert_eq!(crc32c_append(crc32c(a), b), whole, "cut at {cut}");
    }
    assert_eq!(crc32c_append(whole, b""), whole);
}

#[test]
fn hasher_and_writer_agree() {
    let mut rng = Rng::new(3);
    let data = rng.bytes(3000);
    let mut h = Crc32c::new();
    let mut w = Crc32c::default();
    let mut rest = &data[..];
    while !rest.is_empty() {
        let n = rng.below(rest.len().min(700) + 1);
        let (piece, tail) = rest.split_at(n);
        Hasher::write(&mut h, piece);
        w.write_all(piece).unwrap();
        rest = tail;
    }
    w.flush().unwrap();
    assert_eq!(h.value(), crc32c(&data));
    assert_eq!(h.finish(), crc32c(&data) as u64);
    assert_eq!(w, h);
    let mut copied = Crc32c::new();
    std::io::copy(&mut &data[..], &mut copied).unwrap();
    assert_eq!(copied.value(), crc32c(&data));
    let mut continued = Crc32c::with_initial(crc32c(&data[..1000]));
    continued.update(&data[1000..]);
    assert_eq!(continued.value(), crc32c(&data));
}

#[test]
fn combine_matches_direct() {
    let mut rng = Rng::new(4);
    let data = rng.bytes((1 << 20) + 100);
    // Short and medium pieces at random splits.
    for _ in 0..300 {
        let len = rng.below(5000);
        let start = rng.below(data.len() - len);
        let piece = &data[start..start + len];
        let cut = rng.below(len + 1);
        let (a, b) = piece.split_at(cut);
        assert_eq!(
            crc32c_combine(crc32c(a), crc32c(b), b.len() as u64),
            crc32c(piece),
            "length {len} cut at {cut}"
        );
    }
    // Empty pieces, and a long second piece.
    assert_eq!(
        crc32c_combine(crc32c(&data[..10]), crc32c(b""), 0),
        crc32c(&data[..10])
    );
    assert_eq!(
        crc32c_combine(crc32c(b""), crc32c(&data), data.len() as u64),
        crc32c(&data)
    );
    let (a, b) = data.split_at(77);
    assert_eq!(
        crc32c_combine(crc32c(a), crc32c(b), b.len() as u64),
        crc32c(&data)
    );
}

#[test]
fn combine_with_huge_lengths() {
    // A || zeros(n), for n far beyond any buffer: crc32c(zeros(n)) and
    // the CRC of the concatenation both follow from the raw register
    // advanced over n zero bytes, computed by every engine's own shift.
    let mut rng = Rng::new(5);
    for _ in 0..50 {
        let len = rng.below(100);
        let a = rng.bytes(len);
        let n = rng.next_u64() >> rng.below(64);
        let crc_a = crc32c(&a);
        for e in supported() {
            let k = e.kernel().unwrap();
            let zeros = !k.shift(!0, n);
            let expected = !k.shift(!crc_a, n);
            assert_eq!(crc32c_combine(crc_a, zeros, n), expected, "{e}, n = {n}");
        }
    }
    // Associativity over lengths summing past 2^32 and 2^64 / 8.
    let (x, y, z) = (crc32c(b"x"), crc32c(b"yy"), crc32c(b"zzz"));
    for (n1, n2) in [
        (1u64 << 33, 5u64),
        (u64::MAX / 2, u64::MAX / 3),
        (u64::MAX - 7, 7),
    ] {
        let left = crc32c_combine(crc32c_combine(x, y, n1), z, n2);
        let right = crc32c_combine(x, crc32c_combine(y, z, n2), n1 + n2);
        assert_eq!(left, right, "{n1} + {n2}");
    }
}

#[test]
fn auto_chooses_a_supported_kernel_per_class() {
    let choices = auto_choices();
    let theirs = crc::Crc::<u32>::new(&crc::CRC_32_ISCSI);
    let mut rng = Rng::new(6);
    let data = rng.bytes((1 << 18) + 1);
    let auto = Crc32cKernel::new(Crc32cEngine::Auto).unwrap();
    assert_eq!(auto.engine(), Crc32cEngine::Auto);
    let mut classes = 0;
    for (lo, hi, timed) in choices.classes() {
        classes += 1;
        assert!(lo <= timed && timed <= hi, "{lo} {timed} {hi}");
        for len in [lo, timed, hi.min(data.len())] {
            let k = choices.choice(len);
            assert!(k.is_supported() && k != Crc32cEngine::Auto, "{k}");
            // The chosen kernel was timed, and was the cheapest.
            let c = choices.cost(k, len).expect("timed");
            for other in Crc32cEngine::KERNELS {
                if let Some(o) = choices.cost(other, len) {
                    assert!(c <= o, "{k} {c} vs {other} {o} at {len}");
                }
            }
            assert_eq!(auto.append(0, &data[..len]), theirs.checksum(&data[..len]));
        }
    }
    assert!(classes >= 10);
    assert_eq!(choices.cost(Crc32cEngine::Auto, 64), None);
    assert!(choices.cost(Crc32cEngine::Table, 1 << 20).is_some());
    // Every class boundary, through the cached engine.
    for b in 0..19 {
        for len in [(1usize << b) - 1, 1 << b, (1 << b) + 1] {
            assert_eq!(crc32c(&data[..len]), theirs.checksum(&data[..len]), "{len}");
        }
    }
}

#[test]
fn configured_engine_follows_the_variable() {
    let asked = std::env::var(ENGINE_VAR).unwrap_or_default();
    if asked.trim().is_empty() {
        assert_eq!(configured_engine(), Ok(auto_engine()));
        assert_eq!(engine(), auto_engine());
        return;
    }
    match select_engine(&asked) {
        Ok(e) => {
            assert_eq!(configured_engine(), Ok(e));
            assert_eq!(engine(), e);
        }
        Err(_) => {
            let err = configured_engine().unwrap_err();
            assert!(err.to_string().contains(ENGINE_VAR), "{err}");
            assert_eq!(engine(), auto_engine());
        }
    }
}

#[test]
fn engine_names() {
    for e in engines() {
        assert_eq!(Crc32cEngine::from_name(e.name()), Some(e));
    }
    assert_eq!(select_engine("auto"), Ok(auto_engine()));
    assert_eq!(select_engine(" table "), Ok(Crc32cEngine::Table));
    assert!(auto_engine().is_supported());
    assert!(supported().contains(&engine()));

    let err = select_engine("avx9000").unwrap_err();
    assert_eq!(err.kind(), EngineErrorKind::Unknown);
    assert_eq!(err.name(), "avx9000");
    let message = err.to_string();
    for name in [
        "auto",
        "table",
        "sse42",
        "vpclmul",
        "vpclmul-fold",
        "avx9000",
    ] {
        assert!(message.contains(name), "{message}");
    }
    assert!(select_engine("").is_err());
    assert!(select_engine("Table").is_err());
    for e in engines() {
        match select_engine(e.name()) {
            Ok(got) => assert!(got == e && e.is_supported()),
            Err(err) => {
                assert!(!e.is_supported());
                assert_eq!(err.kind(), EngineErrorKind::Unsupported);
                assert!(err.to_string().contains("table"));
                assert!(crc32c_with(e, 0, b"").is_err());
            }
        }
    }
}
