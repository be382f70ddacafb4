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
    // The file digest as fsverity prints it, with and without `sha256:`.
    let digest = line.split_whitespace().next().unwrap().to_string();
    let bare = digest["sha256:".len()..].to_string();
    let desc = std::fs::read(d.join("desc")).unwrap();
    let root = hex(&desc[16..48]);
    let fs_verify = |extra: &[&str], args: &[&str]| {
        let mut a = s(&[
            "verity",
            "verify",
            "--fs-verity",
            "--block-size=1024",
            "--salt=0102",
        ]);
        a.extend(s(extra));
        a.extend(s(args));
        run(d, MBHASH, &a)
    };
    for (extra, value) in [
        (&[][..], &digest),
        (&[], &bare),
        (&["--descriptor=desc"], &digest),
    ] {
        let out = fs_verify(extra, &["data", "tree", value]);
        assert!(
            out.status.success(),
            "{extra:?} {value}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    // `--print-root` prints the root the descriptor holds.
    let printed = ok(
        d,
        MBHASH,
        &s(&[
            "verity",
            "digest",
            "--block-size=1024",
            "--salt=0102",
            "--print-root",
            "--compact",
            "data",
        ]),
    );
    assert_eq!(printed, format!("{root}\n"));
    // The root given where the digest is expected: an error that says so.
    for extra in [&[][..], &["--descriptor=desc"]] {
        let out = fs_verify(extra, &["data", "tree", &root]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{extra:?}: {err}");
        assert!(err.contains("root hash, not the file digest"), "{err}");
    }
    // Zero bytes added inside the last block: the same blocks and tree,
    // another file digest (as fsverity computes it); the length differs
    // from the descriptor's. Both fail as corruption.
    std::fs::copy(d.join("data"), d.join("grown")).unwrap();
    let mut g = std::fs::read(d.join("grown")).unwrap();
    g.extend_from_slice(&[0, 0, 0]);
    std::fs::write(d.join("grown"), &g).unwrap();
    let theirs = ok(
        d,
        "fsverity",
        &s(&["digest", "grown", "--block-size=1024", "--salt=0102"]),
    );
    assert!(!theirs.starts_with(&digest), "fsverity sees the change");
    for (extra, expect) in [
        (&[][..], "file digest mismatch\n"),
        (
            &["--descriptor=desc"],
            "file size 1126303 bytes, the descriptor's 1126300 bytes\n",
        ),
    ] {
        let out = fs_verify(extra, &["grown", "tree", &digest]);
        assert_eq!(out.status.code(), Some(2), "{extra:?}");
        assert_eq!(String::from_utf8(out.stdout).unwrap(), expect, "{extra:?}");
    }
    // A tree file with a byte after the tree, or another algorithm's
    // digest: errors.
    let mut t = std::fs::read(d.join("tree")).unwrap();
    t.push(0);
    std::fs::write(d.join("longtree"), &t).unwrap();
    let out = fs_verify(&[], &["data", "longtree", &digest]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("bytes after its"));
    let out = fs_verify(&[], &["data", "tree", &format!("sha512:{bare}")]);
    assert_eq!(out.status.code(), Some(1));
    // One byte in data block 1000, then one in each level's first block.
    std::fs::copy(d.join("data"), d.join("bad")).unwrap();
    flip(&d.join("bad"), 1000 * bs as u64 + 7);
    // With the descriptor, its root hash blames the top block itself;
    // without, the digest does not match and the blocks are checked
    // against the stored top.
    let check = |data: &str, tree: &str, expect: &str| {
        for extra in [&["--descriptor=desc"][..], &[]] {
            let out = fs_verify(extra, &[data, tree, &digest]);
            assert_eq!(out.status.code(), Some(2), "{data} {tree}");
            let text = String::from_utf8(out.stdout).unwrap();
            if extra.is_empty() {
                assert!(text.ends_with("file digest mismatch\n") || text.contains(expect));
            } else {
                assert!(text.contains(expect), "{data} {tree}: {text}");
            }
        }
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
    // Exit 2 for corruption, 1 where only the root differs (one data
    // block: its hash is the root), as veritysetup.
    let theirs = verify("veritysetup", &ours, &bad).status.code();
    let want = if c.blocks == 1 { 1 } else { 2 };
    assert_eq!(theirs, Some(want), "{what}: veritysetup on bad data");
    let v = verify(MBHASH, &ours, &bad);
    assert_eq!(v.status.code(), theirs, "{what}: bad data");
    let text = String::from_utf8(v.stdout).unwrap();
    let line = if c.blocks == 1 {
        "root hash mismatch\n".to_string()
    } else {
        format!("corrupt data block {block}\n")
    };
    assert_eq!(text, line, "{what}");
    // One byte of a stored hash in each level's first block.
    let levels = c.levels();
    let base = if c.superblock { c.hash_block } else { 0 };
    let mut at = base;
    for level in (0..levels.len()).rev() {
        let image = d.join("badhash");
        std::fs::copy(&ours, &image).unwrap();
        flip(&image, at as u64 + 1);
        let theirs = verify("veritysetup", &image, &data).status.code();
        assert_eq!(theirs, Some(2), "{what}: veritysetup on level {level}");
        let v = verify(MBHASH, &image, &data);
        assert_eq!(v.status.code(), theirs, "{what}: level {level}");
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
                    (4096, 4096, 1, 4095, true),
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
fn bad_input_is_one_line_with_the_tools_exit_status_and_leaves_no_partial_image() {
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
    let long_fs_salt = format!("--salt={}", "00".repeat(33));
    let long_dm_salt = format!("--salt={}", "00".repeat(257));
    std::fs::write(d.join("short"), &good[..good.len() - 1]).unwrap();
    let mut other = good.clone();
    other[72..80].copy_from_slice(&1000u64.to_le_bytes());
    std::fs::write(d.join("othersb"), &other).unwrap();
    // The exit status of each, as the tool's: fsverity exits 2 on bad
    // usage and 1 on other errors, veritysetup 1 on errors and 4 for a
    // device it cannot open. `true`: the tool is run on the same arguments
    // and must exit the same (the others are checks the tools do not make,
    // or make otherwise).
    let cases: &[(&[&str], &str, u8, bool)] = &[
        (&["digest", "missing"], "cannot open 'missing'", 1, true),
        (&["digest", "."], "'.' is a directory", 1, true),
        (
            &["digest", "--block-size=3000", "data"],
            "invalid block size 3000",
            2,
            true,
        ),
        // fsverity takes 512-byte and 128 KiB blocks, the kernel does not.
        (
            &["digest", "--block-size=512", "data"],
            "invalid block size 512",
            2,
            false,
        ),
        (
            &["digest", "--block-size=131072", "data"],
            "invalid block size 131072",
            2,
            false,
        ),
        (
            &["digest", "--salt=abc", "data"],
            "not a hex string",
            2,
            true,
        ),
        (
            &["digest", "--salt=zz", "data"],
            "not a hex string",
            2,
            true,
        ),
        (
            &["digest", &long_fs_salt, "data"],
            "salt too long: 33 bytes",
            1,
            true,
        ),
        (
            &["digest", "--hash-alg=sha1", "data"],
            "unknown hash algorithm 'sha1'",
            2,
            true,
        ),
        (
            &["digest", "--compact=1", "data"],
            "takes no value",
            2,
            true,
        ),
        (&["digest"], "no FILE given", 2, true),
        (
            &["format", "data", "hash", "--data-block-size=1000"],
            "invalid data block size 1000",
            1,
            true,
        ),
        (
            &["format", "data", "hash", "--hash-block-size=1048576"],
            "invalid hash block size",
            1,
            true,
        ),
        (
            &["format", "data", "hash", &long_dm_salt],
            "salt too long: 257 bytes",
            1,
            true,
        ),
        (
            &["format", "small", "hash"],
            "no whole 4096-byte block",
            1,
            true,
        ),
        (
            &["format", "data", "hash", "--data-blocks=65"],
            "not 65",
            1,
            true,
        ),
        (
            &["format", "data", "hash", "--format=2"],
            "invalid format '2'",
            1,
            true,
        ),
        (
            &["format", "data", "hash", "--hash-offset=1000"],
            "invalid hash offset 1000",
            1,
            true,
        ),
        (
            &["format", "missing", "hash"],
            "cannot open 'missing'",
            4,
            true,
        ),
        (&["format", "data"], "expected DATA HASH", 1, true),
        (
            &["verify", "data", "hash", &root[..60]],
            "root hash has 30 bytes",
            1,
            true,
        ),
        (
            &["verify", "data", "hash", &format!("{root}00")],
            "root hash has 33 bytes",
            1,
            true,
        ),
        (
            &["verify", "data", "short", &root],
            "hash image truncated",
            1,
            true,
        ),
        (&["verify", "data", "othersb", &root], "not 1000", 1, false),
        (
            &["verify", "data", "hash", &root, "--hash=sha512"],
            "superblock's hash algorithm",
            1,
            false,
        ),
        (
            &["verify", "data", "hash", &root, "--salt=02"],
            "superblock's salt",
            1,
            false,
        ),
        (
            &["verify", "data", "data", &root],
            "no verity signature",
            1,
            true,
        ),
        (
            &["verify", "data", "small", &root],
            "too short for a superblock",
            1,
            true,
        ),
        (
            &["verify", "missing", "hash", &root],
            "cannot open 'missing'",
            4,
            true,
        ),
        (
            &["verify", "data", "missing", &root],
            "cannot open 'missing'",
            4,
            true,
        ),
        (
            &["verify", "data", "hash"],
            "expected DATA HASH ROOT_HASH",
            1,
            true,
        ),
        (
            &["verify", "--fs-verity", "missing", "hash", &root],
            "cannot open 'missing'",
            1,
            false,
        ),
        (
            &[
                "verify",
                "--fs-verity",
                "data",
                "hash",
                &root,
                "--root-hash-file=x",
            ],
            "not --root-hash-file",
            1,
            false,
        ),
    ];
    let have_tools =
        tool_or_skip("fsverity", "fsverity") && tool_or_skip("veritysetup", "cryptsetup-bin");
    let scratch = d.join("scratch");
    for &(args, expect, code, compare) in cases {
        let mut a = s(&["verity"]);
        a.extend(s(args));
        let out = run(d, MBHASH, &a);
        let err = String::from_utf8(out.stderr).unwrap();
        assert_eq!(out.status.code(), Some(i32::from(code)), "{args:?}: {err}");
        if compare && have_tools {
            // The tool writes its HASH beside, never over the good one.
            let tool = if args[0] == "digest" {
                "fsverity"
            } else {
                "veritysetup"
            };
            let theirs: Vec<String> = args
                .iter()
                .map(|x| {
                    if *x == "hash" && args[0] == "format" {
                        scratch.display().to_string()
                    } else {
                        x.to_string()
                    }
                })
                .collect();
            let t = run(d, tool, &theirs);
            let _ = std::fs::remove_file(&scratch);
            assert_eq!(t.status.code(), Some(i32::from(code)), "{tool} {args:?}");
        }
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
    assert_eq!(out.status.code(), Some(2));
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

/// The mode bits of `p` (following links).
fn mode(p: &Path) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(p).unwrap().permissions().mode() & 0o7777
}

fn set_mode(p: &Path, m: u32) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(p, std::fs::Permissions::from_mode(m)).unwrap();
}

/// Runs `prog ARGS` in `ours` (mbhash verity) and `theirs` (the tool) set
/// up alike by `setup`, and checks that every file of the two directories
/// ends the same: kind (a link stays a link), bytes and mode.
fn same_outputs(d: &Path, tool: &str, args: &[&str], setup: &dyn Fn(&Path)) -> (Output, Output) {
    let (ours, theirs) = (d.join("ours"), d.join("theirs"));
    for x in [&ours, &theirs] {
        let _ = std::fs::remove_dir_all(x);
        std::fs::create_dir_all(x).unwrap();
        setup(x);
    }
    let t = run(&theirs, tool, &s(args));
    let mut a = s(&["verity"]);
    a.extend(s(args));
    let o = run(&ours, MBHASH, &a);
    assert_eq!(
        o.status.code(),
        t.status.code(),
        "{args:?}: {}",
        String::from_utf8_lossy(&t.stderr)
    );
    let mut names: Vec<_> = std::fs::read_dir(&theirs)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    names.sort();
    let mut ours_names: Vec<_> = std::fs::read_dir(&ours)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    ours_names.sort();
    assert_eq!(ours_names, names, "{args:?}: the files made");
    for n in names {
        let (a, b) = (ours.join(&n), theirs.join(&n));
        let what = format!("{args:?}: {}", Path::new(&n).display());
        let (la, lb) = (
            std::fs::symlink_metadata(&a).unwrap(),
            std::fs::symlink_metadata(&b).unwrap(),
        );
        assert_eq!(
            la.file_type().is_symlink(),
            lb.file_type().is_symlink(),
            "{what}: link"
        );
        if la.file_type().is_symlink() {
            assert_eq!(
                std::fs::read_link(&a).unwrap(),
                std::fs::read_link(&b).unwrap()
            );
            continue;
        }
        assert!(
            std::fs::read(&a).unwrap() == std::fs::read(&b).unwrap(),
            "{what}: bytes"
        );
        assert_eq!(mode(&a), mode(&b), "{what}: mode {:o}", mode(&a));
    }
    (o, t)
}

#[test]
fn outputs_go_through_links_keep_modes_and_bytes_as_the_tools() {
    if !tool_or_skip("veritysetup", "cryptsetup-bin") || !tool_or_skip("fsverity", "fsverity") {
        return;
    }
    let dir = temp_dir("out");
    let d = &dir.0;
    let data = d.join("data");
    std::fs::write(&data, bytes(40 * 4096 + 5, 21)).unwrap();
    let data_arg = data.display().to_string();
    let old = bytes(300 * 1024, 22);
    let old = &old;
    // HASH and the root hash file: new files (veritysetup: 0600).
    same_outputs(
        d,
        "veritysetup",
        &[
            "format",
            &data_arg,
            "hash",
            "-s",
            "01",
            "--uuid",
            UUID,
            "--root-hash-file=rh",
        ],
        &|_| {},
    );
    // Through links to existing files, larger than the outputs: HASH is
    // written in place and keeps its bytes after the image, the root hash
    // file is cut to the hash; both keep their modes.
    let linked = |x: &Path| {
        std::fs::write(x.join("img"), old).unwrap();
        set_mode(&x.join("img"), 0o640);
        std::fs::write(x.join("root.txt"), old).unwrap();
        set_mode(&x.join("root.txt"), 0o604);
        std::os::unix::fs::symlink("img", x.join("hash")).unwrap();
        std::os::unix::fs::symlink("root.txt", x.join("rh")).unwrap();
    };
    for offset in ["0", "8192"] {
        same_outputs(
            d,
            "veritysetup",
            &[
                "format",
                &data_arg,
                "hash",
                "-s",
                "01",
                "--uuid",
                UUID,
                "--root-hash-file=rh",
                &format!("--hash-offset={offset}"),
            ],
            &linked,
        );
    }
    // A link to nothing: as HASH, veritysetup finds no device (exit 4); as
    // the root hash file, it makes the link's target.
    same_outputs(
        d,
        "veritysetup",
        &[
            "format",
            &data_arg,
            "hash",
            "-s",
            "01",
            "--uuid",
            UUID,
            "--root-hash-file=rh",
        ],
        &|x| std::os::unix::fs::symlink("rh.txt", x.join("rh")).unwrap(),
    );
    let (o, _) = same_outputs(
        d,
        "veritysetup",
        &["format", &data_arg, "hash", "-s", "01"],
        &|x| std::os::unix::fs::symlink("nothing", x.join("hash")).unwrap(),
    );
    assert_eq!(o.status.code(), Some(4));
    // fsverity's outputs: new files 0666 less the umask, existing files
    // (through links) cut and rewritten with their modes, links to nothing
    // followed.
    let args = [
        "digest",
        &data_arg,
        "--block-size=1024",
        "--out-merkle-tree=tree",
        "--out-descriptor=desc",
    ];
    same_outputs(d, "fsverity", &args, &|_| {});
    same_outputs(d, "fsverity", &args, &|x| {
        std::fs::write(x.join("t"), old).unwrap();
        set_mode(&x.join("t"), 0o620);
        std::os::unix::fs::symlink("t", x.join("tree")).unwrap();
        std::os::unix::fs::symlink("d", x.join("desc")).unwrap();
    });
}

#[test]
fn a_writable_hash_in_a_read_only_directory_is_written_in_place() {
    if !tool_or_skip("veritysetup", "cryptsetup-bin") {
        return;
    }
    let dir = temp_dir("rodir");
    let d = &dir.0;
    std::fs::write(d.join("data"), bytes(20 * 4096, 23)).unwrap();
    let ro = d.join("ro");
    std::fs::create_dir(&ro).unwrap();
    std::fs::write(ro.join("hash"), bytes(50000, 24)).unwrap();
    std::fs::copy(ro.join("hash"), d.join("want")).unwrap();
    let args = s(&["format", "data", "want", "-s", "01", "--uuid", UUID]);
    let want = ok(d, "veritysetup", &args);
    set_mode(&ro.join("hash"), 0o666);
    set_mode(&ro, 0o555);
    let mut cmd = vec!["verity".to_string()];
    cmd.extend(s(&[
        "format", "data", "ro/hash", "-s", "01", "--uuid", UUID,
    ]));
    // Root writes any directory: run as nobody where the test is root.
    let root = euid() == 0;
    let out = if root {
        if !Command::new("setpriv")
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success())
        {
            mbhash_test_support::skip_or_require(
                "verity",
                "the read-only directory test",
                "running as root without setpriv",
            );
            return;
        }
        let mut a = s(&["--reuid=65534", "--regid=65534", "--clear-groups", MBHASH]);
        a.extend(cmd);
        set_mode(d, 0o755);
        run(d, "setpriv", &a)
    } else {
        run(d, MBHASH, &cmd)
    };
    set_mode(&ro, 0o755);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        want.replace("want", "ro/hash")
    );
    assert!(std::fs::read(ro.join("hash")).unwrap() == std::fs::read(d.join("want")).unwrap());
    let left: Vec<_> = std::fs::read_dir(&ro)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(left.len(), 1, "{left:?}");
}

/// The effective user id (from /proc, as the test may not link libc).
fn euid() -> u32 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let line = status.lines().find(|l| l.starts_with("Uid:")).unwrap();
    line.split_whitespace().nth(2).unwrap().parse().unwrap()
}

#[test]
fn hash_offset_and_verify_exit_status_match_veritysetup() {
    if !tool_or_skip("veritysetup", "cryptsetup-bin") {
        return;
    }
    let dir = temp_dir("offset");
    let d = &dir.0;
    std::fs::write(d.join("data"), bytes(300 * 512 + 7, 25)).unwrap();
    std::fs::write(d.join("one"), bytes(4096, 26)).unwrap();
    let old = bytes(200 * 1024, 27);
    for superblock in [true, false] {
        for (hb, offset) in [
            (4096, 0),
            (4096, 512),
            (4096, 4608),
            (512, 4608),
            (1024, 8192),
        ] {
            let mut args = s(&["format", "../data", "hash", "-s", "ab"]);
            args.push(format!("--hash-offset={offset}"));
            args.push(format!("--hash-block-size={hb}"));
            args.push("--data-block-size=512".into());
            args.push(if superblock {
                format!("--uuid={UUID}")
            } else {
                "--no-superblock".into()
            });
            let what = format!("sb {superblock} hash block {hb} offset {offset}");
            // Over an existing file of other bytes, and as a new file.
            for existing in [true, false] {
                let (o, t) = same_outputs(
                    d,
                    "veritysetup",
                    &args.iter().map(String::as_str).collect::<Vec<_>>(),
                    &|x| {
                        if existing {
                            std::fs::write(x.join("hash"), &old).unwrap();
                        }
                    },
                );
                assert!(o.status.success(), "{what}");
                assert_eq!(o.stdout, t.stdout, "{what}: summary");
            }
            let summary = ok(&d.join("theirs"), "veritysetup", &args);
            let root = summary
                .lines()
                .find_map(|l| l.strip_prefix("Root hash:      \t"))
                .unwrap()
                .to_string();
            // Verified both ways, at the offset (and not without it, where
            // it moves the superblock).
            let mut v = s(&["verify", "data"]);
            v.push(String::new());
            v.push(root.clone());
            v.extend(
                args[3..]
                    .iter()
                    .filter(|a| !a.starts_with("--uuid"))
                    .cloned(),
            );
            for (tool, image) in [("veritysetup", "ours/hash"), (MBHASH, "theirs/hash")] {
                let mut a = v.clone();
                a[2] = image.into();
                if tool == MBHASH {
                    a.insert(0, "verity".into());
                }
                let out = run(d, tool, &a);
                assert!(
                    out.status.success(),
                    "{what}: {tool} {image}: {}",
                    String::from_utf8_lossy(&out.stderr)
                );
            }
            if superblock && offset != 0 {
                let mut a = v.clone();
                a[2] = "ours/hash".into();
                a.retain(|x| !x.starts_with("--hash-offset"));
                let theirs = run(d, "veritysetup", &a).status.code();
                a.insert(0, "verity".into());
                assert_eq!(
                    run(d, MBHASH, &a).status.code(),
                    theirs,
                    "{what}: no offset"
                );
            }
        }
    }
    // Exit status of verify: a root hash that data and image agree on but
    // is not theirs is 1, corruption 2; a one-block tree's corrupt block
    // changes the root only.
    let fmt = |data: &str| {
        let out = ok(d, "veritysetup", &s(&["format", data, "h", "-s", "01"]));
        out.lines()
            .find_map(|l| l.strip_prefix("Root hash:      \t"))
            .unwrap()
            .to_string()
    };
    let status = |args: &[&str]| {
        let t = run(d, "veritysetup", &s(args)).status.code();
        let mut a = s(&["verity"]);
        a.extend(s(args));
        let o = run(d, MBHASH, &a);
        assert_eq!(o.status.code(), t, "{args:?}");
        (t, String::from_utf8(o.stdout).unwrap())
    };
    let root = fmt("data");
    let mut wrong = root.clone().into_bytes();
    wrong[0] = if wrong[0] == b'0' { b'1' } else { b'0' };
    let wrong = String::from_utf8(wrong).unwrap();
    assert_eq!(status(&["verify", "data", "h", &root]).0, Some(0));
    assert_eq!(
        status(&["verify", "data", "h", &wrong]),
        (Some(1), "root hash mismatch\n".into())
    );
    std::fs::copy(d.join("data"), d.join("bad")).unwrap();
    flip(&d.join("bad"), 9);
    assert_eq!(status(&["verify", "bad", "h", &root]).0, Some(2));
    let root = fmt("one");
    std::fs::copy(d.join("one"), d.join("bad")).unwrap();
    flip(&d.join("bad"), 9);
    assert_eq!(
        status(&["verify", "bad", "h", &root]),
        (Some(1), "root hash mismatch\n".into())
    );
}

#[test]
fn a_failed_format_leaves_an_existing_hash_as_it_was() {
    let dir = temp_dir("failed");
    let d = &dir.0;
    std::fs::write(d.join("data"), bytes(64 * 4096, 28)).unwrap();
    let old = bytes(100_000, 29);
    std::fs::write(d.join("hash"), &old).unwrap();
    std::os::unix::fs::symlink("hash", d.join("link")).unwrap();
    // The engine fails after the superblock is written (to the stage).
    for target in ["hash", "link"] {
        let out = Command::new(MBHASH)
            .args(["verity", "format", "data", target, "-s", "01"])
            .current_dir(d)
            .env("MBHASH_SHA256_ENGINE", "no-such-engine")
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1), "{target}");
        assert!(String::from_utf8_lossy(&out.stderr).contains("no-such-engine"));
        assert!(
            std::fs::read(d.join("hash")).unwrap() == old,
            "{target}: written"
        );
        let names: Vec<_> = std::fs::read_dir(d)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names.len(), 3, "{target}: {names:?}");
    }
}
