/* A fuzzer of both C ABIs, driven by a seed for a number of seconds: random
 * call sequences with misuse mixed in, each result checked against a model
 * of the managers and contexts, every digest against the native API on the
 * scalar engine. Run under ASan/UBSan.
 *
 *   abi_fuzz SEED SECONDS
 *
 * Native ABI: two managers (on the heap or in caller memory, random
 * algorithm and engine) and 24 contexts of random algorithms; submits with
 * random flags (invalid bits too), chunks and managers (wrong algorithm,
 * in flight, UPDATE on a finished stream), flushes, digests, statuses,
 * resets, re-inits, NULL and misaligned arguments, uninitialised contexts,
 * managers ended with jobs in flight. isa-l ABI: a SHA-256 and a SHA-512
 * manager with contexts, random streams, and the misuse isa-l_crypto
 * defines (NULL manager or context, invalid flags, a context in flight). */
#define _POSIX_C_SOURCE 200809L
#include "isal_common.h"

#include <stdalign.h>
#include <time.h>

#include "sha256_mb.h"
#include "sha512_mb.h"
#include "isal_crypto_api.h"

#define NCTX 24
#define NMGR 2
#define POOL (96 << 10)
#define MAX_MSG (256 << 10)

static uint8_t pool[POOL];
static struct rng r;
static unsigned long long ops;

/* ---- native ABI ---- */

enum state { NEW, IDLE, COMPLETE };

struct cmodel {
    int alg;             /* index into ALGS */
    enum state state;
    int in_flight;       /* manager index + 1, or 0 */
    uint8_t *msg;        /* the stream so far */
    size_t len;
    const uint8_t *pend; /* the chunk in flight */
    size_t pend_len;
    int pend_first, pend_last;
};

struct mmodel {
    mbh_manager *mgr;
    int heap;
    int alg;
};

static mbh_ctx ctxs[NCTX];
static struct cmodel cm[NCTX];
static struct mmodel mm[NMGR];
static union {
    mbh_manager mgr;
    max_align_t align;
} caller_mem[NMGR];

static int ctx_index(const mbh_ctx *c) {
    for (int i = 0; i < NCTX; i++)
        if (&ctxs[i] == c) return i;
    return -1;
}

static const char *random_engine(mbh_algorithm alg) {
    size_t count = 0;
    REQUIRE_OK(mbh_engine_count(alg, &count));
    for (int tries = 0; tries < 8; tries++) {
        const char *name = NULL;
        bool ok = false;
        REQUIRE_OK(mbh_engine_name(alg, rng_below(&r, count), &name));
        REQUIRE_OK(mbh_engine_supported(alg, name, &ok));
        if (ok) return name;
    }
    return "auto";
}

static void mgr_create(int m) {
    struct mmodel *x = &mm[m];
    x->alg = (int)rng_below(&r, ALG_COUNT);
    x->heap = (int)rng_below(&r, 2);
    mbh_algorithm alg = ALGS[x->alg].alg;
    const char *engine = random_engine(alg);
    if (x->heap) {
        REQUIRE_OK(mbh_manager_new_with_engine(alg, engine, &x->mgr));
    } else {
        x->mgr = &caller_mem[m].mgr;
        REQUIRE_OK(mbh_manager_init_with_engine(x->mgr, alg, engine));
    }
}

/* Ends manager `m` (with whatever it holds) and makes a new one. */
static void mgr_recreate(int m) {
    struct mmodel *x = &mm[m];
    switch (rng_below(&r, 3)) {
    case 0:
        if (x->heap) mbh_manager_free(x->mgr);
        else OK(mbh_manager_fini(x->mgr));
        break;
    case 1:
        OK(mbh_manager_fini(x->mgr));
        EXPECT(mbh_manager_fini(x->mgr), MBH_UNINITIALIZED);
        if (x->heap) mbh_manager_free(x->mgr);
        break;
    default:
        mbh_manager_free(x->mgr); /* frees, or finishes caller memory */
        break;
    }
    for (int i = 0; i < NCTX; i++) {
        if (cm[i].in_flight == m + 1) {
            /* Released: new again. */
            cm[i].in_flight = 0;
            cm[i].state = NEW;
            cm[i].len = 0;
            mbh_status st;
            OK(mbh_ctx_status(&ctxs[i], &st));
            CHECK(st == MBH_STATUS_NEW);
        }
    }
    mgr_create(m);
}

static void check_digest_of(int i) {
    uint8_t got[MBH_MAX_DIGEST_LEN], want[MBH_MAX_DIGEST_LEN];
    size_t n = 0;
    OK(mbh_ctx_digest(&ctxs[i], got, sizeof got, &n));
    CHECK(n == ALGS[cm[i].alg].digest_len);
    reference(ALGS[cm[i].alg].alg, cm[i].msg, cm[i].len, want);
    char what[96];
    snprintf(what, sizeof what, "%s, %zu bytes", ALGS[cm[i].alg].name, cm[i].len);
    same_digest(what, got, want, n);
}

static void came_back(int m, mbh_ctx *done) {
    int i = ctx_index(done);
    CHECK(i >= 0);
    if (i < 0) return;
    struct cmodel *c = &cm[i];
    CHECK(c->in_flight == m + 1);
    c->in_flight = 0;
    if (c->pend_first) c->len = 0;
    if (c->len + c->pend_len > MAX_MSG) {
        fprintf(stderr, "model overflow\n");
        exit(1);
    }
    if (c->pend_len > 0) memcpy(c->msg + c->len, c->pend, c->pend_len);
    c->len += c->pend_len;
    mbh_status st;
    OK(mbh_ctx_status(done, &st));
    if (c->pend_last) {
        c->state = COMPLETE;
        CHECK(st == MBH_STATUS_COMPLETE);
        check_digest_of(i);
    } else {
        c->state = IDLE;
        CHECK(st == MBH_STATUS_IDLE);
    }
}

static void native_submit(void) {
    int m = (int)rng_below(&r, NMGR), i = (int)rng_below(&r, NCTX);
    struct cmodel *c = &cm[i];
    uint32_t flags;
    switch (rng_below(&r, 10)) {
    case 0: flags = (uint32_t)rng_next(&r) | (4u << rng_below(&r, 29)); break;
    case 1: case 2: flags = MBH_FIRST; break;
    case 3: case 4: flags = MBH_UPDATE; break;
    case 5: flags = MBH_LAST; break;
    default: flags = MBH_ENTIRE; break;
    }
    size_t room = MAX_MSG - ((flags & MBH_FIRST) ? 0 : c->len);
    size_t len = rng_below(&r, 4) == 0 ? rng_below(&r, 200) : rng_below(&r, 20000);
    if (len > room) len = room;
    const uint8_t *data = pool + rng_below(&r, POOL - len + 1);
    if (len == 0 && rng_below(&r, 2)) data = NULL;
    mbh_result want;
    if ((flags & ~3u) != 0) want = MBH_INVALID_FLAGS;
    else if (c->alg != mm[m].alg && ALGS[c->alg].alg != ALGS[mm[m].alg].alg) want = MBH_WRONG_ALGORITHM;
    else if (c->in_flight) want = MBH_ALREADY_PROCESSING;
    else if (!(flags & MBH_FIRST) && c->state != IDLE) want = MBH_ALREADY_COMPLETED;
    else want = MBH_OK;
    mbh_ctx *done = (mbh_ctx *)&done;
    mbh_result got = mbh_submit(mm[m].mgr, &ctxs[i], data, len, flags, &done);
    EXPECT(got, want);
    if (got != MBH_OK) {
        CHECK(done == (mbh_ctx *)&done); /* outputs only on success */
        return;
    }
    c->in_flight = m + 1;
    c->pend = data;
    c->pend_len = len;
    c->pend_first = (flags & MBH_FIRST) != 0;
    c->pend_last = (flags & MBH_LAST) != 0;
    if (done) came_back(m, done);
}

static void native_flush(int m) {
    mbh_ctx *done = NULL;
    OK(mbh_flush(mm[m].mgr, &done));
    if (done) {
        came_back(m, done);
    } else {
        for (int i = 0; i < NCTX; i++) CHECK(cm[i].in_flight != m + 1);
    }
}

static void native_query(void) {
    int i = (int)rng_below(&r, NCTX);
    struct cmodel *c = &cm[i];
    mbh_status st;
    OK(mbh_ctx_status(&ctxs[i], &st));
    if (c->in_flight) {
        CHECK(st == MBH_STATUS_PROCESSING);
        return;
    }
    CHECK(st == (c->state == NEW ? MBH_STATUS_NEW
                 : c->state == IDLE ? MBH_STATUS_IDLE
                                     : MBH_STATUS_COMPLETE));
    if (c->state == COMPLETE) {
        check_digest_of(i);
    } else {
        uint8_t out[MBH_MAX_DIGEST_LEN];
        size_t n = 12345;
        EXPECT(mbh_ctx_digest(&ctxs[i], out, sizeof out, &n), MBH_NOT_COMPLETE);
        CHECK(n == 12345);
    }
    mbh_algorithm alg;
    OK(mbh_ctx_algorithm(&ctxs[i], &alg));
    CHECK(alg == ALGS[c->alg].alg);
    size_t in_flight = 0, want = 0;
    int m = (int)rng_below(&r, NMGR);
    for (int k = 0; k < NCTX; k++) want += cm[k].in_flight == m + 1;
    OK(mbh_manager_in_flight(mm[m].mgr, &in_flight));
    CHECK(in_flight == want);
}

static void native_restart(void) {
    int i = (int)rng_below(&r, NCTX);
    struct cmodel *c = &cm[i];
    if (c->in_flight) return; /* resetting a context in flight breaks the contract */
    if (rng_below(&r, 2)) {
        OK(mbh_ctx_reset(&ctxs[i]));
    } else {
        if (rng_below(&r, 4) == 0) {
            /* 0, MBH_CRC32C (an engine family, no hash) and numbers past
               the last algorithm are refused. */
            uint32_t pick = (uint32_t)rng_below(&r, 3);
            mbh_algorithm bad = pick == 0 ? 0 : pick == 1 ? MBH_CRC32C : MBH_SM3 + 1 + (mbh_algorithm)rng_below(&r, 100);
            EXPECT(mbh_ctx_init(&ctxs[i], bad, NULL), MBH_INVALID_ALGORITHM);
            return;
        }
        c->alg = (int)rng_below(&r, ALG_COUNT);
        OK(mbh_ctx_init(&ctxs[i], ALGS[c->alg].alg, NULL));
    }
    c->state = NEW;
    c->len = 0;
}

static void native_misuse(void) {
    int m = (int)rng_below(&r, NMGR);
    mbh_ctx *done = NULL;
    uint8_t out[64];
    size_t n;
    switch (rng_below(&r, 8)) {
    case 0: EXPECT(mbh_submit(NULL, &ctxs[0], pool, 1, MBH_ENTIRE, &done), MBH_NULL_ARGUMENT); break;
    case 1: EXPECT(mbh_submit(mm[m].mgr, NULL, pool, 1, MBH_ENTIRE, &done), MBH_NULL_ARGUMENT); break;
    case 2: EXPECT(mbh_submit(mm[m].mgr, &ctxs[0], pool, 1, MBH_ENTIRE, NULL), MBH_NULL_ARGUMENT); break;
    case 3: {
        /* A buffer pointer NULL with a length, on a context not in flight. */
        for (int i = 0; i < NCTX; i++) {
            if (!cm[i].in_flight) {
                EXPECT(mbh_submit(mm[m].mgr, &ctxs[i], NULL, 1 + rng_below(&r, 100), MBH_ENTIRE, &done),
                       MBH_NULL_ARGUMENT);
                break;
            }
        }
        break;
    }
    case 4: {
        /* Memory that was never a context. */
        alignas(MBH_CTX_ALIGN) uint8_t junk[MBH_CTX_SIZE];
        rng_fill(&r, junk, sizeof junk);
        EXPECT(mbh_submit(mm[m].mgr, (mbh_ctx *)junk, pool, 1, MBH_ENTIRE, &done), MBH_UNINITIALIZED);
        EXPECT(mbh_ctx_digest((mbh_ctx *)junk, out, sizeof out, &n), MBH_UNINITIALIZED);
        break;
    }
    case 5: {
        /* A misaligned manager and context. */
        char *bad = (char *)mm[m].mgr + 1 + rng_below(&r, 7);
        EXPECT(mbh_flush((mbh_manager *)(void *)bad, &done), MBH_MISALIGNED);
        char *badc = (char *)&ctxs[1] + 1 + rng_below(&r, 7);
        EXPECT(mbh_ctx_digest((mbh_ctx *)(void *)badc, out, sizeof out, &n), MBH_MISALIGNED);
        break;
    }
    case 6: {
        /* A digest buffer too short for a complete context. */
        for (int i = 0; i < NCTX; i++) {
            if (!cm[i].in_flight && cm[i].state == COMPLETE) {
                mbh_result got = mbh_ctx_digest(&ctxs[i], out, ALGS[cm[i].alg].digest_len - 1, &n);
                CHECK(got != MBH_OK);
                break;
            }
        }
        break;
    }
    default:
        EXPECT(mbh_flush(mm[m].mgr, NULL), MBH_NULL_ARGUMENT);
        EXPECT(mbh_ctx_status(NULL, NULL), MBH_NULL_ARGUMENT);
        break;
    }
}

static void native_init(void) {
    for (int i = 0; i < NCTX; i++) {
        cm[i].alg = (int)rng_below(&r, ALG_COUNT);
        cm[i].msg = malloc(MAX_MSG);
        if (!cm[i].msg) exit(2);
        REQUIRE_OK(mbh_ctx_init(&ctxs[i], ALGS[cm[i].alg].alg, NULL));
    }
    for (int m = 0; m < NMGR; m++) mgr_create(m);
}

static void native_step(void) {
    ops++;
    unsigned k = (unsigned)rng_below(&r, 100);
    if (k < 45) native_submit();
    else if (k < 65) native_flush((int)rng_below(&r, NMGR));
    else if (k < 78) native_query();
    else if (k < 86) native_restart();
    else if (k < 97) native_misuse();
    else mgr_recreate((int)rng_below(&r, NMGR));
}

/* ---- isa-l ABI ---- */

#define NISAL 12

static ISAL_SHA256_HASH_CTX_MGR *m256;
static ISAL_SHA512_HASH_CTX_MGR *m512;
static ISAL_SHA256_HASH_CTX c256[NISAL];
static ISAL_SHA512_HASH_CTX c512[NISAL];

struct imodel {
    int in_flight;
    int stale;        /* its error field says ALREADY_PROCESSING (see below) */
    int open;         /* a stream is open (after FIRST, before LAST) */
    uint8_t *msg;
    size_t len;
    const uint8_t *pend;
    size_t pend_len;
    int pend_first, pend_last;
};

static struct imodel i256[NISAL], i512[NISAL];

static void isal_back(int is512, void *ctx) {
    struct imodel *im = is512 ? i512 : i256;
    int i = is512 ? (int)((ISAL_SHA512_HASH_CTX *)ctx - c512) : (int)((ISAL_SHA256_HASH_CTX *)ctx - c256);
    CHECK(i >= 0 && i < NISAL);
    if (i < 0 || i >= NISAL) return;
    struct imodel *x = &im[i];
    CHECK(x->in_flight);
    x->in_flight = 0;
    x->stale = 0;
    if (x->pend_first) x->len = 0;
    memcpy(x->msg + x->len, x->pend, x->pend_len);
    x->len += x->pend_len;
    x->open = !x->pend_last;
    if (x->pend_last) {
        uint8_t got[64], want[MBH_MAX_DIGEST_LEN];
        if (is512) {
            CHECK(isal_hash_ctx_complete(&c512[i]));
            words64_to_bytes(isal_hash_ctx_digest(&c512[i]), got);
        } else {
            CHECK(isal_hash_ctx_complete(&c256[i]));
            words32_to_bytes(isal_hash_ctx_digest(&c256[i]), got);
        }
        reference(is512 ? MBH_SHA512 : MBH_SHA256, x->msg, x->len, want);
        same_digest(is512 ? "isa-l sha512" : "isa-l sha256", got, want, is512 ? 64 : 32);
    }
}

static void isal_step(void) {
    ops++;
    int is512 = (int)rng_below(&r, 2);
    int i = (int)rng_below(&r, NISAL);
    struct imodel *x = is512 ? &i512[i] : &i256[i];
    void *out = NULL;
    unsigned k = (unsigned)rng_below(&r, 100);
    if (k < 25) {
        int got = is512 ? isal_sha512_ctx_mgr_flush(m512, (ISAL_SHA512_HASH_CTX **)&out)
                        : isal_sha256_ctx_mgr_flush(m256, (ISAL_SHA256_HASH_CTX **)&out);
        EXPECT_INT(got, 0);
        if (out) isal_back(is512, out);
        return;
    }
    if (k < 30) {
        /* NULL manager or context. */
        int got = is512 ? isal_sha512_ctx_mgr_submit(NULL, &c512[i], (ISAL_SHA512_HASH_CTX **)&out, pool, 1, ISAL_HASH_ENTIRE)
                        : isal_sha256_ctx_mgr_submit(NULL, &c256[i], (ISAL_SHA256_HASH_CTX **)&out, pool, 1, ISAL_HASH_ENTIRE);
        EXPECT_INT(got, ISAL_CRYPTO_ERR_NULL_MGR);
        got = is512 ? isal_sha512_ctx_mgr_submit(m512, NULL, (ISAL_SHA512_HASH_CTX **)&out, pool, 1, ISAL_HASH_ENTIRE)
                    : isal_sha256_ctx_mgr_submit(m256, NULL, (ISAL_SHA256_HASH_CTX **)&out, pool, 1, ISAL_HASH_ENTIRE);
        EXPECT_INT(got, ISAL_CRYPTO_ERR_NULL_CTX);
        return;
    }
    /* A submit: a chunk of the stream (or misuse). */
    int flags;
    int want = 0;
    if (x->in_flight) {
        flags = ISAL_HASH_ENTIRE;
        want = ISAL_CRYPTO_ERR_ALREADY_PROCESSING;
    } else if (k < 36) {
        flags = 4 + (int)rng_below(&r, 60);
        want = ISAL_CRYPTO_ERR_INVALID_FLAGS;
    } else if (x->open) {
        flags = rng_below(&r, 3) == 0 ? ISAL_HASH_LAST : ISAL_HASH_UPDATE;
        if (rng_below(&r, 8) == 0) flags |= ISAL_HASH_FIRST; /* restart */
    } else {
        flags = rng_below(&r, 2) ? ISAL_HASH_FIRST : ISAL_HASH_ENTIRE;
    }
    size_t len = rng_below(&r, 3) == 0 ? rng_below(&r, 300) : rng_below(&r, 9000);
    if (!(flags & ISAL_HASH_FIRST) && x->len + len > MAX_MSG) len = 0;
    const uint8_t *data = pool + rng_below(&r, POOL - len + 1);
    int got = is512 ? isal_sha512_ctx_mgr_submit(m512, &c512[i], (ISAL_SHA512_HASH_CTX **)&out, data, (uint32_t)len, (HASH_CTX_FLAG)flags)
                    : isal_sha256_ctx_mgr_submit(m256, &c256[i], (ISAL_SHA256_HASH_CTX **)&out, data, (uint32_t)len, (HASH_CTX_FLAG)flags);
    /* As in isa-l_crypto, the result is that of the context that comes
     * back: one refused as ALREADY_PROCESSING while in flight keeps that
     * error in its `error` field until it is submitted again, and a submit
     * that hands it back, finished, returns that error. */
    int out_i = out == NULL ? -1
                : is512    ? (int)((ISAL_SHA512_HASH_CTX *)out - c512)
                           : (int)((ISAL_SHA256_HASH_CTX *)out - c256);
    int refused = want != 0;
    if (!refused && out_i >= 0 && out_i != i && (is512 ? i512 : i256)[out_i].stale)
        want = ISAL_CRYPTO_ERR_ALREADY_PROCESSING;
    EXPECT_INT(got, want);
    if (got != want)
        fprintf(stderr, "isa-l %s context %d: flags %d, %zu bytes, stream %s, back %d\n",
                is512 ? "sha512" : "sha256", i, flags, len, x->open ? "open" : "not open", out_i);
    if (refused) {
        /* The refused context comes back with its error set. */
        CHECK(out_i == i);
        if (x->in_flight) x->stale = 1;
        return;
    }
    x->stale = 0;
    x->in_flight = 1;
    x->pend = data;
    x->pend_len = len;
    x->pend_first = (flags & ISAL_HASH_FIRST) != 0;
    x->pend_last = (flags & ISAL_HASH_LAST) != 0;
    if (out) isal_back(is512, out);
}

static void isal_init(void) {
    m256 = aligned_alloc(64, (sizeof *m256 + 63) / 64 * 64);
    m512 = aligned_alloc(64, (sizeof *m512 + 63) / 64 * 64);
    if (!m256 || !m512) exit(2);
    REQUIRE_ZERO(isal_sha256_ctx_mgr_init(m256));
    REQUIRE_ZERO(isal_sha512_ctx_mgr_init(m512));
    for (int i = 0; i < NISAL; i++) {
        isal_hash_ctx_init(&c256[i]);
        isal_hash_ctx_init(&c512[i]);
        i256[i].msg = malloc(MAX_MSG + 20000);
        i512[i].msg = malloc(MAX_MSG + 20000);
        if (!i256[i].msg || !i512[i].msg) exit(2);
    }
}

static void drain(void) {
    for (int m = 0; m < NMGR; m++) {
        mbh_ctx *done = NULL;
        do {
            OK(mbh_flush(mm[m].mgr, &done));
            if (done) came_back(m, done);
        } while (done);
        if (mm[m].heap) mbh_manager_free(mm[m].mgr);
        else OK(mbh_manager_fini(mm[m].mgr));
    }
    for (int is512 = 0; is512 < 2; is512++) {
        void *out;
        do {
            out = NULL;
            int got = is512 ? isal_sha512_ctx_mgr_flush(m512, (ISAL_SHA512_HASH_CTX **)&out)
                            : isal_sha256_ctx_mgr_flush(m256, (ISAL_SHA256_HASH_CTX **)&out);
            EXPECT_INT(got, 0);
            if (out) isal_back(is512, out);
        } while (out);
    }
    for (int i = 0; i < NCTX; i++) free(cm[i].msg);
    for (int i = 0; i < NISAL; i++) {
        free(i256[i].msg);
        free(i512[i].msg);
    }
    free(m256);
    free(m512);
}

int main(int argc, char **argv) {
    uint64_t seed = argc > 1 ? strtoull(argv[1], NULL, 0) : 1;
    double secs = argc > 2 ? strtod(argv[2], NULL) : 1.0;
    r.state = seed;
    rng_fill(&r, pool, sizeof pool);
    native_init();
    isal_init();
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (;;) {
        for (int k = 0; k < 256; k++) {
            if (rng_below(&r, 3)) native_step();
            else isal_step();
            if (checks_failed > 0) {
                fprintf(stderr, "abi_fuzz: seed %llu: failed after %llu operations\n",
                        (unsigned long long)seed, ops);
                return finish("abi_fuzz");
            }
        }
        clock_gettime(CLOCK_MONOTONIC, &t);
        if ((double)(t.tv_sec - t0.tv_sec) + 1e-9 * (double)(t.tv_nsec - t0.tv_nsec) >= secs) break;
    }
    drain();
    printf("abi_fuzz: seed %llu: %llu operations, %d checks\n", (unsigned long long)seed, ops,
           checks_run);
    return finish("abi_fuzz");
}
