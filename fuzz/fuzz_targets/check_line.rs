//! The checksum-line parser of `mbhash sum -c` on arbitrary lines: never a
//! panic, and what it accepts is a digest of the right length in hex.
#![no_main]

#[allow(dead_code)]
#[path = "../../mbhash-cli/src/names.rs"]
mod names;
#[path = "../../mbhash-cli/src/checkline.rs"]
mod checkline;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    for (tag, hex_len) in [("SHA256", 64), ("SHA512", 128), ("SHA512/224", 56)] {
        let mut parser = checkline::Parser::new(tag, hex_len);
        // Several lines through one parser: the first text line sets the
        // mode for the others.
        for line in data.split(|&b| b == b'\n') {
            if let Some((hex, _name)) = parser.split(line) {
                assert_eq!(hex.len(), hex_len);
                assert!(hex.iter().all(u8::is_ascii_hexdigit));
            }
        }
    }
});
