//! `mbhash_core::verity`: the builders and verifiers against a naive
//! in-memory reference written from the formats' definitions, hashing with
//! the oracle (the `sha2` crate). The tests against the real tools are in
//! `mbhash-cli/tests/verity.rs`.

use mbhash_core::Algo;
use mbhash_core::verity::*;

/// The oracle's hash of the concatenated parts.
fn h(alg: Algo, parts: &[&[u8]]) -> Vec<u8> {
    mbhash_test_support::oracle(alg.name(), &parts.concat())
}

/// The whole tree, levels top first, and the root hash.
struct Naive {
    tree: Vec<u8>,
    root: Vec<u8>,
}

/// `salted(block)` hashes one block; hashes go `per` to a block at `stride`.
fn naive(
    blocks: Vec<Vec<u8>>,
    hash_block: usize,
    per: usize,
    stride: usize,
    salted: &dyn Fn(&[u8]) -> Vec<u8>,
) -> Naive {
    let mut hashes: Vec<Vec<u8>> = blocks.iter().map(|b| salted(b)).collect();
    if hashes.len() == 1 {
        return Naive {
            tree: Vec::new(),
            root: hashes.remove(0),
        };
    }
    let mut levels: Vec<Vec<u8>> = Vec::new();
    while hashes.len() > 1 {
        let mut level = Vec::new();
        for group in hashes.chunks(per) {
            let mut block = vec![0; hash_block];
            for (j, x) in group.iter().enumerate() {
                block[j * stride..j * stride + x.len()].copy_from_slice(x);
            }
            level.push(block);
        }
        hashes = level.iter().map(|b| salted(b)).collect();
        levels.push(level.concat());
    }
    Naive {
        tree: levels.into_iter().rev().collect::<Vec<_>>().concat(),
        root: hashes.remove(0),
    }
}

fn data(len: usize, seed: u8) -> Vec<u8> {
    (0..len)
        .map(|i| (i as u8).wrapping_mul(31).wrapping_add(seed) ^ (i >> 9) as u8)
        .collect()
}

#[test]
fn fsverity_matches_the_definition_on_every_path() {
    for alg in [Algo::Sha256, Algo::Sha512] {
        for (bs, salt) in [(1024, &b""[..]), (1024, &[7u8; 32][..]), (4096, &[1u8][..])] {
            let per = bs / alg.output_len();
            for len in [
                0,
                1,
                bs - 1,
                bs,
                bs + 1,
                per * bs + 1,
                (per * per + 1) * bs + 5,
            ] {
                let d = data(len, len as u8);
                let params = fsverity::Params::new(alg, bs, salt).unwrap();
                let mut padded = salt.to_vec();
                padded.resize(
                    salt.len()
                        .next_multiple_of(if alg == Algo::Sha256 { 64 } else { 128 }),
                    0,
                );
                let blocks = d
                    .chunks(bs)
                    .map(|c| {
                        let mut b = c.to_vec();
                        b.resize(bs, 0);
                        b
                    })
                    .collect();
                let want = if len == 0 {
                    Naive {
                        tree: Vec::new(),
                        root: vec![0; alg.output_len()],
                    }
                } else {
                    naive(blocks, bs, per, alg.output_len(), &|b| {
                        h(alg, &[&padded, b])
                    })
                };
                for jobs in [1, 3] {
                    let opts = Options {
                        jobs,
                        progress: None,
                    };
                    let mut tree = Vec::new();
                    let got = fsverity::build(&params, Input::Bytes(&d), &mut tree, &opts).unwrap();
                    assert_eq!(got.root_hash, want.root, "{alg} {bs} {len} -j {jobs}");
                    assert!(tree == want.tree, "{alg} {bs} {len}: tree");
                    assert_eq!(got.tree_len, tree.len() as u64);
                    assert_eq!(got.digest, h(alg, &[&got.descriptor]));
                    let report = fsverity::verify_root(
                        &params,
                        Input::Bytes(&d),
                        &tree,
                        &got.root_hash,
                        &opts,
                    )
                    .unwrap();
                    assert!(report.is_ok(), "{report:?}");
                }
                let mut reader = &d[..];
                let got = fsverity::build(
                    &params,
                    Input::Reader(&mut reader, len as u64),
                    &mut NoTree,
                    &Options::default(),
                )
                .unwrap();
                assert_eq!(got.root_hash, want.root, "{alg} {bs} {len} reader");
            }
        }
    }
}

#[test]
fn dmverity_matches_the_definition() {
    for alg in Algo::ALL {
        for version in [0, 1] {
            for (dbs, hbs, blocks) in [
                (512, 512, 1),
                (512, 512, 40),
                (1024, 512, 300),
                (4096, 4096, 3),
            ] {
                let salt = [9u8; 5];
                let d = data(blocks * dbs + 77, 3);
                let mut params = dmverity::Params::new(alg, version, dbs, hbs, &salt).unwrap();
                params.superblock = blocks % 2 == 0;
                let dl = alg.output_len();
                let per = 1 << (hbs / dl).ilog2();
                let stride = if version == 1 {
                    dl.next_power_of_two()
                } else {
                    dl
                };
                let salted = |b: &[u8]| {
                    if version == 1 {
                        h(alg, &[&salt, b])
                    } else {
                        h(alg, &[b, &salt])
                    }
                };
                let chunks = d[..blocks * dbs].chunks(dbs).map(<[u8]>::to_vec).collect();
                let want = naive(chunks, hbs, per, stride, &salted);
                let mut image = Vec::new();
                let got =
                    dmverity::format(&params, Input::Bytes(&d), &mut image, &Options::default())
                        .unwrap();
                let what = format!("{alg} v{version} {dbs}/{hbs} x{blocks}");
                assert_eq!(got.root_hash, want.root, "{what}");
                let base = params.tree_offset() as usize;
                assert!(image[base..] == want.tree[..], "{what}: tree");
                assert_eq!(got.hash_image_len, image.len() as u64, "{what}");
                if params.superblock {
                    let sb = dmverity::Superblock::read(&image).unwrap();
                    assert_eq!(sb, params.superblock_for(blocks as u64));
                }
                let opts = Options::default();
                let r = dmverity::verify(&params, Input::Bytes(&d), &image, &got.root_hash, &opts)
                    .unwrap();
                assert!(r.is_ok(), "{what}: {r:?}");
                // A flipped byte in the last data block is found, and only there.
                let mut bad = d.clone();
                bad[blocks * dbs - 1] ^= 1;
                let r =
                    dmverity::verify(&params, Input::Bytes(&bad), &image, &got.root_hash, &opts)
                        .unwrap();
                assert_eq!(r.bad_data_blocks, [blocks as u64 - 1], "{what}");
                assert!(r.bad_hash_blocks.is_empty() && !r.root_mismatch, "{what}");
                // A nonzero byte in the padding of the last hash block.
                if image.len() > base && (blocks - 1) % per != per - 1 {
                    let mut img = image.clone();
                    *img.last_mut().unwrap() = 1;
                    let r =
                        dmverity::verify(&params, Input::Bytes(&d), &img, &got.root_hash, &opts)
                            .unwrap();
                    assert!(!r.bad_hash_blocks.is_empty(), "{what}: padding");
                }
            }
        }
    }
}

#[test]
fn every_corrupt_block_is_reported() {
    let params = fsverity::Params::new(Algo::Sha256, 1024, b"s").unwrap();
    let d = data(2000 * 1024, 1);
    let mut tree = Vec::new();
    let opts = Options {
        jobs: 2,
        progress: None,
    };
    let got = fsverity::build(&params, Input::Bytes(&d), &mut tree, &opts).unwrap();
    let mut bad = d.clone();
    for b in [0usize, 5, 999, 1000, 1999] {
        bad[b * 1024 + 100] ^= 0x80;
    }
    let r =
        fsverity::verify_root(&params, Input::Bytes(&bad), &tree, &got.root_hash, &opts).unwrap();
    assert_eq!(r.bad_data_blocks, [0, 5, 999, 1000, 1999]);
    assert!(r.bad_hash_blocks.is_empty());
    // Truncated tree and wrong-length root: errors, not reports.
    assert!(matches!(
        fsverity::verify_root(
            &params,
            Input::Bytes(&d),
            &&tree[..tree.len() - 1],
            &got.root_hash,
            &opts
        ),
        Err(VerityError::Truncated { .. })
    ));
    assert!(matches!(
        fsverity::verify_root(&params, Input::Bytes(&d), &tree, &got.root_hash[1..], &opts),
        Err(VerityError::RootHashLength { .. })
    ));
    // Progress adds up to the data size.
    let seen = std::sync::atomic::AtomicU64::new(0);
    let add = |n: u64| {
        seen.fetch_add(n, std::sync::atomic::Ordering::Relaxed);
    };
    let opts = Options {
        jobs: 2,
        progress: Some(&add),
    };
    fsverity::build(&params, Input::Bytes(&d), &mut NoTree, &opts).unwrap();
    assert_eq!(seen.into_inner(), d.len() as u64);
}

#[test]
fn parameters_out_of_range_are_errors() {
    use fsverity::Params as F;
    assert!(F::new(Algo::Sha384, 4096, &[]).is_err());
    assert!(F::new(Algo::Sha256, 512, &[]).is_err());
    assert!(F::new(Algo::Sha256, 3072, &[]).is_err());
    assert!(F::new(Algo::Sha256, 1 << 17, &[]).is_err());
    assert!(F::new(Algo::Sha256, 4096, &[0; 33]).is_err());
    assert!(F::new(Algo::Sha512, 65536, &[0; 32]).is_ok());
    use dmverity::Params as D;
    assert!(D::new(Algo::Sha256, 2, 4096, 4096, &[]).is_err());
    assert!(D::new(Algo::Sha256, 1, 256, 4096, &[]).is_err());
    assert!(D::new(Algo::Sha256, 1, 4096, 1 << 20, &[]).is_err());
    assert!(D::new(Algo::Sha256, 1, 4096, 4096, &[0; 257]).is_err());
    let p = D::new(Algo::Sha256, 1, 4096, 4096, &[0; 256]).unwrap();
    assert!(p.blocks_of(4095).is_err());
    assert_eq!(p.blocks_of(8191).unwrap(), 1);
    assert_eq!(from_hex("0aFf"), Some(vec![0x0a, 0xff]));
    assert_eq!(from_hex("+a"), None);
    assert_eq!(from_hex("abc"), None);
}

#[test]
fn fsverity_verifies_the_file_digest_so_a_length_change_fails() {
    let opts = Options::default();
    for (size, bs) in [
        (5000usize, 4096usize),
        (3 * 1024 + 10, 1024),
        (100 * 1024 + 1, 1024),
    ] {
        let params = fsverity::Params::new(Algo::Sha256, bs, b"ab").unwrap();
        let d = data(size, size as u8);
        let mut tree = Vec::new();
        let got = fsverity::build(&params, Input::Bytes(&d), &mut tree, &opts).unwrap();
        let what = format!("{size} bytes, block {bs}");
        let ok = fsverity::verify(&params, Input::Bytes(&d), &tree, &got.digest, &opts).unwrap();
        assert!(ok.is_ok(), "{what}: {ok:?}");
        let ok = fsverity::verify_descriptor(
            &got.descriptor,
            Input::Bytes(&d),
            &tree,
            &got.digest,
            &opts,
        )
        .unwrap();
        assert!(ok.is_ok(), "{what}: {ok:?}");
        // Three zero bytes more: the same blocks, the same tree, another
        // digest. The tree's root alone would pass.
        let mut grown = d.clone();
        grown.extend_from_slice(&[0, 0, 0]);
        let r = fsverity::verify_root(&params, Input::Bytes(&grown), &tree, &got.root_hash, &opts)
            .unwrap();
        assert!(r.is_ok(), "{what}: the tree alone does not see it");
        let r = fsverity::verify(&params, Input::Bytes(&grown), &tree, &got.digest, &opts).unwrap();
        assert!(
            r.digest_mismatch && r.blocks.is_ok() && !r.is_ok(),
            "{what}: {r:?}"
        );
        let r = fsverity::verify_descriptor(
            &got.descriptor,
            Input::Bytes(&grown),
            &tree,
            &got.digest,
            &opts,
        )
        .unwrap();
        assert_eq!(r.size_mismatch, Some(size as u64 + 3), "{what}");
        assert!(!r.digest_mismatch, "{what}");
        // The root hash given for the digest is an error that says so.
        assert!(matches!(
            fsverity::verify(&params, Input::Bytes(&d), &tree, &got.root_hash, &opts),
            Err(VerityError::RootNotDigest)
        ));
        assert!(matches!(
            fsverity::verify_descriptor(
                &got.descriptor,
                Input::Bytes(&d),
                &tree,
                &got.root_hash,
                &opts
            ),
            Err(VerityError::RootNotDigest)
        ));
        // Bytes after the tree, or a tree cut short: errors.
        let mut long = tree.clone();
        long.push(0);
        assert!(matches!(
            fsverity::verify(&params, Input::Bytes(&d), &long, &got.digest, &opts),
            Err(VerityError::TrailingData { .. })
        ));
        assert!(matches!(
            fsverity::verify_descriptor(
                &got.descriptor,
                Input::Bytes(&d),
                &long,
                &got.digest,
                &opts
            ),
            Err(VerityError::TrailingData { .. })
        ));
        assert!(matches!(
            fsverity::verify(
                &params,
                Input::Bytes(&d),
                &&tree[..tree.len() - 1],
                &got.digest,
                &opts
            ),
            Err(VerityError::Truncated { .. })
        ));
        // A corrupt data block is listed, and the digest still matches
        // the descriptor.
        let mut bad = d.clone();
        bad[size - 1] ^= 1;
        let r = fsverity::verify_descriptor(
            &got.descriptor,
            Input::Bytes(&bad),
            &tree,
            &got.digest,
            &opts,
        )
        .unwrap();
        let last = (size as u64 - 1) / bs as u64;
        assert_eq!(r.blocks.bad_data_blocks, [last], "{what}");
        assert!(!r.digest_mismatch && !r.is_ok(), "{what}");
        let r = fsverity::verify(&params, Input::Bytes(&bad), &tree, &got.digest, &opts).unwrap();
        assert!(!r.is_ok(), "{what}: {r:?}");
        // A descriptor changed anywhere no longer hashes to the digest.
        let mut desc = got.descriptor;
        desc[8] ^= 1;
        let r = fsverity::verify_descriptor(&desc, Input::Bytes(&d), &tree, &got.digest, &opts)
            .unwrap();
        assert!(r.digest_mismatch && r.size_mismatch.is_some(), "{what}");
    }
    // The empty file: no tree, a zero root.
    let params = fsverity::Params::new(Algo::Sha512, 4096, &[]).unwrap();
    let got = fsverity::build(&params, Input::Bytes(&[]), &mut NoTree, &opts).unwrap();
    let empty: Vec<u8> = Vec::new();
    assert!(
        fsverity::verify(&params, Input::Bytes(&[]), &empty, &got.digest, &opts)
            .unwrap()
            .is_ok()
    );
    let r = fsverity::verify(&params, Input::Bytes(&[0]), &empty, &got.digest, &opts).unwrap();
    assert!(r.digest_mismatch);
}

#[test]
fn fsverity_descriptors_that_are_not_one_are_errors() {
    let params = fsverity::Params::new(Algo::Sha256, 4096, b"salt").unwrap();
    let good = params.descriptor(77, &[7; 32]);
    let d = fsverity::Descriptor::parse(&good).unwrap();
    assert_eq!(
        (d.data_size, d.root_hash, d.params),
        (77, vec![7; 32], params)
    );
    for (at, value) in [
        (0, 2u8),
        (1, 3),
        (2, 9),
        (2, 17),
        (3, 33),
        (4, 1),
        (48, 1),
        (84, 1),
        (255, 1),
    ] {
        let mut b = good;
        b[at] = value;
        assert!(
            matches!(
                fsverity::Descriptor::parse(&b),
                Err(VerityError::Descriptor(_))
            ),
            "byte {at} = {value}"
        );
    }
    assert!(fsverity::Descriptor::parse(&good[..255]).is_err());
}

#[test]
fn a_root_hash_the_tree_does_not_give_is_told_apart_from_corruption() {
    let opts = Options::default();
    let params = dmverity::Params::new(Algo::Sha256, 1, 512, 512, b"s").unwrap();
    for blocks in [1usize, 3, 40] {
        let d = data(blocks * 512, 3);
        let mut image = Vec::new();
        let got = dmverity::format(&params, Input::Bytes(&d), &mut image, &opts).unwrap();
        let mut wrong = got.root_hash.clone();
        wrong[0] ^= 1;
        let r = dmverity::verify(&params, Input::Bytes(&d), &image, &wrong, &opts).unwrap();
        assert!(r.only_root_differs && !r.is_ok(), "{blocks}: {r:?}");
        let r = dmverity::verify(&params, Input::Bytes(&d), &image, &got.root_hash, &opts).unwrap();
        assert!(r.is_ok() && !r.only_root_differs, "{blocks}");
        if got.levels == 0 {
            continue;
        }
        // A stored hash in the top block changed: its child disagrees too.
        let top = params.tree_offset() as usize;
        let mut bad = image.clone();
        bad[top + 1] ^= 1;
        let r = dmverity::verify(&params, Input::Bytes(&d), &bad, &got.root_hash, &opts).unwrap();
        assert!(!r.only_root_differs && r.bad_hash_blocks.len() + r.bad_data_blocks.len() >= 2);
        // A byte past the top block's hashes: the spare area is not zero.
        let mut bad = image.clone();
        bad[top + 511] ^= 1;
        let r = dmverity::verify(&params, Input::Bytes(&d), &bad, &got.root_hash, &opts).unwrap();
        assert!(
            !r.only_root_differs && r.bad_hash_blocks.len() == 1,
            "{blocks}: {r:?}"
        );
    }
}

#[test]
fn dmverity_hash_offset_places_the_image_and_keeps_other_bytes() {
    let opts = Options::default();
    let d = data(40 * 512, 4);
    for superblock in [true, false] {
        for hb in [512usize, 4096] {
            let mut base = dmverity::Params::new(Algo::Sha256, 1, 512, hb, b"s").unwrap();
            base.superblock = superblock;
            let mut plain = Vec::new();
            let want = dmverity::format(&base, Input::Bytes(&d), &mut plain, &opts).unwrap();
            for offset in [0u64, 512, 4608, 8192] {
                let mut p = base.clone();
                p.hash_offset = offset;
                // Where veritysetup puts the tree.
                let tree_at = if superblock {
                    (offset + 512).div_ceil(hb as u64) * hb as u64
                } else {
                    offset / hb as u64 * hb as u64
                };
                assert_eq!(p.tree_offset(), tree_at);
                let mut image = vec![0xeeu8; 3 * 8192];
                let got = dmverity::format(&p, Input::Bytes(&d), &mut image, &opts).unwrap();
                assert_eq!(got.root_hash, want.root_hash);
                let tree_len = (want.hash_image_len - base.tree_offset()) as usize;
                assert_eq!(got.hash_image_len, tree_at + tree_len as u64);
                let t = tree_at as usize;
                assert_eq!(image[t..t + tree_len], plain[plain.len() - tree_len..]);
                let o = offset as usize;
                if superblock {
                    assert_eq!(image[o..o + 512], plain[..512]);
                    // Between the superblock and the tree: untouched.
                    assert!(image[o + 512..t].iter().all(|&b| b == 0xee));
                }
                let written_from = if superblock { o } else { t };
                assert!(image[..written_from].iter().all(|&b| b == 0xee));
                assert!(image[t + tree_len..].iter().all(|&b| b == 0xee));
                let r =
                    dmverity::verify(&p, Input::Bytes(&d), &image, &got.root_hash, &opts).unwrap();
                assert!(r.is_ok(), "offset {offset}");
                if offset != 0 && superblock {
                    assert!(
                        dmverity::verify(&base, Input::Bytes(&d), &image, &got.root_hash, &opts)
                            .is_err()
                    );
                }
            }
            let mut p = base.clone();
            p.hash_offset = 1000;
            assert!(matches!(
                dmverity::format(&p, Input::Bytes(&d), &mut Vec::new(), &opts),
                Err(VerityError::HashOffset(1000))
            ));
        }
    }
}
