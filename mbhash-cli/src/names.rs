//! File names as coreutils writes them: escaped in checksum lines, quoted in
//! error messages, and the text of an I/O error.

use std::borrow::Cow;
use std::ffi::OsStr;
use std::io;

/// The raw bytes of a file name (on Unix; elsewhere its lossy UTF-8).
pub fn bytes(name: &OsStr) -> Cow<'_, [u8]> {
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        Cow::Borrowed(name.as_bytes())
    }
    #[cfg(not(unix))]
    {
        match name.to_string_lossy() {
            Cow::Borrowed(s) => Cow::Borrowed(s.as_bytes()),
            Cow::Owned(s) => Cow::Owned(s.into_bytes()),
        }
    }
}

/// A path from the bytes of a file name.
pub fn path(name: &[u8]) -> std::path::PathBuf {
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        OsStr::from_bytes(name).into()
    }
    #[cfg(not(unix))]
    {
        String::from_utf8_lossy(name).into_owned().into()
    }
}

/// True if a checksum line for `name` needs coreutils' escaping: the line
/// starts with `\` and the name's `\`, newline and carriage return are
/// written as `\\`, `\n` and `\r`.
pub fn needs_escape(name: &[u8]) -> bool {
    name.iter().any(|&b| matches!(b, b'\\' | b'\n' | b'\r'))
}

/// Appends `name` to `out`, escaped if `escape` (see [`needs_escape`]).
pub fn push_name(out: &mut Vec<u8>, name: &[u8], escape: bool) {
    if !escape {
        out.extend_from_slice(name);
        return;
    }
    for &b in name {
        match b {
            b'\\' => out.extend_from_slice(b"\\\\"),
            b'\n' => out.extend_from_slice(b"\\n"),
            b'\r' => out.extend_from_slice(b"\\r"),
            _ => out.push(b),
        }
    }
}

/// Undoes [`push_name`]'s escaping; `None` for an invalid escape (only `\\`,
/// `\n` and `\r` are valid) or a NUL byte, as coreutils' check mode does.
pub fn unescape(name: &[u8]) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(name.len());
    let mut it = name.iter();
    while let Some(&b) = it.next() {
        match b {
            b'\\' => match it.next()? {
                b'\\' => out.push(b'\\'),
                b'n' => out.push(b'\n'),
                b'r' => out.push(b'\r'),
                _ => return None,
            },
            0 => return None,
            _ => out.push(b),
        }
    }
    Some(out)
}

/// A file name quoted for an error message the way coreutils' `quotef`
/// does (gnulib's shell-escape style, with `:` quoted too): plain when it is
/// safe, else in single quotes with control bytes as `$'\n'`-style escapes,
/// or in double quotes when that avoids escaping a single quote.
pub fn quote(name: &[u8]) -> String {
    quote_in(name, utf8_locale())
}

fn utf8_locale() -> bool {
    ["LC_ALL", "LC_CTYPE", "LANG"]
        .iter()
        .filter_map(|v| std::env::var(v).ok())
        .find(|v| !v.is_empty())
        .map(|v| {
            let v = v.to_ascii_lowercase();
            v.contains("utf-8") || v.contains("utf8")
        })
        .unwrap_or(false)
}

/// One character of a name, as the quoting sees it.
enum Unit<'a> {
    /// Printed as is; `needs_quotes` if the shell would misread it,
    /// `compat` if it may stand inside double quotes unescaped.
    Plain {
        text: &'a [u8],
        needs_quotes: bool,
        compat: bool,
    },
    /// A byte written as an escape inside `$'...'`.
    Escaped(u8),
}

fn units(name: &[u8], utf8: bool) -> Vec<Unit<'_>> {
    let mut out = Vec::with_capacity(name.len());
    let mut pos = 0;
    for chunk in name.utf8_chunks() {
        for (off, ch) in chunk.valid().char_indices() {
            let at = pos + off;
            let text = &name[at..at + ch.len_utf8()];
            if ch.is_ascii() {
                out.push(ascii_unit(text, at == 0, name.len() == 1));
            } else if utf8 && !ch.is_control() {
                out.push(Unit::Plain {
                    text,
                    needs_quotes: false,
                    compat: true,
                });
            } else {
                out.extend(text.iter().map(|&b| Unit::Escaped(b)));
            }
        }
        pos += chunk.valid().len();
        out.extend(chunk.invalid().iter().map(|&b| Unit::Escaped(b)));
        pos += chunk.invalid().len();
    }
    out
}

/// `first`: the unit starts the name; `alone`: it is the whole name.
fn ascii_unit(text: &[u8], first: bool, alone: bool) -> Unit<'_> {
    let b = text[0];
    let plain = |needs_quotes, compat| Unit::Plain {
        text,
        needs_quotes,
        compat,
    };
    match b {
        b'a'..=b'z' | b'A'..=b'Z' | b'0'..=b'9' => plain(false, true),
        b'%' | b'+' | b',' | b'-' | b'.' | b'/' | b'_' | b']' | b'@' => plain(false, true),
        b':' | b' ' | b'\'' => plain(true, true),
        // Special to the shell alone; `#` and `~` at the start.
        b'{' | b'}' => plain(alone, alone),
        b'#' | b'~' => plain(first, first),
        b'!' | b'"' | b'$' | b'&' | b'(' | b')' | b'*' | b';' | b'<' | b'=' | b'>' | b'?'
        | b'[' | b'\\' | b'^' | b'`' | b'|' => plain(true, false),
        _ => Unit::Escaped(b),
    }
}

fn quote_in(name: &[u8], utf8: bool) -> String {
    if name.is_empty() {
        return "''".into();
    }
    let units = units(name, utf8);
    let mut plain_ok = true;
    let mut compat = true;
    let mut single_quote = false;
    for u in &units {
        match u {
            Unit::Plain {
                text,
                needs_quotes,
                compat: c,
            } => {
                plain_ok &= !needs_quotes;
                compat &= c;
                single_quote |= text == b"'";
            }
            Unit::Escaped(_) => {
                plain_ok = false;
                compat = false;
            }
        }
    }
    let mut out: Vec<u8> = Vec::with_capacity(name.len() + 8);
    if plain_ok {
        out.extend_from_slice(name);
    } else if single_quote && compat {
        out.push(b'"');
        out.extend_from_slice(name);
        out.push(b'"');
    } else {
        out.push(b'\'');
        // gnulib quotes a name with a single quote in two passes, and the
        // second starts in the escape state the first ended in: a name that
        // ends in an escape starts with a stray `''` (or, if it also starts
        // with one, lacks its `$'`). Copied as is, to print what coreutils
        // prints.
        let mut in_escape = single_quote && matches!(units.last(), Some(Unit::Escaped(_)));
        for u in &units {
            match u {
                Unit::Escaped(b) => {
                    if !in_escape {
                        out.extend_from_slice(b"'$'");
                        in_escape = true;
                    }
                    out.push(b'\\');
                    match b {
                        7 => out.push(b'a'),
                        8 => out.push(b'b'),
                        b'\t' => out.push(b't'),
                        b'\n' => out.push(b'n'),
                        11 => out.push(b'v'),
                        12 => out.push(b'f'),
                        b'\r' => out.push(b'r'),
                        _ => out.extend_from_slice(format!("{b:03o}").as_bytes()),
                    }
                }
                Unit::Plain { text, .. } if *text == b"'" => {
                    // Closes whatever is open, `$'...'` included.
                    out.extend_from_slice(b"'\\''");
                    in_escape = false;
                }
                Unit::Plain { text, .. } => {
                    if in_escape {
                        out.extend_from_slice(b"''");
                        in_escape = false;
                    }
                    out.extend_from_slice(text);
                }
            }
        }
        out.push(b'\'');
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// The text of an I/O error as `strerror` gives it, without Rust's
/// ` (os error N)` suffix.
pub fn describe(e: &io::Error) -> String {
    let text = e.to_string();
    match (e.raw_os_error(), text.rfind(" (os error ")) {
        (Some(_), Some(at)) => text[..at].to_string(),
        _ => text,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoting_matches_coreutils() {
        // Each pair as GNU sha256sum 9.1 quotes it in a UTF-8 locale.
        let cases: &[(&[u8], &str)] = &[
            (b"nope", "nope"),
            (b"no pe", "'no pe'"),
            (b"no'pe", "\"no'pe\""),
            (b"no\npe", "'no'$'\\n''pe'"),
            (b"no:pe", "'no:pe'"),
            (b"", "''"),
            (b"~h", "'~h'"),
            (b"a~", "a~"),
            (b"a#b", "a#b"),
            (b"#a", "'#a'"),
            ("é".as_bytes(), "é"),
            (b"a=b", "'a=b'"),
            (b"a'b c", "\"a'b c\""),
            (b"a\"b", "'a\"b'"),
            (b"x]", "x]"),
            (b"{}", "{}"),
            (b"{", "'{'"),
            (b"x]'", "\"x]'\""),
            (b"x{'", r"'x{'\'''"),
            (b"c\rrx", "'c'$'\\r''rx'"),
            (b"c\x01rx", "'c'$'\\001''rx'"),
            (b"a'b\nc", "'a'\\''b'$'\\n''c'"),
            (b"a\"b'c", "'a\"b'\\''c'"),
            (b"a\\b", "'a\\b'"),
            (b"a\\b'", "'a\\b'\\'''"),
            ("é'x".as_bytes(), "\"é'x\""),
            (b"a\tb", "'a'$'\\t''b'"),
            (b"%+,-./:@_", "'%+,-./:@_'"),
            (b"a@b", "a@b"),
            (b"a\x7fb", "'a'$'\\177''b'"),
            (b"a\xc3b", "'a'$'\\303''b'"),
            (b"a\x1b\x1cb", "'a'$'\\033\\034''b'"),
            (b"a?b", "'a?b'"),
            (b"nx\x02'\nd", r"'nx'$'\002'\'''$'\n''d'"),
            (b"ab'\x7f", r"'''ab'\'''$'\177'"),
            (b"\x14'\x7f", r"'\024'\'''$'\177'"),
            (b"\x7f'ab", r"''$'\177'\''ab'"),
        ];
        for (name, want) in cases {
            assert_eq!(quote_in(name, true), *want, "{name:?}");
        }
        // In a C locale a non-ASCII byte is escaped; a trailing escape's
        // closing quote ends the string.
        assert_eq!(quote_in("é".as_bytes(), false), "''$'\\303\\251'");
        assert_eq!(quote_in(b"a\t", true), "'a'$'\\t'");
        assert_eq!(quote_in(b"\tb", true), "''$'\\t''b'");
    }

    #[test]
    fn escape_round_trip() {
        let name = b"a\\b\nc\rd";
        assert!(needs_escape(name));
        let mut out = Vec::new();
        push_name(&mut out, name, true);
        assert_eq!(out, b"a\\\\b\\nc\\rd");
        assert_eq!(unescape(&out).unwrap(), name);
        assert_eq!(unescape(b"a\\"), None);
        assert_eq!(unescape(b"a\\x"), None);
        assert!(!needs_escape(b"plain name"));
    }

    #[test]
    fn describe_strips_the_code() {
        let e = io::Error::from_raw_os_error(2);
        assert_eq!(describe(&e), "No such file or directory");
    }
}
