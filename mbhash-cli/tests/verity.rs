//! `mbhash verity` against the real tools, byte for byte: fsverity-utils'
//! `fsverity digest` (digests, `--out-merkle-tree`, `--out-descriptor`) and
//! cryptsetup's `veritysetup format` / `verify` (hash images, summaries,
//! each side verifying the other's image, both rejecting corruption).
//! Without the tools these tests print SKIPPED, and fail if
//! `MBHASH_REQUIRE` names `verity` (`apt-get install fsverity cryptsetup-bin`).

use mbhash_test_support::{Rng, TempDir};
use std::path::Path;
use std::process::{Command, Output};

const MBHASH: &str = env!("CARGO_BIN_EXE_mbhash");
const UUID: &str = "0a1b2c3d-4e5f-4607-8819-2a3b4c5d6e7f";

/// A scratch directory of this test file, removed on drop.
fn temp_dir(name: &str) -> TempDir {
    TempDir::new("mbhash-verity", name)
}

/// True if `tool` runs; otherwise prints a SKIPPED line, and panics if
/// `MBHASH_REQUIRE` names `verity`.
fn tool_or_skip(tool: &str, package: &str) -> bool {
    if Command::new(tool)
        .env("PATH", path())
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
    {
        return true;
    }
    mbhash_test_support::skip_or_require(
        "verity",
        &format!("verity tests against {tool}"),
        &format!("{tool} is not installed (apt-get install {package})"),
    );
    false
}

/// `PATH` with the system directories where veritysetup lives.
fn path() -> String {
    let p = std::env::var("PATH").unwrap_or_default();
    format!("{p}:/usr/sbin:/sbin")
}

fn run(dir: &Path, prog: &str, args: &[String]) -> Output {
    Command::new(prog)
        .env("PATH", path())
        .args(args)
        .current_dir(dir)
        .env("LC_ALL", "C")
        .output()
        .unwrap_or_else(|e| panic!("{prog}: {e}"))
}

fn ok(dir: &Path, prog: &str, args: &[String]) -> String {
    let out = run(dir, prog, args);
    assert!(
        out.status.success(),
        "{prog} {args:?} failed ({}): {}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

fn s(v: &[&str]) -> Vec<String> {
    v.iter().map(|x| x.to_string()).collect()
}

/// Deterministic pseudo-random bytes.
fn bytes(len: usize, seed: u64) -> Vec<u8> {
    Rng::new(seed).bytes(len)
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

fn flip(path: &Path, at: u64) {
    let mut b = std::fs::read(path).unwrap();
    b[at as usize] ^= 0x5a;
    std::fs::write(path, b).unwrap();
}

/// Salts to test with: none, one byte, the format's largest.
fn salts(max: usize) -> [String; 3] {
    [String::new(), "a5".into(), hex(&bytes(max, 77))]
}

#[test]
fn fsverity_digest_tree_and_descriptor_match_fsverity_utils() {
    if !tool_or_skip("fsverity", "fsverity") {
        return;
    }
    let dir = temp_dir("fs");
    let d = &dir.0;
    let mut cases = 0;
    for (ai, alg) in ["sha256", "sha512"].into_iter().enumerate() {
        let digest = if alg == "sha256" { 32 } else { 64 };
        for log in 10..=16 {
            let bs = 1usize << log;
            let per = bs / digest;
            let mut sizes = vec![0, 1, bs - 1, bs, bs + 1, 3 * bs + 17];
            // Two levels: one more data block than a tree block covers.
            if (per + 1) * bs <= 4 << 20 {
                sizes.push((per + 1) * bs - 3);
            }
            // Three levels.
            if (per * per + 1) * bs <= 1100 << 10 {
                sizes.push((per * per + 1) * bs);
            }
            for (si, &size) in sizes.iter().enumerate() {
                let data = d.join("data");
                std::fs::write(&data, bytes(size, (log * 31 + si) as u64)).unwrap();
                // Every salt on small files; one (rotating) on large ones.
                let all = salts(32);
                let chosen: Vec<&String> = if size <= 2 * bs {
                    all.iter().collect()
                } else {
                    vec![&all[(si + ai + log) % 3]]
                };
                for salt in chosen {
                    let mut args = s(&["digest", "data", &format!("--hash-alg={alg}")]);
                    args.push(format!("--block-size={bs}"));
                    if !salt.is_empty() {
                        args.push(format!("--salt={salt}"));
                    }
                    let mut theirs = args.clone();
                    theirs.extend(s(&["--out-merkle-tree=t1", "--out-descriptor=d1"]));
                    let mut ours = s(&["verity"]);
                    ours.extend(args.clone());
                    ours.extend(s(&["--out-merkle-tree=t2", "--out-descriptor=d2"]));
                    let want = ok(d, "fsverity", &theirs);
                    let got = ok(d, MBHASH, &ours);
                    let what = format!("{alg} block {bs} size {size} salt '{salt}'");
                    assert_eq!(got, want, "{what}: digest line");
                    for (a, b) in [("t1", "t2"), ("d1", "d2")] {
                        assert!(
                            std::fs::read(d.join(a)).unwrap() == std::fs::read(d.join(b)).unwrap(),
                            "{what}: {b} differs from fsverity's"
                        );
                    }
                    cases += 1;
                }
            }
        }
    }
    // The other output forms, on a few files at once.
    for extra in [
        &["--compact"][..],
        &["--for-builtin-sig"],
        &["--compact", "--for-builtin-sig"],
    ] {
        let mut args = s(&["digest", "data", "t1"]);
        args.extend(s(extra));
        let mut ours = s(&["verity"]);
        ours.extend(args.clone());
        assert_eq!(ok(d, MBHASH, &ours), ok(d, "fsverity", &args), "{extra:?}");
    }
    assert!(cases > 100, "{cases} cases");
}

#[test]
fn fsverity_trees_verify_and_corruption_is_found() {
    if !tool_or_skip("fsverity", "fsverity") {
        return;
    }
    let dir = temp_dir("fsv");
    let d = &dir.0;
    // 1 KiB blocks, SHA-256: 32 hashes per block; 1100 blocks give three
    // levels (35 + 2 + 1 blocks, stored top first).
    let bs = 1024;
    std::fs::write(d.join("data"), bytes(1100 * bs - 100, 5)).unwrap();
    let line = ok(
        d,
        "fsverity",
        &s(&[
            "digest",
            "data",
            "--block-size=1024",
            "--salt=0102",
            "--out-merkle-tree=tree",
            "--out-descriptor=desc",
        ]),
    );
    assert!(line.starts_with("sha256:"));
    let desc = std::fs::read(d.join("desc")).unwrap();
    let root = hex(&desc[16..48]);
    let out = run(
        d,
        MBHASH,
        &s(&[
            "verity",
            "verify",
            "--fs-verity",
            "--block-size=1024",
            "--salt=0102",
            "data",
            "tree",
            &root,
        ]),
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // One byte in data block 1000, then one in each level's first block.
    std::fs::copy(d.join("data"), d.join("bad")).unwrap();
    flip(&d.join("bad"), 1000 * bs as u64 + 7);
    let check = |data: &str, tree: &str, expect: &str| {
        let out = run(d, MBHASH, &{
            let mut a = s(&[
                "verity",
                "verify",
                "--fs-verity",
                "--block-size=1024",
                "--salt=0102",
            ]);
            a.extend(s(&[data, tree, &root]));
            a
        });
        assert_eq!(out.status.code(), Some(1), "{data} {tree}");
        let text = String::from_utf8(out.stdout).unwrap();
        assert!(text.contains(expect), "{data} {tree}: {text}");
    };
    check("bad", "tree", "corrupt data block 1000\n");
    // Levels top first: level 2 at block 0, level 1 at 1..3, level 0 at 3..38.
    for (level, block) in [(2, 0u64), (1, 1), (0, 3)] {
        std::fs::copy(d.join("tree"), d.join("badtree")).unwrap();
        flip(&d.join("badtree"), block * bs as u64 + 5);
        check(
            "data",
            "badtree",
            &format!("(level {level}, block 0 of the level"),
        );
    }
}

/// One dm-verity configuration.
struct Dm {
    alg: &'static str,
    version: u32,
    superblock: bool,
    data_block: usize,
    hash_block: usize,
    salt: String,
    blocks: usize,
    tail: usize,
}

impl Dm {
    fn args(&self) -> Vec<String> {
        let mut a = vec![
            format!("--hash={}", self.alg),
            format!("--format={}", self.version),
            format!("--data-block-size={}", self.data_block),
            format!("--hash-block-size={}", self.hash_block),
            format!(
                "--salt={}",
                if self.salt.is_empty() {
                    "-"
                } else {
                    &self.salt
                }
            ),
        ];
        if self.superblock {
            a.push(format!("--uuid={UUID}"));
        } else {
            a.push("--no-superblock".into());
        }
        a
    }

    fn digest_len(&self) -> usize {
        match self.alg {
            "sha224" | "sha512-224" => 28,
            "sha256" | "sha512-256" => 32,
            "sha384" => 48,
            _ => 64,
        }
    }

    fn per_block(&self) -> usize {
        1 << (self.hash_block / self.digest_len()).ilog2()
    }

    /// Blocks per level, level 0 first.
    fn levels(&self) -> Vec<usize> {
        let mut v = Vec::new();
        let mut n = self.blocks;
        while n > 1 {
            n = n.div_ceil(self.per_block());
            v.push(n);
        }
        v
    }
}

/// Formats with both tools, compares, cross-verifies; with `corrupt`, flips
/// a data byte and one byte in each tree level and checks both reject it.
fn dm_case(d: &Path, c: &Dm, seed: u64, corrupt: bool) {
    let what = format!(
        "{} v{} sb={} {}/{} salt {} bytes, {} blocks",
        c.alg,
        c.version,
        c.superblock,
        c.data_block,
        c.hash_block,
        c.salt.len() / 2,
        c.blocks
    );
    let data = d.join("data");
    std::fs::write(&data, bytes(c.blocks * c.data_block + c.tail, seed)).unwrap();
    let (ours_dir, theirs_dir) = (d.join("ours"), d.join("theirs"));
    for x in [&ours_dir, &theirs_dir] {
        let _ = std::fs::remove_dir_all(x);
        std::fs::create_dir_all(x).unwrap();
    }
    let data_arg = data.display().to_string();
    let mut args = s(&["format", &data_arg, "hash"]);
    args.extend(c.args());
    let want = ok(&theirs_dir, "veritysetup", &args);
    let mut ours_args = vec!["verity".to_string()];
    ours_args.extend(args.clone());
    let got = ok(&ours_dir, MBHASH, &ours_args);
    assert_eq!(got, want, "{what}: summary");
    let (ours, theirs) = (ours_dir.join("hash"), theirs_dir.join("hash"));
    assert!(
        std::fs::read(&ours).unwrap() == std::fs::read(&theirs).unwrap(),
        "{what}: hash images differ"
    );
    let root = want
        .lines()
        .find_map(|l| l.strip_prefix("Root hash:      \t"))
        .unwrap_or_else(|| panic!("{what}: no root hash in {want}"))
        .to_string();
    let verify = |tool: &str, image: &Path, data: &Path| -> Output {
        let mut a = if tool == MBHASH {
            s(&["verity"])
        } else {
            Vec::new()
        };
        a.extend(s(&[
            "verify",
            &data.display().to_string(),
            &image.display().to_string(),
            &root,
        ]));
        a.extend(c.args().into_iter().filter(|x| !x.starts_with("--uuid")));
        run(d, tool, &a)
    };
    // Each accepts the other's image.
    let v = verify("veritysetup", &ours, &data);
    assert!(
        v.status.success(),
        "{what}: veritysetup rejects ours: {}",
        String::from_utf8_lossy(&v.stderr)
    );
    let v = verify(MBHASH, &theirs, &data);
    assert!(
        v.status.success(),
        "{what}: we reject veritysetup's: {}",
        String::from_utf8_lossy(&v.stderr)
    );
    if !corrupt {
        return;
    }
    // One byte in the last data block.
    let bad = d.join("bad");
    std::fs::copy(&data, &bad).unwrap();
    let block = c.blocks as u64 - 1;
    flip(&bad, block * c.data_block as u64 + 3);
    assert!(
        !verify("veritysetup", &ours, &bad).status.success(),
        "{what}: veritysetup misses bad data"
    );
    let v = verify(MBHASH, &ours, &bad);
    assert_eq!(v.status.code(), Some(1), "{what}: bad data");
    let text = String::from_utf8(v.stdout).unwrap();
    assert_eq!(text, format!("corrupt data block {block}\n"), "{what}");
    // One byte of a stored hash in each level's first block.
    let levels = c.levels();
    let base = if c.superblock { c.hash_block } else { 0 };
    let mut at = base;
    for level in (0..levels.len()).rev() {
        let image = d.join("badhash");
        std::fs::copy(&ours, &image).unwrap();
        flip(&image, at as u64 + 1);
        assert!(
            !verify("veritysetup", &image, &data).status.success(),
            "{what}: veritysetup misses level {level}"
        );
        let v = verify(MBHASH, &image, &data);
        assert_eq!(v.status.code(), Some(1), "{what}: level {level}");
        let text = String::from_utf8(v.stdout).unwrap();
        let line = format!(
            "corrupt hash block {} (level {level}, block 0 of the level, offset {at})\n",
            at / c.hash_block
        );
        assert!(text.contains(&line), "{what}: level {level}: {text}");
        at += levels[level] * c.hash_block;
    }
}

#[test]
fn dmverity_images_match_veritysetup_and_verify_both_ways() {
    if !tool_or_skip("veritysetup", "cryptsetup-bin") {
        return;
    }
    let dir = temp_dir("dm");
    let algs = [
        "sha256",
        "sha512",
        "sha224",
        "sha384",
        "sha512-256",
        "sha512-224",
    ];
    let salts = salts(256);
    let mut n = 0u64;
    for alg in algs {
        for version in [1, 0] {
            for superblock in [true, false] {
                // (data block, hash block, data blocks, tail bytes, corrupt?)
                let mut shapes: Vec<(usize, usize, usize, usize, bool)> = vec![
                    (4096, 4096, 1, 0, false),
                    (4096, 4096, 1, 4095, false),
                    (4096, 4096, 2, 1, false),
                    (1024, 4096, 3, 100, false),
                    (4096, 512, 20, 0, true),
                ];
                let probe = Dm {
                    alg,
                    version,
                    superblock,
                    data_block: 512,
                    hash_block: 512,
                    salt: String::new(),
                    blocks: 1,
                    tail: 0,
                };
                let per = probe.per_block();
                // Two and three levels with small blocks.
                shapes.push((512, 512, per + 1, 0, false));
                shapes.push((512, 512, per * per + 1, 511, true));
                for (data_block, hash_block, blocks, tail, corrupt) in shapes {
                    let c = Dm {
                        alg,
                        version,
                        superblock,
                        data_block,
                        hash_block,
                        salt: salts[(n % 3) as usize].clone(),
                        blocks,
                        tail,
                    };
                    dm_case(&dir.0, &c, n, corrupt);
                    n += 1;
                }
            }
        }
    }
}

#[test]
fn dmverity_every_block_size_matches_veritysetup() {
    if !tool_or_skip("veritysetup", "cryptsetup-bin") {
        return;
    }
    let dir = temp_dir("dmbs");
    for (i, log) in (9..=19).enumerate() {
        let bs = 1usize << log;
        // Data and hash blocks of this size, then each against 4 KiB.
        for (data_block, hash_block) in [(bs, bs), (bs, 4096), (4096, bs)] {
            let c = Dm {
                alg: if i % 2 == 0 { "sha256" } else { "sha512" },
                version: (i % 2) as u32,
                superblock: i % 3 != 0,
                data_block,
                hash_block,
                salt: "0f".into(),
                blocks: 3,
                tail: 1,
            };
            dm_case(&dir.0, &c, i as u64, data_block == hash_block);
        }
    }
}

#[test]
fn bad_input_is_one_line_and_exit_2_and_leaves_no_partial_image() {
    let dir = temp_dir("bad");
    let d = &dir.0;
    std::fs::write(d.join("data"), bytes(64 * 4096, 9)).unwrap();
    std::fs::write(d.join("small"), bytes(100, 9)).unwrap();
    let out = ok(
        d,
        MBHASH,
        &s(&["verity", "format", "data", "hash", "-s", "01"]),
    );
    let root = out
        .lines()
        .find_map(|l| l.strip_prefix("Root hash:      \t"))
        .unwrap()
        .to_string();
    let good = std::fs::read(d.join("hash")).unwrap();
    std::fs::write(d.join("short"), &good[..good.len() - 1]).unwrap();
    let mut other = good.clone();
    other[72..80].copy_from_slice(&1000u64.to_le_bytes());
    std::fs::write(d.join("othersb"), &other).unwrap();
    let cases: &[(&[&str], &str)] = &[
        (&["digest", "missing"], "cannot open 'missing'"),
        (&["digest", "."], "'.' is a directory"),
        (
            &["digest", "--block-size=3000", "data"],
            "invalid block size 3000",
        ),
        (
            &["digest", "--block-size=512", "data"],
            "invalid block size 512",
        ),
        (
            &["digest", "--block-size=131072", "data"],
            "invalid block size 131072",
        ),
        (&["digest", "--salt=abc", "data"], "not a hex string"),
        (&["digest", "--salt=zz", "data"], "not a hex string"),
        (
            &["digest", &format!("--salt={}", "00".repeat(33)), "data"],
            "salt too long: 33 bytes",
        ),
        (
            &["digest", "--hash-alg=sha1", "data"],
            "unknown hash algorithm 'sha1'",
        ),
        (
            &["format", "data", "hash", "--data-block-size=1000"],
            "invalid data block size 1000",
        ),
        (
            &["format", "data", "hash", "--hash-block-size=1048576"],
            "invalid hash block size",
        ),
        (
            &[
                "format",
                "data",
                "hash",
                &format!("--salt={}", "00".repeat(257)),
            ],
            "salt too long: 257 bytes",
        ),
        (&["format", "small", "hash"], "no whole 4096-byte block"),
        (&["format", "data", "hash", "--data-blocks=65"], "not 65"),
        (
            &["format", "data", "hash", "--format=2"],
            "invalid format '2'",
        ),
        (
            &["verify", "data", "hash", &root[..60]],
            "root hash has 30 bytes",
        ),
        (
            &["verify", "data", "hash", &format!("{root}00")],
            "root hash has 33 bytes",
        ),
        (&["verify", "data", "short", &root], "hash image truncated"),
        (&["verify", "data", "othersb", &root], "not 1000"),
        (
            &["verify", "data", "hash", &root, "--hash=sha512"],
            "superblock's hash algorithm",
        ),
        (
            &["verify", "data", "hash", &root, "--salt=02"],
            "superblock's salt",
        ),
        (&["verify", "data", "data", &root], "no verity signature"),
        (
            &["verify", "data", "small", &root],
            "too short for a superblock",
        ),
        (&["verify", "data", "hash"], "expected DATA HASH ROOT_HASH"),
    ];
    for (args, expect) in cases {
        let mut a = s(&["verity"]);
        a.extend(s(args));
        let out = run(d, MBHASH, &a);
        let err = String::from_utf8(out.stderr).unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
        assert!(
            err.starts_with("mbhash verity: ") && err.contains(expect),
            "{args:?}: {err}"
        );
        // The good image is untouched and nothing is left beside it.
        assert!(
            std::fs::read(d.join("hash")).unwrap() == good,
            "{args:?}: image changed"
        );
        let names: Vec<String> = std::fs::read_dir(d)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.starts_with('.'))
            .collect();
        assert!(names.is_empty(), "{args:?}: left {names:?}");
    }
    // The image verifies; a corrupt one exits 1.
    assert!(
        run(d, MBHASH, &s(&["verity", "verify", "data", "hash", &root]))
            .status
            .success()
    );
    flip(&d.join("data"), 5);
    let out = run(d, MBHASH, &s(&["verity", "verify", "data", "hash", &root]));
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        "corrupt data block 0\n"
    );
}

#[test]
fn threads_and_readers_give_the_same_trees() {
    let dir = temp_dir("jobs");
    let d = &dir.0;
    // Several chunks, a partial last block.
    std::fs::write(d.join("data"), bytes((5 << 20) + 12345, 3)).unwrap();
    let mut lines = Vec::new();
    for j in ["1", "2", "3", "8"] {
        lines.push(ok(
            d,
            MBHASH,
            &s(&[
                "verity",
                "digest",
                "-j",
                j,
                "--block-size=1024",
                "--salt=11",
                "data",
                &format!("--out-merkle-tree=t{j}"),
            ]),
        ));
        assert!(
            std::fs::read(d.join(format!("t{j}"))).unwrap() == std::fs::read(d.join("t1")).unwrap(),
            "-j {j}"
        );
    }
    assert!(lines.windows(2).all(|w| w[0] == w[1]), "{lines:?}");
}
