//! One default engine per family, read by every path: the isa-l drop-in's
//! managers follow `mbh_set_engine` (they used to keep the engine they
//! found at their first use), as the native managers and one-shot calls do.
//! One test in this file: it sets the process's environment first.

use std::ffi::c_int;

use mbhash_ffi::{MBH_SHA256, mbh_get_engine, mbh_result, mbh_set_engine};

/// `ISAL_SHA256_HASH_CTX_MGR`, as memory of its C size and alignment (the
/// exports take it by pointer).
#[repr(C, align(16))]
struct Mgr([u8; 848]);

unsafe extern "C" {
    fn isal_sha256_ctx_mgr_init(mgr: *mut Mgr) -> c_int;
}

/// `MBH_ISAL_ERR_ENGINE`.
const ERR_ENGINE: c_int = 2900;

#[test]
fn the_isal_dropin_follows_mbh_set_engine() {
    // SAFETY: the only test of this binary sets the variable before
    // anything of the library has run or read the environment, and before
    // any other thread of its own starts.
    unsafe { std::env::set_var("MBHASH_SHA256_ENGINE", "no-such-engine") };
    let mut mgr = Box::new(Mgr([0; 848]));
    // SAFETY: a manager's memory, aligned and of isa-l_crypto's size.
    let r = unsafe { isal_sha256_ctx_mgr_init(&mut *mgr) };
    assert_eq!(r, ERR_ENGINE, "the variable names no engine");

    // SAFETY: a NUL-terminated name.
    let set = unsafe { mbh_set_engine(MBH_SHA256, c"scalar".as_ptr()) };
    assert_eq!(set, mbh_result::MBH_OK);
    let mut name = std::ptr::null();
    // SAFETY: a valid output pointer.
    let got = unsafe { mbh_get_engine(MBH_SHA256, &mut name) };
    assert_eq!(got, mbh_result::MBH_OK);
    // SAFETY: the library returns a static NUL-terminated name.
    assert_eq!(unsafe { std::ffi::CStr::from_ptr(name) }, c"scalar");
    // SAFETY: as above.
    let r = unsafe { isal_sha256_ctx_mgr_init(&mut *mgr) };
    assert_eq!(r, 0, "a manager made after mbh_set_engine runs its engine");

    // The same default through the core: what Rust callers see.
    assert_eq!(
        mbhash_core::engine::default_name(mbhash_core::Algo::Sha256),
        "scalar"
    );
    mbhash_core::engine::clear_default(mbhash_core::Algo::Sha256);
    // SAFETY: as above.
    let r = unsafe { isal_sha256_ctx_mgr_init(&mut *mgr) };
    assert_eq!(r, ERR_ENGINE, "cleared: the variable's engine again");
}
