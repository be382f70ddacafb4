/* The body of isal_errors.c for one family (see isal_family.h). */

/* The digest of a finished context against the reference. */
static void F(check_digest)(const char *what, F_CTX *ctx, const uint8_t *msg, size_t len) {
    uint8_t got[F_DIGEST_LEN], want[MBH_MAX_DIGEST_LEN];
    CHECK(isal_hash_ctx_complete(ctx));
    F_DIGEST_BYTES(isal_hash_ctx_digest(ctx), got);
    reference(F_ALG, msg, len, want);
    same_digest(what, got, want, F_DIGEST_LEN);
}

/* Flushes until `ctx` comes back (it must, before the manager is empty). */
static void F(flush_until)(F_MGR *mgr, F_CTX *ctx) {
    F_CTX *out = NULL;
    do {
        EXPECT_INT(F_FLUSH(mgr, &out), 0);
    } while (out != NULL && out != ctx);
    CHECK(out == ctx);
}

static void F(errors)(void) {
    static uint8_t msg[5 * F_BLOCK + 7];
    for (size_t i = 0; i < sizeof msg; i++) msg[i] = (uint8_t)(i * 7 + 1);
    F_MGR mgr;
    F_CTX ctx, other, *out;
    F_CTX *const UNTOUCHED = (F_CTX *)&mgr; /* a marker *ctx_out must keep */

    /* init */
    EXPECT_INT(F_INIT(NULL), ISAL_CRYPTO_ERR_NULL_MGR);
    F_OLD_INIT(NULL); /* nothing to report; must not crash */
    EXPECT_INT(F_INIT(&mgr), ISAL_CRYPTO_ERR_NONE);

    /* flush of an empty manager */
    out = UNTOUCHED;
    EXPECT_INT(F_FLUSH(&mgr, &out), 0);
    CHECK(out == NULL);
    CHECK(F_OLD_FLUSH(&mgr) == NULL);
    EXPECT_INT(F_FLUSH(NULL, &out), ISAL_CRYPTO_ERR_NULL_MGR);
    EXPECT_INT(F_FLUSH(NULL, NULL), ISAL_CRYPTO_ERR_NULL_MGR);
    EXPECT_INT(F_FLUSH(&mgr, NULL), ISAL_CRYPTO_ERR_NULL_CTX);
    CHECK(F_OLD_FLUSH(NULL) == NULL);

    /* NULL arguments of submit, in isa-l_crypto's order: manager, contexts,
     * source (NULL only with FIRST or LAST). */
    isal_hash_ctx_init(&ctx);
    out = UNTOUCHED;
    EXPECT_INT(F_SUBMIT(NULL, NULL, NULL, NULL, 1, ISAL_HASH_UPDATE), ISAL_CRYPTO_ERR_NULL_MGR);
    EXPECT_INT(F_SUBMIT(NULL, &ctx, &out, msg, 1, ISAL_HASH_ENTIRE), ISAL_CRYPTO_ERR_NULL_MGR);
    EXPECT_INT(F_SUBMIT(&mgr, NULL, &out, NULL, 1, ISAL_HASH_UPDATE), ISAL_CRYPTO_ERR_NULL_CTX);
    EXPECT_INT(F_SUBMIT(&mgr, &ctx, NULL, NULL, 1, ISAL_HASH_UPDATE), ISAL_CRYPTO_ERR_NULL_CTX);
#if ISAL_FAMILY == 3
    /* isa-l_crypto's SM3 refuses a NULL source by its length only: with
     * length 0 the submit goes on (UPDATE on a new context: already
     * completed; ENTIRE: the empty message). */
    {
        F_CTX c2, *o2 = NULL;
        isal_hash_ctx_init(&c2);
        EXPECT_INT(F_SUBMIT(&mgr, &c2, &o2, NULL, 0, ISAL_HASH_UPDATE),
                   ISAL_CRYPTO_ERR_ALREADY_COMPLETED);
        CHECK(o2 == &c2);
        o2 = NULL;
        EXPECT_INT(F_SUBMIT(&mgr, &c2, &o2, NULL, 0, ISAL_HASH_ENTIRE), 0);
        while (o2 == NULL) EXPECT_INT(F_FLUSH(&mgr, &o2), 0);
        CHECK(o2 == &c2 && isal_hash_ctx_complete(&c2));
        F(check_digest)("sm3: NULL, 0, ENTIRE", &c2, msg, 0);
    }
#else
    EXPECT_INT(F_SUBMIT(&mgr, &ctx, &out, NULL, 0, ISAL_HASH_UPDATE), ISAL_CRYPTO_ERR_NULL_SRC);
    EXPECT_INT(F_SUBMIT(&mgr, &ctx, &out, NULL, 0, ISAL_HASH_ENTIRE), ISAL_CRYPTO_ERR_NULL_SRC);
#endif
    /* mbhash: a NULL buffer with a length is refused with FIRST and LAST too
     * (isa-l_crypto would read through it), the context untouched. */
    EXPECT_INT(F_SUBMIT(&mgr, &ctx, &out, NULL, 3, ISAL_HASH_FIRST), ISAL_CRYPTO_ERR_NULL_SRC);
    CHECK(out == UNTOUCHED);
    CHECK(isal_hash_ctx_complete(&ctx) && isal_hash_ctx_error(&ctx) == ISAL_HASH_CTX_ERROR_NONE);
    CHECK(F_OLD_SUBMIT(NULL, &ctx, msg, 1, HASH_ENTIRE) == NULL);
    CHECK(F_OLD_SUBMIT(&mgr, NULL, msg, 1, HASH_ENTIRE) == NULL);
    CHECK(isal_hash_ctx_complete(&ctx) && isal_hash_ctx_error(&ctx) == ISAL_HASH_CTX_ERROR_NONE);
    /* The deprecated submit hands such a context back with INVALID_FLAGS. */
    CHECK(F_OLD_SUBMIT(&mgr, &ctx, NULL, 3, HASH_FIRST) == &ctx);
    CHECK(hash_ctx_error(&ctx) == HASH_CTX_ERROR_INVALID_FLAGS && hash_ctx_complete(&ctx));

    /* Invalid flags: checked before the NULL source for flags that are not
     * UPDATE or ENTIRE; the context comes back in *ctx_out, status unchanged. */
    static const unsigned BAD_FLAGS[] = {4, 5, 7, 8, 0x100, 0x80000000u};
    for (size_t i = 0; i < sizeof BAD_FLAGS / sizeof BAD_FLAGS[0]; i++) {
        isal_hash_ctx_init(&ctx);
        out = UNTOUCHED;
        EXPECT_INT(F_SUBMIT(&mgr, &ctx, &out, msg, 10, (ISAL_HASH_CTX_FLAG)BAD_FLAGS[i]),
                   ISAL_CRYPTO_ERR_INVALID_FLAGS);
        CHECK(out == &ctx && ctx.error == ISAL_HASH_CTX_ERROR_INVALID_FLAGS);
        CHECK(ctx.status == ISAL_HASH_CTX_STS_COMPLETE);
        /* isa-l_crypto checks a NULL source first: by flags (not UPDATE or
         * ENTIRE here), or for SM3 by length. */
        EXPECT_INT(F_SUBMIT(&mgr, &ctx, &out, NULL, 10, (ISAL_HASH_CTX_FLAG)BAD_FLAGS[i]),
                   ISAL_FAMILY == 3 ? ISAL_CRYPTO_ERR_NULL_SRC : ISAL_CRYPTO_ERR_INVALID_FLAGS);
        isal_hash_ctx_init(&ctx);
        CHECK(F_OLD_SUBMIT(&mgr, &ctx, msg, 10, (HASH_CTX_FLAG)BAD_FLAGS[i]) == &ctx);
        CHECK(hash_ctx_error(&ctx) == HASH_CTX_ERROR_INVALID_FLAGS);
    }

    /* UPDATE or LAST on a context with no open stream (new, or finished). */
    isal_hash_ctx_init(&ctx);
    EXPECT_INT(F_SUBMIT(&mgr, &ctx, &out, msg, 10, ISAL_HASH_UPDATE),
               ISAL_CRYPTO_ERR_ALREADY_COMPLETED);
    CHECK(out == &ctx && ctx.error == ISAL_HASH_CTX_ERROR_ALREADY_COMPLETED);
    EXPECT_INT(F_SUBMIT(&mgr, &ctx, &out, msg, 10, ISAL_HASH_LAST),
               ISAL_CRYPTO_ERR_ALREADY_COMPLETED);
    CHECK(F_OLD_SUBMIT(&mgr, &ctx, msg, 10, HASH_UPDATE) == &ctx);
    CHECK(hash_ctx_error(&ctx) == HASH_CTX_ERROR_ALREADY_COMPLETED);
    /* A successful submit clears the error. */
    EXPECT_INT(F_SUBMIT(&mgr, &ctx, &out, msg, 10, ISAL_HASH_ENTIRE), 0);
    CHECK(ctx.error == ISAL_HASH_CTX_ERROR_NONE && ctx.total_length == 10);
    if (out == NULL) F(flush_until)(&mgr, &ctx);
    F(check_digest)("10 bytes entire", &ctx, msg, 10);
    EXPECT_INT(F_SUBMIT(&mgr, &ctx, &out, msg, 10, ISAL_HASH_UPDATE),
               ISAL_CRYPTO_ERR_ALREADY_COMPLETED);
    CHECK(isal_hash_ctx_complete(&ctx));
    /* mbhash: a context whose partial block claims a whole block cannot be
     * an open stream: refused the same way. */
    isal_hash_ctx_init(&ctx);
    EXPECT_INT(F_SUBMIT(&mgr, &ctx, &out, msg, 10, ISAL_HASH_FIRST), 0);
    CHECK(out == &ctx && ctx.status == ISAL_HASH_CTX_STS_IDLE);
    ctx.partial_block_buffer_length = F_BLOCK;
    EXPECT_INT(F_SUBMIT(&mgr, &ctx, &out, msg, 10, ISAL_HASH_UPDATE),
               ISAL_CRYPTO_ERR_ALREADY_COMPLETED);

    /* A context whose status says it is processing. */
    isal_hash_ctx_init(&ctx);
    ctx.status = ISAL_HASH_CTX_STS_PROCESSING;
    EXPECT_INT(F_SUBMIT(&mgr, &ctx, &out, msg, 10, ISAL_HASH_FIRST),
               ISAL_CRYPTO_ERR_ALREADY_PROCESSING);
    CHECK(out == &ctx && ctx.error == ISAL_HASH_CTX_ERROR_ALREADY_PROCESSING);
    CHECK(F_OLD_SUBMIT(&mgr, &ctx, msg, 10, HASH_ENTIRE) == &ctx);
    CHECK(hash_ctx_error(&ctx) == HASH_CTX_ERROR_ALREADY_PROCESSING);

    /* Short chunks are buffered: the context comes back at once, IDLE, and
     * total_length advances at submit. */
    isal_hash_ctx_init(&ctx);
    out = NULL;
    EXPECT_INT(F_SUBMIT(&mgr, &ctx, &out, msg, 10, ISAL_HASH_FIRST), 0);
    CHECK(out == &ctx && ctx.status == ISAL_HASH_CTX_STS_IDLE);
    CHECK(ctx.total_length == 10 && ctx.partial_block_buffer_length == 10);
    CHECK(memcmp(ctx.partial_block_buffer, msg, 10) == 0);
    out = NULL;
    EXPECT_INT(F_SUBMIT(&mgr, &ctx, &out, msg + 10, F_BLOCK - 11, ISAL_HASH_UPDATE), 0);
    CHECK(out == &ctx && ctx.status == ISAL_HASH_CTX_STS_IDLE);
    CHECK(ctx.total_length == F_BLOCK - 1 && ctx.partial_block_buffer_length == F_BLOCK - 1);
    out = NULL;
#if ISAL_FAMILY == 3
    EXPECT_INT(F_SUBMIT(&mgr, &ctx, &out, NULL, 0, ISAL_HASH_UPDATE), 0); /* as isa-l_crypto */
    CHECK(out == &ctx && ctx.status == ISAL_HASH_CTX_STS_IDLE && ctx.total_length == F_BLOCK - 1);
    out = NULL;
#else
    EXPECT_INT(F_SUBMIT(&mgr, &ctx, &out, NULL, 0, ISAL_HASH_UPDATE), ISAL_CRYPTO_ERR_NULL_SRC);
#endif
    EXPECT_INT(F_SUBMIT(&mgr, &ctx, &out, msg + F_BLOCK - 1, 0, ISAL_HASH_UPDATE), 0);
    CHECK(out == &ctx && ctx.status == ISAL_HASH_CTX_STS_IDLE && ctx.total_length == F_BLOCK - 1);
    /* This one completes the block: a job, so it may stay in flight. */
    out = NULL;
    EXPECT_INT(F_SUBMIT(&mgr, &ctx, &out, msg + F_BLOCK - 1, 3 * F_BLOCK + 2, ISAL_HASH_UPDATE), 0);
    CHECK(ctx.total_length == 4 * F_BLOCK + 1);
    if (out == NULL) {
        CHECK(isal_hash_ctx_processing(&ctx) && ctx.status == ISAL_HASH_CTX_STS_PROCESSING);
        F(flush_until)(&mgr, &ctx);
    }
    CHECK(out == NULL || out == &ctx);
    CHECK(ctx.status == ISAL_HASH_CTX_STS_IDLE && ctx.partial_block_buffer_length == 1);
    CHECK(ctx.job.status == ISAL_STS_COMPLETED);
    out = NULL;
    EXPECT_INT(F_SUBMIT(&mgr, &ctx, &out, msg + 4 * F_BLOCK + 1, F_BLOCK + 6, ISAL_HASH_LAST), 0);
    CHECK(ctx.total_length == sizeof msg);
    if (out == NULL) {
        CHECK(ctx.status == (ISAL_HASH_CTX_STS_PROCESSING | ISAL_HASH_CTX_STS_LAST) ||
              ctx.status == (ISAL_HASH_CTX_STS_PROCESSING | ISAL_HASH_CTX_STS_COMPLETE));
        F(flush_until)(&mgr, &ctx);
    }
    F(check_digest)("buffered chunks", &ctx, msg, sizeof msg);
    /* The last job was the padding in the partial block buffer. */
    CHECK(ctx.job.buffer == ctx.partial_block_buffer);
    CHECK(ctx.job.len == 1 || ctx.job.len == 2);
    CHECK(ctx.job.status == ISAL_STS_COMPLETED);
    CHECK(ctx.error == ISAL_HASH_CTX_ERROR_NONE);
    out = UNTOUCHED;
    EXPECT_INT(F_FLUSH(&mgr, &out), 0);
    CHECK(out == NULL);

    /* An empty message: FIRST and LAST without a buffer. */
    isal_hash_ctx_init(&ctx);
    EXPECT_INT(F_SUBMIT(&mgr, &ctx, &out, NULL, 0, ISAL_HASH_FIRST), 0);
    CHECK(out == &ctx && ctx.status == ISAL_HASH_CTX_STS_IDLE && ctx.total_length == 0);
    EXPECT_INT(F_SUBMIT(&mgr, &ctx, &out, NULL, 0, ISAL_HASH_LAST), 0);
    if (out == NULL) F(flush_until)(&mgr, &ctx);
    F(check_digest)("empty message", &ctx, msg, 0);
    /* Reused at once with FIRST. */
    EXPECT_INT(F_SUBMIT(&mgr, &ctx, &out, msg, 3, ISAL_HASH_FIRST), 0);
    CHECK(out == &ctx && ctx.status == ISAL_HASH_CTX_STS_IDLE && ctx.total_length == 3);
    EXPECT_INT(F_SUBMIT(&mgr, &ctx, &out, msg + 3, 4, ISAL_HASH_LAST), 0);
    if (out == NULL) F(flush_until)(&mgr, &ctx);
    F(check_digest)("reused context", &ctx, msg, 7);

    /* A context in flight submitted again: refused, and it still finishes
     * right. (Needs an engine with more than one lane to stay in flight.) */
    isal_hash_ctx_init(&ctx);
    isal_hash_ctx_init(&other);
    out = NULL;
    EXPECT_INT(F_SUBMIT(&mgr, &ctx, &out, msg, 2 * F_BLOCK, ISAL_HASH_ENTIRE), 0);
    CHECK(ctx.total_length == 2 * F_BLOCK);
    if (out == NULL) {
        CHECK(ctx.status == (ISAL_HASH_CTX_STS_PROCESSING | ISAL_HASH_CTX_STS_LAST));
        CHECK(ctx.job.status == ISAL_STS_BEING_PROCESSED);
        EXPECT_INT(F_SUBMIT(&mgr, &ctx, &out, msg, 5, ISAL_HASH_FIRST),
                   ISAL_CRYPTO_ERR_ALREADY_PROCESSING);
        CHECK(out == &ctx && ctx.error == ISAL_HASH_CTX_ERROR_ALREADY_PROCESSING);
        CHECK(F_OLD_SUBMIT(&mgr, &ctx, msg, 5, HASH_UPDATE) == &ctx);
        /* Even with its status overwritten, a context in a lane is refused. */
        ISAL_HASH_CTX_STS saved = ctx.status;
        isal_hash_ctx_init(&ctx);
        EXPECT_INT(F_SUBMIT(&mgr, &ctx, &out, msg, 5, ISAL_HASH_FIRST),
                   ISAL_CRYPTO_ERR_ALREADY_PROCESSING);
        ctx.status = saved;
        /* Another stream goes on meanwhile. */
        out = NULL;
        EXPECT_INT(F_SUBMIT(&mgr, &other, &out, msg + 1, 3 * F_BLOCK, ISAL_HASH_ENTIRE), 0);
        CHECK(out == NULL || out == &ctx || out == &other);
        int seen_ctx = out == &ctx, seen_other = out == &other;
        while (F_FLUSH(&mgr, &out) == 0 && out) {
            CHECK(out == &ctx || out == &other);
            seen_ctx += out == &ctx;
            seen_other += out == &other;
        }
        CHECK(seen_ctx == 1 && seen_other == 1);
        F(check_digest)("other stream", &other, msg + 1, 3 * F_BLOCK);
        CHECK(ctx.error == ISAL_HASH_CTX_ERROR_ALREADY_PROCESSING); /* as isa-l_crypto leaves it */
    } else {
        CHECK(out == &ctx);
    }
    F(check_digest)("stream submitted twice", &ctx, msg, 2 * F_BLOCK);

    /* A manager never initialised (zeroed), or misaligned: as if NULL. */
    {
        static alignas(64) unsigned char raw[sizeof(F_MGR) + 64];
        memset(raw, 0, sizeof raw);
        F_MGR *zeroed = (F_MGR *)(void *)raw;
        isal_hash_ctx_init(&ctx);
        EXPECT_INT(F_SUBMIT(zeroed, &ctx, &out, msg, 10, ISAL_HASH_ENTIRE),
                   ISAL_CRYPTO_ERR_NULL_MGR);
        EXPECT_INT(F_FLUSH(zeroed, &out), ISAL_CRYPTO_ERR_NULL_MGR);
        CHECK(F_OLD_SUBMIT(zeroed, &ctx, msg, 10, HASH_ENTIRE) == NULL);
        CHECK(F_OLD_FLUSH(zeroed) == NULL);
        CHECK(isal_hash_ctx_complete(&ctx) && ctx.error == ISAL_HASH_CTX_ERROR_NONE);
        F_MGR *odd = (F_MGR *)(void *)(raw + 4);
        EXPECT_INT(F_INIT(odd), ISAL_CRYPTO_ERR_NULL_MGR);
        EXPECT_INT(F_SUBMIT(odd, &ctx, &out, msg, 10, ISAL_HASH_ENTIRE), ISAL_CRYPTO_ERR_NULL_MGR);
        EXPECT_INT(F_FLUSH(odd, &out), ISAL_CRYPTO_ERR_NULL_MGR);
        /* Initialised at an 8-byte (not 16-byte) boundary: works. */
        F_MGR *eight = (F_MGR *)(void *)(raw + 8);
        EXPECT_INT(F_INIT(eight), 0);
        EXPECT_INT(F_SUBMIT(eight, &ctx, &out, msg, 10, ISAL_HASH_ENTIRE), 0);
        if (out == NULL) F(flush_until)(eight, &ctx);
        F(check_digest)("manager aligned to 8", &ctx, msg, 10);
    }

    /* Contexts aligned to 8 only (as from malloc) work; misaligned ones are
     * refused as NULL. Fields are read through an aligned copy. */
    {
        static alignas(64) unsigned char raw[sizeof(F_CTX) + 64];
        F_CTX copy;
        isal_hash_ctx_init(&copy);
        memcpy(raw + 8, &copy, sizeof copy);
        F_CTX *eight = (F_CTX *)(void *)(raw + 8);
        out = NULL;
        EXPECT_INT(F_SUBMIT(&mgr, eight, &out, msg, 100, ISAL_HASH_ENTIRE), 0);
        if (out == NULL) F(flush_until)(&mgr, eight);
        memcpy(&copy, raw + 8, sizeof copy);
        F(check_digest)("context aligned to 8", &copy, msg, 100);
        F_CTX *odd = (F_CTX *)(void *)(raw + 4);
        EXPECT_INT(F_SUBMIT(&mgr, odd, &out, msg, 100, ISAL_HASH_ENTIRE), ISAL_CRYPTO_ERR_NULL_CTX);
        CHECK(F_OLD_SUBMIT(&mgr, odd, msg, 100, HASH_ENTIRE) == NULL);
        /* A misaligned ctx_out too. */
        static alignas(8) unsigned char slot[2 * sizeof(void *)];
        isal_hash_ctx_init(&ctx);
        EXPECT_INT(F_SUBMIT(&mgr, &ctx, (F_CTX **)(void *)(slot + 1), msg, 10, ISAL_HASH_ENTIRE),
                   ISAL_CRYPTO_ERR_NULL_CTX);
        EXPECT_INT(F_FLUSH(&mgr, (F_CTX **)(void *)(slot + 1)), ISAL_CRYPTO_ERR_NULL_CTX);
        CHECK(isal_hash_ctx_complete(&ctx) && ctx.error == ISAL_HASH_CTX_ERROR_NONE);
    }

    /* After all of this, the first manager still works and is empty. */
    out = UNTOUCHED;
    EXPECT_INT(F_FLUSH(&mgr, &out), 0);
    CHECK(out == NULL);
    isal_hash_ctx_init(&ctx);
    EXPECT_INT(F_SUBMIT(&mgr, &ctx, &out, msg, sizeof msg, ISAL_HASH_ENTIRE), 0);
    if (out == NULL) F(flush_until)(&mgr, &ctx);
    F(check_digest)("after the errors", &ctx, msg, sizeof msg);
}

/* MBHASH_SHA*_ENGINE names an engine that cannot run: init says so, and the
 * manager stays uninitialised. */
static void F(bad_env)(void) {
    F_MGR mgr;
    F_CTX ctx, *out = NULL;
    memset(&mgr, 0xff, sizeof mgr);
    EXPECT_INT(F_INIT(&mgr), MBH_ISAL_ERR_ENGINE);
    isal_hash_ctx_init(&ctx);
    EXPECT_INT(F_SUBMIT(&mgr, &ctx, &out, "abc", 3, ISAL_HASH_ENTIRE), ISAL_CRYPTO_ERR_NULL_MGR);
    EXPECT_INT(F_FLUSH(&mgr, &out), ISAL_CRYPTO_ERR_NULL_MGR);
}
