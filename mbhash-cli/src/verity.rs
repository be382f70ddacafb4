//! `mbhash verity`: fs-verity file digests (as fsverity-utils' `fsverity
//! digest` prints them) and dm-verity hash images (as cryptsetup's
//! `veritysetup format` writes them and `veritysetup verify` checks them),
//! many blocks hashed at once.
//!
//! Exit status as the tools': `digest` 0, 1 on errors and 2 on bad usage
//! (as `fsverity`); `format` and `verify` 0, 1 on errors and for a root
//! hash that data and hash image agree on but is not theirs, 2 for
//! corruption, 4 for a data or hash device that cannot be opened (as
//! `veritysetup`); `verify --fs-verity` 0, 1 on errors, 2 when the file is
//! not the one of the digest.

use std::ffi::{OsStr, OsString};
use std::fs::File;
use std::io::{self, IsTerminal, Write};
use std::path::Path;
use std::process::ExitCode;

use mbhash_core::Algo;
use mbhash_core::verity::{
    self, Input, NoTree, Options, Report, TreeSink, VerityError, dmverity, fsverity,
};

use crate::outfile::{OpenError, Output, Truncate};
use crate::progress::{self, Progress};

const HELP: &str = "\
usage: mbhash verity digest [OPTION]... FILE...
       mbhash verity format [OPTION]... DATA HASH
       mbhash verity verify [OPTION]... DATA HASH ROOT_HASH
       mbhash verity verify --fs-verity [OPTION]... FILE MERKLE_TREE DIGEST

digest: the fs-verity file digest of each FILE, as `fsverity digest`:
      --hash-alg=ALG         sha256 (default) or sha512
      --block-size=SIZE      Merkle tree block size, 1024..65536 (default 4096)
      --salt=HEX             up to 32 bytes, hashed before every block
      --compact              print only the digest
      --for-builtin-sig      print the digest as built-in signatures sign it
      --out-merkle-tree=FILE write the Merkle tree (one FILE only)
      --out-descriptor=FILE  write the fs-verity descriptor (one FILE only)
      --print-root           print the Merkle tree's root hash (the hash of
                             its top block) in place of the file digest

format: write the dm-verity hash image of DATA to HASH, as `veritysetup format`;
verify: check DATA against HASH and ROOT_HASH, as `veritysetup verify`,
        listing every corrupt data block and inconsistent hash block:
  -h, --hash=ALG             sha256 (default), sha512, sha224, sha384,
                             sha512-256, sha512-224
      --data-block-size=SIZE 512..524288 (default 4096)
      --hash-block-size=SIZE 512..524288 (default 4096)
  -s, --salt=HEX             up to 256 bytes; - for none (format: default
                             32 random bytes)
      --format=N             1 (default) or 0 (Chrome OS: salt after the block)
      --no-superblock        no 512-byte superblock (verify: the options give
                             the parameters; with one, the superblock does)
      --uuid=UUID            the superblock's UUID (format: default random)
      --data-blocks=N        cover the first N data blocks only
      --root-hash-file=FILE  format: also write the root hash (hex) there;
                             verify: read it from there
      --hash-offset=BYTES    where the image starts on HASH (a multiple of
                             512; default 0), as veritysetup's

verify --fs-verity: check FILE against a Merkle tree written by
  --out-merkle-tree and its file DIGEST (as digest prints it, with or
  without the ALG: prefix; the digest the kernel enables the file with, not
  the tree's root hash), with --hash-alg, --block-size and --salt as for
  digest; the file's length is part of the digest, so any change of it
  fails:
      --descriptor=FILE      the descriptor written by --out-descriptor: it
                             gives the parameters and the file's length

common:
  -j, --jobs N               threads hashing one file's data blocks
                             (default: all CPUs)
      --no-progress          never show a progress bar (shown on a terminal
                             for runs longer than a second)
      --help                 this text

Exit status, as fsverity and veritysetup:
  digest:         0 success, 1 error, 2 bad usage
  format, verify: 0 success (verified), 1 error or a root hash that is not
                  the one of the data and hash image, 2 corruption found,
                  4 DATA or HASH cannot be opened
  verify --fs-verity: 0 verified, 1 error, 2 FILE is not the one of DIGEST
";

/// A one-line error and what kind it is (the exit status depends on it and
/// on the command).
struct Fail(String, Kind);

#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// Anything that goes wrong.
    Error,
    /// A bad option or argument (fsverity exits 2 for it).
    Usage,
    /// A device that does not exist or cannot be opened (veritysetup exits
    /// 4 for it).
    NoDevice,
}

impl<E: std::fmt::Display> From<E> for Fail {
    fn from(e: E) -> Self {
        Fail(e.to_string(), Kind::Error)
    }
}

fn fail<T>(msg: impl Into<String>) -> Result<T, Fail> {
    Err(Fail(msg.into(), Kind::Error))
}

fn usage<T>(msg: impl Into<String>) -> Result<T, Fail> {
    Err(Fail(msg.into(), Kind::Usage))
}

/// A parameter error: bad usage where fsverity calls it that (a block
/// size that is not one), an error otherwise.
fn param_error(e: VerityError) -> Fail {
    let kind = match e {
        VerityError::BlockSize { .. } | VerityError::Algorithm(_) => Kind::Usage,
        _ => Kind::Error,
    };
    Fail(e.to_string(), kind)
}

/// `mbhash verity ARGS`.
pub fn main(args: &[OsString]) -> ExitCode {
    match run(args) {
        Ok(code) => code,
        Err(Fail(msg, kind)) => {
            let _ = writeln!(io::stderr().lock(), "mbhash verity: {msg}");
            let digest = args.first().is_some_and(|a| a == "digest");
            let fs_verity = digest || args.iter().any(|a| a == "--fs-verity");
            ExitCode::from(match kind {
                Kind::Usage if digest => 2,
                Kind::NoDevice if !fs_verity => 4,
                _ => 1,
            })
        }
    }
}

/// Options of every subcommand, as given.
#[derive(Default)]
struct Opts {
    positional: Vec<OsString>,
    hash: Option<String>,
    block_size: Option<String>,
    data_block_size: Option<String>,
    hash_block_size: Option<String>,
    salt: Option<String>,
    format: Option<String>,
    uuid: Option<String>,
    data_blocks: Option<String>,
    root_hash_file: Option<OsString>,
    out_tree: Option<OsString>,
    out_descriptor: Option<OsString>,
    descriptor: Option<OsString>,
    hash_offset: Option<String>,
    print_root: bool,
    compact: bool,
    builtin_sig: bool,
    no_superblock: bool,
    fs_verity: bool,
    jobs: Option<String>,
    no_progress: bool,
}

fn parse(args: &[OsString]) -> Result<Opts, Fail> {
    let mut o = Opts::default();
    let mut it = args.iter();
    let mut only_positional = false;
    while let Some(arg) = it.next() {
        let text = arg.to_str();
        let Some(a) = text.filter(|a| !only_positional && a.starts_with('-') && *a != "-") else {
            o.positional.push(arg.clone());
            continue;
        };
        if a == "--" {
            only_positional = true;
            continue;
        }
        let (name, inline) = match a.split_once('=') {
            Some((n, v)) if n.starts_with("--") => (n, Some(OsString::from(v))),
            _ => (a, None),
        };
        let mut value = |what: &str| -> Result<OsString, Fail> {
            match inline.clone().or_else(|| it.next().cloned()) {
                Some(v) => Ok(v),
                None => usage(format!("option {what} needs a value")),
            }
        };
        let mut text_value = |what: &str| -> Result<String, Fail> {
            value(what)?
                .into_string()
                .map_err(|_| Fail(format!("option {what}: value is not UTF-8"), Kind::Usage))
        };
        match name {
            "--hash-alg" | "--hash" | "-h" => o.hash = Some(text_value(name)?),
            "--block-size" => o.block_size = Some(text_value(name)?),
            "--data-block-size" => o.data_block_size = Some(text_value(name)?),
            "--hash-block-size" => o.hash_block_size = Some(text_value(name)?),
            "--salt" | "-s" => o.salt = Some(text_value(name)?),
            "--format" => o.format = Some(text_value(name)?),
            "--uuid" => o.uuid = Some(text_value(name)?),
            "--data-blocks" => o.data_blocks = Some(text_value(name)?),
            "--root-hash-file" => o.root_hash_file = Some(value(name)?),
            "--out-merkle-tree" => o.out_tree = Some(value(name)?),
            "--out-descriptor" => o.out_descriptor = Some(value(name)?),
            "--descriptor" => o.descriptor = Some(value(name)?),
            "--hash-offset" => o.hash_offset = Some(text_value(name)?),
            "-j" | "--jobs" => o.jobs = Some(text_value(name)?),
            "--compact" | "--for-builtin-sig" | "--no-superblock" | "--fs-verity"
            | "--no-progress" | "--print-root"
                if inline.is_some() =>
            {
                return usage(format!("option {name} takes no value"));
            }
            "--compact" => o.compact = true,
            "--print-root" => o.print_root = true,
            "--for-builtin-sig" => o.builtin_sig = true,
            "--no-superblock" => o.no_superblock = true,
            "--fs-verity" => o.fs_verity = true,
            "--no-progress" => o.no_progress = true,
            _ if a.starts_with("-j") && a.len() > 2 => o.jobs = Some(a[2..].to_string()),
            _ => return usage(format!("unknown option '{a}' (see mbhash verity --help)")),
        }
    }
    Ok(o)
}

fn run(args: &[OsString]) -> Result<ExitCode, Fail> {
    let sub = args.first().and_then(|a| a.to_str());
    if matches!(sub, None | Some("--help" | "help")) || args.iter().any(|a| a == "--help") {
        print!("{HELP}");
        return Ok(ExitCode::SUCCESS);
    }
    let o = parse(&args[1..])?;
    match sub {
        Some("digest") => digest(&o),
        Some("format") => format(&o),
        Some("verify") if o.fs_verity => verify_fs(&o),
        Some("verify") => verify_dm(&o),
        Some(other) => usage(format!(
            "unknown command '{other}': digest, format or verify"
        )),
        None => unreachable!("handled above"),
    }
}

fn jobs(o: &Opts) -> Result<usize, Fail> {
    match &o.jobs {
        None => Ok(std::thread::available_parallelism().map_or(1, |n| n.get())),
        Some(j) => match j.parse::<usize>() {
            Ok(n) if n >= 1 => Ok(n),
            _ => usage(format!("invalid job count '{j}': a number from 1")),
        },
    }
}

fn parse_size(what: &str, v: &str) -> Result<usize, Fail> {
    v.parse::<usize>()
        .map_err(|_| Fail(format!("invalid {what} '{v}': not a number"), Kind::Usage))
}

fn parse_alg(v: &str, fs: bool) -> Result<Algo, Fail> {
    match Algo::from_name(v) {
        Some(a) if !fs || fsverity::alg_number(a).is_some() => Ok(a),
        _ if fs => usage(format!("unknown hash algorithm '{v}': sha256 or sha512")),
        _ => usage(format!(
            "unknown hash algorithm '{v}': sha256, sha512, sha224, sha384, sha512-256 or sha512-224"
        )),
    }
}

fn parse_salt(v: &str, max: usize) -> Result<Vec<u8>, Fail> {
    if v == "-" || v.is_empty() {
        return Ok(Vec::new());
    }
    let Some(salt) = verity::from_hex(v) else {
        return usage(format!("salt '{v}' is not a hex string of whole bytes"));
    };
    if salt.len() > max {
        return fail(format!(
            "salt too long: {} bytes (at most {max})",
            salt.len()
        ));
    }
    Ok(salt)
}

fn parse_root(v: &str, alg: Algo) -> Result<Vec<u8>, Fail> {
    parse_hash("root hash", v, alg)
}

/// A hash of `alg` in hex (`what` names it in errors).
fn parse_hash(what: &str, v: &str, alg: Algo) -> Result<Vec<u8>, Fail> {
    let Some(root) = verity::from_hex(v.trim()) else {
        return fail(format!("{what} '{v}' is not a hex string"));
    };
    if root.len() != alg.output_len() {
        return fail(format!(
            "{what} has {} bytes, a {alg} digest has {}",
            root.len(),
            alg.output_len()
        ));
    }
    Ok(root)
}

fn random_bytes(n: usize) -> Result<Vec<u8>, Fail> {
    use std::io::Read;
    let mut b = vec![0; n];
    File::open("/dev/urandom")
        .and_then(|mut f| f.read_exact(&mut b))
        .map_err(|e| {
            Fail(
                format!("cannot read random bytes from /dev/urandom: {e}"),
                Kind::Error,
            )
        })?;
    Ok(b)
}

fn parse_uuid(v: &str) -> Result<[u8; 16], Fail> {
    let groups: Vec<&str> = v.split('-').collect();
    let lens: Vec<usize> = groups.iter().map(|g| g.len()).collect();
    let hex: String = groups.concat();
    match verity::from_hex(&hex) {
        Some(b) if lens == [8, 4, 4, 4, 12] => Ok(b.try_into().expect("16 bytes")),
        _ => fail(format!(
            "invalid UUID '{v}': xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx"
        )),
    }
}

fn uuid_text(u: &[u8; 16]) -> String {
    let h = verity::to_hex(u);
    format!(
        "{}-{}-{}-{}-{}",
        &h[0..8],
        &h[8..12],
        &h[12..16],
        &h[16..20],
        &h[20..32]
    )
}

fn show(p: &OsStr) -> String {
    Path::new(p).display().to_string()
}

/// Opens a data file: a regular file or block device, never a directory.
/// A file that cannot be opened is a missing device (veritysetup's exit 4).
fn open_data(path: &OsStr) -> Result<File, Fail> {
    let f = File::open(path)
        .map_err(|e| Fail(format!("cannot open '{}': {e}", show(path)), Kind::NoDevice))?;
    let meta = f
        .metadata()
        .map_err(|e| Fail(format!("cannot stat '{}': {e}", show(path)), Kind::Error))?;
    if meta.is_dir() {
        return fail(format!("'{}' is a directory", show(path)));
    }
    Ok(f)
}

/// Runs `body` with the progress bar (on a terminal, unless
/// `--no-progress`) and options for the library.
fn with_progress<R>(o: &Opts, total: u64, body: impl FnOnce(&Options<'_>) -> R) -> Result<R, Fail> {
    let jobs = jobs(o)?;
    let show = !o.no_progress && io::stderr().is_terminal();
    let estimate = move |_: &dyn Fn() -> bool| Some(total);
    Ok(progress::with_progress(
        show,
        Some(&estimate),
        |p: &Progress| {
            let add = |n: u64| p.add(n);
            let opts = Options {
                jobs,
                progress: Some(&add),
            };
            body(&opts)
        },
    ))
}

/// Opens an output file (see `outfile`): `dm` for veritysetup's (new files
/// 0600), else fsverity's (new files 0666 less the umask). A symbolic link
/// to nothing is followed to make its target, except for a hash device
/// (`Truncate::No`), which veritysetup refuses as missing.
fn output(path: &OsStr, dm: bool, truncate: Truncate) -> Result<Output, Fail> {
    let mode = if dm { 0o600 } else { 0o666 };
    let dangling_ok = truncate == Truncate::Yes;
    Output::open(Path::new(path), mode, truncate, dangling_ok).map_err(|e| match e {
        OpenError::Dangling(to) => Fail(
            format!(
                "cannot open '{}': a symbolic link to '{}', which does not exist",
                show(path),
                to.display()
            ),
            Kind::NoDevice,
        ),
        OpenError::Other(msg) => Fail(msg, Kind::Error),
    })
}

/// Writes `bytes` as the whole of the output file `path`.
fn write_small(path: &OsStr, dm: bool, bytes: &[u8]) -> Result<(), Fail> {
    let mut out = output(path, dm, Truncate::Yes)?;
    out.write_at(0, bytes)
        .map_err(|e| Fail(format!("cannot write '{}': {e}", show(path)), Kind::Error))?;
    out.commit(bytes.len() as u64).map_err(Fail::from)
}

fn fs_params(o: &Opts) -> Result<fsverity::Params, Fail> {
    let alg = parse_alg(o.hash.as_deref().unwrap_or("sha256"), true)?;
    let block = parse_size("block size", o.block_size.as_deref().unwrap_or("4096"))?;
    let salt = parse_salt(o.salt.as_deref().unwrap_or(""), fsverity::MAX_SALT)?;
    fsverity::Params::new(alg, block, &salt).map_err(param_error)
}

fn digest(o: &Opts) -> Result<ExitCode, Fail> {
    if o.positional.is_empty() {
        return usage("digest: no FILE given");
    }
    if o.positional.len() > 1 && (o.out_tree.is_some() || o.out_descriptor.is_some()) {
        return usage("--out-merkle-tree and --out-descriptor take one FILE");
    }
    if o.print_root && o.builtin_sig {
        return usage("--print-root and --for-builtin-sig exclude each other");
    }
    let params = fs_params(o)?;
    let mut out = io::stdout().lock();
    for path in &o.positional {
        let file = open_data(path)?;
        let size = Input::File(&file).size()?;
        let mut tree = o
            .out_tree
            .as_deref()
            .map(|t| output(t, false, Truncate::Yes))
            .transpose()?;
        let result = with_progress(o, size, |opts| {
            let sink: &mut dyn TreeSink = match tree.as_mut() {
                Some(t) => t,
                None => &mut NoTree,
            };
            fsverity::build(&params, Input::File(&file), sink, opts)
        })?
        .map_err(|e| Fail(format!("'{}': {e}", show(path)), Kind::Error))?;
        if let Some(t) = tree {
            t.commit(result.tree_len)?;
        }
        if let Some(d) = &o.out_descriptor {
            write_small(d, false, &result.descriptor)?;
        }
        let hex = if o.print_root {
            verity::to_hex(&result.root_hash)
        } else if o.builtin_sig {
            verity::to_hex(&result.formatted_digest())
        } else {
            verity::to_hex(&result.digest)
        };
        let line = if o.compact {
            hex
        } else if o.builtin_sig || o.print_root {
            format!("{hex} {}", show(path))
        } else {
            format!("{}:{hex} {}", params.alg(), show(path))
        };
        writeln!(out, "{line}")?;
    }
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}

/// dm-verity parameters from the options (defaults as veritysetup's).
fn dm_params(o: &Opts, default_salt: Option<Vec<u8>>) -> Result<dmverity::Params, Fail> {
    let alg = parse_alg(o.hash.as_deref().unwrap_or("sha256"), false)?;
    let version = match o.format.as_deref().unwrap_or("1") {
        "0" => 0,
        "1" => 1,
        v => return usage(format!("invalid format '{v}': 0 or 1")),
    };
    let dbs = parse_size(
        "data block size",
        o.data_block_size.as_deref().unwrap_or("4096"),
    )?;
    let hbs = parse_size(
        "hash block size",
        o.hash_block_size.as_deref().unwrap_or("4096"),
    )?;
    let salt = match (&o.salt, default_salt) {
        (Some(s), _) => parse_salt(s, dmverity::MAX_SALT)?,
        (None, Some(d)) => d,
        (None, None) => Vec::new(),
    };
    let mut p = dmverity::Params::new(alg, version, dbs, hbs, &salt)?;
    p.superblock = !o.no_superblock;
    if let Some(v) = &o.hash_offset {
        match v.parse::<u64>() {
            Ok(n) => p.hash_offset = n,
            Err(_) => return usage(format!("invalid hash offset '{v}': not a number")),
        }
        p.check_hash_offset()?;
    }
    if let Some(n) = &o.data_blocks {
        match n.parse::<u64>() {
            Ok(n) if n > 0 => p.data_blocks = Some(n),
            _ => return usage(format!("invalid data block count '{n}'")),
        }
    }
    if let Some(u) = &o.uuid {
        p.uuid = parse_uuid(u)?;
    }
    Ok(p)
}

fn two_paths(o: &Opts, names: &str, n: usize) -> Result<(), Fail> {
    if o.positional.len() != n {
        return usage(format!(
            "expected {names}, got {} argument(s)",
            o.positional.len()
        ));
    }
    Ok(())
}

fn format(o: &Opts) -> Result<ExitCode, Fail> {
    two_paths(o, "DATA HASH", 2)?;
    let (data_path, hash_path) = (&o.positional[0], &o.positional[1]);
    let mut params = dm_params(o, Some(random_bytes(32)?))?;
    if o.uuid.is_none() {
        // A random (version 4) UUID, as veritysetup makes.
        let mut u: [u8; 16] = random_bytes(16)?.try_into().expect("16 bytes");
        u[6] = (u[6] & 0x0f) | 0x40;
        u[8] = (u[8] & 0x3f) | 0x80;
        params.uuid = u;
    }
    let data = open_data(data_path)?;
    let size = Input::File(&data).size()?;
    // Checked before HASH is touched.
    let blocks = params.blocks_of(size)?;
    dmverity::image_len(&params, blocks)?;
    let mut image = output(hash_path, true, Truncate::No)?;
    let done = with_progress(o, size, |opts| {
        dmverity::format(&params, Input::File(&data), &mut image, opts)
    })?
    .map_err(|e| Fail(format!("'{}': {e}", show(data_path)), Kind::Error))?;
    image.commit(done.hash_image_len)?;
    let root = verity::to_hex(&done.root_hash);
    if let Some(f) = &o.root_hash_file {
        write_small(f, true, root.as_bytes())?;
    }
    let salt = if params.salt().is_empty() {
        "-".to_string()
    } else {
        verity::to_hex(params.salt())
    };
    let uuid = if params.superblock {
        uuid_text(&params.uuid)
    } else {
        String::new()
    };
    let mut out = io::stdout().lock();
    write!(
        out,
        "VERITY header information for {}\n\
         UUID:            \t{uuid}\n\
         Hash type:       \t{}\n\
         Data blocks:     \t{}\n\
         Data block size: \t{}\n\
         Hash blocks:     \t{}\n\
         Hash block size: \t{}\n\
         Hash algorithm:  \t{}\n\
         Salt:            \t{salt}\n\
         Root hash:      \t{root}\n",
        show(hash_path),
        params.version(),
        done.data_blocks,
        params.data_block_size(),
        done.hash_blocks,
        params.hash_block_size(),
        params.alg(),
    )?;
    // veritysetup prints the size only for an image at offset 0.
    if params.hash_offset == 0 {
        writeln!(out, "Hash device size: \t{} [bytes]", done.hash_image_len)?;
    }
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}

/// The root hash from the command line or `--root-hash-file`.
fn root_text(o: &Opts, n: usize) -> Result<String, Fail> {
    match (&o.root_hash_file, o.positional.len()) {
        (Some(f), c) if c == n - 1 => std::fs::read_to_string(f)
            .map_err(|e| Fail(format!("cannot read '{}': {e}", show(f)), Kind::Error)),
        (None, c) if c == n => o.positional[n - 1]
            .to_str()
            .map(str::to_string)
            .ok_or_else(|| Fail("root hash is not a hex string".into(), Kind::Error)),
        _ => usage(format!(
            "expected DATA HASH ROOT_HASH (or --root-hash-file), got {} argument(s)",
            o.positional.len()
        )),
    }
}

fn verify_dm(o: &Opts) -> Result<ExitCode, Fail> {
    let root = root_text(o, 3)?;
    let (data_path, hash_path) = (&o.positional[0], &o.positional[1]);
    let data = open_data(data_path)?;
    let image = open_data(hash_path)?;
    let mut params = dm_params(o, None)?;
    if params.superblock {
        // The superblock gives the parameters; options given must agree.
        let sb = dmverity::Superblock::read_at(&image, params.hash_offset)
            .map_err(|e| Fail(format!("'{}': {e}", show(hash_path)), Kind::Error))?;
        let from_sb = dmverity::Params::from_superblock(&sb)?;
        let given = [
            (
                o.hash.is_some(),
                "hash algorithm",
                params.alg() != from_sb.alg(),
            ),
            (
                o.format.is_some(),
                "format",
                params.version() != from_sb.version(),
            ),
            (
                o.data_block_size.is_some(),
                "data block size",
                params.data_block_size() != from_sb.data_block_size(),
            ),
            (
                o.hash_block_size.is_some(),
                "hash block size",
                params.hash_block_size() != from_sb.hash_block_size(),
            ),
            (o.salt.is_some(), "salt", params.salt() != from_sb.salt()),
            (
                o.data_blocks.is_some(),
                "data block count",
                params.data_blocks != from_sb.data_blocks,
            ),
        ];
        if let Some((_, what, _)) = given.iter().find(|(set, _, differs)| *set && *differs) {
            return fail(format!(
                "'{}': the superblock's {what} differs from the option's",
                show(hash_path)
            ));
        }
        let hash_offset = params.hash_offset;
        params = from_sb;
        params.hash_offset = hash_offset;
    }
    let root = parse_root(&root, params.alg())?;
    let size = Input::File(&data).size()?;
    let report = with_progress(o, size, |opts| {
        dmverity::verify(&params, Input::File(&data), &image, &root, opts)
    })?
    .map_err(|e| Fail(format!("'{}': {e}", show(hash_path)), Kind::Error))?;
    Ok(print_report(&report, params.hash_block_size(), &[]))
}

/// The file digest argument: hex, or `ALG:hex` as `fsverity digest`
/// prints it (the algorithm must then be the one verified with).
fn parse_digest(v: &str, alg: Algo) -> Result<Vec<u8>, Fail> {
    let hex = match v.trim().split_once(':') {
        Some((name, hex)) if Algo::from_name(name) == Some(alg) => hex,
        Some((name, _)) => {
            return fail(format!(
                "the digest is {name}'s, the verification {alg}'s (--hash-alg)"
            ));
        }
        None => v,
    };
    parse_hash("file digest", hex, alg)
}

fn verify_fs(o: &Opts) -> Result<ExitCode, Fail> {
    if o.root_hash_file.is_some() {
        return usage(
            "verify --fs-verity takes the file digest as an argument, not --root-hash-file",
        );
    }
    two_paths(o, "FILE MERKLE_TREE DIGEST", 3)?;
    let (data_path, tree_path, digest) = (&o.positional[0], &o.positional[1], &o.positional[2]);
    let digest = digest
        .to_str()
        .ok_or_else(|| Fail("file digest is not a hex string".into(), Kind::Error))?;
    let given = fs_params(o)?;
    let descriptor = match &o.descriptor {
        None => None,
        Some(p) => {
            let bytes = std::fs::read(p)
                .map_err(|e| Fail(format!("cannot read '{}': {e}", show(p)), Kind::Error))?;
            let desc = fsverity::Descriptor::parse(&bytes)
                .map_err(|e| Fail(format!("'{}': {e}", show(p)), Kind::Error))?;
            // The descriptor gives the parameters; options given must agree.
            let from = &desc.params;
            let differs = [
                (
                    o.hash.is_some() && from.alg() != given.alg(),
                    "hash algorithm",
                ),
                (
                    o.block_size.is_some() && from.block_size() != given.block_size(),
                    "block size",
                ),
                (o.salt.is_some() && from.salt() != given.salt(), "salt"),
            ];
            if let Some((_, what)) = differs.iter().find(|(d, _)| *d) {
                return fail(format!(
                    "'{}': the descriptor's {what} differs from the option's",
                    show(p)
                ));
            }
            Some((bytes, desc))
        }
    };
    let params = descriptor.as_ref().map_or(given, |(_, d)| d.params.clone());
    let digest = parse_digest(digest, params.alg())?;
    let data = open_data(data_path)?;
    let tree = open_data(tree_path)?;
    let size = Input::File(&data).size()?;
    let report = with_progress(o, size, |opts| match &descriptor {
        Some((bytes, _)) => {
            fsverity::verify_descriptor(bytes, Input::File(&data), &tree, &digest, opts)
        }
        None => fsverity::verify(&params, Input::File(&data), &tree, &digest, opts),
    })?
    .map_err(|e| match e {
        VerityError::RootNotDigest => Fail(e.to_string(), Kind::Error),
        e => Fail(format!("'{}': {e}", show(tree_path)), Kind::Error),
    })?;
    if report.is_ok() {
        return Ok(ExitCode::SUCCESS);
    }
    let mut extra = Vec::new();
    if let Some(have) = report.size_mismatch {
        let want = descriptor.as_ref().map_or(0, |(_, d)| d.data_size);
        extra.push(format!(
            "file size {have} bytes, the descriptor's {want} bytes"
        ));
    }
    if report.digest_mismatch {
        extra.push("file digest mismatch".to_string());
    }
    print_report(&report.blocks, params.block_size(), &extra);
    // Whatever differs, the file is not the one of the digest.
    Ok(ExitCode::from(2))
}

/// Lists every bad block (then the lines of `extra`) on standard output;
/// exit 0 if none, 1 if only the root hash differs (veritysetup: "root hash
/// verification failed"), else 2 (corruption).
fn print_report(r: &Report, hash_block: usize, extra: &[String]) -> ExitCode {
    if r.is_ok() && extra.is_empty() {
        return ExitCode::SUCCESS;
    }
    let mut out = io::stdout().lock();
    if r.only_root_differs {
        let _ = writeln!(out, "root hash mismatch");
    } else {
        for b in &r.bad_hash_blocks {
            let _ = writeln!(
                out,
                "corrupt hash block {} (level {}, block {} of the level, offset {})",
                b.offset / hash_block as u64,
                b.level,
                b.index,
                b.offset
            );
        }
        for b in &r.bad_data_blocks {
            let _ = writeln!(out, "corrupt data block {b}");
        }
        if r.root_mismatch {
            let _ = writeln!(out, "root hash mismatch");
        }
    }
    for line in extra {
        let _ = writeln!(out, "{line}");
    }
    let _ = out.flush();
    let msg = if r.only_root_differs {
        "the data and the hash tree agree with each other, not with the root hash given".to_string()
    } else {
        let mut m = format!(
            "{} corrupt data block(s), {} inconsistent hash block(s)",
            r.bad_data_blocks.len(),
            r.bad_hash_blocks.len(),
        );
        if r.root_mismatch {
            m.push_str(", root hash mismatch");
        }
        for line in extra {
            m.push_str(", ");
            m.push_str(line);
        }
        m
    };
    let _ = writeln!(
        io::stderr().lock(),
        "mbhash verity: verification failed: {msg}"
    );
    ExitCode::from(if r.only_root_differs { 1 } else { 2 })
}
