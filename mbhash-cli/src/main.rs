//! The `mbhash` command-line tool.
//!
//! * `mbhash bench [--quick] [--json] [--algo A] [--engine E] [--sizes S] [--streams N]`
//! * `mbhash bench --pipeline [--quick] [--json] [--algo A] [--engine E] [--streams W]`
//! * `mbhash engines`
//! * `mbhash sum [-a ALG] [-c] [--tag|--untagged] [--base64|--raw] [--no-names] [-z] [-r] [-j N] [FILE|DIR|-]...`
//! * `mbhash verity digest|format|verify ...`
//! * `mbhash s3-etag [--part-size SIZE] [--threshold SIZE] [FILE|-]...`

// The bindings to the optional ISA-L peers of `bench` live in mbhash-peers.
// One audited exception: `startup.rs` records the standard descriptors and
// SIGPIPE before the runtime changes them.
#![deny(unsafe_code)]

mod args;
mod bench;
mod check;
mod checkline;
mod crcalgo;
mod crcsum;
mod names;
mod outfile;
mod output;
mod pipeline;
mod plot;
mod progress;
mod s3etag;
#[allow(unsafe_code)]
mod startup;
mod stdin;
mod streams;
mod sum;
mod verity;
mod walk;

use mbhash_core::engine::FamilyEngine;
use std::process::ExitCode;

const USAGE: &str = "\
usage: mbhash <command> [options]

commands:
  sum       print or check checksums (SHA-2, MD5, SHA-1, SM3), as sha256sum,
            md5sum, sha1sum and cksum do, or CRCs, as cksum does (see
            `mbhash sum --help`)
  s3-etag   the ETag S3 reports for a file the AWS CLI uploaded (see
            `mbhash s3-etag --help`)
  bench     measure throughput against the peers, in the same process
  engines   list the engines of every algorithm and the one `auto` uses
  verity    fs-verity digests, dm-verity hash images (see `mbhash verity --help`)

bench options:
  --quick            a short run (under 30 s)
  --json             one JSON object per line instead of a table
  --algo LIST        sha256,sha224,sha512,sha384,sha512-256,sha512-224,
                     md5,sha1,sm3,crc32c
                     (comma-separated; default: sha256)
  --engine NAME      engine for mbhash rows (default: the configured one)
  --sizes LIST       message sizes, e.g. 64,4K,128K
  --streams LIST     messages in flight, e.g. 1,2,4,8,16,64
  --rounds N         timed rounds per point (median is reported)
  --plot FILE.svg    also draw GB/s per message size and stream count
  --pipeline         a storage write pipeline instead: W writers (--streams,
                     default 1,2,4,8) checksum 128 KiB records, each with
                     sha2 itself vs through the hash service; records/s,
                     GB/s and CPU time per GB

environment:
  MBHASH_SHA256_ENGINE   auto|scalar|shani|shani-x2|avx2|avx512
  MBHASH_SHA512_ENGINE   auto|scalar|avx2-x1|avx2|avx512
  MBHASH_MD5_ENGINE      auto|scalar|avx2|avx512
  MBHASH_SHA1_ENGINE     auto|scalar|shani|shani-x2|shani-x4|avx2|avx512
  MBHASH_SM3_ENGINE      auto|scalar|avx2-x1|avx2|avx512
  MBHASH_CRC32C_ENGINE   auto|table|sse42|vpclmul|vpclmul-fold
  MBHASH_CRC_ENGINE      auto|table|pclmul|vpclmul256|vpclmul512 (every other CRC)
  MBHASH_DISABLE         hide CPU features from detection, e.g. avx512,shani
";

fn main() -> ExitCode {
    startup::fit_allocator();
    output::catch_print_failures();
    // `sum` takes file names, which need not be UTF-8.
    let os_args: Vec<std::ffi::OsString> = std::env::args_os().skip(1).collect();
    let prints_through_std = !os_args
        .first()
        .is_some_and(|a| a == "sum" || a == "verity" || a == "s3-etag");
    if prints_through_std || asks_version(&os_args) {
        // These always print: a standard output they cannot write is their
        // write error now, not silence and exit 0.
        if let Some(e) = output::unwritable_stdout() {
            return output::write_failed(&e);
        }
    }
    if asks_version(&os_args) {
        println!("mbhash {}", env!("CARGO_PKG_VERSION"));
        return ExitCode::SUCCESS;
    }
    if os_args.first().is_some_and(|a| a == "sum") {
        return sum::main(&os_args[1..]);
    }
    if os_args.first().is_some_and(|a| a == "s3-etag") {
        return s3etag::main(&os_args[1..]);
    }
    if os_args.first().is_some_and(|a| a == "verity") {
        return verity::main(&os_args[1..]);
    }
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.first().map(String::as_str) {
        Some("bench") => bench::parse(&args[1..]).and_then(|opts| bench::run(&opts)),
        Some("engines") => engines(),
        Some("-h" | "--help" | "help") | None => {
            print!("{USAGE}");
            Ok(())
        }
        Some("-V" | "--version") => {
            println!("mbhash {}", env!("CARGO_PKG_VERSION"));
            Ok(())
        }
        Some(other) => Err(format!("unknown command '{other}'\n\n{USAGE}")),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(msg) => {
            eprintln!("mbhash: {msg}");
            ExitCode::from(2)
        }
    }
}

/// `--version` after any command (before a `--` that ends the options, or
/// with `POSIXLY_CORRECT` set, before the first operand), as every
/// coreutils tool answers it.
fn asks_version(args: &[std::ffi::OsString]) -> bool {
    let posix = std::env::var_os("POSIXLY_CORRECT").is_some();
    args.iter()
        .enumerate()
        .take_while(|(i, a)| {
            let operand = a.len() < 2 || !a.to_string_lossy().starts_with('-');
            *a != "--" && !(posix && *i > 0 && operand)
        })
        .any(|(_, a)| a == "--version" || a == "-V")
}

/// `mbhash engines`: the default engine of every family, then every engine
/// per family, whether this CPU runs it, the one in use, and what `auto` does with 1..=lanes busy lanes. An engine
/// variable that names an engine that cannot run is shown (the library then
/// runs `auto`) and makes the command fail.
fn engines() -> Result<(), String> {
    use mbhash_core::engine::{self, EngineFamily};
    let mut errors = Vec::new();
    print!("default engines:");
    for (i, f) in EngineFamily::ALL.into_iter().enumerate() {
        let sep = if i == 0 { "" } else { "," };
        print!("{sep} {f} {}", engine::default_name(f));
    }
    println!("\n");
    hash_families(&mut errors);
    errors.extend(crc32c_family());
    println!();
    errors.extend(crc_family());
    if errors.is_empty() {
        Ok(())
    } else {
        Err(errors.join("\n"))
    }
}

/// One family's listing; the configuration error, if any.
/// Prints every hash family of the catalogue
/// ([`mbhash_core::for_each_family!`]) and collects their errors.
macro_rules! hash_families {
    ($($v:ident $ty:ident $engine:ident $kernels:ident $name:literal;)*) => {
        fn hash_families(errors: &mut Vec<String>) {
            $(
                errors.extend(family::<mbhash_core::engine::$kernels>());
                println!();
            )*
        }
    };
}

mbhash_core::for_each_family!(@names hash_families);

fn family<K: mbhash_core::engine::Kernels>() -> Option<String> {
    let family = <K::Family as FamilyEngine>::ENGINE_FAMILY;
    let algos: Vec<&str> = mbhash_core::Algo::ALL
        .into_iter()
        .filter(|a| mbhash_core::engine::EngineFamily::of(*a) == family)
        .map(|a| a.name())
        .collect();
    let algos = algos.join(", ");
    use mbhash_core::engine::{Engine, LaneEngine, Step};

    let auto = Engine::<K>::auto();
    let error = Engine::<K>::try_configured().err();
    let configured = Engine::<K>::configured();
    println!("{} engines ({algos}; set with {}):", K::FAMILY, K::ENV_VAR);
    if let Some(e) = &error {
        println!("  error: {e}; running auto");
    }
    // The name column: 9 wide, or the family's longest name.
    let width = Engine::<K>::names().map(str::len).max().unwrap_or(0).max(9);
    for name in Engine::<K>::names() {
        let support = if Engine::<K>::is_supported(name) {
            "supported"
        } else {
            "unsupported"
        };
        let mark = if name == configured.name() {
            "  <- in use"
        } else {
            ""
        };
        println!("  {name:<width$} {support:<12}{mark}");
    }
    println!(
        "  auto: {} lanes; cost per block per kernel call, measured on this CPU:",
        auto.lanes()
    );
    for step in Step::ALL {
        let c = auto.plan().cost(step);
        if c.is_finite() {
            println!("    {:<9} {c:>7.1} ns", Engine::<K>::step_name(step));
        }
    }
    print!("  auto runs k busy lanes on:");
    for k in 1..=auto.lanes() as u32 {
        let busy = if k >= 32 { u32::MAX } else { (1u32 << k) - 1 };
        print!(" {k}:{}", Engine::<K>::step_name(auto.choose(busy)));
    }
    println!();
    error.map(|e| e.to_string())
}

/// The generic CRC engines and, per named CRC, the engines it runs on;
/// the configuration error, if any.
fn crc_family() -> Option<String> {
    use mbhash_core::crc::{self, CrcEngine, CrcKernel, Variant};

    let error = crc::configured_engine().err();
    let configured = CrcKernel::configured().engine();
    println!(
        "crc engines (every named CRC but crc32c; set with {}):",
        crc::ENGINE_VAR
    );
    if let Some(e) = &error {
        println!("  error: {e}; running auto");
    }
    for e in CrcEngine::ALL {
        let support = if e.is_supported() {
            "supported"
        } else {
            "unsupported"
        };
        let mark = if e == configured { "  <- in use" } else { "" };
        println!("  {:<12} {support:<12}{mark}", e.name());
    }
    let auto = crc::auto_choices();
    for (reflected, what) in [(true, "reflected"), (false, "not reflected")] {
        println!("  auto, {what} CRCs: kernel per size class, ns per call measured on this CPU:");
        for (lo, hi, timed) in auto.classes() {
            let range = if hi == usize::MAX {
                format!("{lo}+ B")
            } else {
                format!("{lo}-{hi} B")
            };
            print!(
                "    {range:<15} {:<12}",
                auto.choice_for(reflected, timed).name()
            );
            for k in CrcEngine::KERNELS {
                if let Some(c) = auto.cost(reflected, k, timed) {
                    print!(" {}:{c:.1}", k.name());
                }
            }
            println!();
        }
    }
    println!("crc variants (mbhash sum -a NAME; engines they run on):");
    for v in Variant::ALL.iter().copied() {
        let spec = v.spec();
        let engines = match v {
            Variant::Crc32Iscsi => "crc32c engines".to_string(),
            _ if configured != CrcEngine::Auto => format!("crc engines, now {}", configured.name()),
            _ => format!(
                "crc engines, auto: {} at 64 B, {} at 64 KiB",
                auto.choice_for(spec.refin, 64).name(),
                auto.choice_for(spec.refin, 65536).name()
            ),
        };
        println!(
            "  {:<20} {:<21} {:>2} bits  {engines}",
            v.name(),
            spec.name,
            spec.width
        );
    }
    println!(
        "  crc                  POSIX cksum's line (CRC-32/CKSUM over the data and its length)"
    );
    println!("  crc32b               cksum -a crc32b's line (CRC-32/ISO-HDLC)");
    error.map(|e| e.to_string())
}

/// The CRC32C listing; the configuration error, if any.
fn crc32c_family() -> Option<String> {
    use mbhash_core::crc32c::{self, Crc32cEngine, Crc32cKernel};

    let error = Crc32cKernel::try_configured().err();
    let configured = Crc32cKernel::configured();
    println!("crc32c engines (set with {}):", crc32c::ENGINE_VAR);
    if let Some(e) = &error {
        println!("  error: {e}; running auto");
    }
    for e in crc32c::engines() {
        let support = if e.is_supported() {
            "supported"
        } else {
            "unsupported"
        };
        let mark = if e == configured.engine() {
            "  <- in use"
        } else {
            ""
        };
        println!("  {:<12} {support:<12}{mark}", e.name());
    }
    let auto = crc32c::auto_choices();
    println!("  auto: kernel per size class, ns per call measured on this CPU:");
    for (lo, hi, timed) in auto.classes() {
        let range = if hi == usize::MAX {
            format!("{lo}+ B")
        } else {
            format!("{lo}-{hi} B")
        };
        print!("    {range:<15} {:<12}", auto.choice(timed).name());
        for k in Crc32cEngine::KERNELS {
            if let Some(c) = auto.cost(k, timed) {
                print!(" {}:{c:.1}", k.name());
            }
        }
        println!();
    }
    error.map(|e| e.to_string())
}
