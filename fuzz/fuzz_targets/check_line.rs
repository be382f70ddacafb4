//! The checksum-line parser of `mbhash sum -c` on arbitrary lines: never a
//! panic, and what it accepts is a digest of its algorithm's length, in hex
//! or base64, of the algorithm `-a` names when one is given.
#![no_main]

#[allow(dead_code)]
#[path = "../../mbhash-cli/src/checkline.rs"]
mod checkline;
#[allow(dead_code)]
#[path = "../../mbhash-cli/src/names.rs"]
mod names;

use libfuzzer_sys::fuzz_target;
use checkline::Sum;
use mbhash_core::Algo;
use mbhash_core::crc::Variant;

fuzz_target!(|data: &[u8]| {
    for only in [
        None,
        Some(Sum::Hash(Algo::Sha256)),
        Some(Sum::Hash(Algo::Sha512)),
        Some(Sum::Hash(Algo::Sha512_224)),
        Some(Sum::Crc(Variant::Crc64Nvme)),
        Some(Sum::Crc(Variant::Crc16T10Dif)),
    ] {
        let mut parser = checkline::Parser::new(only);
        // Several lines through one parser: the first text line sets the
        // mode for the others.
        for line in data.split(|&b| b == b'\n') {
            if let checkline::Line::Entry(e) = parser.split(line) {
                assert!(only.is_none_or(|a| a == e.algo));
                let n = e.algo.output_len();
                let hex = e.digest.len() == 2 * n && e.digest.iter().all(u8::is_ascii_hexdigit);
                let b64 = e.digest.len() == checkline::base64_len(n)
                    && e.digest
                        .iter()
                        .all(|&b| b.is_ascii_alphanumeric() || b"+/=".contains(&b));
                assert!(hex || b64);
            }
        }
    }
});
