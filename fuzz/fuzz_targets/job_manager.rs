//! The job manager driven by the input: the first byte picks the algorithm
//! (SHA-256, MD5, SHA-1 or SM3), the rest are chunks and flags (invalid
//! ones too) for a few streams; digests against the RustCrypto crates.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mbhash_core::alg::{Algorithm, Md5Alg, Sha1Alg, Sha256Alg, Sm3Alg};
use mbhash_core::{Context, Flags, JobManager, Status};
use sha2::Digest;
use mbhash_core::engine::HashAlgorithm;

/// Runs the operations of `data` on a manager of `A`, checking every
/// digest against `D`.
fn run<A: HashAlgorithm, D: Digest>(data: &[u8]) {
    let mut ctxs: Vec<Context<A>> = (0..4).map(Context::with_id).collect();
    let mut msgs: Vec<Vec<u8>> = vec![Vec::new(); 4];
    let mut pending: Vec<Option<(Vec<u8>, bool)>> = vec![None; 4];
    let mut slots: Vec<Option<&mut Context<A>>> = ctxs.iter_mut().map(Some).collect();
    let mut manager = JobManager::<A>::new();
    let mut rest = data;
    let check = |ctx: &mut Context<A>, msgs: &mut Vec<Vec<u8>>, pending: &mut Vec<Option<(Vec<u8>, bool)>>| {
        let id = ctx.id() as usize;
        let (msg, last) = pending[id].take().expect("came back once");
        msgs[id] = msg;
        if last {
            assert_eq!(ctx.status(), Status::Complete);
            assert_eq!(ctx.digest().unwrap().as_ref(), &D::digest(&msgs[id])[..]);
        } else {
            assert_eq!(ctx.status(), Status::Idle);
        }
    };
    while let [op, len, tail @ ..] = rest {
        let id = usize::from(op & 3);
        let flags = Flags::from_bits(u32::from(op >> 2));
        let n = usize::from(*len).min(tail.len());
        let (chunk, next) = tail.split_at(n);
        rest = next;
        if op & 0x80 != 0 {
            if let Some(ctx) = manager.flush() {
                check(ctx, &mut msgs, &mut pending);
                let back = ctx.id() as usize;
                slots[back] = Some(ctx);
            }
            continue;
        }
        let Some(ctx) = slots[id].take() else { continue };
        match manager.submit(ctx, chunk, flags) {
            Ok(done) => {
                let mut msg = if flags.is_first() { Vec::new() } else { msgs[id].clone() };
                msg.extend_from_slice(chunk);
                pending[id] = Some((msg, flags.is_last()));
                if let Some(ctx) = done {
                    check(ctx, &mut msgs, &mut pending);
                    let back = ctx.id() as usize;
                    slots[back] = Some(ctx);
                }
            }
            Err(e) => slots[id] = Some(e.into_context()),
        }
    }
    while let Some(ctx) = manager.flush() {
        check(ctx, &mut msgs, &mut pending);
        let back = ctx.id() as usize;
        slots[back] = Some(ctx);
    }
}

fuzz_target!(|data: &[u8]| {
    let Some((which, rest)) = data.split_first() else { return };
    match which % 4 {
        0 => run::<Sha256Alg, sha2::Sha256>(rest),
        1 => run::<Md5Alg, md5::Md5>(rest),
        2 => run::<Sha1Alg, sha1::Sha1>(rest),
        _ => run::<Sm3Alg, sm3::Sm3>(rest),
    }
});
