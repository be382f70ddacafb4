//! `mbhash sum` against GNU coreutils (`sha256sum` and family), byte for
//! byte: outputs, messages (with the program name swapped) and exit codes,
//! on a generated tree. Without coreutils every test prints SKIPPED.

use mbhash_test_support::{Rng, TempDir};
use std::ffi::{OsStr, OsString};
use std::os::unix::ffi::OsStrExt;
use std::path::Path;
use std::process::{Command, Output, Stdio};

const MBHASH: &str = env!("CARGO_BIN_EXE_mbhash");

/// A scratch directory of this test file, removed on drop.
fn temp_dir(name: &str) -> TempDir {
    TempDir::new("mbhash-sum", name)
}

/// True if `tool` runs; else prints why the test is skipped.
fn have(tool: &str) -> bool {
    let ok = Command::new(tool)
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !ok {
        mbhash_test_support::skip_or_require(
            "coreutils",
            &format!("comparison with {tool}"),
            &format!("{tool} (GNU coreutils) not found"),
        );
    }
    ok
}

/// Runs `prog args` in `dir` with `stdin` as standard input.
fn run(dir: &Path, prog: &str, args: &[OsString], stdin: &[u8]) -> Output {
    use std::io::Write;
    let mut child = Command::new(prog)
        .args(args)
        .current_dir(dir)
        .env("LC_ALL", "C.UTF-8")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("{prog}: {e}"));
    let mut input = child.stdin.take().unwrap();
    let data = stdin.to_vec();
    let feeder = std::thread::spawn(move || {
        let _ = input.write_all(&data);
    });
    let out = child.wait_with_output().unwrap();
    feeder.join().unwrap();
    out
}

fn os(args: &[&str]) -> Vec<OsString> {
    args.iter().map(OsString::from).collect()
}

/// Runs `mbhash sum ARGS` and `TOOL ARGS` and asserts the same standard
/// output, the same standard error (with `TOOL` read as `mbhash`) and the
/// same exit code; returns mbhash's output.
fn same(dir: &Path, tool: &str, algo: &str, args: &[OsString], stdin: &[u8]) -> Output {
    same_as(dir, &[tool], algo, args, stdin)
}

/// [`same`], the tool given as a command and its first arguments
/// (`["cksum", "-a", "sm3"]`).
fn same_as(dir: &Path, cmd: &[&str], algo: &str, args: &[OsString], stdin: &[u8]) -> Output {
    let tool = cmd[0];
    let mut ours_args = os(&["sum", "-a", algo]);
    ours_args.extend_from_slice(args);
    let ours = run(dir, MBHASH, &ours_args, stdin);
    let theirs = run(dir, tool, &[os(&cmd[1..]), args.to_vec()].concat(), stdin);
    let what = format!("{cmd:?} {:?}", args);
    let ours_err = String::from_utf8_lossy(&ours.stderr);
    assert!(!ours_err.contains("panicked"), "{what}: {ours_err}");
    assert!(
        ours.stdout == theirs.stdout,
        "{what}: stdout differs\n--- mbhash\n{}\n--- {tool}\n{}",
        String::from_utf8_lossy(&ours.stdout),
        String::from_utf8_lossy(&theirs.stdout)
    );
    let theirs_err = String::from_utf8_lossy(&theirs.stderr)
        .replace(&format!("{tool}: "), "mbhash: ")
        .replace(&format!("Try '{tool} --help'"), "Try 'mbhash sum --help'");
    assert_eq!(ours_err, theirs_err, "{what}: stderr differs");
    assert_eq!(
        ours.status.code(),
        theirs.status.code(),
        "{what}: exit code"
    );
    ours
}

/// Deterministic pseudo-random bytes.
fn bytes(seed: u64, len: usize) -> Vec<u8> {
    Rng::new(seed).bytes(len)
}

fn write(dir: &Path, name: &[u8], data: &[u8]) -> OsString {
    let name = OsStr::from_bytes(name).to_os_string();
    let path = dir.join(&name);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, data).unwrap();
    name
}

/// A tree of files of awkward sizes and names; returns their names in a
/// scrambled order (the order of the command line).
fn tree(dir: &Path) -> Vec<OsString> {
    let mut names = Vec::new();
    // Sizes at the padding edges of both families and at the 256 KiB chunk.
    let sizes = [
        0usize,
        1,
        3,
        55,
        56,
        63,
        64,
        65,
        111,
        112,
        119,
        120,
        127,
        128,
        129,
        1000,
        (256 << 10) - 1,
        256 << 10,
        (256 << 10) + 1,
        (512 << 10) + 77,
        3 << 20,
    ];
    for (i, &len) in sizes.iter().enumerate() {
        names.push(write(
            dir,
            format!("size/s{len:07}").as_bytes(),
            &bytes(i as u64, len),
        ));
    }
    // Enough small files to fill many lanes, in two directories.
    for i in 0..150u64 {
        let len = (i as usize * 7919) % 20_000;
        let sub = if i % 3 == 0 { "many/b" } else { "many/a" };
        names.push(write(
            dir,
            format!("{sub}/f{i:03}").as_bytes(),
            &bytes(1000 + i, len),
        ));
    }
    let odd: [&[u8]; 10] = [
        b"odd/with space",
        b"odd/back\\slash",
        b"odd/new\nline",
        b"odd/car\rreturn",
        b"odd/tab\tname",
        b"odd/star*",
        b"odd/both\\and\nnewline",
        "odd/\u{fc}n\u{ef}code".as_bytes(),
        b"odd/a.txt",
        b"odd/a/inner",
    ];
    for (i, name) in odd.iter().enumerate() {
        names.push(write(dir, name, &bytes(5000 + i as u64, 100 + i * 10)));
    }
    names.push(write(dir, b"odd/empty", b""));
    // Scramble the order: the output must follow the arguments.
    let n = names.len();
    (0..n).map(|i| names[(i * 37) % n].clone()).collect()
}

/// A 100 MiB file, made quickly from one random MiB varied per MiB.
fn big_file(dir: &Path) -> OsString {
    use std::io::Write;
    let name = OsString::from("big.bin");
    let mut f = std::io::BufWriter::new(std::fs::File::create(dir.join(&name)).unwrap());
    let mut block = bytes(77, 1 << 20);
    for i in 0..100u32 {
        block[..4].copy_from_slice(&i.to_le_bytes());
        f.write_all(&block).unwrap();
    }
    f.flush().unwrap();
    name
}

const TOOLS: [(&str, &str); 4] = [
    ("sha256sum", "sha256"),
    ("sha512sum", "sha512"),
    ("sha224sum", "sha224"),
    ("sha384sum", "sha384"),
];

#[test]
fn sums_match_coreutils() {
    if !TOOLS.iter().all(|(t, _)| have(t)) {
        return;
    }
    let tmp = temp_dir("sums");
    let dir = &tmp.0;
    let files = tree(dir);
    let big = big_file(dir);
    for (tool, algo) in TOOLS {
        let mut args = files.clone();
        if matches!(algo, "sha256" | "sha512") {
            args.insert(files.len() / 2, big.clone());
        }
        same(dir, tool, algo, &args, b"");
        for flag in ["--tag", "-z", "-b"] {
            let mut with = os(&[flag]);
            with.extend_from_slice(&files);
            same(dir, tool, algo, &with, b"");
        }
    }
    // One thread, and the BSD form with escapes and NUL ends together.
    let mut args = os(&["-j", "1", "--tag", "-z"]);
    args.extend_from_slice(&files);
    let ours = run(dir, MBHASH, &[os(&["sum"]), args.clone()].concat(), b"");
    let theirs = run(dir, "sha256sum", &args[2..], b"");
    assert_eq!(ours.stdout, theirs.stdout);
}

#[test]
fn single_files_and_stdin_match_coreutils() {
    if !have("sha256sum") || !have("sha512sum") {
        return;
    }
    let tmp = temp_dir("single");
    let dir = &tmp.0;
    let data = bytes(9, (1 << 20) + 333);
    let name = write(dir, b"one", &data);
    for (tool, algo) in [("sha256sum", "sha256"), ("sha512sum", "sha512")] {
        // One file: the one-stream path, with and without a reader thread.
        same(dir, tool, algo, std::slice::from_ref(&name), b"");
        let mut ours_args = os(&["sum", "-j", "1", "-a", algo]);
        ours_args.push(name.clone());
        let theirs = run(dir, tool, std::slice::from_ref(&name), b"");
        assert_eq!(run(dir, MBHASH, &ours_args, b"").stdout, theirs.stdout);
        // Standard input: no argument, `-`, and `-` among files.
        same(dir, tool, algo, &[], &data);
        same(dir, tool, algo, &os(&["-"]), &data);
        same(dir, tool, algo, &os(&["--tag", "-"]), b"");
        same(
            dir,
            tool,
            algo,
            &[name.clone(), "-".into(), name.clone()],
            &data,
        );
        // A list of one file (the one-stream path in check mode), good
        // and bad.
        let list = run(dir, tool, std::slice::from_ref(&name), b"").stdout;
        same(dir, tool, algo, &os(&["-c"]), &list);
        let mut bad = list.clone();
        bad[0] = if bad[0] == b'0' { b'1' } else { b'0' };
        bad.extend_from_slice(b"junk\n");
        same(dir, tool, algo, &os(&["-c", "-"]), &bad);
    }
}

#[test]
fn recursion_is_sorted_like_find_and_sort() {
    if !have("sha256sum") || !have("find") || !have("sort") || !have("xargs") {
        return;
    }
    let tmp = temp_dir("recurse");
    let dir = &tmp.0;
    tree(dir);
    let ours = run(
        dir,
        MBHASH,
        &os(&["sum", "-r", "-z", "size", "odd", "many"]),
        b"",
    );
    assert!(ours.status.success());
    let mut want = Vec::new();
    for sub in ["size", "odd", "many"] {
        let list = Command::new("sh")
            .arg("-c")
            .arg(format!(
                "find {sub} -type f -print0 | LC_ALL=C sort -z | xargs -0 sha256sum -z"
            ))
            .current_dir(dir)
            .output()
            .unwrap();
        assert!(list.status.success());
        want.extend_from_slice(&list.stdout);
    }
    assert!(
        ours.stdout == want,
        "mbhash sum -r differs from find | sort | sha256sum\n{}\n---\n{}",
        String::from_utf8_lossy(&ours.stdout),
        String::from_utf8_lossy(&want)
    );
    // A trailing slash joins without doubling it; `.` gives `./` paths.
    let slash = run(dir, MBHASH, &os(&["sum", "-r", "odd/a/"]), b"");
    assert!(String::from_utf8_lossy(&slash.stdout).ends_with("  odd/a/inner\n"));
}

#[test]
fn errors_match_coreutils() {
    if !have("sha256sum") {
        return;
    }
    let tmp = temp_dir("errors");
    let dir = &tmp.0;
    let a = write(dir, b"a", b"abc");
    write(dir, b"d/x", b"x");
    let args = [
        a.clone(),
        "missing".into(),
        "d".into(),
        "no such:file".into(),
        OsStr::from_bytes(b"bad\nname").into(),
        a.clone(),
    ];
    let out = same(dir, "sha256sum", "sha256", &args, b"");
    assert_eq!(out.status.code(), Some(1));
    // Usage errors: coreutils' wording and status.
    for bad in [
        &["--bogus"][..],
        &["-x"],
        &["--quiet", "a"],
        &["-c", "--tag", "a"],
    ] {
        same(dir, "sha256sum", "sha256", &os(bad), b"");
    }

    // Permission denied, where this user is refused (not as root).
    let locked = write(dir, b"locked", b"secret");
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(dir.join(&locked), std::fs::Permissions::from_mode(0o000)).unwrap();
    if std::fs::read(dir.join(&locked)).is_err() {
        same(
            dir,
            "sha256sum",
            "sha256",
            &[a.clone(), locked.clone(), a],
            b"",
        );
    } else {
        mbhash_test_support::skip_or_require(
            "unprivileged",
            "permission test",
            "files are readable by this user (root?)",
        );
    }
}

/// A checksum list made by coreutils, then files corrupted and removed.
fn check_fixture(dir: &Path, tool: &str) -> (OsString, OsString) {
    check_fixture_of(dir, &[tool])
}

/// [`check_fixture`], the tool a command and its first arguments; its
/// lists are untagged, with a tagged section.
fn check_fixture_of(dir: &Path, cmd: &[&str]) -> (OsString, OsString) {
    let files = tree(dir);
    let mut untagged = os(&cmd[1..]);
    if cmd[0] == "cksum" {
        untagged.push("--untagged".into());
    }
    let good = run(dir, cmd[0], &[untagged, files.clone()].concat(), b"");
    assert!(good.status.success());
    std::fs::write(dir.join("good.sums"), &good.stdout).unwrap();
    let mut tagged_args = os(&cmd[1..]);
    tagged_args.push("--tag".into());
    tagged_args.extend(files.iter().take(5).cloned());
    let tagged = run(dir, cmd[0], &tagged_args, b"");

    // The bad list: the good one, a tag section, junk, comments, blank
    // and CRLF lines; then one file changed and one removed.
    let mut bad = good.stdout.clone();
    bad.extend_from_slice(&tagged.stdout);
    bad.extend_from_slice(b"this line is junk\n# a comment\n\n");
    let first_line = good.stdout.split(|&b| b == b'\n').next().unwrap().to_vec();
    let mut crlf = first_line.clone();
    crlf.extend_from_slice(b"\r\n");
    bad.extend_from_slice(&crlf);
    bad.extend_from_slice(&first_line.to_ascii_uppercase()[..first_line.len()]);
    bad.extend_from_slice(b"\n");
    std::fs::write(dir.join("bad.sums"), &bad).unwrap();
    std::fs::write(dir.join("many/a/f001"), b"changed").unwrap();
    std::fs::remove_file(dir.join("many/a/f002")).unwrap();
    std::fs::write(dir.join("odd/new\nline"), b"changed too").unwrap();
    ("good.sums".into(), "bad.sums".into())
}

#[test]
fn check_mode_matches_coreutils() {
    if !have("sha256sum") || !have("sha512sum") {
        return;
    }
    let tmp = temp_dir("check");
    let dir = &tmp.0;
    let (good, bad) = check_fixture(dir, "sha256sum");
    let flags: [&[&str]; 10] = [
        &[],
        &["--quiet"],
        &["--status"],
        &["--warn"],
        &["--strict"],
        &["--ignore-missing"],
        &["--ignore-missing", "--quiet"],
        &["--status", "--warn"],
        &["--warn", "--quiet"],
        &["--strict", "--ignore-missing", "--status"],
    ];
    for f in flags {
        for lists in [
            vec![good.clone()],
            vec![bad.clone()],
            vec![good.clone(), bad.clone()],
        ] {
            let mut args = os(&["-c"]);
            args.extend(f.iter().map(OsString::from));
            args.extend(lists);
            same(dir, "sha256sum", "sha256", &args, b"");
        }
    }
    // A list on standard input, a missing list, a directory as a list, and
    // lists with nothing to check.
    let list = std::fs::read(dir.join(&bad)).unwrap();
    same(dir, "sha256sum", "sha256", &os(&["-c"]), &list);
    same(
        dir,
        "sha256sum",
        "sha256",
        &os(&["-c", "-", "nolist", "odd"]),
        &list,
    );
    same(
        dir,
        "sha256sum",
        "sha256",
        &os(&["--check", "-"]),
        b"junk\n",
    );
    same(
        dir,
        "sha256sum",
        "sha256",
        &os(&["-c", "--strict", "-"]),
        b"junk\n",
    );
    let missing_only = b"ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad  gone\n";
    for f in [
        &[][..],
        &["--ignore-missing"],
        &["--ignore-missing", "--status"],
    ] {
        let mut args = os(&["-c"]);
        args.extend(f.iter().map(OsString::from));
        same(dir, "sha256sum", "sha256", &args, missing_only);
    }
    // Exit codes, spelled out.
    let code = |args: &[&str]| run(dir, MBHASH, &os(args), b"").status.code();
    assert_eq!(code(&["sum", "-c", "--status", "good.sums"]), Some(1)); // files changed since
    assert_eq!(code(&["sum", "-c", "--status", "bad.sums"]), Some(1));

    // SHA-512 lists too.
    let tmp = temp_dir("check512");
    let dir = &tmp.0;
    let (good, bad) = check_fixture(dir, "sha512sum");
    for lists in [vec![good.clone()], vec![bad.clone()]] {
        let mut args = os(&["-c", "-w"]);
        args.extend(lists);
        same(dir, "sha512sum", "sha512", &args, b"");
    }
}

/// MD5, SHA-1 and SM3 as `md5sum`, `sha1sum` and `cksum -a md5|sha1|sm3`
/// write and check them: untagged, tagged, `-b`, `-z`, escaped names, and
/// check mode on their lists (text and BSD lines). coreutils 9.1's `cksum`
/// has no `--base64`, `-b` or `-t`: those forms of SM3 are checked against
/// the coreutils cases' expected outputs (`coreutils_cases.rs`).
#[test]
fn md5_sha1_sm3_match_coreutils() {
    if !have("md5sum") || !have("sha1sum") || !have("cksum") {
        return;
    }
    let sm3 = Command::new("cksum")
        .args(["-a", "sm3", "/dev/null"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !sm3 {
        mbhash_test_support::skip_or_require(
            "coreutils",
            "comparison with cksum -a sm3",
            "this cksum has no SM3 (coreutils before 9.0)",
        );
    }
    let tmp = temp_dir("families");
    let dir = &tmp.0;
    let files = tree(dir);
    let big = big_file(dir);
    for (tool, algo) in [("md5sum", "md5"), ("sha1sum", "sha1")] {
        let mut args = files.clone();
        args.insert(files.len() / 2, big.clone());
        same(dir, tool, algo, &args, b"");
        for flag in [&["--tag"][..], &["-z"], &["-b"], &["--tag", "-z"]] {
            let with = [os(flag), files.clone()].concat();
            same(dir, tool, algo, &with, b"");
        }
        same(dir, tool, algo, &os(&["-"]), &bytes(3, 100_000));
    }
    let mut algos = vec!["md5", "sha1"];
    if sm3 {
        algos.push("sm3");
    }
    for &algo in &algos {
        let cmd = ["cksum", "-a", algo];
        for flag in [
            &["--tag"][..],
            &["--untagged"],
            &["--tag", "-z"],
            &["--untagged", "-z"],
        ] {
            let with = [os(flag), files.clone()].concat();
            same_as(dir, &cmd, algo, &with, b"");
        }
    }
    // Check mode on each tool's lists (untagged, a BSD section, junk,
    // changed and removed files): with -a, and the tagged lines without.
    let mut lists: Vec<(&str, Vec<&str>)> =
        vec![("md5", vec!["md5sum"]), ("sha1", vec!["sha1sum"])];
    if sm3 {
        lists.push(("sm3", vec!["cksum", "-a", "sm3"]));
    }
    for (algo, cmd) in lists {
        let tmp = temp_dir(&format!("check-{algo}"));
        let dir = &tmp.0;
        let (good, bad) = check_fixture_of(dir, &cmd);
        for flags in [
            &[][..],
            &["--quiet"],
            &["--warn"],
            &["--strict"],
            &["--status"],
        ] {
            for list in [&good, &bad] {
                let args = [os(&["-c"]), os(flags), vec![list.clone()]].concat();
                same_as(dir, &cmd, algo, &args, b"");
            }
        }
        let tagged = run(
            dir,
            cmd[0],
            &[
                os(&cmd[1..]),
                os(&["--tag", "odd/new\nline", "odd/back\\slash", "size/s0000000"]),
            ]
            .concat(),
            b"",
        );
        let ours = run(dir, MBHASH, &os(&["sum", "-c"]), &tagged.stdout);
        let theirs = run(dir, "cksum", &os(&["-c"]), &tagged.stdout);
        assert_eq!(ours.stdout, theirs.stdout, "{algo}: BSD lines without -a");
        assert_eq!(
            ours.status.code(),
            theirs.status.code(),
            "{algo}: exit code"
        );
    }
}

#[test]
fn check_of_an_unchanged_tree_passes() {
    if !have("sha256sum") {
        return;
    }
    let tmp = temp_dir("checkok");
    let dir = &tmp.0;
    let files = tree(dir);
    let list = run(dir, MBHASH, &[os(&["sum", "--tag"]), files].concat(), b"");
    assert!(list.status.success());
    std::fs::write(dir.join("list"), &list.stdout).unwrap();
    let out = same(
        dir,
        "sha256sum",
        "sha256",
        &os(&["-c", "--quiet", "list"]),
        b"",
    );
    assert_eq!(out.status.code(), Some(0));
    assert!(out.stdout.is_empty() && out.stderr.is_empty());
}

#[test]
fn other_algorithms_round_trip() {
    // SHA-512/256 and SHA-512/224 have no coreutils tool: check that their
    // lists check, and that a list of the wrong length is refused.
    let tmp = temp_dir("rt");
    let dir = &tmp.0;
    write(dir, b"x", &bytes(1, 5000));
    write(dir, b"y", b"");
    for algo in ["sha512-256", "sha512-224"] {
        for tag in [&[][..], &["--tag"]] {
            let mut args = os(&["sum", "-a", algo]);
            args.extend(tag.iter().map(OsString::from));
            args.extend(os(&["x", "y"]));
            let list = run(dir, MBHASH, &args, b"");
            assert!(list.status.success());
            let check = run(dir, MBHASH, &os(&["sum", "-a", algo, "-c"]), &list.stdout);
            assert_eq!(check.stdout, b"x: OK\ny: OK\n", "{algo} {tag:?}");
            let wrong = run(
                dir,
                MBHASH,
                &os(&["sum", "-a", "sha256", "-c"]),
                &list.stdout,
            );
            assert_eq!(wrong.status.code(), Some(1));
        }
    }
    let tagged = run(
        dir,
        MBHASH,
        &os(&["sum", "-a", "sha512-256", "--tag", "y"]),
        b"",
    );
    assert!(String::from_utf8_lossy(&tagged.stdout).starts_with("SHA512/256 (y) = c672b8d1"));
}

/// The system's `sh` running `script` with `args` as `$1...`, in `dir`.
fn sh(dir: &Path, script: &str, args: &[&OsStr], stdin: &[u8]) -> Output {
    let mut all: Vec<OsString> = vec!["-c".into(), script.into(), "sh".into()];
    all.extend(args.iter().map(|a| a.to_os_string()));
    run(dir, "sh", &all, stdin)
}

#[test]
fn stdin_is_read_once() {
    if !have("sha256sum") {
        return;
    }
    let tmp = temp_dir("stdin2");
    let dir = &tmp.0;
    // Longer than a read chunk: two operands must not share its chunks.
    let data = bytes(21, (600 << 10) + 5);
    write(dir, b"f", b"x");
    for args in [
        &["-"][..],
        &["-", "-"],
        &["-", "f", "-"],
        &["-", "f", "-", "-"],
    ] {
        same(dir, "sha256sum", "sha256", &os(args), &data);
        // One thread, where the operands' reads were interleaved.
        let theirs = run(dir, "sha256sum", &os(args), &data);
        let ours = run(
            dir,
            MBHASH,
            &[os(&["sum", "-j1"]), os(args)].concat(),
            &data,
        );
        assert!(ours.stdout == theirs.stdout, "-j1 {args:?}");
    }
    // A list naming `-` twice: the first gets standard input, the second
    // the empty input, as in coreutils.
    let digest = {
        let out = run(dir, "sha256sum", &os(&["-"]), &data).stdout;
        String::from_utf8(out[..64].to_vec()).unwrap()
    };
    std::fs::write(dir.join("list"), format!("{digest}  -\n{digest}  -\n")).unwrap();
    same(dir, "sha256sum", "sha256", &os(&["-c", "list"]), &data);
    same(
        dir,
        "sha256sum",
        "sha256",
        &os(&["-c", "list", "list"]),
        &data,
    );
}

#[test]
fn many_files_under_a_small_open_file_limit() {
    if !have("sha256sum") {
        return;
    }
    let tmp = temp_dir("nofile");
    let dir = &tmp.0;
    for i in 0..5000u64 {
        write(
            dir,
            format!("t/d{}/f{i:05}", i % 7).as_bytes(),
            &bytes(i, (i as usize * 31) % 3000),
        );
    }
    let ours = sh(
        dir,
        "ulimit -n 64 && exec \"$1\" sum -r -j 64 t",
        &[MBHASH.as_ref()],
        b"",
    );
    let err = String::from_utf8_lossy(&ours.stderr);
    assert_eq!(ours.status.code(), Some(0), "{err}");
    assert!(err.is_empty(), "{err}");
    let want = sh(
        dir,
        "find t -type f | LC_ALL=C sort | xargs sha256sum",
        &[],
        b"",
    );
    assert_eq!(ours.stdout.split(|&b| b == b'\n').count(), 5001);
    assert!(ours.stdout == want.stdout, "digests differ from sha256sum");
    // Check mode under the same limit.
    std::fs::write(dir.join("list"), &want.stdout).unwrap();
    let check = sh(
        dir,
        "ulimit -n 64 && exec \"$1\" sum -c --quiet -j 64 list",
        &[MBHASH.as_ref()],
        b"",
    );
    assert_eq!(
        check.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&check.stderr)
    );
    assert!(check.stdout.is_empty());
}

#[test]
fn write_errors_as_coreutils() {
    if !have("sha256sum") {
        return;
    }
    let tmp = temp_dir("wr");
    let dir = &tmp.0;
    let files = tree(dir);
    let a: &OsStr = files[0].as_ref();
    let sum: &OsStr = "sum".as_ref();
    // Standard output closed, and a full device (where coreutils loses the
    // error's text: "write error").
    let cases = [
        ("exec \"$@\" >&-", "write error: Bad file descriptor"),
        (
            "exec \"$@\" > /dev/full",
            "write error: No space left on device",
        ),
    ];
    for (script, msg) in cases {
        let ours = sh(dir, script, &[MBHASH.as_ref(), sum, a, a], b"");
        let theirs = sh(dir, script, &["sha256sum".as_ref(), a, a], b"");
        assert_eq!(
            String::from_utf8_lossy(&ours.stderr),
            format!("mbhash: {msg}\n")
        );
        let theirs_err = String::from_utf8_lossy(&theirs.stderr);
        assert!(
            theirs_err.starts_with("sha256sum: write error"),
            "{theirs_err}"
        );
        assert_eq!(ours.status.code(), Some(1), "{script}");
        assert_eq!(theirs.status.code(), Some(1), "{script}");
    }
    // Nothing to write: a closed standard output is no error.
    let list = run(dir, "sha256sum", &[a.to_os_string()], b"").stdout;
    std::fs::write(dir.join("list"), list).unwrap();
    let script = "exec \"$@\" >&-";
    let quiet = sh(
        dir,
        script,
        &[
            MBHASH.as_ref(),
            sum,
            "-c".as_ref(),
            "--status".as_ref(),
            "list".as_ref(),
        ],
        b"",
    );
    assert_eq!(
        quiet.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&quiet.stderr)
    );
}

/// Runs `mbhash ARGS` with its standard output a pipe that is closed after
/// `keep` bytes were read; returns how it ended and its standard error.
fn closed_pipe(dir: &Path, args: &[&str], keep: usize) -> (std::process::ExitStatus, String) {
    use std::io::Read;
    let mut cmd = Command::new(MBHASH);
    cmd.args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .stderr(Stdio::piped());
    let mut reader = None;
    if keep == 0 {
        // Closed before the program starts.
        let (r, w) = std::io::pipe().unwrap();
        drop(r);
        cmd.stdout(w);
    } else {
        cmd.stdout(Stdio::piped());
    }
    let mut child = cmd.spawn().unwrap();
    drop(cmd);
    if keep > 0 {
        reader = child.stdout.take();
    }
    if let Some(mut out) = reader {
        let mut buf = vec![0u8; keep];
        out.read_exact(&mut buf).unwrap();
    }
    let mut err = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    (child.wait().unwrap(), err)
}

#[test]
fn a_closed_pipe_ends_the_run_as_sigpipe_does() {
    use std::os::unix::process::ExitStatusExt;
    let tmp = temp_dir("pipe");
    let dir = &tmp.0;
    // More output than a pipe holds, in both modes.
    for i in 0..6000u64 {
        write(
            dir,
            format!("p/file-number-{i:05}").as_bytes(),
            &bytes(i, 100),
        );
    }
    let list = run(dir, MBHASH, &os(&["sum", "-r", "p"]), b"");
    assert!(list.status.success());
    std::fs::write(dir.join("list"), &list.stdout).unwrap();
    let runs: [&[&str]; 5] = [
        &["sum", "-r", "p"],
        &["sum", "-j1", "-r", "p"],
        &["sum", "-c", "list"],
        &["engines"],
        &[
            "bench",
            "--json",
            "--sizes",
            "64",
            "--streams",
            "1",
            "--rounds",
            "1",
        ],
    ];
    for args in runs {
        // The short outputs fit in a pipe: closed before they are written.
        let keep = usize::from(args[0] == "sum");
        let (status, err) = closed_pipe(dir, args, 0);
        assert_eq!(status.signal(), Some(13), "{args:?}: {status:?}: {err}");
        let (status, err) = closed_pipe(dir, args, keep);
        assert_eq!(status.signal(), Some(13), "{args:?}: {status:?}: {err}");
        // Nothing on standard error (bench may note a peer it lacks).
        assert!(
            err.is_empty() || args[0] == "bench" && !err.contains("panicked"),
            "{args:?}: {err}"
        );
    }
}

#[test]
fn recursion_says_what_it_skips() {
    let tmp = temp_dir("skips");
    let dir = &tmp.0;
    write(dir, b"r/a", b"a");
    write(dir, b"r/sub/b", b"b");
    std::os::unix::fs::symlink("nowhere", dir.join("r/broken")).unwrap();
    std::os::unix::fs::symlink("loop2", dir.join("r/loop1")).unwrap();
    std::os::unix::fs::symlink("loop1", dir.join("r/loop2")).unwrap();
    std::os::unix::fs::symlink("a", dir.join("r/good")).unwrap();
    let _sock = std::os::unix::net::UnixListener::bind(dir.join("r/sock")).unwrap();
    let fifo = Command::new("mkfifo").arg(dir.join("r/fifo")).status();
    let have_fifo = fifo.is_ok_and(|s| s.success());
    let out = run(dir, MBHASH, &os(&["sum", "-r", "r"]), b"");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    let lines: Vec<&str> = std::str::from_utf8(&out.stdout).unwrap().lines().collect();
    assert_eq!(lines.len(), 3, "{lines:?}");
    assert!(
        lines[1].ends_with("  r/good") && lines[2].ends_with("  r/sub/b"),
        "{lines:?}"
    );
    let mut want = vec![
        "mbhash: r/broken: skipped: broken symbolic link",
        "mbhash: r/loop1: skipped: symbolic link loop",
        "mbhash: r/loop2: skipped: symbolic link loop",
        "mbhash: r/sock: skipped: socket",
    ];
    if have_fifo {
        want.insert(1, "mbhash: r/fifo: skipped: FIFO");
    }
    assert_eq!(err.lines().collect::<Vec<_>>(), want);
    let strict = run(dir, MBHASH, &os(&["sum", "-r", "--strict", "r"]), b"");
    assert_eq!(strict.status.code(), Some(1));
    assert_eq!(strict.stdout, out.stdout);
}

/// Bytes of `path` in the page cache, by `fincore`; `None` without it.
fn resident(dir: &Path, path: &str) -> Option<u64> {
    let out = Command::new("fincore")
        .args(["--bytes", "--noheadings", "--output", "RES", path])
        .current_dir(dir)
        .output()
        .ok()?;
    out.status.success().then_some(())?;
    String::from_utf8_lossy(&out.stdout).trim().parse().ok()
}

#[test]
fn no_cache_drops_the_pages_it_read() {
    let tmp = temp_dir("nocache");
    let dir = &tmp.0;
    let data = bytes(3, 8 << 20);
    for name in ["one", "a", "b"] {
        let f = std::fs::File::create(dir.join(name)).unwrap();
        use std::io::Write;
        (&f).write_all(&data).unwrap();
        // Written back, so that the pages are clean and can be dropped.
        f.sync_all().unwrap();
    }
    if resident(dir, "one").is_none() {
        mbhash_test_support::skip_or_require(
            "fincore",
            "--no-cache test",
            "fincore (util-linux) not found",
        );
        return;
    }
    let plain = run(dir, MBHASH, &os(&["sum", "one", "a", "b"]), b"");
    assert!(plain.status.success());
    // Without the flag the pages stay (the check can see them).
    assert!(
        resident(dir, "a").unwrap() >= 4 << 20,
        "pages not cached to begin with"
    );
    for args in [
        &["one"][..],
        &["-j1", "one"],
        &["a", "b"],
        &["-j1", "a", "b"],
    ] {
        let ours = run(
            dir,
            MBHASH,
            &[os(&["sum", "--no-cache"]), os(args)].concat(),
            b"",
        );
        assert!(ours.status.success());
        for name in args.iter().filter(|a| !a.starts_with('-')) {
            assert_eq!(resident(dir, name), Some(0), "{args:?}: {name}");
            // Read back into the cache for the next run.
            std::fs::read(dir.join(name)).unwrap();
        }
        let want: Vec<&[u8]> = plain.stdout.split(|&b| b == b'\n').collect();
        for line in ours.stdout.split(|&b| b == b'\n') {
            assert!(want.contains(&line));
        }
    }
}

#[test]
fn warn_changed_reports_a_file_that_grew_while_read() {
    use std::io::Write;
    let tmp = temp_dir("changed");
    let dir = &tmp.0;
    if !Command::new("mkfifo")
        .arg(dir.join("fifo"))
        .status()
        .is_ok_and(|s| s.success())
    {
        mbhash_test_support::skip_or_require("mkfifo", "--warn-changed test", "mkfifo not found");
        return;
    }
    let fifo_sum = run(dir, MBHASH, &os(&["sum", "-"]), b"x").stdout;
    let fifo_line = String::from_utf8_lossy(&fifo_sum).replace("  -", "  fifo");
    for args in [&["grows", "fifo"][..], &["-c", "list"]] {
        write(dir, b"grows", &bytes(4, 48 << 20));
        let list = run(dir, MBHASH, &os(&["sum", "grows"]), b"").stdout;
        std::fs::write(
            dir.join("list"),
            [list, fifo_line.clone().into_bytes()].concat(),
        )
        .unwrap();
        // The scalar engine hashes slowly, and a reader runs only a few
        // MiB ahead of the hashing: the file stays open a while, long
        // enough to be seen open and grown.
        let child = Command::new(MBHASH)
            .args(["sum", "--warn-changed", "-j1"])
            .args(args)
            .env("MBHASH_SHA256_ENGINE", "scalar")
            .current_dir(dir)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        // mbhash opens the file and reads it; the file grows meanwhile.
        // Then it waits for the FIFO's writer.
        let fd_dir = format!("/proc/{}/fd", child.id());
        let target = dir.join("grows");
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
        loop {
            let open = std::fs::read_dir(&fd_dir)
                .into_iter()
                .flatten()
                .flatten()
                .any(|e| std::fs::read_link(e.path()).is_ok_and(|p| p == target));
            if open {
                break;
            }
            assert!(
                std::time::Instant::now() < deadline,
                "the file was never opened"
            );
            std::thread::sleep(std::time::Duration::from_millis(2));
        }
        std::fs::OpenOptions::new()
            .append(true)
            .open(&target)
            .unwrap()
            .write_all(b"more")
            .unwrap();
        std::fs::write(dir.join("fifo"), b"x").unwrap();
        let out = child.wait_with_output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.lines()
                .any(|l| l == "mbhash: grows: file changed as we read it"),
            "{args:?}: {err}"
        );
        assert!(!err.contains("fifo"), "{err}");
        assert_eq!(out.status.code(), Some(1), "{args:?}");
    }
}

/// A fuzzer's seed (`MBHASH_FUZZ_SEED`, else the clock; printed) and its
/// deadline (`MBHASH_FUZZ_SECS`, default 2 s).
fn fuzz_budget(name: &str) -> (u64, std::time::Instant) {
    use std::io::Write;
    let seed = std::env::var("MBHASH_FUZZ_SEED")
        .ok()
        .and_then(|s| s.trim().parse().ok())
        .unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .unwrap_or_default()
                .as_nanos() as u64
        });
    let secs: f64 = std::env::var("MBHASH_FUZZ_SECS")
        .ok()
        .and_then(|s| s.trim().parse().ok())
        .unwrap_or(2.0);
    let _ = writeln!(
        std::io::stderr(),
        "fuzz {name}: seed {seed} (replay: MBHASH_FUZZ_SEED={seed}), {secs} s"
    );
    let until = std::time::Instant::now() + std::time::Duration::from_secs_f64(secs.max(0.0));
    (seed, until)
}

/// splitmix64.
struct Mix(u64);

impl Mix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

/// One random checksum line: a good line for a file, then mutated.
fn random_check_line(rng: &mut Mix, files: &[(Vec<u8>, String)]) -> Vec<u8> {
    let (name, hex) = rng.pick(files);
    let mut hex = hex.clone();
    if rng.below(4) == 0 {
        hex = hex.to_ascii_uppercase();
    }
    if rng.below(5) == 0 {
        // A wrong digest.
        let i = rng.below(hex.len());
        let c = if hex.as_bytes()[i] == b'0' { "1" } else { "0" };
        hex.replace_range(i..=i, c);
    }
    let mut name = name.clone();
    let mut line: Vec<u8> = match rng.below(5) {
        0 => [b"SHA256 (".as_slice(), &name, b") = ", hex.as_bytes()].concat(),
        1 => [b"SHA256(".as_slice(), &name, b")= ", hex.as_bytes()].concat(),
        2 => [hex.as_bytes(), b" *", &name].concat(),
        3 => [hex.as_bytes(), b" ", &name].concat(),
        _ => {
            if name.contains(&b'\\') || name.contains(&b'\n') {
                let mut esc = Vec::new();
                for &b in &name {
                    match b {
                        b'\\' => esc.extend_from_slice(b"\\\\"),
                        b'\n' => esc.extend_from_slice(b"\\n"),
                        b => esc.push(b),
                    }
                }
                name = esc;
                [b"\\".as_slice(), hex.as_bytes(), b"  ", &name].concat()
            } else {
                [hex.as_bytes(), b"  ", &name].concat()
            }
        }
    };
    // Mutations: a byte changed, inserted or removed; blanks in front;
    // a CR; a comment; an empty line.
    for _ in 0..rng.below(3) {
        let alphabet = b" \t\\*()=#\rSHA256xyz0aF-\x01";
        match rng.below(7) {
            0 if !line.is_empty() => {
                let i = rng.below(line.len());
                line[i] = *rng.pick(alphabet);
            }
            1 => {
                let i = rng.below(line.len() + 1);
                line.insert(i, *rng.pick(alphabet));
            }
            2 if !line.is_empty() => {
                line.remove(rng.below(line.len()));
            }
            3 => {
                const BLANKS: [&[u8]; 3] = [b" ", b"\t", b"  "];
                let blank = BLANKS[rng.below(BLANKS.len())];
                line.splice(0..0, blank.iter().copied());
            }
            4 => line.push(b'\r'),
            5 => line.insert(0, b'#'),
            _ => line.clear(),
        }
    }
    line.retain(|&b| b != b'\n');
    line.push(b'\n');
    line
}

/// Random checksum lists, checked by `mbhash sum -c` and by the system's
/// `sha256sum -c`: the same output, messages and exit status.
#[test]
fn fuzz_check_lists_against_coreutils() {
    if !have("sha256sum") {
        return;
    }
    let tmp = temp_dir("fuzzcheck");
    let dir = &tmp.0;
    let names: [&[u8]; 8] = [
        b"a",
        b"b b",
        b"back\\slash",
        b"new\nline",
        b"star*",
        b"(paren)",
        b"x = y",
        b"missing",
    ];
    let mut files = Vec::new();
    for (i, name) in names.iter().enumerate() {
        let data = bytes(i as u64 + 40, i * 100);
        let hex = {
            use sha2::Digest;
            sha2::Sha256::digest(&data)
                .iter()
                .map(|b| format!("{b:02x}"))
                .collect::<String>()
        };
        if *name != b"missing" {
            write(dir, name, &data);
        }
        files.push((name.to_vec(), hex));
    }
    let (seed, until) = fuzz_budget("check-lists");
    let mut rng = Mix(seed);
    let flag_sets: [&[&str]; 7] = [
        &[],
        &["--warn"],
        &["--strict"],
        &["--quiet"],
        &["--status"],
        &["--ignore-missing"],
        &["--strict", "--warn", "--ignore-missing"],
    ];
    let mut lists = 0u64;
    let mut lines = 0u64;
    while std::time::Instant::now() < until {
        let n = 1 + rng.below(8);
        let mut list = Vec::new();
        for _ in 0..n {
            list.extend(random_check_line(&mut rng, &files));
        }
        if rng.below(4) == 0 {
            list.pop(); // no final newline
        }
        std::fs::write(dir.join("list"), &list).unwrap();
        let mut args = os(&["-c"]);
        args.extend(rng.pick(&flag_sets).iter().map(OsString::from));
        args.push("list".into());
        same(dir, "sha256sum", "sha256", &args, b"");
        lists += 1;
        lines += n as u64;
    }
    use std::io::Write;
    let _ = writeln!(
        std::io::stderr(),
        "fuzz check-lists: seed {seed}: {lists} lists of {lines} lines checked against sha256sum -c"
    );
}

/// Runs `script` (which runs `"$@"`) with `mbhash sum ARGS` and with
/// `sha256sum ARGS`: mbhash's output and sha256sum's, its standard error
/// read as mbhash's.
fn ours_and_theirs(dir: &Path, script: &str, args: &[&str]) -> (Output, Output) {
    let mut ours: Vec<&OsStr> = vec![MBHASH.as_ref(), "sum".as_ref()];
    let mut theirs: Vec<&OsStr> = vec!["sha256sum".as_ref()];
    for a in args {
        ours.push(a.as_ref());
        theirs.push(a.as_ref());
    }
    let ours = sh(dir, script, &ours, b"");
    let mut theirs = sh(dir, script, &theirs, b"");
    theirs.stderr = String::from_utf8_lossy(&theirs.stderr)
        .replace("sha256sum: ", "mbhash: ")
        .into_bytes();
    (ours, theirs)
}

/// A closed or write-only standard input is a read error where it is
/// read (and, closed, once more when coreutils closes it), never an
/// empty input; any writable standard output is one, a `/dev/null` or a
/// file opened read-write included.
#[test]
fn standard_streams_as_coreutils() {
    if !have("sha256sum") {
        return;
    }
    let tmp = temp_dir("stdio");
    let dir = &tmp.0;
    write(dir, b"f", b"abc");
    let list = run(dir, "sha256sum", &os(&["f"]), b"").stdout;
    std::fs::write(dir.join("list"), list).unwrap();
    let closed = "exec \"$@\" <&-";
    let write_only = "exec \"$@\" 0>w";
    let read_write = "rm -f rw; \"$@\" 1<>rw; s=$?; cat rw; exit $s";
    let cases: [(&str, &[&str]); 11] = [
        (closed, &[]),
        (closed, &["-", "f", "-"]),
        (closed, &["-c"]),
        (closed, &["-c", "list", "-"]),
        (write_only, &[]),
        (write_only, &["f", "-", "-"]),
        (write_only, &["-c", "-"]),
        ("exec \"$@\" 1<>/dev/null", &["-c", "list"]),
        ("exec \"$@\" 1<>/dev/null", &["f"]),
        (read_write, &["f", "-"]),
        (read_write, &["-c", "list"]),
    ];
    for (script, args) in cases {
        let (ours, theirs) = ours_and_theirs(dir, script, args);
        let what = format!("{script} {args:?}");
        assert_eq!(
            String::from_utf8_lossy(&ours.stdout),
            String::from_utf8_lossy(&theirs.stdout),
            "{what}"
        );
        assert_eq!(
            String::from_utf8_lossy(&ours.stderr),
            String::from_utf8_lossy(&theirs.stderr),
            "{what}"
        );
        assert_eq!(ours.status.code(), theirs.status.code(), "{what}");
    }
    // A read-only standard output: a write error (coreutils loses the
    // error's text here, as on a full device).
    for args in [&["f"][..], &["-c", "list"]] {
        let (ours, theirs) = ours_and_theirs(dir, "exec \"$@\" 1<f", args);
        assert_eq!(
            String::from_utf8_lossy(&ours.stderr),
            "mbhash: write error: Bad file descriptor\n"
        );
        assert!(
            String::from_utf8_lossy(&theirs.stderr).starts_with("mbhash: write error"),
            "{theirs:?}"
        );
        assert_eq!(ours.status.code(), Some(1));
        assert_eq!(theirs.status.code(), Some(1));
    }
}

/// The commands that always print (`engines`, `--version`, `--help`,
/// `bench`) fail with a write error on a standard output closed or open
/// read-only at start, as `sha256sum --version` does, rather than print
/// nothing and exit 0; a `/dev/null` open read-write is a standard output.
#[test]
fn printing_commands_report_an_unwritable_standard_output() {
    let tmp = temp_dir("print-stdout");
    let dir = &tmp.0;
    write(dir, b"f", b"abc");
    let shell = |script: &str, args: &[&str]| {
        Command::new("sh")
            .arg("-c")
            .arg(script)
            .arg("sh")
            .arg(MBHASH)
            .args(args)
            .current_dir(dir)
            .stdin(Stdio::null())
            .output()
            .unwrap()
    };
    for args in [
        &["engines"][..],
        &["--version"],
        &["--help"],
        &["sum", "--version"],
    ] {
        for script in ["exec \"$@\" 1<f", "exec \"$@\" >&-"] {
            let out = shell(script, args);
            assert_eq!(out.status.code(), Some(1), "{script} {args:?}: {out:?}");
            assert_eq!(
                String::from_utf8_lossy(&out.stderr),
                "mbhash: write error: Bad file descriptor\n",
                "{script} {args:?}"
            );
        }
        let out = shell("exec \"$@\" 1<>/dev/null", args);
        assert_eq!(out.status.code(), Some(0), "{args:?}: {out:?}");
    }
    if have("sha256sum") {
        let out = Command::new("sh")
            .args(["-c", "exec sha256sum --version 1<f"])
            .current_dir(dir)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1), "coreutils: {out:?}");
    }
}

/// A socket as standard output takes the lines as any other.
#[test]
fn a_socket_is_standard_output() {
    use std::io::Read;
    let tmp = temp_dir("socket");
    let dir = &tmp.0;
    write(dir, b"f", b"abc");
    let (mut ours, theirs) = std::os::unix::net::UnixStream::pair().unwrap();
    let status = Command::new(MBHASH)
        .args(["sum", "f"])
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(std::os::fd::OwnedFd::from(theirs))
        .status()
        .unwrap();
    assert!(status.success(), "{status:?}");
    let mut out = String::new();
    ours.read_to_string(&mut out).unwrap();
    assert_eq!(
        out,
        "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad  f\n"
    );
}

/// With SIGPIPE ignored by the parent, a closed pipe is a write error, as
/// in coreutils (which then does not die by the signal either).
#[test]
fn a_closed_pipe_with_sigpipe_ignored_is_a_write_error() {
    use std::io::Read;
    if !have("sha256sum") {
        return;
    }
    let tmp = temp_dir("pipe-ignored");
    let dir = &tmp.0;
    write(dir, b"f", b"abc");
    let ignore = "trap '' PIPE; exec \"$@\"";
    for (prog, args) in [
        (MBHASH, &["sum", "f"][..]),
        (MBHASH, &["sum", "-j1", "f"]),
        ("sha256sum", &["f"]),
    ] {
        let (r, w) = std::io::pipe().unwrap();
        drop(r);
        let mut child = Command::new("sh")
            .args(["-c", ignore, "sh", prog])
            .args(args)
            .current_dir(dir)
            .stdin(Stdio::null())
            .stdout(w)
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut err = String::new();
        child
            .stderr
            .take()
            .unwrap()
            .read_to_string(&mut err)
            .unwrap();
        let status = child.wait().unwrap();
        assert_eq!(status.code(), Some(1), "{prog} {args:?}: {status:?}: {err}");
        if prog == MBHASH {
            assert_eq!(err, "mbhash: write error: Broken pipe\n");
        } else {
            assert!(err.starts_with("sha256sum: write error"), "{err}");
        }
    }
}

/// Under an address-space limit that cannot hold the threads asked for
/// (`ulimit -v` in the child), `-j` up to its maximum still hashes every
/// file on the threads that could start, as sha256sum does on its one
/// thread, in both modes; under one that leaves room for no thread (24
/// MB), on the calling thread alone. A larger `-j` is refused.
#[test]
fn threads_that_cannot_start_leave_fewer() {
    if !have("sha256sum") {
        return;
    }
    let tmp = temp_dir("ulimit");
    let dir = &tmp.0;
    let files = tree(dir);
    let mut args: Vec<&OsStr> = files.iter().map(|f| f.as_os_str()).collect();
    let want = run(dir, "sha256sum", &files, b"");
    assert!(want.status.success());
    std::fs::write(dir.join("list"), &want.stdout).unwrap();
    let jobs_at = 3;
    args.splice(
        0..0,
        [MBHASH.as_ref(), "sum".as_ref(), "-j".as_ref(), "N".as_ref()],
    );
    for (script, jobs) in [
        ("ulimit -v 1000000 && exec \"$@\"", "64"),
        ("ulimit -v 1000000 && exec \"$@\"", "1024"),
        ("ulimit -v 24000 && exec \"$@\"", "64"),
    ] {
        let theirs = sh(
            dir,
            script,
            &[&["sha256sum".as_ref()][..], &args[4..]].concat(),
            b"",
        );
        assert_eq!(theirs.stdout, want.stdout, "{script}");
        args[jobs_at] = jobs.as_ref();
        let ours = sh(dir, script, &args, b"");
        let err = String::from_utf8_lossy(&ours.stderr);
        assert_eq!(ours.status.code(), Some(0), "-j {jobs}: {err}");
        assert!(err.is_empty(), "-j {jobs}: {err}");
        assert!(ours.stdout == want.stdout, "-j {jobs}: digests differ");
        let check = sh(
            dir,
            script,
            &[
                MBHASH.as_ref(),
                "sum".as_ref(),
                "-c".as_ref(),
                "-j".as_ref(),
                jobs.as_ref(),
                "list".as_ref(),
            ],
            b"",
        );
        assert_eq!(
            check.status.code(),
            Some(0),
            "-c -j {jobs}: {}",
            String::from_utf8_lossy(&check.stderr)
        );
        assert_eq!(check.stdout.split(|&b| b == b'\n').count(), files.len() + 1);
    }
    let refused = run(dir, MBHASH, &os(&["sum", "-j", "20000", "list"]), b"");
    assert_eq!(refused.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&refused.stderr)
            .starts_with("mbhash: invalid number of jobs: '20000' (1 to 1024)\n"),
        "{refused:?}"
    );
}
