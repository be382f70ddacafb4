//! The trait surface of `sha2`, on mbhash: code written for `sha2` builds
//! with only the crate name changed, and gives `sha2`'s results.

use digest::common::hazmat::SerializableState;
use digest::const_oid::AssociatedOid;
use digest::zeroize::ZeroizeOnDrop;
use mbhash::{Digest, Sha224, Sha256, Sha384, Sha512, Sha512_224, Sha512_256};
use mbhash_test_support::Rng;
use sha2_crate as sha2;

/// `Digest::update` and the hashers' own `update` take anything that is
/// bytes, as sha2's do.
#[test]
fn update_takes_what_sha2_takes() {
    fn generic<T: AsRef<[u8]>>(data: T) -> [u8; 32] {
        let mut h = Sha256::new();
        h.update(data);
        h.finalize().into()
    }
    let want: [u8; 32] = sha2::Sha256::digest(b"abc").into();
    let mut h = Sha256::new();
    h.update("abc");
    assert_eq!(<[u8; 32]>::from(h.finalize()), want);
    assert_eq!(generic("abc"), want);
    assert_eq!(generic(String::from("abc")), want);
    let owned: Vec<u8> = b"abc".into();
    assert_eq!(generic(owned), want);
    assert_eq!(generic(*b"abc"), want);
    assert_eq!(generic(b"abc"), want);
    assert_eq!(
        <[u8; 32]>::from(Sha256::new().chain_update("abc").finalize()),
        want
    );
    assert_eq!(<[u8; 32]>::from(Sha256::digest("abc")), want);
    // The inherent method, named as such, takes them too.
    let mut h = Sha256::new();
    Sha256::update(&mut h, String::from("ab"));
    Sha256::update(&mut h, [b'c']);
    assert_eq!(h.finalize_reset_output(), want);
}

/// The serialized state is sha2's, byte for byte, at every length around
/// the block edges, and a state saved by either one resumes in the other.
#[test]
fn serialized_state_is_sha2s() {
    fn check<M, S>(name: &str)
    where
        M: Digest + SerializableState + Clone,
        S: Digest + SerializableState + Clone,
    {
        let mut rng = Rng::new(0x5e71a1);
        let data: Vec<u8> = (0..1000).map(|_| rng.next_u64() as u8).collect();
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

            // sha2's state resumed by mbhash, and mbhash's by sha2.
            let mut m2 = M::deserialize(ms.as_slice().try_into().unwrap()).unwrap();
            let mut s2 = S::deserialize(ms.as_slice().try_into().unwrap()).unwrap();
            Digest::update(&mut m2, &data[..37]);
            Digest::update(&mut s2, &data[..37]);
            Digest::update(&mut s, &data[..37]);
            let want = s.finalize();
            assert_eq!(m2.finalize().as_slice(), want.as_slice(), "{name}: {len}");
            assert_eq!(s2.finalize().as_slice(), want.as_slice(), "{name}: {len}");
        }
        // Malformed states are refused as sha2 refuses them: a partial
        // block as long as a block, bytes after the partial block.
        let mut bad = S::new().serialize();
        let n = bad.len();
        let block = if n == 104 { 64 } else { 128 };
        bad[n - block] = block as u8;
        assert!(
            M::deserialize(&bad.as_slice().try_into().unwrap()).is_err(),
            "{name}"
        );
        assert!(
            S::deserialize(&bad.as_slice().try_into().unwrap()).is_err(),
            "{name}"
        );
        let mut bad = S::new().serialize();
        bad[n - 1] = 1;
        assert!(
            M::deserialize(&bad.as_slice().try_into().unwrap()).is_err(),
            "{name}"
        );
    }
    check::<Sha224, sha2::Sha224>("sha224");
    check::<Sha256, sha2::Sha256>("sha256");
    check::<Sha384, sha2::Sha384>("sha384");
    check::<Sha512, sha2::Sha512>("sha512");
    check::<Sha512_224, sha2::Sha512_224>("sha512/224");
    check::<Sha512_256, sha2::Sha512_256>("sha512/256");
}

#[test]
fn oids_are_sha2s() {
    assert_eq!(Sha224::OID, sha2::Sha224::OID);
    assert_eq!(Sha256::OID, sha2::Sha256::OID);
    assert_eq!(Sha384::OID, sha2::Sha384::OID);
    assert_eq!(Sha512::OID, sha2::Sha512::OID);
    assert_eq!(Sha512_224::OID, sha2::Sha512_224::OID);
    assert_eq!(Sha512_256::OID, sha2::Sha512_256::OID);
}

/// RSA PKCS#1 v1.5 needs the digest's OID: a signature made with mbhash's
/// hasher verifies with sha2's, and the other way round.
#[test]
fn rsa_pkcs1v15_signs_with_mbhash() {
    use rsa::pkcs1::DecodeRsaPrivateKey;
    use rsa::pkcs1v15::{SigningKey, VerifyingKey};
    use rsa::signature::{Signer, Verifier};

    let key = rsa::PrivateKey::from_pkcs1_pem(include_str!("rsa2048.pem")).unwrap();
    let public = key.to_public_key();
    let msg = b"a block written to disk";

    let ours = SigningKey::<Sha256>::new(key.clone()).sign(msg);
    let theirs = SigningKey::<sha2::Sha256>::new(key.clone()).sign(msg);
    assert_eq!(ours, theirs);
    VerifyingKey::<sha2::Sha256>::new(public.clone())
        .verify(msg, &ours)
        .unwrap();
    VerifyingKey::<Sha256>::new(public.clone())
        .verify(msg, &theirs)
        .unwrap();
    assert!(
        VerifyingKey::<Sha256>::new(public.clone())
            .verify(b"another", &ours)
            .is_err()
    );

    // The padding scheme object, as generic code names it.
    let hashed = Sha512::digest(msg);
    let sig = key
        .sign(rsa::Pkcs1v15Sign::new::<Sha512>(), &hashed)
        .unwrap();
    public
        .verify(
            rsa::Pkcs1v15Sign::new::<sha2::Sha512>(),
            &sha2::Sha512::digest(msg),
            &sig,
        )
        .unwrap();
}

/// ECDSA names the signature's algorithm by the digest's OID.
#[test]
fn ecdsa_signature_with_oid() {
    use p256::NistP256;
    use p256::ecdsa::signature::Signer;

    let key = p256::ecdsa::SigningKey::from_slice(&[7u8; 32]).unwrap();
    let sig: p256::ecdsa::Signature = key.sign(b"msg");
    let ours = ecdsa::SignatureWithOid::<NistP256>::new_with_digest::<Sha256>(sig).unwrap();
    let theirs = ecdsa::SignatureWithOid::<NistP256>::new_with_digest::<sha2::Sha256>(sig).unwrap();
    assert_eq!(ours.oid(), theirs.oid());
    let ours = ecdsa::SignatureWithOid::<NistP256>::new_with_digest::<Sha384>(sig).unwrap();
    let theirs = ecdsa::SignatureWithOid::<NistP256>::new_with_digest::<sha2::Sha384>(sig).unwrap();
    assert_eq!(ours.oid(), theirs.oid());
}

#[test]
fn debug_names_the_algorithm() {
    for (shown, name) in [
        (format!("{:?}", Sha224::new()), "Sha224 {"),
        (format!("{:?}", Sha256::new()), "Sha256 {"),
        (format!("{:?}", Sha384::new()), "Sha384 {"),
        (format!("{:?}", Sha512::new()), "Sha512 {"),
        (format!("{:?}", Sha512_224::new()), "Sha512_224 {"),
        (format!("{:?}", Sha512_256::new()), "Sha512_256 {"),
    ] {
        assert!(shown.starts_with(name), "{shown}");
        // The state itself is never printed.
        assert!(!shown.contains("state"), "{shown}");
    }
}

/// With the `zeroize` feature every hasher is `ZeroizeOnDrop`, as sha2's.
#[test]
fn zeroize_on_drop() {
    fn zeroizes<T: ZeroizeOnDrop>() {}
    zeroizes::<Sha224>();
    zeroizes::<Sha256>();
    zeroizes::<Sha384>();
    zeroizes::<Sha512>();
    zeroizes::<Sha512_224>();
    zeroizes::<Sha512_256>();
    zeroizes::<mbhash::block_api::StreamHasherCore<mbhash::Sha256Alg>>();
    zeroizes::<sha2::Sha256>();
    // Dropping a used hasher (and finalizing one by value) still works.
    let mut h = Sha256::new();
    h.update([1u8; 100]);
    let copy = h.clone();
    drop(h);
    assert_eq!(copy.finalize(), sha2::Sha256::digest([1u8; 100]));
}

/// `block_api::{compress256, compress512}` with sha2's signatures and
/// results.
#[test]
fn compress_functions_are_sha2s() {
    let mut rng = Rng::new(0xc0);
    for n in [0usize, 1, 2, 3, 7, 16] {
        let blocks256: Vec<[u8; 64]> = (0..n)
            .map(|_| core::array::from_fn(|_| rng.next_u64() as u8))
            .collect();
        let mut a = [0x0123_4567u32, 1, 2, 3, 4, 5, 6, 7];
        let mut b = a;
        mbhash::block_api::compress256(&mut a, &blocks256);
        sha2::block_api::compress256(&mut b, &blocks256);
        assert_eq!(a, b, "{n} blocks");

        let blocks512: Vec<[u8; 128]> = (0..n)
            .map(|_| core::array::from_fn(|_| rng.next_u64() as u8))
            .collect();
        let mut a = [0x0123_4567_89ab_cdefu64, 1, 2, 3, 4, 5, 6, 7];
        let mut b = a;
        mbhash::block_api::compress512(&mut a, &blocks512);
        sha2::block_api::compress512(&mut b, &blocks512);
        assert_eq!(a, b, "{n} blocks");
    }
}

/// `use mbhash::digest` is the `digest` crate sha2 re-exports.
#[test]
fn digest_is_reexported() {
    fn takes_dyn(d: &mut dyn mbhash::digest::DynDigest) -> Box<[u8]> {
        d.update(b"abc");
        d.finalize_reset()
    }
    let mut boxed: Box<dyn mbhash::digest::DynDigest> = Box::new(Sha256::new());
    assert_eq!(
        &takes_dyn(boxed.as_mut())[..],
        &sha2::Sha256::digest(b"abc")[..]
    );
    let cloned = boxed.box_clone();
    assert_eq!(cloned.output_size(), 32);
}
