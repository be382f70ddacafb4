//! `mbhash bench --json` is read by other tools: every row carries the
//! stable fields, and every SHA grid point has mbhash's `hash_many`,
//! `manager` and `stream` rows beside the `sha2` peer's.

use std::collections::BTreeSet;
use std::process::Command;

const MBHASH: &str = env!("CARGO_BIN_EXE_mbhash");

const FIELDS: [&str; 13] = [
    "algo",
    "impl",
    "engine",
    "size",
    "streams",
    "gbps",
    "vs_sha2",
    "vs_rustcrypto",
    "vs_peer",
    "peer",
    "vs_isal",
    "vs_openssl",
    "api",
];

/// The value of `"key":` in a flat JSON object (strings unquoted).
fn field<'a>(row: &'a str, key: &str) -> Option<&'a str> {
    let start = row.find(&format!("\"{key}\":"))? + key.len() + 3;
    let rest = &row[start..];
    let end = rest.find([',', '}']).unwrap_or(rest.len());
    Some(rest[..end].trim_matches('"'))
}

#[test]
fn sha_rows_have_every_field_and_every_api() {
    let out = Command::new(MBHASH)
        .args([
            "bench",
            "--quick",
            "--json",
            "--algo",
            "sha256,sha512",
            "--sizes",
            "64,1K",
            "--streams",
            "1,3",
            "--rounds",
            "1",
        ])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let stdout = String::from_utf8(out.stdout).unwrap();
    let rows: Vec<&str> = stdout.lines().filter(|l| l.starts_with('{')).collect();
    let mut points = BTreeSet::new();
    let mut apis = BTreeSet::new();
    for row in &rows {
        for key in FIELDS {
            assert!(field(row, key).is_some(), "no {key} in {row}");
        }
        let gbps: f64 = field(row, "gbps").unwrap().parse().unwrap();
        assert!(gbps > 0.0, "{row}");
        let point = (
            field(row, "algo").unwrap().to_string(),
            field(row, "size").unwrap().to_string(),
            field(row, "streams").unwrap().to_string(),
        );
        apis.insert((
            point.clone(),
            field(row, "impl").unwrap().to_string(),
            field(row, "api").unwrap().to_string(),
        ));
        points.insert(point);
    }
    assert_eq!(points.len(), 2 * 2 * 2, "{stdout}");
    for point in &points {
        for (imp, api) in [
            ("mbhash", "hash_many"),
            ("mbhash", "manager"),
            ("mbhash", "stream"),
            ("sha2", "oneshot"),
        ] {
            assert!(
                apis.contains(&(point.clone(), imp.to_string(), api.to_string())),
                "{point:?}: no {imp} {api} row in\n{stdout}"
            );
        }
    }
}

/// MD5, SHA-1 and SM3 rows: mbhash's three APIs beside the family's
/// RustCrypto crate (`md-5`, `sha1`, `sm3`), `vs_rustcrypto` set and
/// `vs_sha2` null; SHA-2 rows keep `vs_sha2` equal to `vs_rustcrypto`.
#[test]
fn md5_sha1_sm3_rows_are_against_their_rustcrypto_crates() {
    let out = Command::new(MBHASH)
        .args([
            "bench",
            "--quick",
            "--json",
            "--algo",
            "md5,sha1,sm3,sha256",
            "--sizes",
            "64",
            "--streams",
            "1,16",
            "--rounds",
            "1",
        ])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let stdout = String::from_utf8(out.stdout).unwrap();
    let rows: Vec<&str> = stdout.lines().filter(|l| l.starts_with('{')).collect();
    for (algo, crate_name) in [("md5", "md-5"), ("sha1", "sha1"), ("sm3", "sm3")] {
        for streams in ["1", "16"] {
            let point: Vec<&&str> = rows
                .iter()
                .filter(|r| field(r, "algo") == Some(algo) && field(r, "streams") == Some(streams))
                .collect();
            for (imp, api) in [
                ("mbhash", "hash_many"),
                ("mbhash", "manager"),
                ("mbhash", "stream"),
                (crate_name, "oneshot"),
            ] {
                let row = point
                    .iter()
                    .find(|r| field(r, "impl") == Some(imp) && field(r, "api") == Some(api))
                    .unwrap_or_else(|| {
                        panic!("{algo} x{streams}: no {imp} {api} row in\n{stdout}")
                    });
                for key in FIELDS {
                    assert!(field(row, key).is_some(), "no {key} in {row}");
                }
                assert_eq!(field(row, "vs_sha2"), Some("null"), "{row}");
                // With OpenSSL linked, every row of the point has its ratio.
                let ssl = point.iter().any(|r| field(r, "impl") == Some("openssl"));
                assert_eq!(field(row, "vs_openssl") != Some("null"), ssl, "{row}");
                assert_eq!(field(row, "peer"), Some(crate_name), "{row}");
                let vs: f64 = field(row, "vs_rustcrypto").unwrap().parse().unwrap();
                assert!(vs > 0.0, "{row}");
            }
        }
    }
    for row in rows.iter().filter(|r| field(r, "algo") == Some("sha256")) {
        if field(row, "impl") != Some("isal") {
            assert_eq!(field(row, "vs_sha2"), field(row, "vs_rustcrypto"), "{row}");
        }
    }
}

/// The pipeline rows carry the physical floor of a shared hasher
/// (`floor_vs_sha2`, from the kernels' costs measured in the run) on the
/// service and pool rows, and the CPU against it (`cpu_vs_floor`); the
/// per-writer row (sha2 itself) has none.
#[test]
fn pipeline_rows_report_the_floor() {
    let out = Command::new(MBHASH)
        .args([
            "bench",
            "--pipeline",
            "--quick",
            "--json",
            "--algo",
            "sha256,sha384",
            "--streams",
            "2",
            "--rounds",
            "1",
        ])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let stdout = String::from_utf8(out.stdout).unwrap();
    let rows: Vec<&str> = stdout.lines().filter(|l| l.starts_with('{')).collect();
    assert_eq!(rows.len(), 2 * 3, "{stdout}");
    for row in &rows {
        let floor = field(row, "floor_vs_sha2").unwrap_or_else(|| panic!("no floor in {row}"));
        let vs_floor = field(row, "cpu_vs_floor").unwrap_or_else(|| panic!("{row}"));
        // Added beside the older fields, which stay.
        assert!(field(row, "cpu_vs_sha2").is_some(), "{row}");
        if field(row, "mode") == Some("per-writer") {
            assert_eq!((floor, vs_floor), ("null", "null"), "{row}");
            continue;
        }
        let floor: f64 = floor.parse().unwrap();
        assert!(floor > 0.0 && floor.is_finite(), "{row}");
        if field(row, "engine") == Some("auto") {
            // `auto` may run the one-lane kernel for every lane: never
            // above one stream.
            assert!(floor <= 1.0, "{row}");
        }
        if let Ok(cpu) = field(row, "cpu_vs_sha2").unwrap().parse::<f64>() {
            let vs_floor: f64 = vs_floor.parse().unwrap();
            assert!(
                (vs_floor - cpu / floor).abs() <= 1e-3 * vs_floor.max(1.0) + 1e-3,
                "{row}"
            );
        }
    }
}

/// `--engine` is the named algorithm's family's engine: SHA-1's `shani-x2`
/// runs SHA-1 (SHA-512 has no such engine), and a name MD5 lacks is MD5's
/// error, not another family's.
#[test]
fn pipeline_engine_is_the_algorithms_family() {
    let bench = |algo: &str, engine: &str| {
        Command::new(MBHASH)
            .args(["bench", "--pipeline", "--quick", "--json", "--rounds", "1"])
            .args(["--streams", "1", "--algo", algo, "--engine", engine])
            .output()
            .unwrap()
    };
    let out = bench("sha1", "shani-x2");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    if stderr.contains("unsupported on this CPU") {
        mbhash_test_support::skip_or_require("shani", "SHA-1 on shani-x2", &stderr);
    } else {
        assert!(out.status.success(), "{stderr}");
        let rows: Vec<&str> = stdout.lines().filter(|l| l.starts_with('{')).collect();
        assert_eq!(rows.len(), 3, "{stdout}");
        for row in rows
            .iter()
            .filter(|r| field(r, "mode") != Some("per-writer"))
        {
            assert_eq!(field(row, "engine"), Some("shani-x2"), "{row}");
        }
    }
    let out = bench("md5", "shani");
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("md5 engine 'shani' is unknown"), "{stderr}");
}

/// Every named CRC is an `--algo`; each of its rows carries the stable
/// fields and the CRC ratios, with a `crc-fast` row at every size; ISA-L's
/// rows name its function, and CRC-32/ISO-HDLC gets libdeflate and zlib
/// rows when they are linked (a peer not linked gives `null` ratios).
#[test]
fn crc_rows_for_every_named_variant() {
    let names = [
        "crc32",
        "crc32-bzip2",
        "crc32-cksum",
        "crc64-nvme",
        "crc64-xz",
        "crc64-ecma-182",
        "crc64-we",
        "crc64-go-iso",
        "crc64-redis",
        "crc64-iso-norm",
        "crc64-jones-refl",
        "crc64-jones-norm",
        "crc64-rocksoft-norm",
        "crc16-t10dif",
    ];
    let out = Command::new(MBHASH)
        .args([
            "bench", "--quick", "--json", "--sizes", "64,4K", "--rounds", "1",
        ])
        .args(["--algo", &names.join(",")])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let stdout = String::from_utf8(out.stdout).unwrap();
    let rows: Vec<&str> = stdout.lines().filter(|l| l.starts_with('{')).collect();
    let mut seen = BTreeSet::new();
    for row in &rows {
        for key in FIELDS
            .iter()
            .chain(&["vs_crc_fast", "vs_libdeflate", "vs_zlib"])
        {
            assert!(field(row, key).is_some(), "no {key} in {row}");
        }
        let algo = field(row, "algo").unwrap().to_string();
        let imp = field(row, "impl").unwrap().to_string();
        if algo != "crc32" {
            assert_eq!(field(row, "vs_libdeflate"), Some("null"), "{row}");
            assert!(imp != "libdeflate" && imp != "zlib", "{row}");
        }
        if imp == "isal" {
            assert!(field(row, "engine").unwrap().starts_with("crc"), "{row}");
        }
        seen.insert((algo, field(row, "size").unwrap().to_string(), imp));
    }
    for name in names {
        for size in ["64", "4096"] {
            for imp in ["mbhash", "crc-fast"] {
                assert!(
                    seen.contains(&(name.to_string(), size.to_string(), imp.to_string())),
                    "no {imp} row for {name} at {size}\n{stdout}"
                );
            }
        }
    }
    let stderr = String::from_utf8(out.stderr).unwrap();
    for line in stderr.lines() {
        assert_eq!(
            stderr.matches(line).count(),
            1,
            "said more than once: {line}"
        );
    }
}
