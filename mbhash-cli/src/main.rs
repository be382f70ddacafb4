//! The `mbhash` command-line tool.
//!
//! * `mbhash bench [--quick] [--json] [--algo A] [--engine E] [--sizes S] [--streams N]`
//! * `mbhash engines`

mod bench;

use std::process::ExitCode;

const USAGE: &str = "\
usage: mbhash <command> [options]

commands:
  bench     measure throughput against the peers, in the same process
  engines   list the engines of every algorithm and the one `auto` uses

bench options:
  --quick            a short run (under 30 s)
  --json             one JSON object per line instead of a table
  --algo LIST        algorithms, comma-separated (default: sha256)
  --engine NAME      engine for mbhash rows (default: the configured one)
  --sizes LIST       message sizes, e.g. 64,4K,128K
  --streams LIST     messages in flight, e.g. 1,2,4,8,16,64
  --rounds N         timed rounds per point (median is reported)

environment:
  MBHASH_SHA256_ENGINE   auto|scalar|shani|shani-x2|avx2|avx512
  MBHASH_DISABLE         hide CPU features from detection, e.g. avx512,shani
";

fn main() -> ExitCode {
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

/// `mbhash engines`: every engine, whether this CPU runs it, and what `auto`
/// does with 1..=16 busy lanes.
fn engines() -> Result<(), String> {
    use mbhash_core::engine::{LaneEngine, Sha256Engine, Sha256Kind};

    let auto = Sha256Engine::auto();
    let configured = Sha256Engine::configured().map_err(|e| e.to_string())?;
    println!("sha256 / sha224 engines (MBHASH_SHA256_ENGINE):");
    for kind in Sha256Kind::ALL {
        let mark = if kind == configured.kind() {
            "  <- configured"
        } else {
            ""
        };
        println!(
            "  {:<9} {:<13}{mark}",
            kind.name(),
            if kind.is_supported() {
                "supported"
            } else {
                "unsupported"
            },
        );
    }
    println!("  auto: {} lanes; per-block cost measured on this CPU (ns):", auto.lanes());
    for step in mbhash_core::engine::Step::ALL {
        let c = auto.plan().cost[step as usize];
        if c.is_finite() {
            println!("    {:<9} {c:>7.1}", Sha256Engine::step_name(step));
        }
    }
    print!("  auto runs k busy lanes (k = 1..={}) on:", auto.lanes());
    for k in 1..=auto.lanes() as u32 {
        let busy = (1u32 << k) - 1;
        print!(" {k}:{}", Sha256Engine::step_name(auto.choose(busy)));
    }
    println!();
    Ok(())
}
