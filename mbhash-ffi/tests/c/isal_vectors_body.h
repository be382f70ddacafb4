/* The body of isal_vectors.c for one family (see isal_family.h). */

#if ISAL_FAMILY == 256 || ISAL_FAMILY == 512
/* Checks a context that came back complete against its vector (user_data). */
static void F(check_vector)(F_CTX *ctx, const char *how) {
    const struct vector *v = isal_hash_ctx_user_data(ctx);
    uint8_t got[F_DIGEST_LEN];
    char what[96];
    snprintf(what, sizeof what, "%s %s, %zu bytes", F_NAME, how, v->len);
    CHECK(isal_hash_ctx_complete(ctx));
    CHECK(isal_hash_ctx_error(ctx) == ISAL_HASH_CTX_ERROR_NONE);
    CHECK(ctx->total_length == v->len);
    F_DIGEST_BYTES(isal_hash_ctx_digest(ctx), got);
    same_digest(what, got, v->md, F_DIGEST_LEN);
}
#endif

/* The known answers of this family (FIPS 180-2, RFC 1321, GB/T 32905). */
static void F(known)(void) {
    F_MGR *mgr = aligned_alloc(16, (sizeof(F_MGR) + 15) / 16 * 16);
    REQUIRE_ZERO(F_INIT(mgr));
    for (size_t k = 0; k < sizeof KNOWN / sizeof KNOWN[0]; k++) {
        const char *hex = KNOWN[k].F_KNOWN;
        if (!hex) continue;
        F_CTX ctx, *out = NULL;
        uint8_t want[F_DIGEST_LEN], got[F_DIGEST_LEN];
        CHECK(hex_decode(hex, want, F_DIGEST_LEN) == 0);
        isal_hash_ctx_init(&ctx);
        if (KNOWN[k].msg) {
            EXPECT_INT(F_SUBMIT(mgr, &ctx, &out, KNOWN[k].msg, (uint32_t)strlen(KNOWN[k].msg),
                                ISAL_HASH_ENTIRE),
                       0);
        } else {
            uint8_t chunk[1000];
            memset(chunk, 'a', sizeof chunk);
            EXPECT_INT(F_SUBMIT(mgr, &ctx, &out, NULL, 0, ISAL_HASH_FIRST), 0);
            CHECK(out == &ctx && hash_ctx_status(&ctx) == HASH_CTX_STS_IDLE);
            for (size_t i = 0; i < KNOWN[k].repeat; i++) {
                EXPECT_INT(F_SUBMIT(mgr, &ctx, &out, chunk, sizeof chunk, ISAL_HASH_UPDATE), 0);
                while (out == NULL) EXPECT_INT(F_FLUSH(mgr, &out), 0);
                CHECK(out == &ctx && isal_hash_ctx_status(&ctx) == ISAL_HASH_CTX_STS_IDLE);
            }
            EXPECT_INT(F_SUBMIT(mgr, &ctx, &out, NULL, 0, ISAL_HASH_LAST), 0);
        }
        while (out == NULL) EXPECT_INT(F_FLUSH(mgr, &out), 0);
        CHECK(out == &ctx && isal_hash_ctx_complete(&ctx));
        F_DIGEST_BYTES(isal_hash_ctx_digest(&ctx), got);
        same_digest(F_NAME " known answer", got, want, F_DIGEST_LEN);
        EXPECT_INT(F_FLUSH(mgr, &out), 0);
        CHECK(out == NULL);
    }
    free(mgr);
}

/* The CAVS vectors (of the SHA-2 families: the tree has no others). */
#if ISAL_FAMILY == 256 || ISAL_FAMILY == 512
/* The CAVS vectors: all in flight at once, whole (isal_* API) and in three
 * parts (the deprecated API). */
static void F(nist)(const char *dir, int quick) {
    struct vector_set set = {NULL, 0, 0};
    load(dir, ISAL_FAMILY == 256 ? "SHA256ShortMsg.rsp" : "SHA512ShortMsg.rsp", F_DIGEST_LEN,
         quick ? 8 : 1, &set);
    if (!quick)
        load(dir, ISAL_FAMILY == 256 ? "SHA256LongMsg.rsp" : "SHA512LongMsg.rsp", F_DIGEST_LEN, 1,
             &set);
    F_CTX *ctxs = aligned_alloc(64, set.n * sizeof(F_CTX));
    F_MGR mgr;
    size_t done = 0;

    /* Whole messages. */
    REQUIRE_ZERO(F_INIT(&mgr));
    for (size_t i = 0; i < set.n; i++) {
        F_CTX *out = NULL;
        isal_hash_ctx_init(&ctxs[i]);
        isal_hash_ctx_user_data(&ctxs[i]) = &set.v[i];
        /* A zero-length message may have no buffer with FIRST or LAST only. */
        const void *buf = set.v[i].len ? (const void *)set.v[i].msg : (const void *)"";
        EXPECT_INT(F_SUBMIT(&mgr, &ctxs[i], &out, buf, (uint32_t)set.v[i].len, ISAL_HASH_ENTIRE),
                   0);
        if (out) {
            F(check_vector)(out, "entire");
            done++;
        }
    }
    for (F_CTX *out = NULL; F_FLUSH(&mgr, &out) == 0 && out;) {
        F(check_vector)(out, "entire");
        done++;
    }
    CHECK(done == set.n);

    /* Three parts each, through the deprecated API, all streams interleaved. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
    F_OLD_INIT(&mgr);
    done = 0;
    for (int part = 0; part < 3; part++) {
        HASH_CTX_FLAG flags = part == 0 ? HASH_FIRST : part == 1 ? HASH_UPDATE : HASH_LAST;
        size_t returned = 0;
        for (size_t i = 0; i < set.n; i++) {
            size_t a = set.v[i].len / 3, b = 2 * set.v[i].len / 3;
            size_t from = part == 0 ? 0 : part == 1 ? a : b;
            size_t to = part == 0 ? a : part == 1 ? b : set.v[i].len;
            if (part == 0) hash_ctx_init(&ctxs[i]);
            F_CTX *out = F_OLD_SUBMIT(&mgr, &ctxs[i], set.v[i].msg + from, (uint32_t)(to - from),
                                      flags);
            if (out) {
                CHECK(hash_ctx_error(out) == HASH_CTX_ERROR_NONE);
                returned++;
                if (part == 2) {
                    F(check_vector)(out, "in three parts");
                    done++;
                }
            }
        }
        for (F_CTX *out; (out = F_OLD_FLUSH(&mgr)) != NULL;) {
            returned++;
            if (part == 2) {
                F(check_vector)(out, "in three parts");
                done++;
            }
        }
        CHECK(returned == set.n);
    }
#pragma GCC diagnostic pop
    CHECK(done == set.n);
    free(ctxs);
    free_set(&set);
}
#endif
