/*
 * Random multi-part streams through the job manager against single-shot
 * digests from mbh_hash_many on the "scalar" engine (itself checked against
 * the NIST vectors by nist.c), for every algorithm and every engine this CPU
 * runs, plus managers of every algorithm interleaved, managers in caller
 * memory, contexts embedded in caller structs and forked with memcpy.
 *
 * Every chunk is copied into its own heap buffer that is freed as soon as
 * its context comes back, so ASan / valgrind catch any read past a chunk or
 * after the context was handed back.
 *
 * usage: streams [quick] [seed]
 */
#include "common.h"

#include <stdalign.h>

struct stream {
    mbh_ctx ctx; /* embedded in the caller's struct, as a storage stack would */
    const struct alg_info *alg;
    uint8_t *msg;
    size_t len, pos;
    int started; /* FIRST (or ENTIRE) submitted */
    int submitted_last;
    int in_flight;
    uint8_t *chunk; /* the copy of the chunk in flight */
    uint8_t want[MBH_MAX_DIGEST_LEN];
};

static int quick;

/* Takes back a context from submit or flush and checks it. */
static void came_back(mbh_ctx *done, size_t *finished) {
    void *user = NULL;
    OK(mbh_ctx_get_user_data(done, &user));
    struct stream *s = user;
    CHECK(done == &s->ctx);
    CHECK(s->in_flight);
    s->in_flight = 0;
    free(s->chunk); /* the manager must not read it any more */
    s->chunk = NULL;
    mbh_status status;
    OK(mbh_ctx_status(done, &status));
    if (!s->submitted_last) {
        CHECK(status == MBH_STATUS_IDLE);
        return;
    }
    CHECK(status == MBH_STATUS_COMPLETE);
    uint8_t digest[MBH_MAX_DIGEST_LEN];
    size_t written = 0;
    OK(mbh_ctx_digest(done, digest, sizeof digest, &written));
    CHECK(written == s->alg->digest_len);
    char what[64];
    snprintf(what, sizeof what, "%s stream of %zu bytes", s->alg->name, s->len);
    same_digest(what, digest, s->want, s->alg->digest_len);
    (*finished)++;
}

/* Random message lengths, biased to block boundaries. */
static size_t random_len(struct rng *r, size_t max) {
    switch (rng_below(r, 4)) {
    case 0: return rng_below(r, 300);
    case 1: {
        size_t blocks = 1 + rng_below(r, 40);
        size_t block = rng_below(r, 2) ? 64 : 128;
        return blocks * block - 1 + rng_below(r, 3);
    }
    default: return rng_below(r, max + 1);
    }
}

/* Fills in the expected digests with mbh_hash_many on "scalar". */
static void reference(struct stream *s, size_t n) {
    for (size_t i = 0; i < n; i++) {
        const uint8_t *msg = s[i].msg;
        size_t len = s[i].len;
        OK(mbh_hash_many_with_engine(s[i].alg->alg, "scalar", &msg, &len, 1, s[i].want,
                                     sizeof s[i].want));
    }
}

/*
 * Drives the streams `s[0..n)` through `mgrs[k]` (the manager of ALGS[k]):
 * picks a random stream that is not in flight, submits a random next chunk
 * (FIRST, UPDATE..., LAST, or ENTIRE; empty chunks included), and flushes
 * when every unfinished stream is in flight.
 */
static void drive(struct rng *r, mbh_manager *mgrs[ALG_COUNT], struct stream *s, size_t n) {
    size_t finished = 0;
    size_t *ready = xmalloc(n * sizeof *ready);
    while (finished < n) {
        size_t nready = 0;
        for (size_t i = 0; i < n; i++) {
            if (!s[i].in_flight && !(s[i].submitted_last)) ready[nready++] = i;
        }
        if (nready == 0) {
            int any = 0;
            for (size_t k = 0; k < ALG_COUNT; k++) {
                if (!mgrs[k]) continue;
                mbh_ctx *done = NULL;
                OK(mbh_flush(mgrs[k], &done));
                if (done) {
                    came_back(done, &finished);
                    any = 1;
                }
            }
            CHECK(any);
            if (!any) break;
            continue;
        }
        struct stream *st = &s[ready[rng_below(r, nready)]];
        size_t left = st->len - st->pos;
        size_t take;
        switch (rng_below(r, 5)) {
        case 0: take = 0; break;
        case 1: take = left; break;
        case 2: take = rng_below(r, left < 200 ? left + 1 : 200); break;
        default: take = rng_below(r, left + 1); break;
        }
        mbh_flags flags;
        if (!st->started) {
            flags = take == left && rng_below(r, 2) ? MBH_ENTIRE : MBH_FIRST;
            st->started = 1;
        } else {
            flags = take == left && rng_below(r, 3) ? MBH_LAST : MBH_UPDATE;
        }
        st->chunk = xmalloc(take);
        memcpy(st->chunk, st->msg + st->pos, take);
        st->pos += take;
        st->submitted_last = (flags & MBH_LAST) != 0;
        st->in_flight = 1;
        mbh_ctx *done = NULL;
        size_t k = (size_t)(st->alg - ALGS);
        OK(mbh_submit(mgrs[k], &st->ctx, st->chunk, take, flags, &done));
        if (done) came_back(done, &finished);
        if (st->in_flight) {
            mbh_status status;
            OK(mbh_ctx_status(&st->ctx, &status));
            CHECK(status == MBH_STATUS_PROCESSING);
        }
    }
    for (size_t k = 0; k < ALG_COUNT; k++) {
        if (!mgrs[k]) continue;
        size_t in_flight = 99;
        OK(mbh_manager_in_flight(mgrs[k], &in_flight));
        CHECK(in_flight == 0);
    }
    free(ready);
}

/* New streams of random algorithms (k < 0) or of ALGS[k]. */
static struct stream *make_streams(struct rng *r, size_t n, int k, size_t max_len) {
    struct stream *s = xmalloc(n * sizeof *s);
    for (size_t i = 0; i < n; i++) {
        memset(&s[i], 0, sizeof s[i]);
        s[i].alg = &ALGS[k < 0 ? rng_below(r, ALG_COUNT) : (size_t)k];
        s[i].len = random_len(r, max_len);
        s[i].msg = xmalloc(s[i].len);
        rng_fill(r, s[i].msg, s[i].len);
        OK(mbh_ctx_init(&s[i].ctx, s[i].alg->alg, &s[i]));
    }
    reference(s, n);
    return s;
}

static void free_streams(struct stream *s, size_t n) {
    for (size_t i = 0; i < n; i++) free(s[i].msg);
    free(s);
}

/* Every algorithm on every engine it runs here. */
static void every_engine(struct rng *r) {
    size_t n = quick ? 6 : 24, max_len = quick ? 1500 : 12000;
    for (size_t k = 0; k < ALG_COUNT; k++) {
        size_t engines = 0;
        OK(mbh_engine_count(ALGS[k].alg, &engines));
        CHECK(engines >= 2);
        for (size_t e = 0; e < engines; e++) {
            const char *engine = NULL;
            bool supported = false;
            OK(mbh_engine_name(ALGS[k].alg, e, &engine));
            OK(mbh_engine_supported(ALGS[k].alg, engine, &supported));
            if (!supported) {
                printf("SKIPPED %s engine %s: not supported here\n", ALGS[k].name, engine);
                continue;
            }
            mbh_manager *mgrs[ALG_COUNT] = {0};
            REQUIRE_OK(mbh_manager_new_with_engine(ALGS[k].alg, engine, &mgrs[k]));
            const char *name = NULL;
            OK(mbh_manager_engine(mgrs[k], &name));
            CHECK(name && strcmp(name, engine) == 0);
            size_t lanes = 0;
            OK(mbh_manager_lanes(mgrs[k], &lanes));
            // 16 lanes at most, but MD5's 32 (AVX-512 x32: two sets of 16).
            CHECK(lanes >= 1 && lanes <= (ALGS[k].alg == MBH_MD5 ? 32u : 16u));
            struct stream *s = make_streams(r, n, (int)k, max_len);
            drive(r, mgrs, s, n);
            free_streams(s, n);
            mbh_manager_free(mgrs[k]);
        }
    }
}

/* Managers of every algorithm at once; four in caller memory. */
static void mixed(struct rng *r) {
    static struct {
        char pad; /* the manager is not at the start of the struct */
        mbh_manager mgr;
    } in_struct;
    alignas(MBH_MANAGER_ALIGN) static unsigned char raw[3][MBH_MANAGER_SIZE];
    mbh_manager *mgrs[ALG_COUNT] = {0};
    REQUIRE_OK(mbh_manager_new(MBH_SHA256, &mgrs[0]));
    REQUIRE_OK(mbh_manager_init(&in_struct.mgr, MBH_SHA224));
    mgrs[1] = &in_struct.mgr;
    REQUIRE_OK(mbh_manager_new(MBH_SHA512, &mgrs[2]));
    REQUIRE_OK(mbh_manager_init((mbh_manager *)raw[0], MBH_SHA384));
    mgrs[3] = (mbh_manager *)raw[0];
    REQUIRE_OK(mbh_manager_init_with_engine((mbh_manager *)raw[1], MBH_SHA512_256, "auto"));
    mgrs[4] = (mbh_manager *)raw[1];
    REQUIRE_OK(mbh_manager_new_with_engine(MBH_SHA512_224, "scalar", &mgrs[5]));
    REQUIRE_OK(mbh_manager_new(MBH_MD5, &mgrs[6]));
    REQUIRE_OK(mbh_manager_init((mbh_manager *)raw[2], MBH_SHA1));
    mgrs[7] = (mbh_manager *)raw[2];
    REQUIRE_OK(mbh_manager_new_with_engine(MBH_SM3, "auto", &mgrs[8]));
    size_t n = quick ? 24 : 96;
    struct stream *s = make_streams(r, n, -1, quick ? 2000 : 20000);
    drive(r, mgrs, s, n);
    free_streams(s, n);
    mbh_manager_free(mgrs[0]);
    OK(mbh_manager_fini(mgrs[1]));
    mbh_manager_free(mgrs[2]);
    OK(mbh_manager_fini(mgrs[3]));
    mbh_manager_free(mgrs[4]); /* free on caller memory only finishes it */
    EXPECT(mbh_manager_fini(mgrs[4]), MBH_UNINITIALIZED);
    mbh_manager_free(mgrs[5]);
    mbh_manager_free(mgrs[6]);
    OK(mbh_manager_fini(mgrs[7]));
    mbh_manager_free(mgrs[8]);
}

/* A context that is not in flight may be copied: the copy forks the stream. */
static void fork_with_memcpy(void) {
    static const uint8_t prefix[100] = {1, 2, 3};
    static const uint8_t tail_a[] = "first fork", tail_b[] = "second fork, a longer tail";
    for (size_t k = 0; k < ALG_COUNT; k++) {
        mbh_manager *mgr = NULL;
        REQUIRE_OK(mbh_manager_new(ALGS[k].alg, &mgr));
        mbh_ctx a, b;
        OK(mbh_ctx_init(&a, ALGS[k].alg, NULL));
        mbh_ctx *done = NULL;
        OK(mbh_submit(mgr, &a, prefix, sizeof prefix, MBH_FIRST, &done));
        for (int i = 0; !done && i < 2; i++) OK(mbh_flush(mgr, &done));
        CHECK(done == &a);
        memcpy(&b, &a, sizeof a);
        OK(mbh_submit(mgr, &a, tail_a, sizeof tail_a, MBH_LAST, &done));
        OK(mbh_submit(mgr, &b, tail_b, sizeof tail_b, MBH_LAST, &done));
        do OK(mbh_flush(mgr, &done)); while (done);
        /* References: the whole messages in one go. */
        uint8_t msg_a[sizeof prefix + sizeof tail_a], msg_b[sizeof prefix + sizeof tail_b];
        memcpy(msg_a, prefix, sizeof prefix);
        memcpy(msg_a + sizeof prefix, tail_a, sizeof tail_a);
        memcpy(msg_b, prefix, sizeof prefix);
        memcpy(msg_b + sizeof prefix, tail_b, sizeof tail_b);
        const uint8_t *msgs[2] = {msg_a, msg_b};
        size_t lens[2] = {sizeof msg_a, sizeof msg_b};
        uint8_t want[2 * MBH_MAX_DIGEST_LEN], got[MBH_MAX_DIGEST_LEN];
        OK(mbh_hash_many(ALGS[k].alg, msgs, lens, 2, want, sizeof want));
        size_t written = 0;
        OK(mbh_ctx_digest(&a, got, sizeof got, &written));
        same_digest("fork a", got, want, ALGS[k].digest_len);
        OK(mbh_ctx_digest(&b, got, sizeof got, &written));
        same_digest("fork b", got, want + ALGS[k].digest_len, ALGS[k].digest_len);
        mbh_manager_free(mgr);
    }
}

int main(int argc, char **argv) {
    quick = argc > 1 && strcmp(argv[1], "quick") == 0;
    uint64_t seed = argc > 2 ? strtoull(argv[2], NULL, 0) : 0x5eed;
    struct rng r = {seed};
    printf("streams: seed %#llx%s\n", (unsigned long long)seed, quick ? " (quick)" : "");
    every_engine(&r);
    mixed(&r);
    fork_with_memcpy();
    return finish("streams");
}
