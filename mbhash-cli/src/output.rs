//! Standard output as coreutils treats it: a failed write is an error
//! ("write error: ...", exit 1), and a closed pipe ends the process as the
//! SIGPIPE signal does (the shell sees status 141), never a panic; unless
//! SIGPIPE was ignored when the process started: then, as in coreutils, the
//! closed pipe is a write error ("write error: Broken pipe", exit 1).
//!
//! Any descriptor 1 that takes writes is standard output, whatever it is
//! (a `/dev/null` or a file opened read-write, a socket). One that was
//! closed at start (the Rust runtime has reopened it on `/dev/null` before
//! `main`: [`startup`] recorded it closed) refuses writes with `EBADF`, as
//! the C library's `stdout` does; one open read-only refuses them itself.
//! The writes go to `write(2)` directly: the standard library's `Stdout`
//! takes an `EBADF` for success.

use std::io::{self, BufWriter, IsTerminal, Write};
use std::os::fd::AsFd;
use std::process::ExitCode;

use crate::args::Options;
use crate::names;
use crate::progress::Progress;
use crate::startup::{self, Access, Std};
use crate::sum::PROG;

/// Standard output, locked, written with `write(2)`; refusing writes when
/// descriptor 1 was closed at start.
pub struct Stdout {
    out: io::StdoutLock<'static>,
    closed: bool,
}

impl Stdout {
    /// Locks standard output for the run.
    pub fn new() -> Self {
        let mut out = io::stdout().lock();
        // Whatever was printed through the standard library goes first.
        let _ = out.flush();
        Stdout {
            out,
            closed: startup::access(Std::Output) == Some(Access::Closed),
        }
    }
}

impl Write for Stdout {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if self.closed {
            return Err(io::Error::from_raw_os_error(
                rustix::io::Errno::BADF.raw_os_error(),
            ));
        }
        loop {
            match rustix::io::write(self.out.as_fd(), buf) {
                Err(rustix::io::Errno::INTR) => {}
                r => return r.map_err(io::Error::from),
            }
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// True if a write into a closed pipe is to end the process by SIGPIPE:
/// the signal was not ignored when the process started (the runtime
/// ignores it since, so the write fails with `EPIPE` instead).
fn dies_by_sigpipe() -> bool {
    startup::sigpipe_ignored() != Some(true)
}

/// Ends the process as a write into a closed pipe does in C programs: by
/// the SIGPIPE signal.
pub fn broken_pipe() -> ! {
    let _ = signal_hook::low_level::emulate_default_handler(signal_hook::consts::SIGPIPE);
    // Only if the signal could not be raised: the shell's status for it.
    std::process::exit(128 + signal_hook::consts::SIGPIPE)
}

/// Reports a failed write to standard output: a closed pipe ends the
/// process ([`broken_pipe`]) unless SIGPIPE was ignored at start; any other
/// error (or that one) is `mbhash: write error: ...`
/// on standard error and exit status 1.
pub fn write_failed(e: &io::Error) -> ExitCode {
    if e.kind() == io::ErrorKind::BrokenPipe && dies_by_sigpipe() {
        broken_pipe();
    }
    say(&format!("write error: {}", names::describe(e)));
    ExitCode::FAILURE
}

/// For the commands that print with `println!` (which panics when the write
/// fails): turns that panic into [`write_failed`]'s behaviour before any
/// message is printed. Other panics keep the default report.
pub fn catch_print_failures() {
    let default = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let msg = info
            .payload()
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| info.payload().downcast_ref::<&str>().copied())
            .unwrap_or("");
        if let Some(why) = msg.strip_prefix("failed printing to stdout: ") {
            if why.starts_with("Broken pipe") && dies_by_sigpipe() {
                broken_pipe();
            }
            let why = why.split(" (os error").next().unwrap_or(why);
            say(&format!("write error: {why}"));
            std::process::exit(1);
        }
        default(info);
    }));
}

/// For the commands that always print and print through the standard
/// library (`engines`, `bench`, `--help`, `--version`), whose `Stdout`
/// takes an `EBADF` for success: the write error their output would meet,
/// if descriptor 1 was closed or not open for writing at start.
pub fn unwritable_stdout() -> Option<io::Error> {
    match startup::access(Std::Output) {
        Some(a) if !a.writes() => Some(io::Error::from_raw_os_error(
            rustix::io::Errno::BADF.raw_os_error(),
        )),
        _ => None,
    }
}

/// Writes `mbhash: MESSAGE` on standard error (which may be closed: that
/// is no reason to stop, let alone panic).
pub fn say(msg: &str) {
    let _ = writeln!(io::stderr().lock(), "{PROG}: {msg}");
}

/// Where the output goes: standard output, flushed per line on a
/// terminal, and messages on standard error in step with it.
pub struct Out<'p> {
    out: BufWriter<crate::output::Stdout>,
    terminal: bool,
    progress: &'p Progress,
    line: Vec<u8>,
}

impl<'p> Out<'p> {
    /// Output that keeps clear of `progress`'s bar.
    pub fn new(progress: &'p Progress) -> Self {
        Out {
            out: BufWriter::with_capacity(64 << 10, crate::output::Stdout::new()),
            terminal: io::stdout().is_terminal(),
            progress,
            line: Vec::with_capacity(256),
        }
    }

    /// The line being built (cleared by [`Out::emit`]).
    pub fn line(&mut self) -> &mut Vec<u8> {
        &mut self.line
    }

    /// Writes the line built so far.
    pub fn emit(&mut self) -> io::Result<()> {
        let Out {
            out,
            terminal,
            progress,
            line,
        } = self;
        let r = if *terminal {
            progress.around(|| {
                out.write_all(line)?;
                out.flush()
            })
        } else {
            out.write_all(line)
        };
        line.clear();
        r
    }

    /// Writes `mbhash: MESSAGE` on standard error, after the output so far.
    pub fn error(&mut self, msg: &str) -> io::Result<()> {
        self.out.flush()?;
        self.progress.around(|| say(msg));
        Ok(())
    }

    /// Flushes standard output.
    pub fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }
}

/// The warning for a file that changed while it was read (tar's words).
pub fn changed_warning(name: &[u8]) -> String {
    format!("{}: file changed as we read it", names::quote(name))
}

/// Appends the line `mbhash sum` writes for the file `name` of digest
/// `digest` with the options `o`: `HASH  NAME` (the default, as
/// `sha256sum` and `cksum --untagged` write it; `*` for the blank with
/// `-b`), `TAG (NAME) = HASH` with `--tag`, the digest alone with
/// `--no-names`, in base64 with `--base64`, or the raw bytes with `--raw`
/// (no line end). A name with a `\`, newline or carriage return is
/// escaped and the line starts with `\`, unless `-z` ends it with NUL.
pub fn push_sum_line(line: &mut Vec<u8>, o: &Options, name: &[u8], digest: &[u8]) {
    if o.raw {
        line.extend_from_slice(digest);
        return;
    }
    let push_digest = |line: &mut Vec<u8>| {
        if o.base64 {
            push_base64(line, digest);
        } else {
            push_hex(line, digest);
        }
    };
    let delim = if o.zero { b'\0' } else { b'\n' };
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
        line.extend_from_slice(o.algo.tag().as_bytes());
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

/// Appends the standard base64 of `bytes` (RFC 4648, padded with `=`), as
/// `cksum --base64` writes digests.
pub fn push_base64(out: &mut Vec<u8>, bytes: &[u8]) {
    const B64: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            *chunk.get(1).unwrap_or(&0),
            *chunk.get(2).unwrap_or(&0),
        ];
        let n = u32::from(b[0]) << 16 | u32::from(b[1]) << 8 | u32::from(b[2]);
        for k in 0..4 {
            if k <= chunk.len() {
                out.push(B64[(n >> (18 - 6 * k) & 63) as usize]);
            } else {
                out.push(b'=');
            }
        }
    }
}

/// Appends the lower-case hex of `bytes`.
pub fn push_hex(out: &mut Vec<u8>, bytes: &[u8]) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    for &b in bytes {
        out.push(HEX[usize::from(b >> 4)]);
        out.push(HEX[usize::from(b & 15)]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::checkline::base64_len;

    #[test]
    fn hex() {
        let mut v = Vec::new();
        push_hex(&mut v, &[0x01, 0xab, 0xff]);
        assert_eq!(v, b"01abff");
    }

    #[test]
    fn base64_as_rfc4648() {
        // RFC 4648, section 10.
        for (input, want) in [
            ("", ""),
            ("f", "Zg=="),
            ("fo", "Zm8="),
            ("foo", "Zm9v"),
            ("foob", "Zm9vYg=="),
            ("fooba", "Zm9vYmE="),
            ("foobar", "Zm9vYmFy"),
        ] {
            let mut v = Vec::new();
            push_base64(&mut v, input.as_bytes());
            assert_eq!(String::from_utf8(v).unwrap(), want);
            assert_eq!(base64_len(input.len()), want.len());
        }
        let mut v = Vec::new();
        push_base64(&mut v, &[0xfb, 0xff, 0xbf]);
        assert_eq!(v, b"+/+/");
    }
}
