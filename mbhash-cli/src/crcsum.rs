//! `mbhash sum -a <crc>`: CRCs of files.
//!
//! * `-a crc`: what POSIX `cksum` prints, `CRC LENGTH NAME` (decimal; the
//!   CRC-32/CKSUM of the data followed by its length, least significant
//!   byte first without trailing zero bytes), no name when standard input
//!   is read for want of operands;
//! * `-a crc32b`: what coreutils 9.6's `cksum -a crc32b` prints, the same
//!   line with the CRC-32/ISO-HDLC (zlib) of the data;
//! * any other named CRC (`crc32`, `crc32c`, `crc64-nvme`, ...): the CRC's
//!   value as big-endian bytes in the `sha256sum` line forms (`HEX  NAME`,
//!   `--tag`: `CRC64-NVME (NAME) = HEX`, `--base64`, `--raw`).
//!
//! File names in `cksum` lines are written as they are (as `cksum`
//! writes them: no escaping); `--raw` writes the 4 bytes of the CRC,
//! big-endian, as coreutils does.
//!
//! The files are read one after another on the calling thread (a CRC is
//! one stream; the core's reader of files feeds the hash service, which
//! computes no CRC).

use std::fs::File;
use std::io::{self, Read};

use mbhash_core::crc::{Crc, Variant};
use mbhash_core::files::Source;

use crate::args::Options;
pub use crate::crcalgo::CrcAlgo;
use crate::names;
use crate::output::{Out, push_base64, push_hex};
use crate::progress;
use crate::walk::{Walk, What};

/// The CRC and length of everything `r` gives.
fn crc_of(
    algo: CrcAlgo,
    r: &mut dyn Read,
    buf: &mut [u8],
    progress: &progress::Progress,
) -> io::Result<(u64, u64)> {
    let mut crc = Crc::new(algo.spec());
    let mut len = 0u64;
    loop {
        let n = match r.read(buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        crc.update(&buf[..n]);
        len += n as u64;
        progress.add(n as u64);
    }
    if algo == CrcAlgo::Cksum {
        // POSIX: the length follows the data, least significant byte
        // first, as few bytes as it takes.
        let mut n = len;
        while n > 0 {
            crc.update(&[n as u8]);
            n >>= 8;
        }
    }
    Ok((crc.finalize(), len))
}

/// The CRC and length of `source`'s bytes.
pub fn crc_of_source(
    algo: CrcAlgo,
    source: &Source,
    buf: &mut [u8],
    progress: &progress::Progress,
) -> io::Result<(u64, u64)> {
    match source {
        Source::Stdin => crate::stdin::open().and_then(|mut s| crc_of(algo, &mut s, buf, progress)),
        Source::StdinAgain => crc_of(algo, &mut io::empty(), buf, progress),
        Source::Path(p) => mbhash_core::files::retry(|| File::open(p))
            .and_then(|mut f| crc_of(algo, &mut f, buf, progress)),
    }
}

/// Whether the engine `algo` runs on can run: an engine variable naming
/// one that cannot is an error, as for the hashes (the library would run
/// `auto`).
pub fn engine_error(algo: CrcAlgo) -> Option<String> {
    let engine = match algo {
        CrcAlgo::Named(Variant::Crc32Iscsi) => {
            mbhash_core::crc32c::Crc32cKernel::try_configured().map(drop)
        }
        _ => mbhash_core::crc::configured_engine().map(drop),
    };
    engine.err().map(|e| e.to_string())
}

/// Appends the line of one input.
fn push_line(
    line: &mut Vec<u8>,
    o: &Options,
    algo: CrcAlgo,
    name: Option<&[u8]>,
    crc: u64,
    len: u64,
) {
    let delim = if o.zero { b'\0' } else { b'\n' };
    let width = usize::from(algo.spec().width).div_ceil(8);
    let bytes = &crc.to_be_bytes()[8 - width..];
    if algo.is_cksum() {
        if o.raw {
            line.extend_from_slice(bytes);
            return;
        }
        line.extend_from_slice(format!("{crc} {len}").as_bytes());
        if let Some(name) = name {
            line.push(b' ');
            line.extend_from_slice(name);
        }
        line.push(delim);
        return;
    }
    if o.raw {
        line.extend_from_slice(bytes);
        return;
    }
    let push_digest = |line: &mut Vec<u8>| {
        if o.base64 {
            push_base64(line, bytes);
        } else {
            push_hex(line, bytes);
        }
    };
    let name = name.unwrap_or(b"-");
    if o.no_names {
        push_digest(line);
        line.push(delim);
        return;
    }
    let escape = !o.zero && names::needs_escape(name);
    if escape {
        line.push(b'\\');
    }
    if o.tag {
        line.extend_from_slice(algo.tag().as_bytes());
        line.extend_from_slice(b" (");
        names::push_name(line, name, escape);
        line.extend_from_slice(b") = ");
        push_digest(line);
    } else {
        push_digest(line);
        line.push(b' ');
        line.push(if o.binary == Some(true) { b'*' } else { b' ' });
        names::push_name(line, name, escape);
    }
    line.push(delim);
}

/// Sum mode for a CRC; `Ok(false)` when some input failed. `named`: the
/// operands were given (else standard input is read and, in the `cksum`
/// forms, printed without a name).
pub fn run(o: &Options, algo: CrcAlgo, named: bool, show_progress: bool) -> io::Result<bool> {
    if let Some(e) = engine_error(algo) {
        crate::output::say(&e);
        return Ok(false);
    }
    progress::with_progress(show_progress, None, |progress| {
        let mut out = Out::new(progress);
        let mut ok = true;
        let mut buf = vec![0u8; 1 << 20];
        for input in Walk::new(o.files.clone(), o.recursive) {
            let source = match input.what {
                What::Hash(s) => s,
                What::Failed(e) => {
                    ok = false;
                    out.error(&format!(
                        "{}: {}",
                        names::quote(&input.name),
                        names::describe(&e)
                    ))?;
                    continue;
                }
                What::Skipped(why) => {
                    ok &= !o.strict;
                    out.error(&format!("{}: skipped: {why}", names::quote(&input.name)))?;
                    continue;
                }
            };
            let result = crc_of_source(algo, &source, &mut buf, progress);
            match result {
                Ok((crc, len)) => {
                    let name = (named || !algo.is_cksum()).then_some(&input.name[..]);
                    push_line(out.line(), o, algo, name, crc, len);
                    out.emit()?;
                }
                Err(e) => {
                    ok = false;
                    out.error(&format!(
                        "{}: {}",
                        names::quote(&input.name),
                        names::describe(&e)
                    ))?;
                }
            }
        }
        out.flush().map(|()| ok)
    })
}
