//! What a process's first hasher costs: the first `Sha256::digest` of a
//! fresh process (CPU detection, the engine variable, the one-stream
//! calibration, the first page faults), against `sha2::Sha256::digest` in a
//! fresh process of its own. Median of 21 processes each.
//!
//! ```sh
//! cargo run --release --example first_use
//! ```

use std::process::Command;
use std::time::Instant;

use digest::Digest;

fn main() {
    let mut args = std::env::args().skip(1);
    if let Some(which) = args.next() {
        // A child: one first digest, its time in nanoseconds on stdout.
        let t = Instant::now();
        let first = match which.as_str() {
            "mbhash-sha256" => mbhash::Sha256::digest(b"abc")[0],
            "mbhash-sha512" => mbhash::Sha512::digest(b"abc")[0],
            "sha2-sha256" => sha2::Sha256::digest(b"abc")[0],
            "sha2-sha512" => sha2::Sha512::digest(b"abc")[0],
            other => panic!("unknown case {other}"),
        };
        let ns = t.elapsed().as_nanos();
        std::hint::black_box(first);
        println!("{ns}");
        return;
    }
    let exe = std::env::current_exe().expect("own path");
    let cases = [
        "mbhash-sha256",
        "sha2-sha256",
        "mbhash-sha512",
        "sha2-sha512",
    ];
    let mut times: Vec<Vec<f64>> = vec![Vec::new(); cases.len()];
    for _ in 0..21 {
        for (case, t) in cases.iter().zip(&mut times) {
            let out = Command::new(&exe).arg(case).output().expect("child runs");
            let ns: f64 = String::from_utf8_lossy(&out.stdout)
                .trim()
                .parse()
                .expect("a time");
            t.push(ns / 1e3);
        }
    }
    for (case, t) in cases.iter().zip(&mut times) {
        t.sort_by(f64::total_cmp);
        println!(
            "{case:14} first digest: median {:6.1} us (min {:5.1}, max {:6.1})",
            t[t.len() / 2],
            t[0],
            t[t.len() - 1]
        );
    }
}
