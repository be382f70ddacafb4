//! File-name escaping of checksum lines: unescaping what was escaped gives
//! the name back; quoting never panics.
#![no_main]

#[allow(dead_code)]
#[path = "../../mbhash-cli/src/names.rs"]
mod names;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|name: &[u8]| {
    let mut escaped = Vec::new();
    names::push_name(&mut escaped, name, true);
    assert_eq!(names::unescape(&escaped).as_deref(), Some(name));
    let _ = names::unescape(name);
    let _ = names::quote(name);
});
