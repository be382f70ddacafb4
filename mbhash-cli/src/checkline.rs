//! One line of a checksum list, split the way coreutils' `split_3` does:
//! the algorithm, the digest (hex or base64) and the (unescaped) file
//! name, in text (`HASH  NAME`, `HASH *NAME`, `HASH NAME`), BSD
//! (`TAG (NAME) = HASH`) or OpenSSL (`TAG(NAME)= HASH`) form.
//!
//! The tags are those of coreutils (`SHA256`, and `SHA2-256` as `cksum -a
//! sha2` reads them), OpenSSL 3 (`SHA2-256`, `SHA2-512/256`), OpenSSL 1
//! (`SHA512-256`), FreeBSD (`SHA512t256`) and mbhash (`SHA512/256`). An
//! untagged line's algorithm is the one given with `-a`, else the one its
//! digest's length implies, as `cksum -a sha2` decides it: 56, 64, 96 or
//! 128 hex digits are SHA-224, SHA-256, SHA-384 and SHA-512, and 40, 44 or
//! 88 base64 digits SHA-224, SHA-256 and SHA-512.
//!
//! A named CRC's lines (as `mbhash sum -a crc64-nvme` writes them) are
//! checked too: tagged with the CRC's name in upper case (`CRC64-NVME (NAME)
//! = HEX`) in any list, untagged with `-a` (the hex or base64 of the CRC's
//! big-endian bytes); an untagged CRC line's length alone never selects it. A 64-character field is
//! SHA-256 hex or improperly formatted, as `sha256sum` reads it (`cksum -a
//! sha2` would try it as the base64 of SHA-384 too, so that a SHA-256 line
//! with one digit damaged checks as FAILED rather than as improperly
//! formatted).

use std::borrow::Cow;

use mbhash_core::Algo;
use mbhash_core::crc::Variant;

use crate::names;

/// What a line's digest is: a hash's, or a named CRC's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sum {
    /// A hash.
    Hash(Algo),
    /// A named CRC (its value's big-endian bytes).
    Crc(Variant),
}

impl Sum {
    /// The digest's length in bytes.
    pub fn output_len(self) -> usize {
        match self {
            Sum::Hash(a) => a.output_len(),
            Sum::Crc(v) => usize::from(v.spec().width).div_ceil(8),
        }
    }

    /// The tag of its lines (`SHA256`, `CRC64-NVME`).
    pub fn tag(self) -> Cow<'static, str> {
        match self {
            Sum::Hash(a) => Cow::Borrowed(a.tag()),
            Sum::Crc(v) => Cow::Owned(v.name().to_ascii_uppercase()),
        }
    }
}

/// The length of the base64 of `n` bytes (padded with `=`).
pub const fn base64_len(n: usize) -> usize {
    n.div_ceil(3) * 4
}

/// The algorithm whose check lines may carry the tag `word` (the
/// catalogue's `tags`: coreutils', BSD's and OpenSSL's spellings; a named
/// CRC's name in upper case).
fn tag_sum(word: &[u8]) -> Option<Sum> {
    Algo::ALL
        .into_iter()
        .find(|a| a.check_tags().iter().any(|t| t.as_bytes() == word))
        .map(Sum::Hash)
        .or_else(|| {
            Variant::ALL
                .iter()
                .copied()
                .find(|v| {
                    let name = v.name().as_bytes();
                    name.len() == word.len()
                        && name
                            .iter()
                            .zip(word)
                            .all(|(n, w)| n.to_ascii_uppercase() == *w)
                })
                .map(Sum::Crc)
        })
}

/// Tags of algorithms that coreutils, BSD or OpenSSL check and mbhash does
/// not compute (before any `-LENGTH`).
const UNSUPPORTED: &[&str] = &["SHA3", "BLAKE2b", "BLAKE2B", "BLAKE2s", "RIPEMD160"];

/// The algorithms an untagged line's length selects without `-a`.
const BY_LENGTH: [Algo; 4] = [Algo::Sha224, Algo::Sha256, Algo::Sha384, Algo::Sha512];

/// A properly formatted line.
#[derive(Debug, PartialEq, Eq)]
pub struct Entry<'l> {
    /// Its algorithm.
    pub algo: Sum,
    /// The digest as written: hex (either case) or base64.
    pub digest: &'l [u8],
    /// The file name, unescaped.
    pub name: Vec<u8>,
}

/// What a line is.
#[derive(Debug, PartialEq, Eq)]
pub enum Line<'l> {
    /// A line to check.
    Entry(Entry<'l>),
    /// An improperly formatted line.
    Misformatted,
    /// A tagged line of an algorithm mbhash does not compute (its tag).
    Unsupported(String),
}

/// Splits checksum lines the way coreutils' `split_3` does.
#[derive(Debug)]
pub struct Parser {
    /// `-a`: only lines of this algorithm are properly formatted.
    only: Option<Sum>,
    /// Set by the first text line: whether lines are `HASH NAME` (as
    /// `md5 -r` writes them) rather than `HASH  NAME` / `HASH *NAME`. The
    /// two are not mixed, in any of the lists of one run.
    bsd_reversed: Option<bool>,
    /// The algorithm named in improperly-formatted warnings: `-a`'s, else
    /// the last one a line named (as in coreutils' `cksum`).
    last: Sum,
}

fn is_white(b: u8) -> bool {
    b == b' ' || b == b'\t'
}

fn is_base64(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'+' || b == b'/'
}

/// True if `d` spells a digest of `algo` in hex or in (padded) base64.
fn valid_digest(d: &[u8], algo: Sum) -> bool {
    let n = algo.output_len();
    // Of a 2-byte CRC, hex and base64 are both 4 characters (base64 then
    // ends in `=`).
    if d.len() == 2 * n && d.iter().all(u8::is_ascii_hexdigit) {
        return true;
    }
    let pad = (3 - n % 3) % 3;
    d.len() == base64_len(n)
        && d[..d.len() - pad].iter().all(|&b| is_base64(b))
        && d[d.len() - pad..].iter().all(|&b| b == b'=')
}

impl Parser {
    /// A parser for lines of any algorithm (`only` = `None`) or of `only`.
    pub fn new(only: Option<Sum>) -> Self {
        Parser {
            only,
            bsd_reversed: None,
            last: only.unwrap_or(Sum::Hash(Algo::Sha256)),
        }
    }

    /// The tag to name in a warning about an improperly formatted line.
    pub fn warn_tag(&self) -> Cow<'static, str> {
        self.last.tag()
    }

    /// What the line `s` (without its line end) is.
    pub fn split<'l>(&mut self, s: &'l [u8]) -> Line<'l> {
        let mut i = 0;
        while i < s.len() && is_white(s[i]) {
            i += 1;
        }
        let escaped = s.get(i) == Some(&b'\\');
        if escaped {
            i += 1;
        }
        // The tag: up to a blank or `(`.
        let end = s[i..]
            .iter()
            .position(|&b| is_white(b) || b == b'(')
            .map_or(s.len(), |p| i + p);
        let word = &s[i..end];
        let mut paren = end;
        if s.get(paren) == Some(&b' ') {
            paren += 1;
        }
        let tagged = s.get(paren) == Some(&b'(');
        if let Some(algo) = tag_sum(word) {
            if self.only.is_none_or(|a| a == algo) {
                self.last = algo;
                if tagged {
                    return self.split_bsd(algo, &s[paren + 1..], escaped);
                }
            } else if tagged {
                return Line::Misformatted;
            }
            // Not a tag after all: maybe a base64 digest that starts like
            // one (as coreutils falls back).
        } else if tagged && self.only.is_none() {
            let base = word.split(|&b| b == b'-').next().unwrap_or(word);
            if UNSUPPORTED.iter().any(|u| u.as_bytes() == base) {
                return Line::Unsupported(String::from_utf8_lossy(word).into_owned());
            }
        }
        self.split_text(s, i, escaped)
    }

    /// `HASH  NAME`, `HASH *NAME` or `HASH NAME`, the digest at `i`.
    fn split_text<'l>(&mut self, s: &'l [u8], mut i: usize, escaped: bool) -> Line<'l> {
        let field_end = s[i..]
            .iter()
            .position(|&b| is_white(b))
            .map_or(s.len(), |p| i + p);
        let digest = &s[i..field_end];
        let algo = match self.only {
            Some(a) => a,
            None => {
                let hex = BY_LENGTH
                    .into_iter()
                    .find(|a| digest.len() == 2 * a.output_len());
                let b64 = BY_LENGTH
                    .into_iter()
                    .find(|a| digest.len() == base64_len(a.output_len()));
                // A field of a hex length is hex: 64 characters are a
                // SHA-256 digest or nothing (as `sha256sum` reads them),
                // never the base64 of a SHA-384 one (that takes `-a
                // sha384` or a tag).
                match (hex, b64) {
                    (Some(a), _) => Sum::Hash(a),
                    (None, Some(a)) => Sum::Hash(a),
                    (None, None) => return Line::Misformatted,
                }
            }
        };
        // The digest, a blank and at least a one-byte name.
        if !valid_digest(digest, algo) || s.len() < field_end + 2 {
            return Line::Misformatted;
        }
        if self.only.is_none() {
            self.last = algo;
        }
        i = field_end + 1;
        if s.len() - i == 1 || (s[i] != b' ' && s[i] != b'*') {
            // Not mixed with the standard form: a name that starts with a
            // blank must not pass for one in the other form.
            if self.bsd_reversed == Some(false) {
                return Line::Misformatted;
            }
            self.bsd_reversed = Some(true);
        } else if self.bsd_reversed != Some(true) {
            self.bsd_reversed = Some(false);
            i += 1;
        }
        let name = &s[i..];
        let name = if escaped {
            match names::unescape(name) {
                Some(n) => n,
                None => return Line::Misformatted,
            }
        } else {
            name.to_vec()
        };
        Line::Entry(Entry { algo, digest, name })
    }

    /// `NAME) = HASH`, after `TAG (`.
    fn split_bsd<'l>(&self, algo: Sum, s: &'l [u8], escaped: bool) -> Line<'l> {
        let Some(close) = s.iter().rposition(|&b| b == b')') else {
            return Line::Misformatted;
        };
        let name = &s[..close];
        let name = if escaped {
            match names::unescape(name) {
                Some(n) => n,
                None => return Line::Misformatted,
            }
        } else {
            name.to_vec()
        };
        let mut i = close + 1;
        while i < s.len() && is_white(s[i]) {
            i += 1;
        }
        if s.get(i) != Some(&b'=') {
            return Line::Misformatted;
        }
        i += 1;
        while i < s.len() && is_white(s[i]) {
            i += 1;
        }
        let digest = &s[i..];
        if !valid_digest(digest, algo) {
            return Line::Misformatted;
        }
        Line::Entry(Entry { algo, digest, name })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const H: &str = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";
    /// SHA-256 of the empty input, in base64.
    const B64: &str = "47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=";

    fn split(p: &mut Parser, line: &str) -> Option<(Algo, String, String)> {
        match p.split(line.as_bytes()) {
            Line::Entry(e) => Some((
                match e.algo {
                    Sum::Hash(a) => a,
                    Sum::Crc(v) => panic!("{line}: read as {v:?}"),
                },
                String::from_utf8(e.digest.to_vec()).unwrap(),
                String::from_utf8(e.name).unwrap(),
            )),
            _ => None,
        }
    }

    #[test]
    fn text_and_tag_lines() {
        let mut p = Parser::new(Some(Sum::Hash(Algo::Sha256)));
        let want = Some((Algo::Sha256, H.to_string(), "a b".to_string()));
        assert_eq!(split(&mut p, &format!("{H}  a b")), want);
        assert_eq!(split(&mut p, &format!("{H} *a b")), want);
        assert_eq!(split(&mut p, &format!("SHA256 (a b) = {H}")), want);
        assert_eq!(split(&mut p, &format!("  SHA256(a b)=\t{H}")), want);
        assert_eq!(split(&mut p, &format!("SHA2-256(a b)= {H}")), want);
        assert_eq!(
            split(&mut p, &format!("\\{H}  a\\\\b\\nc")),
            Some((Algo::Sha256, H.to_string(), "a\\b\nc".to_string()))
        );
        assert_eq!(split(&mut p, &format!("\\{H}  a\\x")), None);
        assert_eq!(split(&mut p, &format!("SHA256 (a) = {}", &H[2..])), None);
        // -a sha256 takes SHA-256 lines only, as coreutils does.
        assert_eq!(split(&mut p, &format!("SHA512 (a) = {H}")), None);
        assert_eq!(split(&mut p, &format!("SHA256  (a) = {H}")), None);
        assert_eq!(split(&mut p, "garbage"), None);
        assert_eq!(split(&mut p, &format!("{H}{H}  a")), None);
        // Text lines have set the mode: a one-space line is refused.
        assert_eq!(split(&mut p, &format!("{H} a")), None);
    }

    #[test]
    fn one_space_lines_set_the_mode() {
        let mut p = Parser::new(Some(Sum::Hash(Algo::Sha256)));
        assert_eq!(
            split(&mut p, &format!("{H} a")),
            Some((Algo::Sha256, H.to_string(), "a".to_string()))
        );
        assert_eq!(
            split(&mut p, &format!("{H}  a")),
            Some((Algo::Sha256, H.to_string(), " a".to_string()))
        );
    }

    #[test]
    fn each_line_names_its_algorithm() {
        let mut p = Parser::new(None);
        let h512 = "ab".repeat(64);
        let h384 = "cd".repeat(48);
        let h224 = "ef".repeat(28);
        let cases = [
            (format!("SHA512 (f) = {h512}"), Algo::Sha512),
            (format!("SHA2-384(f)= {h384}"), Algo::Sha384),
            (format!("SHA384(f)= {h384}"), Algo::Sha384),
            (format!("SHA2-512/256(f)= {H}"), Algo::Sha512_256),
            (format!("SHA512/224 (f) = {h224}"), Algo::Sha512_224),
            (format!("SHA512t256 (f) = {H}"), Algo::Sha512_256),
            (format!("{h512}  f"), Algo::Sha512),
            (format!("{h384}  f"), Algo::Sha384),
            (format!("{h224}  f"), Algo::Sha224),
            (format!("{H}  f"), Algo::Sha256),
            (format!("SHA256 (f) = {B64}"), Algo::Sha256),
            (format!("{B64}  f"), Algo::Sha256),
        ];
        for (line, algo) in cases {
            let got = split(&mut p, &line);
            assert_eq!(got.map(|g| (g.0, g.2)), Some((algo, "f".into())), "{line}");
            assert_eq!(p.warn_tag(), algo.tag());
        }
        // Base64 needs its exact padding.
        assert_eq!(
            split(
                &mut p,
                &format!("SHA256 (f) = {}", B64.trim_end_matches('='))
            ),
            None
        );
        // A base64 digest that starts like a tag is still a digest.
        let tagish = format!("SHA1{}A=", "+".repeat(38));
        assert_eq!(tagish.len(), 44);
        assert_eq!(
            split(&mut p, &format!("{tagish}  f")).map(|g| g.0),
            Some(Algo::Sha256)
        );
        // A damaged SHA-256 hex digest is not taken for the base64 of a
        // SHA-384 one (64 characters), unless -a says so.
        let damaged = format!("{}x  f", &H[..63]);
        assert_eq!(p.split(damaged.as_bytes()), Line::Misformatted);
        let mut p384 = Parser::new(Some(Sum::Hash(Algo::Sha384)));
        assert_eq!(split(&mut p384, &damaged).map(|g| g.0), Some(Algo::Sha384));
        // Algorithms mbhash does not compute, and bad SHA-2 lengths.
        for (line, tag) in [
            (
                "RIPEMD160 (f) = 9c1185a5c5e9fc54612808977ee8f548b2258d31",
                "RIPEMD160",
            ),
            ("BLAKE2b-256 (f) = 00", "BLAKE2b-256"),
            ("SHA3-256(f)= 00", "SHA3-256"),
        ] {
            assert_eq!(p.split(line.as_bytes()), Line::Unsupported(tag.into()));
        }
        assert_eq!(
            p.split(b"SHA2-128 (f) = 38b060a751ac96384cd9327eb1b1e36a"),
            Line::Misformatted
        );
        assert_eq!(p.split(b"BLAKE2b ("), Line::Unsupported("BLAKE2b".into()));
        // MD5, SHA-1 and SM3 lines are computed.
        let md5 = "MD5 (f) = d41d8cd98f00b204e9800998ecf8427e";
        assert_eq!(split(&mut p, md5).map(|g| g.0), Some(Algo::Md5));
        assert_eq!(
            p.split(format!("{}  f", "a".repeat(40)).as_bytes()),
            Line::Misformatted
        );
    }

    #[test]
    fn named_crc_lines() {
        let nvme = Sum::Crc(Variant::Crc64Nvme);
        let hex = "ae8b14860a799888";
        // Tagged: in any list, and with its own -a.
        for only in [None, Some(nvme)] {
            let mut p = Parser::new(only);
            let line = format!("CRC64-NVME (f) = {hex}");
            match p.split(line.as_bytes()) {
                Line::Entry(e) => assert_eq!(
                    (e.algo, e.digest, &e.name[..]),
                    (nvme, hex.as_bytes(), &b"f"[..])
                ),
                other => panic!("{other:?}"),
            }
            assert_eq!(p.warn_tag(), "CRC64-NVME");
            // The tag is the upper-case name; a short digest is refused.
            assert_eq!(
                p.split(format!("crc64-nvme (f) = {hex}").as_bytes()),
                Line::Misformatted
            );
            assert_eq!(
                p.split(format!("CRC64-NVME (f) = {}", &hex[2..]).as_bytes()),
                Line::Misformatted
            );
        }
        // Untagged only with -a: 16 hex digits name no hash.
        let line = format!("{hex}  f");
        assert_eq!(Parser::new(None).split(line.as_bytes()), Line::Misformatted);
        match Parser::new(Some(nvme)).split(line.as_bytes()) {
            Line::Entry(e) => assert_eq!(e.algo, nvme),
            other => panic!("{other:?}"),
        }
        // -a sha256 refuses a CRC's tagged line, -a crc64-nvme a hash's.
        let mut p = Parser::new(Some(Sum::Hash(Algo::Sha256)));
        assert_eq!(
            p.split(format!("CRC64-NVME (f) = {hex}").as_bytes()),
            Line::Misformatted
        );
        let mut p = Parser::new(Some(nvme));
        assert_eq!(
            p.split(format!("SHA256 (f) = {H}").as_bytes()),
            Line::Misformatted
        );
        // CRC-16: 4 hex digits, or the base64 of 2 bytes.
        let t10 = Sum::Crc(Variant::Crc16T10Dif);
        let mut p = Parser::new(None);
        for d in ["d0db", "0Ns="] {
            match p.split(format!("CRC16-T10DIF (f) = {d}").as_bytes()) {
                Line::Entry(e) => assert_eq!(e.algo, t10, "{d}"),
                other => panic!("{d}: {other:?}"),
            }
        }
    }
}
