//! Test helpers shared by the mbhash crates (published only so that the
//! packages' tests build from crates.io; not a stable API):
//!
//! * [`Rng`]: splitmix64, deterministic and seedable;
//! * [`oracle`]: the RustCrypto digest of an algorithm by name;
//! * [`skip_or_require`] and [`token_or_skip`]: the one way a test skips,
//!   with a `SKIPPED` line past the harness's output capture, and the one
//!   reading of `MBHASH_REQUIRE`, which turns that skip into a failure;
//! * [`TempDir`]: a scratch directory removed on drop;
//! * [`Failing`]: a reader that fails as a bad disk sector does;
//! * [`c`]: building and running the C test programs.

#![cfg_attr(docsrs, feature(doc_cfg))]
pub mod c;

use std::io::Write;

/// splitmix64: a deterministic, seedable 64-bit generator.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    /// A generator from `seed`.
    pub fn new(seed: u64) -> Self {
        Rng(seed)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (n > 0).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }

    /// Fills `buf` with random bytes.
    pub fn fill(&mut self, buf: &mut [u8]) {
        for chunk in buf.chunks_mut(8) {
            let v = self.next_u64().to_le_bytes();
            chunk.copy_from_slice(&v[..chunk.len()]);
        }
    }

    /// `n` random bytes.
    pub fn bytes(&mut self, n: usize) -> Vec<u8> {
        let mut v = vec![0; n];
        self.fill(&mut v);
        v
    }
}

/// The RustCrypto digest of `data` for the algorithm named `name` (the
/// `sha2` crate's `"sha256"`, `"sha224"`, `"sha384"`, `"sha512"`,
/// `"sha512-256"`, `"sha512-224"`; `md-5`'s `"md5"`, `sha1`'s `"sha1"`,
/// `sm3`'s `"sm3"`, as mbhash spells them): the oracle.
///
/// # Panics
/// On any other name.
pub fn oracle(name: &str, data: &[u8]) -> Vec<u8> {
    use sha2::Digest;
    match name {
        "sha256" => sha2::Sha256::digest(data).to_vec(),
        "sha224" => sha2::Sha224::digest(data).to_vec(),
        "sha384" => sha2::Sha384::digest(data).to_vec(),
        "sha512" => sha2::Sha512::digest(data).to_vec(),
        "sha512-256" => sha2::Sha512_256::digest(data).to_vec(),
        "sha512-224" => sha2::Sha512_224::digest(data).to_vec(),
        "md5" => md5::Md5::digest(data).to_vec(),
        "sha1" => sha1::Sha1::digest(data).to_vec(),
        "sm3" => sm3::Sm3::digest(data).to_vec(),
        other => panic!("no oracle for {other}"),
    }
}

/// True if the comma-separated list in the environment variable `var`
/// names `name` (or `all`).
fn env_names(var: &str, name: &str) -> bool {
    std::env::var(var)
        .unwrap_or_default()
        .split(',')
        .map(str::trim)
        .any(|r| r == name || r == "all")
}

/// Prints a line straight to the process's stderr, past the test harness's
/// output capture, so that it shows in every log.
fn to_stderr(line: &str) {
    let _ = writeln!(std::io::stderr(), "{line}");
}

/// Reports that `what` does not run because `requirement` (a CPU feature
/// such as `avx512`, or a tool such as `valgrind`) is missing, for the
/// reason `why`.
///
/// Prints `SKIPPED what: why` on stderr. If `MBHASH_REQUIRE` names
/// `requirement` (or `all`), panics instead: a required test that cannot run
/// is a failure. A CPU feature hidden on purpose by `MBHASH_DISABLE` is
/// never required.
pub fn skip_or_require(requirement: &str, what: &str, why: &str) {
    if env_names("MBHASH_REQUIRE", requirement) && !env_names("MBHASH_DISABLE", requirement) {
        panic!("{what}: required by MBHASH_REQUIRE ({requirement}) but unavailable: {why}");
    }
    to_stderr(&format!("SKIPPED {what}: {why}"));
}

/// Decides whether a test of a kernel needing the CPU feature named
/// `feature` (as `MBHASH_REQUIRE` names it) runs: `Some(token)` if it does;
/// otherwise [`skip_or_require`], with `why` the feature is unavailable
/// (`mbhash_simd::cpu::unavailable_reason`).
pub fn token_or_skip<T>(feature: &str, why: &str, kernel: &str, token: Option<T>) -> Option<T> {
    if token.is_none() {
        skip_or_require(feature, kernel, &format!("needs {feature} but {why}"));
    }
    token
}

/// The CPU feature (as `MBHASH_REQUIRE` names it) that a SHA engine named
/// `engine` needs; `None` for `auto` and `scalar`.
///
/// # Panics
/// On an engine name it does not know: a new engine needs its line here.
pub fn engine_feature(engine: &str) -> Option<&'static str> {
    match engine {
        "auto" | "scalar" => None,
        n if n.starts_with("shani") => Some("shani"),
        n if n.starts_with("avx512") => Some("avx512"),
        n if n.starts_with("avx2") => Some("avx2"),
        other => panic!("no CPU feature known for engine {other}"),
    }
}

/// A scratch directory under the system's temporary directory, named by
/// `prefix`, `name` and the process id, created empty and removed on drop.
pub struct TempDir(pub std::path::PathBuf);

impl TempDir {
    /// Creates (or empties) `<tmp>/<prefix>-<name>-<pid>`.
    pub fn new(prefix: &str, name: &str) -> TempDir {
        let dir = std::env::temp_dir().join(format!("{prefix}-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("create a scratch directory");
        TempDir(dir)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A reader that gives `good` bytes (0xa5), at most `max_read` per read,
/// then fails with EIO, as a bad disk sector does.
pub struct Failing {
    /// Bytes still to give before the error.
    pub good: usize,
    /// Bytes per read, at most.
    pub max_read: usize,
}

impl std::io::Read for Failing {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if self.good == 0 {
            return Err(std::io::Error::from_raw_os_error(5));
        }
        let n = buf.len().min(self.good).min(self.max_read.max(1));
        self.good -= n;
        buf[..n].fill(0xa5);
        Ok(n)
    }
}
