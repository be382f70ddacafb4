//! Misuse of the job manager is an error, never a panic, UB or a wrong
//! digest; the context comes back with the error and the manager is
//! untouched (its jobs in flight still complete correctly).

use mbhash_core::engine::Sha256Engine;
use mbhash_core::{ErrorKind, Flags, Sha256Context, Sha256Manager, Status};
use sha2::Digest;

/// A manager with one job in flight, on an engine with several lanes so the
/// job stays in flight.
fn busy_manager<'a>(ctx: &'a mut Sha256Context, data: &'a [u8]) -> Sha256Manager<'a> {
    let mut m = Sha256Manager::with_engine(Sha256Engine::auto());
    if m.lanes() == 1 {
        m = Sha256Manager::with_engine(Sha256Engine::from_name("scalar").unwrap());
    }
    let first = m.submit(ctx, data, Flags::ENTIRE).unwrap();
    if let Some(done) = first {
        // One-lane engine: the job already finished; resubmit keeps nothing in flight.
        assert_eq!(done.status(), Status::Complete);
    }
    m
}

/// After an error, the manager still completes its in-flight job correctly.
fn assert_untouched(m: &mut Sha256Manager<'_>, data: &[u8]) {
    if let Some(done) = m.flush() {
        assert_eq!(done.digest().unwrap()[..], sha2::Sha256::digest(data)[..]);
    }
    assert!(m.flush().is_none());
}

#[test]
fn invalid_flags() {
    let data = [1u8; 300];
    let mut held = Sha256Context::new();
    let mut bad_ctx = Sha256Context::with_id(9);
    let mut bad = &mut bad_ctx;
    let mut m = busy_manager(&mut held, &data);
    for bits in [4, 5, 0x80, u32::MAX] {
        let err = m.submit(bad, b"x", Flags::from_bits(bits)).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::InvalidFlags);
        let ctx = err.into_context();
        assert_eq!(ctx.error(), Some(ErrorKind::InvalidFlags));
        assert_eq!(ctx.status(), Status::New);
        assert_eq!(ctx.id(), 9);
        bad = ctx;
    }
    assert_untouched(&mut m, &data);
}

#[test]
fn update_or_last_without_first_on_new_context() {
    let data = [2u8; 100];
    let mut held = Sha256Context::new();
    let mut m = busy_manager(&mut held, &data);
    let mut fresh = Sha256Context::new();
    let err = m.submit(&mut fresh, b"abc", Flags::UPDATE).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::AlreadyCompleted);
    let ctx = err.into_context();
    let err = m.submit(ctx, b"abc", Flags::LAST).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::AlreadyCompleted);
    assert_eq!(m.in_flight(), usize::from(m.lanes() > 1));
    assert_untouched(&mut m, &data);
}

#[test]
fn update_or_last_on_completed_context() {
    let mut ctx = Sha256Context::new();
    let mut m = Sha256Manager::new();
    let done = match m.submit(&mut ctx, b"abc", Flags::ENTIRE).unwrap() {
        Some(done) => done,
        None => m.flush().unwrap(),
    };
    let digest = done.digest().unwrap();
    let mut done = done;
    for flags in [Flags::UPDATE, Flags::LAST] {
        let err = m.submit(done, b"more", flags).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::AlreadyCompleted);
        done = err.into_context();
        // The finished digest is still there, unchanged.
        assert_eq!(done.digest(), Some(digest));
        assert_eq!(done.status(), Status::Complete);
    }
    // FIRST restarts the stream and works.
    let again = match m.submit(done, b"abc", Flags::ENTIRE).unwrap() {
        Some(d) => d,
        None => m.flush().unwrap(),
    };
    assert_eq!(again.digest(), Some(digest));
}

/// A context left in flight by a manager that was dropped is still
/// "processing": resubmitting it is refused until it is reset.
#[test]
fn resubmit_while_processing() {
    let data = [3u8; 1000];
    let mut ctx = Sha256Context::with_id(1);
    {
        let mut m = Sha256Manager::with_engine(Sha256Engine::auto());
        if m.lanes() > 1 {
            assert!(m.submit(&mut ctx, &data, Flags::FIRST).unwrap().is_none());
            // Dropped with the job in flight.
        } else {
            return; // a one-lane engine never leaves a job in flight
        }
    }
    assert_eq!(ctx.status(), Status::Processing);
    let mut m = Sha256Manager::new();
    let mut ctx = &mut ctx;
    for flags in [Flags::FIRST, Flags::UPDATE, Flags::LAST, Flags::ENTIRE] {
        let err = m.submit(ctx, &data, flags).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::AlreadyProcessing);
        assert_eq!(
            err.to_string(),
            format!("sha256 context 1: {}", ErrorKind::AlreadyProcessing)
        );
        ctx = err.into_context();
    }
    assert!(m.is_empty());
    ctx.reset();
    assert_eq!(ctx.status(), Status::New);
    let done = match m.submit(ctx, &data, Flags::ENTIRE).unwrap() {
        Some(d) => d,
        None => m.flush().unwrap(),
    };
    assert_eq!(done.digest().unwrap()[..], sha2::Sha256::digest(data)[..]);
}

#[test]
fn unknown_and_unsupported_engines_list_the_valid_ones() {
    let err = Sha256Engine::from_name("sha3-turbo").unwrap_err();
    let text = err.to_string();
    assert!(text.contains("unknown"), "{text}");
    for name in ["auto", "scalar", "shani", "shani-x2", "avx2", "avx512"] {
        assert!(text.contains(name), "{text} lacks {name}");
    }
    for name in Sha256Engine::names() {
        match Sha256Engine::from_name(name) {
            Ok(e) => assert_eq!(e.name(), name),
            Err(e) => {
                assert!(!Sha256Engine::is_supported(name));
                assert!(e.to_string().contains("unsupported"), "{e}");
            }
        }
    }
    let err = mbhash_core::engine::Sha512Engine::from_name("shani").unwrap_err();
    assert!(
        err.to_string()
            .contains("valid engines: auto, scalar, avx2-x1, avx2, avx512"),
        "{err}"
    );
}

/// Buffered chunks (shorter than a block) come back at once as Idle; the
/// stream still hashes right.
#[test]
fn short_chunks_come_back_at_once() {
    let mut ctx = Sha256Context::new();
    let mut m = Sha256Manager::new();
    let ctx = m
        .submit(&mut ctx, b"ab", Flags::FIRST)
        .unwrap()
        .expect("buffered");
    assert_eq!(ctx.status(), Status::Idle);
    assert_eq!(ctx.total_len(), 2);
    let ctx = m
        .submit(ctx, b"", Flags::UPDATE)
        .unwrap()
        .expect("buffered");
    let done = match m.submit(ctx, b"c", Flags::LAST).unwrap() {
        Some(d) => d,
        None => m.flush().unwrap(),
    };
    assert_eq!(done.digest().unwrap()[..], sha2::Sha256::digest(b"abc")[..]);
}

/// The SHA-512 family shares the manager, and with it every misuse error.
#[test]
fn sha512_family_misuse() {
    use mbhash_core::engine::Sha512Engine;
    use mbhash_core::{Sha512Context, Sha512Manager};
    let data = [9u8; 500];
    let mut held = Sha512Context::with_id(1);
    let mut fresh_ctx = Sha512Context::with_id(2);
    let mut m = Sha512Manager::with_engine(
        Sha512Engine::from_name("avx512")
            .unwrap_or_else(|_| Sha512Engine::from_name("scalar").unwrap()),
    );
    let kept = m.submit(&mut held, &data, Flags::ENTIRE).unwrap();
    let mut fresh = &mut fresh_ctx;
    for (flags, kind) in [
        (Flags::from_bits(8), ErrorKind::InvalidFlags),
        (Flags::UPDATE, ErrorKind::AlreadyCompleted),
        (Flags::LAST, ErrorKind::AlreadyCompleted),
    ] {
        let err = m.submit(fresh, b"x", flags).unwrap_err();
        assert_eq!(err.kind(), kind);
        fresh = err.into_context();
        assert_eq!(fresh.status(), Status::New);
    }
    // The job in flight still completes with the right digest.
    let done = kept.or_else(|| m.flush()).expect("the held job");
    assert_eq!(done.digest().unwrap()[..], sha2::Sha512::digest(data)[..]);
    // UPDATE on the completed context is refused; FIRST restarts it.
    let err = m.submit(done, b"more", Flags::UPDATE).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::AlreadyCompleted);
    let done = err.into_context();
    let again = match m.submit(done, b"abc", Flags::ENTIRE).unwrap() {
        Some(d) => d,
        None => m.flush().unwrap(),
    };
    assert_eq!(
        again.digest().unwrap()[..],
        sha2::Sha512::digest(b"abc")[..]
    );
}

#[test]
fn digest_into_writes_only_a_complete_digest() {
    use mbhash_core::{Sha224Context, Sha224Manager, Sha512_224Context, Sha512_224Manager};
    let data = [0x5au8; 100];
    let mut out = [0xeeu8; 32];
    let mut ctx = Sha256Context::new();
    assert!(!ctx.digest_into(&mut out), "a new context has no digest");
    assert_eq!(out, [0xee; 32], "untouched");
    let mut m = Sha256Manager::new();
    let ctx = match m.submit(&mut ctx, &data, Flags::FIRST).unwrap() {
        Some(c) => c,
        None => m.flush().unwrap(),
    };
    assert!(!ctx.digest_into(&mut out), "an open stream has no digest");
    assert_eq!(out, [0xee; 32], "untouched");
    let ctx = match m.submit(ctx, &[], Flags::LAST).unwrap() {
        Some(c) => c,
        None => m.flush().unwrap(),
    };
    assert!(ctx.digest_into(&mut out));
    assert_eq!(out[..], sha2::Sha256::digest(data)[..]);
    assert_eq!(out, ctx.digest().unwrap());

    // Truncated digests: the part word too.
    let mut c224 = Sha224Context::new();
    let mut m224 = Sha224Manager::new();
    let done = match m224.submit(&mut c224, &data, Flags::ENTIRE).unwrap() {
        Some(c) => c,
        None => m224.flush().unwrap(),
    };
    let mut out = [0u8; 28];
    assert!(done.digest_into(&mut out));
    assert_eq!(out[..], sha2::Sha224::digest(data)[..]);
    let mut c = Sha512_224Context::new();
    let mut m = Sha512_224Manager::new();
    let done = match m.submit(&mut c, &data, Flags::ENTIRE).unwrap() {
        Some(c) => c,
        None => m.flush().unwrap(),
    };
    assert!(done.digest_into(&mut out));
    assert_eq!(out[..], sha2::Sha512_224::digest(data)[..]);

    let short = std::panic::catch_unwind(|| Sha256Context::new().digest_into(&mut [0u8; 31]));
    assert!(
        short.is_err(),
        "a buffer of another length is a bug that panics"
    );
}
