/* Every documented order of creating and destroying managers and contexts,
 * each with jobs in flight and without: run under valgrind (nothing leaked,
 * no invalid access) and under ASan/UBSan. */
#include "common.h"

#include <stdalign.h>

/* Caller memory for a manager. */
static union {
    mbh_manager mgr;
    max_align_t align;
} mem;

static uint8_t data[4096];

/* Submits a chunk to each context that does not complete at once, so that
 * the manager holds jobs in flight; returns how many it holds. */
static size_t fill(mbh_manager *mgr, mbh_ctx *ctx, size_t n, mbh_algorithm alg) {
    for (size_t i = 0; i < n; i++) {
        mbh_ctx *done = NULL;
        REQUIRE_OK(mbh_ctx_init(&ctx[i], alg, NULL));
        OK(mbh_submit(mgr, &ctx[i], data, 1000 + i, MBH_FIRST, &done));
    }
    size_t in_flight = 0;
    OK(mbh_manager_in_flight(mgr, &in_flight));
    return in_flight;
}

/* A context released by the end of its manager is new again, and hashes
 * correctly in another manager. */
static void reuse(mbh_ctx *ctx, mbh_algorithm alg) {
    mbh_manager *other = NULL;
    mbh_ctx *done = NULL;
    mbh_status st;
    OK(mbh_ctx_status(ctx, &st));
    CHECK(st == MBH_STATUS_NEW);
    REQUIRE_OK(mbh_manager_new(alg, &other));
    OK(mbh_submit(other, ctx, (const uint8_t *)"abc", 3, MBH_ENTIRE, &done));
    while (done == NULL) OK(mbh_flush(other, &done));
    CHECK(done == ctx);
    OK(mbh_ctx_status(ctx, &st));
    CHECK(st == MBH_STATUS_COMPLETE);
    mbh_manager_free(other);
}

int main(void) {
    rng_fill(&(struct rng){7}, data, sizeof data);
    for (size_t a = 0; a < ALG_COUNT; a++) {
        mbh_algorithm alg = ALGS[a].alg;
        mbh_ctx ctx[4];
        mbh_manager *mgr = NULL;

        /* new, free; with and without jobs in flight. */
        REQUIRE_OK(mbh_manager_new(alg, &mgr));
        mbh_manager_free(mgr);
        REQUIRE_OK(mbh_manager_new(alg, &mgr));
        CHECK(fill(mgr, ctx, 3, alg) > 0);
        mbh_manager_free(mgr);
        reuse(&ctx[0], alg);

        /* new, fini, free: fini releases the jobs, free the memory. */
        REQUIRE_OK(mbh_manager_new(alg, &mgr));
        CHECK(fill(mgr, ctx, 2, alg) > 0);
        OK(mbh_manager_fini(mgr));
        EXPECT(mbh_manager_fini(mgr), MBH_UNINITIALIZED);
        {
            mbh_ctx *done = NULL;
            EXPECT(mbh_submit(mgr, &ctx[2], data, 1, MBH_ENTIRE, &done),
                   MBH_UNINITIALIZED);
            EXPECT(mbh_flush(mgr, &done), MBH_UNINITIALIZED);
        }
        mbh_manager_free(mgr);
        reuse(&ctx[1], alg);
        REQUIRE_OK(mbh_manager_new(alg, &mgr));
        OK(mbh_manager_fini(mgr));
        mbh_manager_free(mgr);

        /* init, fini in caller memory, twice over the same memory. */
        for (int round = 0; round < 2; round++) {
            REQUIRE_OK(mbh_manager_init(&mem.mgr, alg));
            if (round == 1) CHECK(fill(&mem.mgr, ctx, 4, alg) > 0);
            OK(mbh_manager_fini(&mem.mgr));
            EXPECT(mbh_manager_fini(&mem.mgr), MBH_UNINITIALIZED);
        }
        reuse(&ctx[3], alg);

        /* init, free: free only finishes a manager in caller memory. */
        REQUIRE_OK(mbh_manager_init(&mem.mgr, alg));
        CHECK(fill(&mem.mgr, ctx, 2, alg) > 0);
        mbh_manager_free(&mem.mgr);
        EXPECT(mbh_manager_fini(&mem.mgr), MBH_UNINITIALIZED);
        reuse(&ctx[0], alg);

        /* A context outlives managers, and is reset and reused. */
        OK(mbh_ctx_reset(&ctx[0]));
        reuse(&ctx[0], alg);
    }
    /* A refused create allocates nothing and writes nothing. */
    {
        mbh_manager *mgr = NULL;
        EXPECT(mbh_manager_new_with_engine(MBH_SHA256, "no-such-engine", &mgr),
               MBH_UNKNOWN_ENGINE);
        CHECK(mgr == NULL);
        EXPECT(mbh_manager_new((mbh_algorithm)99, &mgr), MBH_INVALID_ALGORITHM);
        CHECK(mgr == NULL);
        mbh_manager_free(NULL);
    }
    return finish("lifetime");
}
