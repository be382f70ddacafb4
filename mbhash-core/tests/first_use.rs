//! A process whose first hashing is one stream at a time runs the one-lane
//! calibration only: the multi-lane `auto` calibration (half a millisecond
//! or more) is left to the first manager, `hash_many` or service. One test
//! in this file, so that nothing else in its process calibrates first.

use mbhash_core::engine::{Engine, Sha256Kernels, Sha512Kernels};
use mbhash_core::{Digest, Sha256, Sha256Alg, Sha512, hash_many};

#[test]
fn one_stream_hashers_do_not_calibrate_the_lanes() {
    if std::env::var_os("MBHASH_SHA256_ENGINE").is_some()
        || std::env::var_os("MBHASH_SHA512_ENGINE").is_some()
    {
        eprintln!("an engine variable is set: nothing to check");
        return;
    }
    let want = mbhash_test_support::oracle("sha256", b"abc");
    assert_eq!(Sha256::digest(b"abc").as_slice(), want.as_slice());
    let want = mbhash_test_support::oracle("sha512", b"abc");
    assert_eq!(Sha512::digest(b"abc").as_slice(), want.as_slice());
    assert!(Engine::<Sha256Kernels>::auto_if_calibrated().is_none());
    assert!(Engine::<Sha512Kernels>::auto_if_calibrated().is_none());

    // The first many-message call calibrates, and hashers then run the
    // calibrated plan's one-lane kernel.
    let many = hash_many::<Sha256Alg>(&[b"abc", b"def"]);
    assert_eq!(many[0].as_slice(), Sha256::digest(b"abc").as_slice());
    let auto = Engine::<Sha256Kernels>::auto_if_calibrated().expect("calibrated by hash_many");
    assert_eq!(auto.name(), "auto");
    assert!(format!("{:?}", Sha256::new()).contains("auto"));
}
