//! `mbhash bench --json` is read by other tools: every row carries the
//! stable fields, and every SHA grid point has mbhash's `hash_many`,
//! `manager` and `stream` rows beside the `sha2` peer's.

use std::collections::BTreeSet;
use std::process::Command;

const MBHASH: &str = env!("CARGO_BIN_EXE_mbhash");

const FIELDS: [&str; 11] = [
    "algo", "impl", "engine", "size", "streams", "gbps", "vs_sha2", "vs_peer", "peer", "vs_isal",
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
