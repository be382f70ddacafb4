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
                    let report =
                        fsverity::verify(&params, Input::Bytes(&d), &tree, &got.root_hash, &opts)
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
    let r = fsverity::verify(&params, Input::Bytes(&bad), &tree, &got.root_hash, &opts).unwrap();
    assert_eq!(r.bad_data_blocks, [0, 5, 999, 1000, 1999]);
    assert!(r.bad_hash_blocks.is_empty());
    // Truncated tree and wrong-length root: errors, not reports.
    assert!(matches!(
        fsverity::verify(
            &params,
            Input::Bytes(&d),
            &&tree[..tree.len() - 1],
            &got.root_hash,
            &opts
        ),
        Err(VerityError::Truncated { .. })
    ));
    assert!(matches!(
        fsverity::verify(&params, Input::Bytes(&d), &tree, &got.root_hash[1..], &opts),
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
