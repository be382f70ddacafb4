//! The trait surface of `md-5`, `sha1` and `sm3`, on mbhash's `Md5`,
//! `Sha1` and `Sm3`: the serialized state byte for byte, states resumable
//! across the crates, `Hmac`, OIDs, `Debug`, `ZeroizeOnDrop`.

use digest::common::hazmat::SerializableState;
use digest::const_oid::AssociatedOid;
use digest::zeroize::ZeroizeOnDrop;
use hmac::{Hmac, KeyInit, Mac, SimpleHmac};
use mbhash::{Digest, Md5, Sha1, Sm3};
use mbhash_test_support::Rng;
use md5_crate as md5;
use sha1_crate as sha1;
use sm3_crate as sm3;

fn random(len: usize, seed: u64) -> Vec<u8> {
    let mut rng = Rng::new(seed);
    (0..len).map(|_| rng.next_u64() as u8).collect()
}

/// The serialized state is the crate's, byte for byte, at every length
/// 0..300 and around later block edges, a state saved by either one
/// resumes in the other, and malformed states are refused by both.
#[test]
fn serialized_state_is_the_crates() {
    fn check<M, S>(name: &str)
    where
        M: Digest + SerializableState + Clone,
        S: Digest + SerializableState + Clone,
    {
        let data = random(1000, 0x5e71a1);
        for len in (0..300).chain([511, 512, 513, 640, 1000]) {
            let mut m = M::new();
            let mut s = S::new();
            // In two chunks, so that buffered bytes and whole blocks mix.
            let cut = len / 3;
            Digest::update(&mut m, &data[..cut]);
            Digest::update(&mut m, &data[cut..len]);
            Digest::update(&mut s, &data[..len]);
            let ms = m.serialize();
            let ss = s.serialize();
            assert_eq!(ms.as_slice(), ss.as_slice(), "{name}: {len} bytes");

            // The crate's state resumed by mbhash, and mbhash's by the crate.
            let mut m2 = M::deserialize(ss.as_slice().try_into().unwrap()).unwrap();
            let mut s2 = S::deserialize(ms.as_slice().try_into().unwrap()).unwrap();
            Digest::update(&mut m2, &data[..37]);
            Digest::update(&mut s2, &data[..37]);
            Digest::update(&mut s, &data[..37]);
            let want = s.finalize();
            assert_eq!(m2.finalize().as_slice(), want.as_slice(), "{name}: {len}");
            assert_eq!(s2.finalize().as_slice(), want.as_slice(), "{name}: {len}");
        }
        // Malformed states: a partial block as long as a block (the last
        // 64 bytes are the partial block's length and its 63 possible
        // bytes), bytes after the partial block.
        let mut bad = S::new().serialize();
        let n = bad.len();
        bad[n - 64] = 64;
        assert!(
            S::deserialize(&bad.as_slice().try_into().unwrap()).is_err(),
            "{name}"
        );
        assert!(
            M::deserialize(&bad.as_slice().try_into().unwrap()).is_err(),
            "{name}"
        );
        let mut bad = S::new().serialize();
        bad[n - 1] = 1;
        assert!(
            S::deserialize(&bad.as_slice().try_into().unwrap()).is_err(),
            "{name}"
        );
        assert!(
            M::deserialize(&bad.as_slice().try_into().unwrap()).is_err(),
            "{name}"
        );
    }
    check::<Md5, md5::Md5>("md5");
    check::<Sha1, sha1::Sha1>("sha1");
    check::<Sm3, sm3::Sm3>("sm3");
}

/// `Hmac<mbhash::Sha1>` (and MD5, SM3) gives the tags of `Hmac` over the
/// crate's hasher, for keys shorter than, as long as and longer than a
/// block, and messages across block edges; `SimpleHmac` agrees.
#[test]
fn hmac_is_the_crates() {
    fn check<M, S>(name: &str)
    where
        M: hmac::EagerHash + digest::block_api::BlockSizeUser + Clone,
        S: hmac::EagerHash + digest::block_api::BlockSizeUser + Clone,
        Hmac<M>: KeyInit + Mac,
        Hmac<S>: KeyInit + Mac,
        SimpleHmac<M>: KeyInit + Mac,
    {
        let key = random(200, 0x4ac);
        let data = random(300, 0xda7a);
        for key_len in [0, 1, 20, 63, 64, 65, 131, 200] {
            for data_len in [0, 1, 55, 56, 63, 64, 65, 119, 128, 300] {
                let key = &key[..key_len];
                let data = &data[..data_len];
                let mut ours = <Hmac<M> as KeyInit>::new_from_slice(key).unwrap();
                Mac::update(&mut ours, data);
                let ours = ours.finalize().into_bytes();
                let mut theirs = <Hmac<S> as KeyInit>::new_from_slice(key).unwrap();
                Mac::update(&mut theirs, data);
                let theirs = theirs.finalize().into_bytes();
                assert_eq!(
                    ours.as_slice(),
                    theirs.as_slice(),
                    "{name}: key {key_len}, data {data_len}"
                );
                let mut simple = <SimpleHmac<M> as KeyInit>::new_from_slice(key).unwrap();
                Mac::update(&mut simple, data);
                assert_eq!(
                    simple.finalize().into_bytes().as_slice(),
                    theirs.as_slice(),
                    "{name} SimpleHmac: key {key_len}, data {data_len}"
                );
            }
        }
    }
    check::<Sha1, sha1::Sha1>("sha1");
    check::<Md5, md5::Md5>("md5");
    check::<Sm3, sm3::Sm3>("sm3");

    // RFC 2202's first HMAC-SHA1 and HMAC-MD5 cases, for a fixed point.
    let mut mac = <Hmac<Sha1> as KeyInit>::new_from_slice(&[0x0b; 20]).unwrap();
    mac.update(b"Hi There");
    mac.verify_slice(&hex_literal::hex!(
        "b617318655057264e28bc0b6fb378c8ef146be00"
    ))
    .unwrap();
    let mut mac = <Hmac<Md5> as KeyInit>::new_from_slice(&[0x0b; 16]).unwrap();
    mac.update(b"Hi There");
    mac.verify_slice(&hex_literal::hex!("9294727a3638bb1c13f48ef8158bfc9d"))
        .unwrap();
}

/// Digests of one-shot, chained and reset hashing are the crate's.
#[test]
fn digests_are_the_crates() {
    let data = random(5000, 0xd16);
    for len in [0, 1, 55, 56, 64, 100, 1000, 5000] {
        let d = &data[..len];
        assert_eq!(Md5::digest(d).as_slice(), md5::Md5::digest(d).as_slice());
        assert_eq!(Sha1::digest(d).as_slice(), sha1::Sha1::digest(d).as_slice());
        assert_eq!(Sm3::digest(d).as_slice(), sm3::Sm3::digest(d).as_slice());
        let mut h = Sha1::new_with_prefix(&d[..len / 2]);
        h.update(&d[len / 2..]);
        assert_eq!(
            h.finalize_reset().as_slice(),
            sha1::Sha1::digest(d).as_slice()
        );
        h.update(d);
        assert_eq!(h.finalize().as_slice(), sha1::Sha1::digest(d).as_slice());
    }
}

#[test]
fn oids_are_the_crates() {
    assert_eq!(Md5::OID, md5::Md5::OID);
    assert_eq!(Sha1::OID, sha1::Sha1::OID);
    assert_eq!(Sm3::OID, sm3::Sm3::OID);
}

#[test]
fn debug_names_the_algorithm() {
    for (shown, name) in [
        (format!("{:?}", Md5::new()), "Md5 {"),
        (format!("{:?}", Sha1::new()), "Sha1 {"),
        (format!("{:?}", Sm3::new()), "Sm3 {"),
    ] {
        assert!(shown.starts_with(name), "{shown}");
        assert!(!shown.contains("state"), "{shown}");
    }
}

/// With the `zeroize` feature every hasher is `ZeroizeOnDrop`, as the
/// crates' are.
#[test]
fn zeroize_on_drop() {
    fn zeroizes<T: ZeroizeOnDrop>() {}
    zeroizes::<Md5>();
    zeroizes::<Sha1>();
    zeroizes::<Sm3>();
    zeroizes::<md5::Md5>();
    zeroizes::<sha1::Sha1>();
    zeroizes::<sm3::Sm3>();
}

/// A boxed `DynDigest` of each, as generic code holds one.
#[test]
fn dyn_digest() {
    let mut boxed: Vec<Box<dyn mbhash::digest::DynDigest>> = vec![
        Box::new(Md5::new()),
        Box::new(Sha1::new()),
        Box::new(Sm3::new()),
    ];
    let want: [&[u8]; 3] = [
        &md5::Md5::digest(b"abc"),
        &sha1::Sha1::digest(b"abc"),
        &sm3::Sm3::digest(b"abc"),
    ];
    for (d, want) in boxed.iter_mut().zip(want) {
        d.update(b"abc");
        assert_eq!(&d.finalize_reset()[..], want);
    }
}

/// RSA PKCS#1 v1.5 with SHA-1 and MD5 (legacy signatures, named by the
/// digest's OID in the DigestInfo): mbhash's hashers sign as the crates'
/// do, and each verifies the other's signature.
#[test]
fn rsa_pkcs1v15_with_sha1_and_md5() {
    use rsa::pkcs1::DecodeRsaPrivateKey;
    use rsa::pkcs1v15::{SigningKey, VerifyingKey};
    use rsa::signature::{Signer, Verifier};

    let key = rsa::PrivateKey::from_pkcs1_pem(include_str!("rsa2048.pem")).unwrap();
    let public = key.to_public_key();
    let msg = b"an object stored in 2009";

    let ours = SigningKey::<Sha1>::new(key.clone()).sign(msg);
    let theirs = SigningKey::<sha1::Sha1>::new(key.clone()).sign(msg);
    assert_eq!(ours, theirs);
    VerifyingKey::<sha1::Sha1>::new(public.clone())
        .verify(msg, &ours)
        .unwrap();
    VerifyingKey::<Sha1>::new(public.clone())
        .verify(msg, &theirs)
        .unwrap();
    assert!(
        VerifyingKey::<Sha1>::new(public.clone())
            .verify(b"another", &ours)
            .is_err()
    );

    let ours = SigningKey::<Md5>::new(key.clone()).sign(msg);
    let theirs = SigningKey::<md5::Md5>::new(key).sign(msg);
    assert_eq!(ours, theirs);
    VerifyingKey::<Md5>::new(public)
        .verify(msg, &theirs)
        .unwrap();
}
