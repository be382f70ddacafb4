//! The job manager driven by the input: chunks and flags (invalid ones too)
//! for a few SHA-256 streams; digests against the sha2 crate.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mbhash_core::alg::Sha256Alg;
use mbhash_core::{Context, Flags, JobManager, Status};
use sha2::Digest;

fuzz_target!(|data: &[u8]| {
    let mut ctxs: Vec<Context<Sha256Alg>> = (0..4).map(Context::with_id).collect();
    let mut msgs: Vec<Vec<u8>> = vec![Vec::new(); 4];
    let mut pending: Vec<Option<(Vec<u8>, bool)>> = vec![None; 4];
    let mut slots: Vec<Option<&mut Context<Sha256Alg>>> = ctxs.iter_mut().map(Some).collect();
    let mut manager = JobManager::<Sha256Alg>::new();
    let mut rest = data;
    let check = |ctx: &mut Context<Sha256Alg>, msgs: &mut Vec<Vec<u8>>, pending: &mut Vec<Option<(Vec<u8>, bool)>>| {
        let id = ctx.id() as usize;
        let (msg, last) = pending[id].take().expect("came back once");
        msgs[id] = msg;
        if last {
            assert_eq!(ctx.status(), Status::Complete);
            assert_eq!(ctx.digest().unwrap()[..], sha2::Sha256::digest(&msgs[id])[..]);
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
});
