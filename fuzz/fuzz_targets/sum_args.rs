//! The argument parser of `mbhash sum` on arbitrary arguments (NUL
//! separated): an error or options, never a panic.
#![no_main]

#[allow(dead_code)]
#[path = "../../mbhash-cli/src/args.rs"]
mod args;
#[allow(dead_code)]
#[path = "../../mbhash-cli/src/crcalgo.rs"]
mod crcalgo;
#[allow(dead_code)]
#[path = "../../mbhash-cli/src/names.rs"]
mod names;

use std::ffi::OsString;
use std::os::unix::ffi::OsStringExt;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let argv: Vec<OsString> = data
        .split(|&b| b == 0)
        .map(|a| OsString::from_vec(a.to_vec()))
        .collect();
    if let Ok(o) = args::parse(&argv) {
        assert!(o.jobs != Some(0));
    }
});
