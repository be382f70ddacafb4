//! The cases of coreutils' own tests of its checksum tools (tests/cksum:
//! md5sum.pl, sha224sum.pl, sha256sum.pl, sha384sum.pl, sha512sum.pl,
//! md5sum-newline.pl, md5sum-bsd.sh, cksum-a.sh, cksum-c.sh,
//! cksum-base64.pl, cksum-base64-untagged.sh, cksum-raw.sh), ported as one
//! table: MD5, SHA-1, SHA-3, BLAKE2b and SM3 cases are adapted to SHA-2 or
//! left out where nothing of them applies.
//!
//! Each case runs the installed tool (`sha256sum`, `cksum -a ...`) and
//! `mbhash sum` on the same files, and compares standard output, standard
//! error (with the tool's name read as mbhash's) and the exit code. A case
//! whose behaviour the installed coreutils predates is not compared (it
//! prints SKIPPED); where the coreutils test spells out the expected
//! output, mbhash is checked against that in every case. The few cases
//! where mbhash chose to differ from a coreutils version say why, and are
//! listed, not failed.

use mbhash_test_support::{TempDir, oracle, skip_or_require};
use std::ffi::OsString;
use std::os::unix::ffi::OsStringExt;
use std::path::Path;
use std::process::{Command, Output, Stdio};

const MBHASH: &str = env!("CARGO_BIN_EXE_mbhash");

/// What a comparison with the system tool looks at.
#[derive(Clone, Copy, PartialEq)]
enum Cmp {
    /// Standard output, standard error and the exit code.
    All,
    /// Standard output and the exit code (the tool words its error
    /// differently, e.g. its list of valid algorithms).
    OutAndCode,
}

/// One case of the table.
struct Case {
    name: &'static str,
    /// Files made in the case's empty directory: name, content.
    files: Vec<(&'static str, String)>,
    stdin: String,
    /// The system tool and its arguments.
    tool: &'static str,
    args: Vec<&'static str>,
    /// The arguments of `mbhash sum`.
    ours: Vec<&'static str>,
    env: Vec<(&'static str, &'static str)>,
    /// The coreutils version from which the tool behaves as the case
    /// expects.
    since: (u32, u32),
    cmp: Cmp,
    /// Standard output and exit code the coreutils test expects.
    expect: Option<(String, i32)>,
    /// Why mbhash differs from the tool, when it does on purpose.
    differs: Option<&'static str>,
}

/// A case: `tool args`, and `mbhash sum` with the same arguments (with
/// `-a ALG` for `md5sum` and `shaNNNsum` other than `sha256sum`).
fn case(name: &'static str, tool: &'static str, args: &[&'static str]) -> Case {
    let mut ours = Vec::new();
    if (tool.starts_with("sha") || tool == "md5sum")
        && tool != "sha256sum"
        && let Some(algo) = tool.strip_suffix("sum")
    {
        ours.extend(["-a", algo]);
    }
    ours.extend_from_slice(args);
    Case {
        name,
        files: Vec::new(),
        stdin: String::new(),
        tool,
        args: args.to_vec(),
        ours,
        env: Vec::new(),
        since: (8, 0),
        cmp: Cmp::All,
        expect: None,
        differs: None,
    }
}

fn leak(s: String) -> &'static str {
    Box::leak(s.into_boxed_str())
}

impl Case {
    fn file(mut self, name: &'static str, content: &str) -> Case {
        self.files.push((name, content.to_string()));
        self
    }
    fn stdin(mut self, s: &str) -> Case {
        self.stdin = s.to_string();
        self
    }
    fn ours(mut self, args: &[&'static str]) -> Case {
        self.ours = args.to_vec();
        self
    }
    fn env(mut self, k: &'static str, v: &'static str) -> Case {
        self.env.push((k, v));
        self
    }
    fn since(mut self, major: u32, minor: u32) -> Case {
        self.since = (major, minor);
        self
    }
    fn cmp(mut self, c: Cmp) -> Case {
        self.cmp = c;
        self
    }
    fn expect(mut self, out: &str, code: i32) -> Case {
        self.expect = Some((out.to_string(), code));
        self
    }
    fn differs(mut self, why: &'static str) -> Case {
        self.differs = Some(why);
        self
    }
}

/// Replaces `{ALG:TEXT}` by the hex digest of TEXT and `{b64-ALG:TEXT}`
/// by its base64 (made by the system's `base64`, not by mbhash's code).
fn fill(s: &str) -> Vec<u8> {
    let mut out = Vec::new();
    let mut rest = s;
    while let Some(open) = rest.find('{') {
        out.extend_from_slice(&rest.as_bytes()[..open]);
        let close = open + rest[open..].find('}').expect("closing brace");
        let inner = &rest[open + 1..close];
        let (algo, text) = inner.split_once(':').expect("ALG:TEXT");
        if let Some(algo) = algo.strip_prefix("b64-") {
            out.extend_from_slice(&base64(&oracle(algo, text.as_bytes())));
        } else {
            for b in oracle(algo, text.as_bytes()) {
                out.extend_from_slice(format!("{b:02x}").as_bytes());
            }
        }
        rest = &rest[close + 1..];
    }
    out.extend_from_slice(rest.as_bytes());
    out
}

fn base64(bytes: &[u8]) -> Vec<u8> {
    use std::io::Write;
    let mut child = Command::new("base64")
        .arg("-w0")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("base64");
    child.stdin.take().unwrap().write_all(bytes).unwrap();
    child.wait_with_output().unwrap().stdout
}

/// A text whose digest of `algo` starts with a zero byte (coreutils-8.25
/// took such lines for missing files under --ignore-missing).
fn zero_prefixed(algo: &str) -> String {
    (0u32..)
        .map(|i| format!("z{i}"))
        .find(|t| oracle(algo, t.as_bytes())[0] == 0)
        .unwrap()
}

/// One algorithm's coreutils program: `md5sum`'s own tests run for it.
#[derive(Clone, Copy)]
struct Sum {
    tool: &'static str,
    algo: &'static str,
    /// Its BSD tag.
    tag: &'static str,
    /// Another algorithm's tag, refused by this one's check mode.
    foreign: &'static str,
}

/// The programs `md5sum.pl`, `md5sum-newline.pl` and `md5sum-bsd.sh` run
/// for: MD5 and SHA-1 as in coreutils, and SHA-256 (the cases keep their
/// names there; elsewhere the program is appended).
const SUMS: [Sum; 3] = [
    Sum {
        tool: "sha256sum",
        algo: "sha256",
        tag: "SHA256",
        foreign: "SHA1",
    },
    Sum {
        tool: "md5sum",
        algo: "md5",
        tag: "MD5",
        foreign: "SHA1",
    },
    Sum {
        tool: "sha1sum",
        algo: "sha1",
        tag: "SHA1",
        foreign: "MD5",
    },
];

/// md5sum.pl, md5sum-newline.pl and md5sum-bsd.sh for the program `s`.
fn md5sum_cases(s: Sum) -> Vec<Case> {
    let alg = s.algo;
    let tag = s.tag;
    let e: &str = leak(format!("{{{alg}:}}"));
    let f = |s: &str| String::from_utf8(fill(s)).unwrap();
    let z = zero_prefixed(alg);
    let mut t = Vec::new();

    // md5sum.pl (its --text is inserted in every non-check case).
    for (n, data) in [
        ("md5sum.pl 1", ""),
        ("md5sum.pl 2", "a"),
        ("md5sum.pl 3", "abc"),
        ("md5sum.pl 4", "message digest"),
        ("md5sum.pl 5", "abcdefghijklmnopqrstuvwxyz"),
        (
            "md5sum.pl 6",
            "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789",
        ),
        ("md5sum.pl 7", leak("1234567890".repeat(8))),
    ] {
        t.push(
            case(n, s.tool, &["--text", "f"])
                .file("f", data)
                .expect(&format!("{{{alg}:{data}}}  f\n"), 0),
        );
    }
    for (n, name, shown) in [
        ("md5sum.pl backslash-1", ".\nfoo", ".\\nfoo"),
        ("md5sum.pl backslash-2", ".\\foo", ".\\\\foo"),
        ("md5sum.pl backslash-3", ".\rfoo", ".\\rfoo"),
    ] {
        t.push(
            case(n, s.tool, &["--text", name])
                .file(name, "")
                .expect(&format!("\\{e}  {shown}\n"), 0),
        );
    }
    let check = |n, flags: &[&'static str], list: &str| {
        let mut args = flags.to_vec();
        args.push("f.sum");
        case(n, s.tool, &args).file(
            "f.sum",
            &list
                .replace("{E}", e)
                .replace("{T}", tag)
                .replace("{F}", s.foreign),
        )
    };
    t.push(
        check("md5sum.pl check-1", &["--check"], "{E}  f\n")
            .file("f", "")
            .expect("f: OK\n", 0),
    );
    t.push(
        check("md5sum.pl check-windows", &["--check"], "{E}  f\r\n")
            .file("f", "")
            .expect("f: OK\n", 0),
    );
    t.push(
        check(
            "md5sum.pl ck-strict-1",
            &["--check", "--strict"],
            "{E}  f\n\n",
        )
        .file("f", "")
        .expect("f: OK\n", 0),
    );
    t.push(
        check(
            "md5sum.pl ck-strict-2",
            &["--check", "--strict"],
            "ERR\n{E}  f\n",
        )
        .file("f", "")
        .expect("f: OK\n", 1),
    );
    t.push(
        check("md5sum.pl check-2", &["--check", "--status"], "{E}  f\n")
            .file("f", "foo")
            .expect("", 1),
    );
    t.push(
        check(
            "md5sum.pl check-quiet1",
            &["--check", "--quiet"],
            "{E}  f\n",
        )
        .file("f", "")
        .expect("", 0),
    );
    t.push(
        check(
            "md5sum.pl check-quiet2",
            &["--check", "--quiet"],
            "{E}  f\n",
        )
        .file("f", "foo")
        .expect("f: FAILED\n", 1),
    );
    let multi = "{E}  f\n{E}  f\ninvalid\n";
    t.push(
        check("md5sum.pl check-multifail", &["--check"], multi)
            .file("f", "foo")
            .expect("f: FAILED\nf: FAILED\n", 1),
    );
    t.push(
        check(
            "md5sum.pl check-multifail-warn",
            &["--check", "--warn"],
            multi,
        )
        .file("f", "foo")
        .expect("f: FAILED\nf: FAILED\n", 1),
    );
    t.push(
        check(
            "md5sum.pl check-multifail-state",
            &["--check", "--warn"],
            "{E}  f\n{E}  g\n{E}  f\n",
        )
        .file("f", "")
        .file("g", "a")
        .expect("f: OK\ng: FAILED\nf: OK\n", 1),
    );
    // check-bsd / check-openssl: another algorithm's tag is refused, this
    // one's is read (SHA-1 stands in for the foreign algorithm).
    for (n, list, status, content, out, code) in [
        ("check-bsd", "{F} (f) = {E}\n", false, "", "", 1),
        ("check-bsd2", "{T} (f) = {E}\n", false, "", "f: OK\n", 0),
        ("check-bsd3", "{T} (f) = {E}\n", true, "bar", "", 1),
        ("check-openssl", "{F}(f)= {E}\n", false, "", "", 1),
        ("check-openssl2", "{T}(f)= {E}\n", false, "", "f: OK\n", 0),
        ("check-openssl3", "{T}(f)= {E}\n", true, "bar", "", 1),
    ] {
        let flags: &[&str] = if status {
            &["--check", "--status"]
        } else {
            &["--check"]
        };
        t.push(
            check(leak(format!("md5sum.pl {n}")), flags, list)
                .file("f", content)
                .expect(out, code),
        );
    }
    let missing = "{E}  f\n{E}  f.missing\n";
    for n in ["check-ignore-missing-1", "check-ignore-missing-2"] {
        t.push(
            check(
                leak(format!("md5sum.pl {n}")),
                &["--check", "--ignore-missing"],
                missing,
            )
            .file("f", "")
            .expect("f: OK\n", 0),
        );
    }
    t.push(
        check(
            "md5sum.pl check-ignore-missing-3",
            &["--check", "--quiet", "--ignore-missing"],
            "{E}  missing/f\n{E}  f\n",
        )
        .file("f", "")
        .expect("", 0),
    );
    t.push(
        case(
            "md5sum.pl check-ignore-missing-4",
            s.tool,
            &["--text", "--ignore-missing", "f"],
        )
        .file("f", "")
        .expect("", 1),
    );
    t.push(
        check(
            "md5sum.pl check-ignore-missing-5",
            &["--check", "--ignore-missing"],
            "{E}  missing\n",
        )
        .file("f", "")
        .expect("", 1),
    );
    t.push(
        check(
            "md5sum.pl check-ignore-missing-6",
            &["--check", "--ignore-missing"],
            &format!("{{{alg}:{z}}}  f\n"),
        )
        .file("f", leak(z.clone()))
        .expect("f: OK\n", 0),
    );
    t.push(
        case("md5sum.pl bsd-segv", s.tool, &["--check", "z"])
            .file("z", leak(format!("{tag} (")))
            .expect("", 1),
    );
    t.push(
        case("md5sum.pl nul-in-cksum", s.tool, &["--check", "h"])
            .file(
                "h",
                &format!("{}  h\n", "\0".repeat(2 * oracle(alg, b"").len())),
            )
            .expect("", 1),
    );

    // md5sum-newline.pl.
    t.push(
        case("md5sum-newline.pl newline", s.tool, &["--text", "a\nb"])
            .file("a\nb", "")
            .expect(&format!("\\{e}  a\\nb\n"), 0),
    );
    t.push(
        case(
            "md5sum-newline.pl zero",
            s.tool,
            &["--text", "--zero", "a\nb"],
        )
        .file("a\nb", "")
        .expect(&format!("{e}  a\nb\0"), 0),
    );

    // md5sum-bsd.sh.
    let names = ["a", " b", "*c", "dd", " "];
    let text_list: String = names
        .iter()
        .map(|n| f(&format!("{{{alg}:{n}\n}}  {n}\n")))
        .collect();
    let reversed: String = names
        .iter()
        .map(|n| f(&format!("{{{alg}:{n}\n}} {n}\n")))
        .collect();
    let tag_list: String = names
        .iter()
        .map(|n| f(&format!("{tag} ({n}) = {{{alg}:{n}\n}}\n")))
        .collect();
    let ok_all: String = names.iter().map(|n| format!("{n}: OK\n")).collect();
    let with_names = |mut c: Case| {
        for n in names {
            c = c.file(n, leak(format!("{n}\n")));
        }
        c
    };
    t.push(
        with_names(case("md5sum-bsd.sh text", s.tool, &["--strict", "-c", "l"]))
            .file("l", &text_list)
            .expect(&ok_all, 0),
    );
    t.push(
        with_names(case(
            "md5sum-bsd.sh reversed",
            s.tool,
            &["--strict", "-c", "l"],
        ))
        .file("l", &reversed)
        .expect(&ok_all, 0),
    );
    t.push(
        with_names(case("md5sum-bsd.sh gpg-header", s.tool, &["-c", "l"]))
            .file(
                "l",
                &format!(
                    "{} blah\n{text_list}",
                    "_not_all_hex_so_no_match_".repeat(2) + "____________"
                ),
            )
            .expect(&ok_all, 0),
    );
    t.push(
        with_names(case(
            "md5sum-bsd.sh reversed-tail",
            s.tool,
            &["--strict", "-c"],
        ))
        .stdin(&reversed.split_inclusive('\n').skip(1).collect::<String>())
        .cmp(Cmp::All),
    );
    t.push(
        case(
            "md5sum-bsd.sh tag-check",
            s.tool,
            &["--tag", "--check", "/dev/null"],
        )
        .expect("", 1),
    );
    t.push(
        case(
            "md5sum-bsd.sh tag-text",
            s.tool,
            &["--tag", "--text", "/dev/null"],
        )
        .expect("", 1),
    );
    t.push(
        with_names(case(
            "md5sum-bsd.sh tag-list",
            s.tool,
            &["--strict", "-c", "l"],
        ))
        .file("l", &tag_list)
        .expect(&ok_all, 0),
    );
    let odd = ["a\\b", "a\\", "\\a", "a\nb", "a\tb"];
    let mut c = case(
        "md5sum-bsd.sh escaped-tags",
        s.tool,
        &["--strict", "-c", "l"],
    );
    let mut list = String::new();
    for n in odd {
        c = c.file(n, "");
        let esc = n.replace('\\', "\\\\").replace('\n', "\\n");
        let lead = if esc != n { "\\" } else { "" };
        list.push_str(&format!("{lead}{tag} ({esc}) = {e}\n"));
    }
    t.push(
        c.file("l", &list)
            .differs(
                "coreutils 9.10 quotes names in check output; mbhash writes them as 9.0-9.9 do (\\-escaped)",
            ),
    );
    t.push(
        case(
            "md5sum-bsd.sh tag-escape",
            s.tool,
            &["--tag", "test\n\\\\file"],
        )
        .file("test\n\\\\file", "")
        .expect(&format!("\\{tag} (test\\n\\\\\\\\file) = {e}\n"), 0),
    );

    if s.tool != "sha256sum" {
        for c in &mut t {
            c.name = leak(format!("{} [{}]", c.name, s.tool));
        }
    }
    t
}

fn cases() -> Vec<Case> {
    let e = "{sha256:}";
    let f = |s: &str| String::from_utf8(fill(s)).unwrap();
    let mut t = Vec::new();
    for s in SUMS {
        t.extend(md5sum_cases(s));
    }

    // sha1sum.pl, sha224sum.pl .. sha512sum.pl.
    let long = leak("a".repeat(1_000_000));
    let abc56 = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
    let abc112 = "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu";
    for (tool, algo, inputs) in [
        (
            "sha1sum",
            "sha1",
            vec![
                ("s1", ""),
                ("s2", "a"),
                ("s3", "abc"),
                ("s4", abc56),
                ("s8", long),
            ],
        ),
        (
            "sha224sum",
            "sha224",
            vec![("s3", "abc"), ("s4", abc56), ("s8", long)],
        ),
        (
            "sha256sum",
            "sha256",
            vec![
                ("s1", ""),
                ("s2", "a"),
                ("s3", "abc"),
                ("s4", abc56),
                ("s8", long),
            ],
        ),
        (
            "sha384sum",
            "sha384",
            vec![
                ("s1", ""),
                ("s2", "a"),
                ("s3", "abc"),
                ("s4", abc112),
                ("s8", long),
            ],
        ),
        (
            "sha512sum",
            "sha512",
            vec![
                ("s1", ""),
                ("s2", "a"),
                ("s3", "abc"),
                ("s4", abc112),
                ("s8", long),
            ],
        ),
    ] {
        for (n, data) in inputs {
            t.push(
                case(leak(format!("{tool}.pl {n}")), tool, &["--text", "f"])
                    .file("f", data)
                    .expect(&format!("{{{algo}:{data}}}  f\n"), 0),
            );
        }
    }

    // cksum-a.sh, for the algorithms mbhash computes (SM3 has no program
    // of its own: `cksum -a sm3 --untagged`, which has no -b or -t).
    for (algo, tool) in [
        ("md5", "md5sum"),
        ("sha1", "sha1sum"),
        ("sm3", "cksum"),
        ("sha224", "sha224sum"),
        ("sha256", "sha256sum"),
        ("sha384", "sha384sum"),
        ("sha512", "sha512sum"),
    ] {
        for mode in ["-b", "-t"] {
            let out = format!(
                "{{{algo}:}} {}/dev/null\n",
                if mode == "-b" { "*" } else { " " }
            );
            let sum = if tool == "cksum" {
                if mode == "-b" {
                    continue;
                }
                case(
                    leak(format!("cksum-a.sh {algo} {mode}")),
                    tool,
                    &["--untagged", "-a", algo, "/dev/null"],
                )
            } else {
                case(
                    leak(format!("cksum-a.sh {algo} {mode}")),
                    tool,
                    &[mode, "/dev/null"],
                )
            };
            t.push(
                sum.ours(&["--untagged", mode, "-a", algo, "/dev/null"])
                    .expect(&out, 0),
            );
            t.push(
                case(
                    leak(format!("cksum-a.sh {algo} {mode} check")),
                    "cksum",
                    &["--check", "--algorithm", algo, "l"],
                )
                .file("l", &out)
                .ours(&["--check", "--algorithm", algo, "l"])
                .expect("/dev/null: OK\n", 0),
            );
        }
        t.push(
            case(
                leak(format!("cksum-a.sh {algo} tagged")),
                "cksum",
                &["-a", algo, "/dev/null"],
            )
            .ours(&["--tag", "-a", algo, "/dev/null"])
            .expect(
                &format!("{} (/dev/null) = {{{algo}:}}\n", algo.to_uppercase()),
                0,
            ),
        );
    }
    t.push(
        case("cksum-a.sh abbreviation", "cksum", &["-a", "sha22"])
            .ours(&["-a", "sha22"])
            .cmp(Cmp::OutAndCode)
            .expect("", 1),
    );
    t.push(
        case(
            "cksum-a.sh text-tag",
            "sha256sum",
            &["--text", "--tag", "/dev/null"],
        )
        .since(9, 0)
        .expect(&format!("SHA256 (/dev/null) = {e}\n"), 0)
        .differs(
            "coreutils 9.10 refuses --text --tag; mbhash writes the tagged line as 9.0-9.9 do",
        ),
    );
    t.push(
        case(
            "cksum-a.sh tag-text",
            "sha256sum",
            &["--tag", "--text", "/dev/null"],
        )
        .expect("", 1),
    );
    t.push(
        case(
            "cksum-a.sh tag-untagged",
            "cksum",
            &["--tag", "--untagged", "-a", "sha256", "/dev/null"],
        )
        .ours(&["--tag", "--untagged", "-a", "sha256", "/dev/null"])
        .since(9, 5)
        .expect(&format!("{e}  /dev/null\n"), 0),
    );
    for (n, args) in [
        (
            "cksum-a.sh tag-untagged-binary",
            &["--tag", "--untagged", "--binary"][..],
        ),
        ("cksum-a.sh binary-untagged", &["--binary", "--untagged"]),
        (
            "cksum-a.sh binary-tag-untagged",
            &["--binary", "--tag", "--untagged"],
        ),
    ] {
        let mut args = args.to_vec();
        args.extend(["-a", "sha256", "/dev/null"]);
        let mut c = case(n, "cksum", &args)
            .ours(&args)
            .since(9, 4)
            .expect(&format!("{e} */dev/null\n"), 0);
        if n.ends_with("binary-tag-untagged") {
            c = c.differs("coreutils 9.5-9.9 drop -b at --untagged after --tag; 9.0-9.4 and 9.10 keep it, as mbhash does");
        }
        t.push(c);
    }

    // cksum-c.sh, on SHA-2 (its BLAKE2b and SM3 lines become SHA-256,
    // SHA-512 and SHA-224 ones).
    let input = "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n";
    let sums = &f(
        "SHA384 (input) = {sha384:1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n}\n\
                SHA512 (input) = {sha512:1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n}\n\
                SHA256 (input) = {sha256:1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n}\n\
                SHA224 (input) = {sha224:1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n}\n",
    );
    let ok4 = "input: OK\ninput: OK\ninput: OK\ninput: OK\n";
    let ck = |n: &'static str, args: &[&'static str], list: &str| {
        let mut c = case(n, "cksum", args).ours(args).file("input", input);
        if !list.is_empty() {
            c = c.file("CHECKSUMS", list);
        }
        c
    };
    t.push(
        ck(
            "cksum-c.sh mixed",
            &["--strict", "--check", "CHECKSUMS"],
            sums,
        )
        .expect(ok4, 0),
    );
    // Its MD5, SHA-1 and SM3 lines, mixed with SHA-2 ones.
    let others = &f("MD5 (input) = {md5:1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n}\n\
                SM3 (input) = {sm3:1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n}\n\
                SHA1 (input) = {sha1:1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n}\n\
                SHA256 (input) = {sha256:1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n}\n");
    t.push(
        ck(
            "cksum-c.sh mixed md5 sm3 sha1",
            &["--strict", "--check", "CHECKSUMS"],
            others,
        )
        .expect(ok4, 0),
    );
    for algo in ["md5", "sm3", "sha1"] {
        t.push(
            ck(
                leak(format!("cksum-c.sh one-of-mixed {algo}")),
                &["--check", "-a", algo, "CHECKSUMS"],
                others,
            )
            .expect("input: OK\n", 0),
        );
    }
    let sha384_line = &f("SHA384 (input) = {sha384:1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n}\n");
    t.push(
        ck(
            "cksum-c.sh sha384-tag",
            &["--check", "CHECKSUMS"],
            sha384_line,
        )
        .expect("input: OK\n", 0),
    );
    t.push(
        ck(
            "cksum-c.sh sha2-tag",
            &["--check", "CHECKSUMS"],
            &sha384_line.replacen("SHA", "SHA2-", 1),
        )
        .since(9, 8)
        .expect("input: OK\n", 0),
    );
    t.push(
        case("cksum-c.sh sha2-bad-length", "cksum", &["--check", "l"])
            .ours(&["--check", "l"])
            .file(
                "l",
                "SHA2-128 (/dev/null) = 38b060a751ac96384cd9327eb1b1e36a\n",
            )
            .since(9, 9)
            .expect("", 1),
    );
    let tagish = format!("SHA256{}=  /dev/null\n", "+".repeat(37));
    t.push(
        case(
            "cksum-c.sh tag-prefix",
            "cksum",
            &["--check", "-a", "sha256", "l"],
        )
        .ours(&["--check", "-a", "sha256", "l"])
        .file("l", leak(tagish))
        .since(9, 9)
        .expect("/dev/null: FAILED\n", 1),
    );
    let indented: String = sums.lines().map(|l| format!(" \\{l}\n")).collect();
    t.push(
        ck(
            "cksum-c.sh leading-blank-backslash",
            &["--strict", "-c"],
            "",
        )
        .stdin(&indented)
        .expect(ok4, 0),
    );
    t.push(
        case("cksum-c.sh awkward-name", "cksum", &["--check", "l"])
            .ours(&["--check", "l"])
            .file("abc (f) = abc", "")
            .file("l", &format!("SHA256 (abc (f) = abc) = {e}\n"))
            .expect("abc (f) = abc: OK\n", 0),
    );
    let signed = format!(
        "-----BEGIN PGP SIGNED MESSAGE-----\nHash: SHA384\n\n# ignored comment\n{sums}\
         -----BEGIN PGP SIGNATURE-----\n\n\
         SHA384+BCAAdFiEEjFummQvbJuGfKhqAEWGuaUVxmjkFAmCDId0ACgkQEWGuaUVx\n\
         BLAKE2b/00001EuON62pTEnqrJ5lav61QxRByiuDp/6VODrRL2JWM6Stxu1Myws=\n\
         =AWU7\n-----END PGP SIGNATURE-----\n"
    );
    t.push(ck("cksum-c.sh signed", &["--check", "CHECKSUMS"], leak(signed)).expect(ok4, 0));
    t.push(
        ck(
            "cksum-c.sh one-of-mixed",
            &["--check", "-a", "sha512", "CHECKSUMS"],
            sums,
        )
        .expect("input: OK\n", 0),
    );
    t.push(
        ck(
            "cksum-c.sh status",
            &["--status", "--check", "CHECKSUMS"],
            sums,
        )
        .expect("", 0),
    );
    let commented = format!("{sums}# Very important comment\n");
    t.push(
        ck(
            "cksum-c.sh comment",
            &["--status", "--check", "CHECKSUMS"],
            leak(commented.clone()),
        )
        .expect("", 0),
    );
    let invalid1 = format!("{commented}invalid line\n");
    t.push(
        ck(
            "cksum-c.sh invalid",
            &["--check", "CHECKSUMS"],
            leak(invalid1.clone()),
        )
        .expect(ok4, 0),
    );
    t.push(
        ck(
            "cksum-c.sh invalid-strict",
            &["--strict", "--check", "CHECKSUMS"],
            leak(invalid1.clone()),
        )
        .expect(ok4, 1),
    );
    let invalid2 = format!("{invalid1}invalid line\n");
    t.push(
        ck(
            "cksum-c.sh invalid-plural",
            &["--strict", "--check", "CHECKSUMS"],
            leak(invalid2.clone()),
        )
        .expect(ok4, 1),
    );
    let bad = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaafdb57c725157cb40b5aee8d937b8351477e";
    let wrong = format!("{invalid2}SHA256 (input) = {bad}\n");
    let ok4_failed = format!("{ok4}input: FAILED\n");
    t.push(
        ck(
            "cksum-c.sh mismatch",
            &["--check", "CHECKSUMS"],
            leak(wrong.clone()),
        )
        .expect(&ok4_failed, 1),
    );
    t.push(
        ck(
            "cksum-c.sh mismatch-strict",
            &["--check", "--strict", "CHECKSUMS"],
            leak(wrong.clone()),
        )
        .expect(&ok4_failed, 1),
    );
    let gone = format!("SHA256 (input2) = {bad}\n");
    t.push(
        ck(
            "cksum-c.sh unreadable",
            &["--check", "CHECKSUMS"],
            leak(gone.clone()),
        )
        .expect("input2: FAILED open or read\n", 1),
    );
    t.push(
        ck(
            "cksum-c.sh unreadable-strict",
            &["--check", "--strict", "CHECKSUMS"],
            leak(gone),
        )
        .expect("input2: FAILED open or read\n", 1),
    );
    t.push(
        ck(
            "cksum-c.sh status-errors",
            &["--status", "--check", "CHECKSUMS"],
            leak(wrong.clone()),
        )
        .expect("", 1),
    );
    let warned = format!("{wrong}SHA512 (missing-file) = {bad}\n");
    t.push(
        ck(
            "cksum-c.sh warn",
            &["--warn", "--check", "CHECKSUMS"],
            leak(warned.clone()),
        )
        .expect(&ok4_failed, 1),
    );
    let foreign = format!("{wrong}BLAKE2b (missing-file) = {bad}\n");
    t.push(
        ck(
            "cksum-c.sh warn-foreign",
            &["--warn", "--check", "CHECKSUMS"],
            leak(foreign),
        )
        .expect(&ok4_failed, 1)
        .differs("mbhash adds '(BLAKE2b is not supported)' to the warning about a BLAKE2b line"),
    );
    let nonexistent = format!("SHA256 (nonexistent) = {bad}\n");
    let nx = |n, args: &[&'static str]| {
        case(n, "cksum", args)
            .ours(args)
            .file("CHECKSUMS-missing", &nonexistent)
    };
    t.push(
        nx("cksum-c.sh missing", &["--check", "CHECKSUMS-missing"])
            .expect("nonexistent: FAILED open or read\n", 1),
    );
    t.push(
        nx(
            "cksum-c.sh ignore-missing",
            &["--ignore-missing", "--check", "CHECKSUMS-missing"],
        )
        .expect("", 1),
    );
    t.push(
        ck(
            "cksum-c.sh status-warn",
            &["--status", "--warn", "--check", "CHECKSUMS"],
            leak(warned.clone()),
        )
        .expect(&ok4_failed, 1),
    );
    t.push(
        ck(
            "cksum-c.sh warn-status",
            &["--warn", "--status", "--check", "CHECKSUMS"],
            leak(warned.clone()),
        )
        .expect("", 1),
    );
    t.push(
        ck(
            "cksum-c.sh status-ignore-missing",
            &["--status", "--ignore-missing", "--check", "CHECKSUMS"],
            leak(warned),
        )
        .expect("", 1),
    );
    t.push(
        nx(
            "cksum-c.sh status-warn-ignore-missing",
            &[
                "--status",
                "--warn",
                "--ignore-missing",
                "--check",
                "CHECKSUMS-missing",
            ],
        )
        .expect("", 1),
    );
    t.push(
        case(
            "cksum-c.sh missing-lists",
            "cksum",
            &["--check", "non-existing-1", "non-existing-2"],
        )
        .ours(&["--check", "non-existing-1", "non-existing-2"])
        .expect("", 1),
    );
    t.push(
        case(
            "cksum-c.sh empty-lists",
            "cksum",
            &["--check", "empty-1", "empty-2"],
        )
        .ours(&["--check", "empty-1", "empty-2"])
        .file("empty-1", "")
        .file("empty-2", "")
        .expect("", 1),
    );
    t.push(
        case(
            "cksum-c.sh tag-check",
            "cksum",
            &["--tag", "--check", "/dev/null"],
        )
        .ours(&["--tag", "--check", "/dev/null"])
        .since(9, 10)
        .expect("", 1),
    );
    t.push(
        case(
            "cksum-c.sh untagged-check",
            "cksum",
            &["--untagged", "--check"],
        )
        .ours(&["--untagged", "--check"])
        .stdin(&format!("SHA256 (/dev/null) = {e}\n"))
        .expect("/dev/null: OK\n", 0),
    );
    let hex = f(e);
    let trunc = format!(
        "SHA256 (ff1) = {hex}\nSHA256 (ff2) = {}\nSHA256 (ff3) = {}\n",
        &hex[..63],
        &hex[..63]
    );
    let tr = |n, args: &[&'static str]| {
        case(n, "cksum", args)
            .ours(args)
            .file("ff1", "")
            .file("ff2", "")
            .file("ff3", "")
            .file("trunc-bad.sum", &trunc)
    };
    t.push(tr("cksum-c.sh truncated", &["--check", "trunc-bad.sum"]).expect("ff1: OK\n", 0));
    t.push(
        tr(
            "cksum-c.sh truncated-warn",
            &["--warn", "--check", "trunc-bad.sum"],
        )
        .expect("ff1: OK\n", 0),
    );
    t.push(
        tr(
            "cksum-c.sh truncated-strict",
            &["--strict", "--check", "trunc-bad.sum"],
        )
        .expect("ff1: OK\n", 1),
    );

    // cksum-base64.pl, for the algorithms mbhash computes (its sha2 row is
    // SHA-512).
    for (algo, tag) in [
        ("md5", "MD5"),
        ("sha1", "SHA1"),
        ("sm3", "SM3"),
        ("sha224", "SHA224"),
        ("sha256", "SHA256"),
        ("sha384", "SHA384"),
        ("sha512", "SHA512"),
    ] {
        let line = format!("{tag} (f) = {{b64-{algo}:}}");
        t.push(
            case(
                leak(format!("cksum-base64.pl {algo}")),
                "cksum",
                &["--base64", "-a", algo, "f"],
            )
            .ours(&["--tag", "--base64", "-a", algo, "f"])
            .file("f", "")
            .since(9, 2)
            .expect(&format!("{line}\n"), 0),
        );
        t.push(
            case(
                leak(format!("cksum-base64.pl chk-{algo}")),
                "cksum",
                &["--check", "--strict"],
            )
            .ours(&["--check", "--strict"])
            .file("f", "")
            .stdin(&line)
            .since(9, 2)
            .expect("f: OK\n", 0),
        );
        let b64 = f(&format!("{{b64-{algo}:}}"));
        for eq in ["=", "=="] {
            if b64.ends_with(eq) {
                let cut = format!("{tag} (f) = {}", &b64[..b64.len() - eq.len()]);
                t.push(
                    case(
                        leak(format!("cksum-base64.pl chk-eq{}-{algo}", eq.len())),
                        "cksum",
                        &["--check"],
                    )
                    .ours(&["--check"])
                    .file("f", "")
                    .stdin(&cut)
                    .since(9, 2)
                    .expect("", 1),
                );
            }
        }
    }
    t.push(
        case("cksum-base64.pl nul", "cksum", &["-a", "sha256", "--check"])
            .ours(&["-a", "sha256", "--check"])
            .stdin("\\0\\0\\0")
            .expect("", 1),
    );

    // cksum-base64-untagged.sh, for sha2 -l 224..512: the length comes from
    // the base64 digest; one character less is improperly formatted.
    for algo in ["sha224", "sha256", "sha384", "sha512"] {
        // SHA-384's 64 base64 digits have SHA-256's hex length: mbhash reads
        // them as SHA-384 only with -a (see checkline.rs).
        let a: &[&'static str] = if algo == "sha384" {
            &["-a", "sha384"]
        } else {
            &[]
        };
        let line = format!("{{b64-{algo}:test input\n}}  inp\n");
        let filled = f(&line);
        let cut = filled.replacen("  inp", "", 1);
        let cut = format!("{}  inp\n", &cut.trim_end()[..cut.trim_end().len() - 1]);
        t.push(
            case(
                leak(format!("cksum-base64-untagged.sh {algo}")),
                "cksum",
                &["-a", algo, "--check", "check"],
            )
            .ours(&[a, &["--check", "check"]].concat())
            .file("inp", "test input\n")
            .file("check", &line)
            .since(9, 2)
            .expect("inp: OK\n", 0),
        );
        t.push(
            case(
                leak(format!("cksum-base64-untagged.sh {algo} truncated")),
                "cksum",
                &["-a", algo, "--check", "truncated"],
            )
            .ours(&[a, &["--check", "truncated"]].concat())
            .file("inp", "test input\n")
            .file("truncated", leak(cut))
            .since(9, 2)
            .expect("", 1),
        );
    }

    // cksum-raw.sh: the raw digest is the hex one's bytes (checked against
    // the hex output in `raw_is_the_hex_digest`); the refusals.
    t.push(
        case("cksum-raw.sh base64-raw", "cksum", &["--base64", "--raw"])
            .ours(&["--base64", "--raw"])
            .since(9, 2)
            .expect("", 1),
    );
    t.push(
        case(
            "cksum-raw.sh raw-multiple",
            "cksum",
            &["-a", "sha256", "--raw", "/dev/null", "/dev/null"],
        )
        .ours(&["--raw", "/dev/null", "/dev/null"])
        .since(9, 2)
        .expect("", 1),
    );
    t.push(
        case("cksum-raw.sh raw", "cksum", &["-a", "sha256", "--raw", "f"])
            .ours(&["--raw", "f"])
            .file("f", "abc")
            .since(9, 2),
    );

    // POSIXLY_CORRECT: getopt ends the options at the first operand.
    t.push(
        case("posix file-then-version", "sha256sum", &["f", "--version"])
            .file("f", "")
            .env("POSIXLY_CORRECT", "1")
            .expect(&format!("{e}  f\n"), 1),
    );
    t.push(
        case("posix stdin-then-option", "sha256sum", &["-", "--tag"])
            .stdin("abc")
            .env("POSIXLY_CORRECT", "1")
            .expect("{sha256:abc}  -\n", 1),
    );
    t.push(
        case("posix file-then-option", "sha256sum", &["f", "--tag"])
            .file("f", "")
            .env("POSIXLY_CORRECT", "1")
            .expect(&format!("{e}  f\n"), 1),
    );
    t.push(
        case("posix option-then-file", "sha256sum", &["--tag", "f"])
            .file("f", "")
            .env("POSIXLY_CORRECT", "1")
            .expect(&format!("SHA256 (f) = {e}\n"), 0),
    );
    t.push(
        case(
            "posix check-then-quiet",
            "sha256sum",
            &["-c", "l", "--quiet"],
        )
        .file("f", "")
        .file("l", &format!("{e}  f\n"))
        .env("POSIXLY_CORRECT", "1")
        .expect("f: OK\n", 1),
    );

    // Abbreviated long options resolve among sha256sum's own options,
    // whatever mbhash's extra ones (--base64, --warn-changed) share.
    t.push(
        case("abbrev binary", "sha256sum", &["--b", "f"])
            .file("f", "abc")
            .expect("{sha256:abc} *f\n", 0),
    );
    t.push(
        case("abbrev warn", "sha256sum", &["-c", "--w", "l"])
            .file("f", "")
            .file("l", &format!("{e}  f\nbad line\n"))
            .expect("f: OK\n", 0),
    );
    t.push(
        case("abbrev check", "sha256sum", &["--c", "l"])
            .file("f", "")
            .file("l", &format!("{e}  f\n"))
            .expect("f: OK\n", 0),
    );
    t.push(
        case("abbrev ambiguous", "sha256sum", &["--s", "f"])
            .file("f", "")
            .expect("", 1),
    );
    t.push(
        case("abbrev ambiguous tag text", "sha256sum", &["--t", "f"])
            .file("f", "")
            .expect("", 1),
    );
    t
}

/// The installed coreutils' version, from `sha256sum --version`.
fn installed_version() -> Option<(u32, u32)> {
    let out = Command::new("sha256sum").arg("--version").output().ok()?;
    let text = String::from_utf8_lossy(&out.stdout);
    let first = text.lines().next()?;
    if !first.contains("GNU coreutils") {
        return None;
    }
    let v = first.rsplit(' ').next()?;
    let mut parts = v.split('.').map(|p| p.parse::<u32>().ok());
    Some((parts.next()??, parts.next().flatten().unwrap_or(0)))
}

fn run(dir: &Path, prog: &str, args: &[OsString], stdin: &[u8], env: &[(&str, &str)]) -> Output {
    use std::io::Write;
    let mut cmd = Command::new(prog);
    cmd.args(args)
        .current_dir(dir)
        .env("LC_ALL", "C.UTF-8")
        .env_remove("POSIXLY_CORRECT")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for (k, v) in env {
        cmd.env(k, v);
    }
    let mut child = cmd.spawn().unwrap_or_else(|e| panic!("{prog}: {e}"));
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
    args.iter().map(|a| OsString::from_vec(fill(a))).collect()
}

/// Why `ours` and `theirs` differ, if they do.
fn difference(c: &Case, ours: &Output, theirs: &Output) -> Option<String> {
    let show = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    if ours.stdout != theirs.stdout {
        return Some(format!(
            "stdout: mbhash {:?}, {} {:?}",
            show(&ours.stdout),
            c.tool,
            show(&theirs.stdout)
        ));
    }
    if ours.status.code() != theirs.status.code() {
        return Some(format!(
            "exit: mbhash {:?}, {} {:?}",
            ours.status.code(),
            c.tool,
            theirs.status.code()
        ));
    }
    if c.cmp == Cmp::All {
        let theirs_err = show(&theirs.stderr)
            .replace(&format!("{}: ", c.tool), "mbhash: ")
            .replace(
                &format!("Try '{} --help'", c.tool),
                "Try 'mbhash sum --help'",
            );
        if show(&ours.stderr) != theirs_err {
            return Some(format!(
                "stderr: mbhash {:?}, {} {:?}",
                show(&ours.stderr),
                c.tool,
                theirs_err
            ));
        }
    }
    None
}

#[test]
fn coreutils_cases() {
    let version = installed_version();
    if version.is_none() {
        skip_or_require(
            "coreutils",
            "comparison of the coreutils cases with the installed tools",
            "GNU coreutils not found; mbhash is checked against the expected outputs only",
        );
    }
    if Command::new("base64").arg("--version").output().is_err() {
        skip_or_require("coreutils", "coreutils cases", "base64 not found");
        return;
    }
    let cases = cases();
    let (mut compared, mut matched, mut skipped) = (0, 0, 0);
    let mut mismatches = Vec::new();
    let mut failures = Vec::new();
    for (i, c) in cases.iter().enumerate() {
        let tmp = TempDir::new("mbhash-cases", &i.to_string());
        let dir = &tmp.0;
        for (name, content) in &c.files {
            std::fs::write(dir.join(name), fill(content)).unwrap();
        }
        let stdin = fill(&c.stdin);
        let mut ours_args = os(&["sum"]);
        ours_args.extend(os(&c.ours));
        let ours = run(dir, MBHASH, &ours_args, &stdin, &c.env);
        let ours_err = String::from_utf8_lossy(&ours.stderr);
        if ours_err.contains("panicked") {
            failures.push(format!("{}: mbhash panicked: {ours_err}", c.name));
        }
        if let Some((out, code)) = &c.expect {
            let out = fill(out);
            if ours.stdout != out || ours.status.code() != Some(*code) {
                failures.push(format!(
                    "{}: mbhash {:?} (exit {:?}), the coreutils test expects {:?} (exit {code})",
                    c.name,
                    String::from_utf8_lossy(&ours.stdout),
                    ours.status.code(),
                    String::from_utf8_lossy(&out)
                ));
            }
        }
        let Some(v) = version else { continue };
        let tool_ok = Command::new(c.tool).arg("--version").output().is_ok();
        if v < c.since || !tool_ok {
            skipped += 1;
            skip_or_require(
                "coreutils-version",
                &format!("coreutils case {}", c.name),
                &format!(
                    "installed coreutils {}.{} predates {}.{} (mbhash checked against the expected output only)",
                    v.0, v.1, c.since.0, c.since.1
                ),
            );
            continue;
        }
        compared += 1;
        let theirs = run(dir, c.tool, &os(&c.args), &stdin, &c.env);
        match (difference(c, &ours, &theirs), c.differs) {
            (None, _) => matched += 1,
            (Some(d), Some(why)) => mismatches.push(format!("{}: {d} ({why})", c.name)),
            (Some(d), None) => failures.push(format!("{}: {d}", c.name)),
        }
    }
    eprintln!(
        "coreutils cases: {} in the table; {compared} compared with coreutils {}, {matched} match; \
         {skipped} skipped (older coreutils)",
        cases.len(),
        version.map_or("(none)".into(), |v| format!("{}.{}", v.0, v.1)),
    );
    for m in &mismatches {
        eprintln!("  differs on purpose: {m}");
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn raw_is_the_hex_digest() {
    // cksum-raw.sh: --raw writes the bytes whose hex the default line shows.
    let tmp = TempDir::new("mbhash-cases", "raw");
    let dir = &tmp.0;
    std::fs::write(dir.join("f"), b"the raw digest").unwrap();
    for algo in [
        "sha224",
        "sha256",
        "sha384",
        "sha512",
        "sha512-256",
        "sha512-224",
    ] {
        let raw = run(
            dir,
            MBHASH,
            &os(&["sum", "--raw", "-a", algo, "f"]),
            b"",
            &[],
        );
        let hex = run(
            dir,
            MBHASH,
            &os(&["sum", "--no-names", "-a", algo, "f"]),
            b"",
            &[],
        );
        assert!(raw.status.success() && hex.status.success());
        let shown: String = raw.stdout.iter().map(|b| format!("{b:02x}")).collect();
        assert_eq!(format!("{shown}\n").into_bytes(), hex.stdout, "{algo}");
        assert_eq!(raw.stdout, oracle(algo, b"the raw digest"), "{algo}");
    }
}

#[test]
fn no_names_as_b3sum() {
    // b3sum --no-names: the digest alone, one line per file, no escaping.
    let tmp = TempDir::new("mbhash-cases", "nonames");
    let dir = &tmp.0;
    std::fs::write(dir.join("a\nb"), b"").unwrap();
    std::fs::write(dir.join("c"), b"abc").unwrap();
    let out = run(
        dir,
        MBHASH,
        &os(&["sum", "--no-names", "a\nb", "c"]),
        b"",
        &[],
    );
    assert_eq!(out.stdout, fill("{sha256:}\n{sha256:abc}\n"));
    let out = run(
        dir,
        MBHASH,
        &os(&["sum", "--no-names", "--base64", "-z", "c"]),
        b"",
        &[],
    );
    assert_eq!(out.stdout, fill("{b64-sha256:abc}\0"));
    let out = run(
        dir,
        MBHASH,
        &os(&["sum", "--no-names", "--tag", "c"]),
        b"",
        &[],
    );
    assert_eq!(out.status.code(), Some(1));
}

#[test]
fn one_list_of_every_form_and_algorithm() {
    // Lines as coreutils, BSD and OpenSSL write them, in hex and base64,
    // of every algorithm, checked in one run.
    let tmp = TempDir::new("mbhash-cases", "mixed");
    let dir = &tmp.0;
    std::fs::write(dir.join("x"), b"x").unwrap();
    let mut list = String::new();
    let mut want = String::new();
    for (algo, tags) in [
        ("sha256", &["SHA256", "SHA2-256"][..]),
        ("sha224", &["SHA224", "SHA2-224"]),
        ("sha384", &["SHA384", "SHA2-384"]),
        ("sha512", &["SHA512", "SHA2-512"]),
        (
            "sha512-256",
            &["SHA512/256", "SHA2-512/256", "SHA512-256", "SHA512t256"],
        ),
        (
            "sha512-224",
            &["SHA512/224", "SHA2-512/224", "SHA512-224", "SHA512t224"],
        ),
        ("md5", &["MD5"]),
        ("sha1", &["SHA1"]),
        ("sm3", &["SM3"]),
    ] {
        for tag in tags {
            list.push_str(&format!(
                "{tag} (x) = {{{algo}:x}}\n{tag}(x)= {{{algo}:x}}\n"
            ));
            list.push_str(&format!("{tag} (x) = {{b64-{algo}:x}}\n"));
            want.push_str("x: OK\nx: OK\nx: OK\n");
        }
        // Untagged lines without -a: SHA-2 by their length.
        if algo.starts_with("sha") && !algo.contains('-') && algo != "sha1" {
            list.push_str(&format!("{{{algo}:x}}  x\n"));
            want.push_str("x: OK\n");
            // 64 base64 digits (SHA-384) are SHA-256's hex length: those
            // need -a or a tag.
            if algo != "sha384" {
                list.push_str(&format!("{{b64-{algo}:x}}  x\n"));
                want.push_str("x: OK\n");
            }
        }
    }
    // Untagged MD5 (32 hex digits) takes -a md5, as md5sum -c reads it.
    list.push_str("9dd4e461268c8034f5c8564e155c67a6  x\n");
    std::fs::write(dir.join("l"), fill(&list)).unwrap();
    let out = run(dir, MBHASH, &os(&["sum", "-c", "l"]), b"", &[]);
    assert_eq!(String::from_utf8_lossy(&out.stdout), want);
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "mbhash: WARNING: 1 line is improperly formatted\n"
    );
    assert_eq!(out.status.code(), Some(0));
    // One wrong digest among them fails the run and is named.
    let bad = list.replacen("{sha384:x}", "{sha384:y}", 1);
    std::fs::write(dir.join("l"), fill(&bad)).unwrap();
    let out = run(dir, MBHASH, &os(&["sum", "-c", "--quiet", "l"]), b"", &[]);
    assert_eq!(String::from_utf8_lossy(&out.stdout), "x: FAILED\n");
    assert_eq!(out.status.code(), Some(1));
}

#[test]
fn a_list_alternating_algorithms_checks_in_one_run() {
    // Lines alternate between the families: every one is checked, in list
    // order. A family whose engine cannot run ends the check at its first
    // line, after the messages of the lines before it.
    let tmp = TempDir::new("mbhash-cases", "alternating");
    let dir = &tmp.0;
    std::fs::write(dir.join("x"), b"x").unwrap();
    let mut list = String::new();
    for i in 0..300 {
        let algo = ["sha256", "sha512", "sha224", "sha384"][i % 4];
        list.push_str(&format!("{} (x) = {{{algo}:x}}\n", algo.to_uppercase()));
    }
    std::fs::write(dir.join("l"), fill(&list)).unwrap();
    let out = run(dir, MBHASH, &os(&["sum", "-c", "l"]), b"", &[]);
    assert_eq!(String::from_utf8_lossy(&out.stdout), "x: OK\n".repeat(300));
    assert_eq!(out.status.code(), Some(0));
    let bad = [("MBHASH_SHA512_ENGINE", "no-such-engine")];
    let out = run(dir, MBHASH, &os(&["sum", "-c", "l"]), b"", &bad);
    assert_eq!(String::from_utf8_lossy(&out.stdout), "x: OK\n");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.starts_with("mbhash: sha512 engine 'no-such-engine' is unknown"),
        "{err}"
    );
    assert_eq!(out.status.code(), Some(1));
    // Each family answers for its own engine: MD5, SHA-1 and SM3 share
    // SHA-256's block length, not its engine.
    let mixed =
        "SHA256 (x) = {sha256:x}\nMD5 (x) = {md5:x}\nSHA1 (x) = {sha1:x}\nSM3 (x) = {sm3:x}\n";
    std::fs::write(dir.join("m"), fill(mixed)).unwrap();
    for (var, family, oks) in [
        ("MBHASH_MD5_ENGINE", "md5", 1),
        ("MBHASH_SHA1_ENGINE", "sha1", 2),
        ("MBHASH_SM3_ENGINE", "sm3", 3),
    ] {
        let out = run(
            dir,
            MBHASH,
            &os(&["sum", "-c", "m"]),
            b"",
            &[(var, "no-such-engine")],
        );
        assert_eq!(
            String::from_utf8_lossy(&out.stdout),
            "x: OK\n".repeat(oks),
            "{var}"
        );
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.starts_with(&format!(
                "mbhash: {family} engine 'no-such-engine' is unknown"
            )),
            "{var}: {err}"
        );
        assert_eq!(out.status.code(), Some(1), "{var}");
    }
    let out = run(dir, MBHASH, &os(&["sum", "-c", "m"]), b"", &[]);
    assert_eq!(String::from_utf8_lossy(&out.stdout), "x: OK\n".repeat(4));
    // The other family's variable is not this list's business.
    let sha256_only: String = list.lines().step_by(4).map(|l| format!("{l}\n")).collect();
    std::fs::write(dir.join("l"), fill(&sha256_only)).unwrap();
    let out = run(dir, MBHASH, &os(&["sum", "-c", "l"]), b"", &bad);
    assert_eq!(String::from_utf8_lossy(&out.stdout), "x: OK\n".repeat(75));
    assert_eq!(out.status.code(), Some(0));
}

#[test]
fn openssl_lines_check() {
    // OpenSSL 3 writes `SHA2-256(f)= HASH` (and `HASH *f` with -r): such a
    // list, of every algorithm, checks in one run.
    if Command::new("openssl").arg("version").output().is_err() {
        skip_or_require(
            "openssl",
            "checking lists written by openssl dgst",
            "openssl not found",
        );
        return;
    }
    let tmp = TempDir::new("mbhash-cases", "openssl");
    let dir = &tmp.0;
    std::fs::write(dir.join("f"), b"openssl").unwrap();
    let dgst = |algo: &str, extra: &[&str]| {
        let mut args = os(&["dgst", &format!("-{algo}")]);
        args.extend(os(extra));
        args.extend(os(&["f"]));
        let out = run(dir, "openssl", &args, b"", &[]);
        assert!(out.status.success(), "openssl dgst -{algo}");
        out.stdout
    };
    let mut list = Vec::new();
    let mut want = String::new();
    for algo in [
        "sha224",
        "sha256",
        "sha384",
        "sha512",
        "sha512-224",
        "sha512-256",
    ] {
        list.extend(dgst(algo, &[]));
        want.push_str("f: OK\n");
        if !algo.contains('-') {
            // Untagged: the length tells the algorithm.
            list.extend(dgst(algo, &["-r"]));
            want.push_str("f: OK\n");
        } else {
            // The length of a truncated SHA-512 is that of another
            // algorithm: -a says which.
            std::fs::write(dir.join("r"), dgst(algo, &["-r"])).unwrap();
            let out = run(dir, MBHASH, &os(&["sum", "-a", algo, "-c", "r"]), b"", &[]);
            assert_eq!(String::from_utf8_lossy(&out.stdout), "f: OK\n", "{algo} -r");
        }
    }
    std::fs::write(dir.join("l"), &list).unwrap();
    let out = run(dir, MBHASH, &os(&["sum", "-c", "--strict", "l"]), b"", &[]);
    assert_eq!(String::from_utf8_lossy(&out.stdout), want);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
