//! The hashers in RustCrypto's MAC and KDF crates: `hmac` (`Hmac`,
//! `SimpleHmac`), `hkdf` (`Hkdf`, `SimpleHkdf`) and `pbkdf2`, on the RFC
//! vectors and against the same constructions over `sha2` on random inputs.

use digest::block_api::CoreProxy;
use digest::{Digest, Mac};
use hkdf::{Hkdf, SimpleHkdf};
use hmac::{Hmac, KeyInit, SimpleHmac};
use mbhash_test_support::Rng;

fn to_hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

fn rep(byte: u8, n: usize) -> Vec<u8> {
    vec![byte; n]
}

/// One RFC 4231 test case: key, data, and the tags for SHA-224, -256, -384
/// and -512 (test case 5 gives the first 128 bits only).
struct Rfc4231 {
    case: u32,
    key: Vec<u8>,
    data: Vec<u8>,
    sha224: &'static str,
    sha256: &'static str,
    sha384: &'static str,
    sha512: &'static str,
}

fn rfc4231() -> Vec<Rfc4231> {
    let long_key = rep(0xaa, 131);
    vec![
        Rfc4231 {
            case: 1,
            key: rep(0x0b, 20),
            data: b"Hi There".to_vec(),
            sha224: "896fb1128abbdf196832107cd49df33f47b4b1169912ba4f53684b22",
            sha256: "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7",
            sha384: "afd03944d84895626b0825f4ab46907f15f9dadbe4101ec682aa034c7cebc59c\
                     faea9ea9076ede7f4af152e8b2fa9cb6",
            sha512: "87aa7cdea5ef619d4ff0b4241a1d6cb02379f4e2ce4ec2787ad0b30545e17cde\
                     daa833b7d6b8a702038b274eaea3f4e4be9d914eeb61f1702e696c203a126854",
        },
        Rfc4231 {
            case: 2,
            key: b"Jefe".to_vec(),
            data: b"what do ya want for nothing?".to_vec(),
            sha224: "a30e01098bc6dbbf45690f3a7e9e6d0f8bbea2a39e6148008fd05e44",
            sha256: "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843",
            sha384: "af45d2e376484031617f78d2b58a6b1b9c7ef464f5a01b47e42ec3736322445e\
                     8e2240ca5e69e2c78b3239ecfab21649",
            sha512: "164b7a7bfcf819e2e395fbe73b56e0a387bd64222e831fd610270cd7ea250554\
                     9758bf75c05a994a6d034f65f8f0e6fdcaeab1a34d4a6b4b636e070a38bce737",
        },
        Rfc4231 {
            case: 3,
            key: rep(0xaa, 20),
            data: rep(0xdd, 50),
            sha224: "7fb3cb3588c6c1f6ffa9694d7d6ad2649365b0c1f65d69d1ec8333ea",
            sha256: "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe",
            sha384: "88062608d3e6ad8a0aa2ace014c8a86f0aa635d947ac9febe83ef4e55966144b\
                     2a5ab39dc13814b94e3ab6e101a34f27",
            sha512: "fa73b0089d56a284efb0f0756c890be9b1b5dbdd8ee81a3655f83e33b2279d39\
                     bf3e848279a722c806b485a47e67c807b946a337bee8942674278859e13292fb",
        },
        Rfc4231 {
            case: 4,
            key: (0x01..=0x19).collect(),
            data: rep(0xcd, 50),
            sha224: "6c11506874013cac6a2abc1bb382627cec6a90d86efc012de7afec5a",
            sha256: "82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b",
            sha384: "3e8a69b7783c25851933ab6290af6ca77a9981480850009cc5577c6e1f573b4e\
                     6801dd23c4a7d679ccf8a386c674cffb",
            sha512: "b0ba465637458c6990e5a8c5f61d4af7e576d97ff94b872de76f8050361ee3db\
                     a91ca5c11aa25eb4d679275cc5788063a5f19741120c4f2de2adebeb10a298dd",
        },
        Rfc4231 {
            case: 5,
            key: rep(0x0c, 20),
            data: b"Test With Truncation".to_vec(),
            sha224: "0e2aea68a90c8d37c988bcdb9fca6fa8",
            sha256: "a3b6167473100ee06e0c796c2955552b",
            sha384: "3abf34c3503b2a23a46efc619baef897",
            sha512: "415fad6271580a531d4179bc891d87a6",
        },
        Rfc4231 {
            case: 6,
            key: long_key.clone(),
            data: b"Test Using Larger Than Block-Size Key - Hash Key First".to_vec(),
            sha224: "95e9a0db962095adaebe9b2d6f0dbce2d499f112f2d2b7273fa6870e",
            sha256: "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54",
            sha384: "4ece084485813e9088d2c63a041bc5b44f9ef1012a2b588f3cd11f05033ac4c6\
                     0c2ef6ab4030fe8296248df163f44952",
            sha512: "80b24263c7c1a3ebb71493c1dd7be8b49b46d1f41b4aeec1121b013783f8f352\
                     6b56d037e05f2598bd0fd2215d6a1e5295e64f73f63f0aec8b915a985d786598",
        },
        Rfc4231 {
            case: 7,
            key: long_key,
            data: b"This is a test using a larger than block-size key and a larger \
                    than block-size data. The key needs to be hashed before being \
                    used by the HMAC algorithm."
                .to_vec(),
            sha224: "3a854166ac5d9f023f54d517d0b39dbd946770db9c2b95c9f6f565d1",
            sha256: "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2",
            sha384: "6617178e941f020d351e2f254e8fd32c602420feb0b8fb9adccebb82461e99c5\
                     a678cc31e799176d3860e6110c46523e",
            sha512: "e37b6a775dc87dbaa4dfa9f96e5e3ffddebd71f8867289865df5a32d20cdc944\
                     b6022cac3c4982b10d5eeb55c3e4de15134676fb6de0446065c97440fa8c6a58",
        },
    ]
}

/// The tag of `Hmac<D>` and of `SimpleHmac<D>`, checked equal, cut to
/// `len` bytes.
fn hmac_both<D>(key: &[u8], data: &[u8], len: usize) -> String
where
    D: hmac::EagerHash + digest::block_api::BlockSizeUser + Clone,
{
    let mut mac = <Hmac<D> as KeyInit>::new_from_slice(key).unwrap();
    mac.update(data);
    let tag = mac.finalize().into_bytes();
    let mut simple = <SimpleHmac<D> as KeyInit>::new_from_slice(key).unwrap();
    simple.update(data);
    let simple_tag = simple.finalize().into_bytes();
    assert_eq!(to_hex(&tag), to_hex(&simple_tag), "Hmac and SimpleHmac");
    to_hex(&tag[..len.min(tag.len())])
}

#[test]
fn rfc4231_hmac_vectors() {
    for v in rfc4231() {
        let cut = |expected: &str| expected.len() / 2;
        let got = [
            hmac_both::<mbhash_core::Sha224>(&v.key, &v.data, cut(v.sha224)),
            hmac_both::<mbhash_core::Sha256>(&v.key, &v.data, cut(v.sha256)),
            hmac_both::<mbhash_core::Sha384>(&v.key, &v.data, cut(v.sha384)),
            hmac_both::<mbhash_core::Sha512>(&v.key, &v.data, cut(v.sha512)),
        ];
        let want = [v.sha224, v.sha256, v.sha384, v.sha512];
        for (name, (got, want)) in ["224", "256", "384", "512"]
            .iter()
            .zip(got.iter().zip(want))
        {
            assert_eq!(got, want, "RFC 4231 case {} HMAC-SHA-{name}", v.case);
        }
    }
}

/// One RFC 5869 HKDF-SHA-256 test case.
struct Rfc5869 {
    case: u32,
    ikm: Vec<u8>,
    salt: Option<Vec<u8>>,
    info: Vec<u8>,
    prk: &'static str,
    okm: &'static str,
}

fn rfc5869() -> Vec<Rfc5869> {
    vec![
        Rfc5869 {
            case: 1,
            ikm: rep(0x0b, 22),
            salt: Some((0x00..=0x0c).collect()),
            info: (0xf0..=0xf9).collect(),
            prk: "077709362c2e32df0ddc3f0dc47bba6390b6c73bb50f9c3122ec844ad7c2b3e5",
            okm: "3cb25f25faacd57a90434f64d0362f2a2d2d0a90cf1a5a4c5db02d56ecc4c5bf\
                  34007208d5b887185865",
        },
        Rfc5869 {
            case: 2,
            ikm: (0x00..=0x4f).collect(),
            salt: Some((0x60..=0xaf).collect()),
            info: (0xb0..=0xff).collect(),
            prk: "06a6b88c5853361a06104c9ceb35b45cef760014904671014a193f40c15fc244",
            okm: "b11e398dc80327a1c8e7f78c596a49344f012eda2d4efad8a050cc4c19afa97c\
                  59045a99cac7827271cb41c65e590e09da3275600c2f09b8367793a9aca3db71\
                  cc30c58179ec3e87c14c01d5c1f3434f1d87",
        },
        Rfc5869 {
            case: 3,
            ikm: rep(0x0b, 22),
            salt: None,
            info: Vec::new(),
            prk: "19ef24a32c717b167f33a91d6f648bdf96596776afdb6377ac434c1c293ccb04",
            okm: "8da4e775a563c18f715f802a063c5a31b8a11f5c5ee1879ec3454e5f3c738d2d\
                  9d201395faa4b61a96c8",
        },
    ]
}

#[test]
fn rfc5869_hkdf_sha256_vectors() {
    for v in rfc5869() {
        let salt = v.salt.as_deref();
        let mut okm = vec![0; v.okm.len() / 2];

        let (prk, hk) = Hkdf::<mbhash_core::Sha256>::extract(salt, &v.ikm);
        assert_eq!(to_hex(&prk), v.prk, "RFC 5869 case {} PRK (Hkdf)", v.case);
        hk.expand(&v.info, &mut okm).unwrap();
        assert_eq!(to_hex(&okm), v.okm, "RFC 5869 case {} OKM (Hkdf)", v.case);

        let (prk, hk) = SimpleHkdf::<mbhash_core::Sha256>::extract(salt, &v.ikm);
        assert_eq!(
            to_hex(&prk),
            v.prk,
            "RFC 5869 case {} PRK (SimpleHkdf)",
            v.case
        );
        okm.fill(0);
        hk.expand(&v.info, &mut okm).unwrap();
        assert_eq!(
            to_hex(&okm),
            v.okm,
            "RFC 5869 case {} OKM (SimpleHkdf)",
            v.case
        );
    }
}

#[test]
fn rfc7914_pbkdf2_hmac_sha256_vectors() {
    // RFC 7914 section 11 (the PBKDF2-HMAC-SHA-256 vectors).
    let cases: [(&[u8], &[u8], u32, &str); 2] = [
        (
            b"passwd",
            b"salt",
            1,
            "55ac046e56e3089fec1691c22544b605f94185216dde0465e68b9d57c20dacbc\
             49ca9cccf179b645991664b39d77ef317c71b845b1e30bd509112041d3a19783",
        ),
        (
            b"Password",
            b"NaCl",
            80_000,
            "4ddcd8f60b98be21830cee5ef22701f9641a4418d04c0414aeff08876b34ab56\
             a1d425a1225833549adb841b51c9b3176a272bdebba1d078478f62b397f33c8d",
        ),
    ];
    for (password, salt, rounds, want) in cases {
        let mut out = [0u8; 64];
        pbkdf2::pbkdf2_hmac::<mbhash_core::Sha256>(password, salt, rounds, &mut out);
        assert_eq!(to_hex(&out), want, "PBKDF2 {rounds} rounds");
    }
}

/// `Hmac`, `SimpleHmac`, `Hkdf`, `SimpleHkdf` and `pbkdf2` over `M` (an
/// mbhash hasher) and `S` (its `sha2` twin) agree on random keys, messages
/// and splits.
fn against_sha2<M, S>(seed: u64)
where
    M: hmac::EagerHash + digest::block_api::BlockSizeUser + Clone,
    S: hmac::EagerHash + digest::block_api::BlockSizeUser + Clone,
{
    let mut rng = Rng::new(seed);
    for round in 0..40 {
        let mut key = vec![0; rng.below(300)];
        rng.fill(&mut key);
        let mut data = vec![0; rng.below(1200)];
        rng.fill(&mut data);
        let split = rng.below(data.len() + 1);
        let what = format!("round {round}: key {} data {}", key.len(), data.len());

        let mut m = <Hmac<M> as KeyInit>::new_from_slice(&key).unwrap();
        let mut s = <Hmac<S> as KeyInit>::new_from_slice(&key).unwrap();
        m.update(&data[..split]);
        m.update(&data[split..]);
        s.update(&data);
        assert_eq!(
            m.finalize().into_bytes()[..],
            s.finalize().into_bytes()[..],
            "Hmac {what}"
        );

        let mut m = <SimpleHmac<M> as KeyInit>::new_from_slice(&key).unwrap();
        let mut s = <SimpleHmac<S> as KeyInit>::new_from_slice(&key).unwrap();
        m.update(&data[..split]);
        m.update(&data[split..]);
        s.update(&data);
        let (m, s) = (m.finalize().into_bytes(), s.finalize().into_bytes());
        assert_eq!(m[..], s[..], "SimpleHmac {what}");

        let salt = &data[..split.min(200)];
        let info = &data[split..];
        let okm_len = 1 + rng.below(200);
        let (mut mo, mut so) = (vec![0; okm_len], vec![0; okm_len]);
        Hkdf::<M>::new(Some(salt), &key)
            .expand(info, &mut mo)
            .unwrap();
        Hkdf::<S>::new(Some(salt), &key)
            .expand(info, &mut so)
            .unwrap();
        assert_eq!(mo, so, "Hkdf {what}");
        SimpleHkdf::<M>::new(None, &key)
            .expand(info, &mut mo)
            .unwrap();
        SimpleHkdf::<S>::new(None, &key)
            .expand(info, &mut so)
            .unwrap();
        assert_eq!(mo, so, "SimpleHkdf {what}");

        let rounds = 1 + rng.below(3) as u32;
        pbkdf2::pbkdf2_hmac::<M>(&key, salt, rounds, &mut mo);
        pbkdf2::pbkdf2_hmac::<S>(&key, salt, rounds, &mut so);
        assert_eq!(mo, so, "pbkdf2 {what}");
    }
}

#[test]
fn hmac_hkdf_pbkdf2_match_sha2() {
    against_sha2::<mbhash_core::Sha224, sha2::Sha224>(224);
    against_sha2::<mbhash_core::Sha256, sha2::Sha256>(256);
    against_sha2::<mbhash_core::Sha384, sha2::Sha384>(384);
    against_sha2::<mbhash_core::Sha512, sha2::Sha512>(512);
    against_sha2::<mbhash_core::Sha512_256, sha2::Sha512_256>(5256);
    against_sha2::<mbhash_core::Sha512_224, sha2::Sha512_224>(5224);
}

/// A hasher taken apart into its block-level core and buffer and put back
/// together at any point goes on to the right digest.
fn core_round_trip<H>(seed: u64)
where
    H: CoreProxy + Digest + Clone,
    H::Core: digest::block_api::BufferKindUser,
{
    let mut rng = Rng::new(seed);
    for len in (0..300).chain([511, 512, 513, 1000, 4096]) {
        let mut data = vec![0; len];
        rng.fill(&mut data);
        let want = H::digest(&data);
        let split = rng.below(len + 1);
        let mut h = H::new();
        Digest::update(&mut h, &data[..split]);
        let (core, buffer) = h.decompose();
        let mut h = H::compose(core, buffer);
        Digest::update(&mut h, &data[split..]);
        assert_eq!(h.finalize(), want, "len {len} split {split}");
    }
}

#[test]
fn decompose_and_compose_keep_the_state() {
    core_round_trip::<mbhash_core::Sha224>(1);
    core_round_trip::<mbhash_core::Sha256>(2);
    core_round_trip::<mbhash_core::Sha384>(3);
    core_round_trip::<mbhash_core::Sha512>(4);
    core_round_trip::<mbhash_core::Sha512_256>(5);
    core_round_trip::<mbhash_core::Sha512_224>(6);
}

#[test]
fn algorithm_names() {
    use digest::block_api::AlgorithmName;
    struct Name<T>(core::marker::PhantomData<T>);
    impl<T: AlgorithmName> std::fmt::Display for Name<T> {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            T::write_alg_name(f)
        }
    }
    fn name<T: AlgorithmName>() -> String {
        Name::<T>(core::marker::PhantomData).to_string()
    }
    assert_eq!(name::<mbhash_core::Sha256>(), "Sha256");
    assert_eq!(name::<mbhash_core::Sha512_224>(), "Sha512_224");
    assert_eq!(name::<Hmac<mbhash_core::Sha256>>(), "Hmac<Sha256>");
}
