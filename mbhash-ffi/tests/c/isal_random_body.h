/* The body of isal_random.c for one family (see isal_family.h). */

/* One message and how far its stream has got. */
struct F(job) {
    uint8_t *msg;
    size_t len;
    size_t *cuts; /* chunk boundaries: cuts[0] = 0 < ... < cuts[nchunks] = len */
    size_t nchunks, next;
    uint8_t *chunk; /* the copy of the chunk in flight, freed when it comes back */
    int in_flight;
    F_CTX *ctx;
};

/* A context came back: check it, free its chunk, and its digest if done. */
static void F(came_back)(F_CTX *ctx) {
    struct F(job) *j = isal_hash_ctx_user_data(ctx);
    CHECK(j->ctx == ctx && j->in_flight);
    CHECK(isal_hash_ctx_error(ctx) == ISAL_HASH_CTX_ERROR_NONE);
    CHECK(!isal_hash_ctx_processing(ctx));
    CHECK(ctx->total_length == j->cuts[j->next]);
    free(j->chunk);
    j->chunk = NULL;
    j->in_flight = 0;
    if (j->next < j->nchunks) {
        CHECK(isal_hash_ctx_status(ctx) == ISAL_HASH_CTX_STS_IDLE);
        return;
    }
    CHECK(isal_hash_ctx_complete(ctx));
    uint8_t got[F_DIGEST_LEN], want[MBH_MAX_DIGEST_LEN];
    F_DIGEST_BYTES(isal_hash_ctx_digest(ctx), got);
    reference(F_ALG, j->msg, j->len, want);
    char what[64];
    snprintf(what, sizeof what, "%s, %zu bytes in %zu chunks", F_NAME, j->len, j->nchunks);
    same_digest(what, got, want, F_DIGEST_LEN);
}

static void F(random)(size_t njobs, uint64_t seed) {
    struct rng r = {seed};
    struct F(job) *jobs = xmalloc(njobs * sizeof *jobs);
    F_CTX *ctxs = aligned_alloc(64, njobs * sizeof(F_CTX));
    F_MGR *mgr = aligned_alloc(64, (sizeof(F_MGR) + 63) / 64 * 64);
    size_t *order = xmalloc(njobs * sizeof *order);
    REQUIRE_ZERO(F_INIT(mgr));

    for (size_t i = 0; i < njobs; i++) {
        struct F(job) *j = &jobs[i];
        j->len = random_len(&r, F_BLOCK);
        j->msg = xmalloc(j->len);
        rng_fill(&r, j->msg, j->len);
        /* Cut points: 1 to 6 chunks of odd sizes (empty ones allowed). */
        j->nchunks = 1 + rng_below(&r, 6);
        j->cuts = xmalloc((j->nchunks + 1) * sizeof *j->cuts);
        j->cuts[0] = 0;
        j->cuts[j->nchunks] = j->len;
        for (size_t c = 1; c < j->nchunks; c++) {
            size_t room = j->len - j->cuts[c - 1];
            size_t step = rng_below(&r, 2 * room / (j->nchunks - c + 1) + 1);
            j->cuts[c] = j->cuts[c - 1] + (step < room ? step : room);
        }
        j->next = 0;
        j->chunk = NULL;
        j->in_flight = 0;
        j->ctx = &ctxs[i];
        isal_hash_ctx_init(j->ctx);
        isal_hash_ctx_user_data(j->ctx) = j;
        order[i] = i;
    }
    /* Streams start in random order. */
    for (size_t i = njobs; i > 1; i--) {
        size_t k = rng_below(&r, i), t = order[i - 1];
        order[i - 1] = order[k];
        order[k] = t;
    }

    size_t started = 0, open = 0;
    size_t max_open = 1 + rng_below(&r, 3 * F_LANES);
    size_t *active = xmalloc(njobs * sizeof *active);
    while (started < njobs || open > 0) {
        /* Open new streams up to the limit. */
        while (open < max_open && started < njobs) {
            active[open++] = order[started++];
        }
        /* Streams that can take their next chunk now. */
        size_t ready = 0, pick = 0;
        for (size_t a = 0; a < open; a++) {
            struct F(job) *j = &jobs[active[a]];
            if (!j->in_flight && j->next < j->nchunks) ready++;
        }
        if (ready == 0 || rng_below(&r, 16) == 0) {
            /* Everything open is in flight (or at random): flush. */
            F_CTX *out = NULL;
            if (rng_below(&r, 2)) {
                EXPECT_INT(F_FLUSH(mgr, &out), 0);
            } else {
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
                out = F_OLD_FLUSH(mgr);
#pragma GCC diagnostic pop
            }
            if (out) F(came_back)(out);
            else CHECK(ready > 0); /* NULL only when nothing is in flight */
        } else {
            size_t nth = rng_below(&r, ready);
            for (size_t a = 0; a < open; a++) {
                struct F(job) *j = &jobs[active[a]];
                if (!j->in_flight && j->next < j->nchunks && nth-- == 0) {
                    pick = active[a];
                    break;
                }
            }
            struct F(job) *j = &jobs[pick];
            size_t from = j->cuts[j->next], to = j->cuts[j->next + 1];
            int first = j->next == 0, last = j->next + 1 == j->nchunks;
            HASH_CTX_FLAG flags = first && last ? ISAL_HASH_ENTIRE
                                  : first       ? ISAL_HASH_FIRST
                                  : last        ? ISAL_HASH_LAST
                                                : ISAL_HASH_UPDATE;
            /* An empty FIRST or LAST chunk may come without a buffer. */
            int no_buffer = to == from && (flags == ISAL_HASH_FIRST || flags == ISAL_HASH_LAST) &&
                            rng_below(&r, 2);
            j->chunk = no_buffer ? NULL : xmalloc(to - from);
            if (to > from) memcpy(j->chunk, j->msg + from, to - from);
            uint64_t before = first ? 0 : j->ctx->total_length;
            j->in_flight = 1;
            j->next++;
            F_CTX *out = NULL;
            if (rng_below(&r, 2)) {
                EXPECT_INT(F_SUBMIT(mgr, j->ctx, &out, j->chunk, (uint32_t)(to - from), flags), 0);
            } else {
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
                out = F_OLD_SUBMIT(mgr, j->ctx, j->chunk, (uint32_t)(to - from), flags);
#pragma GCC diagnostic pop
            }
            /* total_length advances at submit, before the chunk is hashed. */
            CHECK(j->ctx->total_length == before + (to - from));
            if (out) F(came_back)(out);
        }
        /* Forget finished streams. */
        for (size_t a = 0; a < open;) {
            struct F(job) *j = &jobs[active[a]];
            if (j->next == j->nchunks && !j->in_flight) {
                active[a] = active[--open];
            } else {
                a++;
            }
        }
    }
    F_CTX *out = (F_CTX *)1;
    EXPECT_INT(F_FLUSH(mgr, &out), 0);
    CHECK(out == NULL);

    for (size_t i = 0; i < njobs; i++) {
        CHECK(jobs[i].next == jobs[i].nchunks && !jobs[i].in_flight);
        free(jobs[i].msg);
        free(jobs[i].cuts);
    }
    free(active);
    free(order);
    free(mgr);
    free(ctxs);
    free(jobs);
}
