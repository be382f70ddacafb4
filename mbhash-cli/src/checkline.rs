//! One line of a checksum list, split the way coreutils' `split_3` does:
//! the digest and the (unescaped) file name, in text (`HASH  NAME`,
//! `HASH *NAME`, `HASH NAME`) or BSD (`TAG (NAME) = HASH`) form.

use crate::names;

/// Splits checksum lines the way coreutils' `split_3` does.
#[derive(Debug)]
pub struct Parser {
    tag: &'static [u8],
    hex_len: usize,
    /// Set by the first text line: whether lines are `HASH NAME` (as
    /// `md5 -r` writes them) rather than `HASH  NAME` / `HASH *NAME`. The
    /// two are not mixed, in any of the lists of one run.
    bsd_reversed: Option<bool>,
}

fn is_white(b: u8) -> bool {
    b == b' ' || b == b'\t'
}

impl Parser {
    /// A parser for digests of `hex_len` hex digits and BSD lines tagged `tag`.
    pub fn new(tag: &'static str, hex_len: usize) -> Self {
        Parser {
            tag: tag.as_bytes(),
            hex_len,
            bsd_reversed: None,
        }
    }

    /// The digest and the (unescaped) file name of a line without its line
    /// end; `None` if the line is improperly formatted.
    pub fn split<'l>(&mut self, s: &'l [u8]) -> Option<(&'l [u8], Vec<u8>)> {
        let mut i = 0;
        while i < s.len() && is_white(s[i]) {
            i += 1;
        }
        let escaped = s.get(i) == Some(&b'\\');
        if escaped {
            i += 1;
        }
        if s[i..].starts_with(self.tag) {
            i += self.tag.len();
            if s.get(i) == Some(&b' ') {
                i += 1;
            }
            if s.get(i) != Some(&b'(') {
                return None;
            }
            return self.split_bsd(&s[i + 1..], escaped);
        }
        // At least the digest, a blank and a one-byte name.
        let min = self.hex_len + 2 + usize::from(s.get(i) == Some(&b'\\'));
        if s.len() - i < min {
            return None;
        }
        let hex = &s[i..i + self.hex_len];
        i += self.hex_len;
        if !is_white(s[i]) {
            return None;
        }
        i += 1;
        if !hex.iter().all(u8::is_ascii_hexdigit) {
            return None;
        }
        if s.len() - i == 1 || (s[i] != b' ' && s[i] != b'*') {
            if self.bsd_reversed == Some(false) {
                return None;
            }
            self.bsd_reversed = Some(true);
        } else if self.bsd_reversed != Some(true) {
            self.bsd_reversed = Some(false);
            i += 1;
        }
        let name = &s[i..];
        let name = if escaped {
            names::unescape(name)?
        } else {
            name.to_vec()
        };
        Some((hex, name))
    }

    /// `NAME) = HASH`, after `TAG (`.
    fn split_bsd<'l>(&self, s: &'l [u8], escaped: bool) -> Option<(&'l [u8], Vec<u8>)> {
        let close = s.iter().rposition(|&b| b == b')')?;
        let name = &s[..close];
        let name = if escaped {
            names::unescape(name)?
        } else {
            name.to_vec()
        };
        let mut i = close + 1;
        while i < s.len() && is_white(s[i]) {
            i += 1;
        }
        if s.get(i) != Some(&b'=') {
            return None;
        }
        i += 1;
        while i < s.len() && is_white(s[i]) {
            i += 1;
        }
        let hex = &s[i..];
        (hex.len() == self.hex_len && hex.iter().all(u8::is_ascii_hexdigit)).then_some((hex, name))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const H: &str = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";

    fn split(p: &mut Parser, line: &str) -> Option<(String, String)> {
        p.split(line.as_bytes()).map(|(h, n)| {
            (
                String::from_utf8(h.to_vec()).unwrap(),
                String::from_utf8(n).unwrap(),
            )
        })
    }

    #[test]
    fn text_and_tag_lines() {
        let mut p = Parser::new("SHA256", 64);
        let want = Some((H.to_string(), "a b".to_string()));
        assert_eq!(split(&mut p, &format!("{H}  a b")), want);
        assert_eq!(split(&mut p, &format!("{H} *a b")), want);
        assert_eq!(split(&mut p, &format!("SHA256 (a b) = {H}")), want);
        assert_eq!(split(&mut p, &format!("  SHA256(a b)=\t{H}")), want);
        assert_eq!(
            split(&mut p, &format!("\\{H}  a\\\\b\\nc")),
            Some((H.to_string(), "a\\b\nc".to_string()))
        );
        assert_eq!(split(&mut p, &format!("\\{H}  a\\x")), None);
        assert_eq!(split(&mut p, &format!("SHA256 (a) = {}", &H[2..])), None);
        assert_eq!(split(&mut p, &format!("SHA512 (a) = {H}")), None);
        assert_eq!(split(&mut p, &format!("SHA256  (a) = {H}")), None);
        assert_eq!(split(&mut p, "garbage"), None);
        // Text lines have set the mode: a one-space line is refused.
        assert_eq!(split(&mut p, &format!("{H} a")), None);
    }

    #[test]
    fn one_space_lines_set_the_mode() {
        let mut p = Parser::new("SHA256", 64);
        assert_eq!(
            split(&mut p, &format!("{H} a")),
            Some((H.to_string(), "a".to_string()))
        );
        assert_eq!(
            split(&mut p, &format!("{H}  a")),
            Some((H.to_string(), " a".to_string()))
        );
    }
}
