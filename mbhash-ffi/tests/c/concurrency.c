/* The pool and the service from many threads: every digest checked against
 * the one-shot path on the scalar engine, every callback exactly once,
 * shutdown with cancel, a full queue, and every misuse an error code; engines
 * switched (CRC32C's too) while 8 threads hash and compute CRCs.
 *
 * Usage: concurrency [JOBS_PER_THREAD]   (default 100000; 8 threads) */
#define _POSIX_C_SOURCE 200809L
#include "common.h"

#include <pthread.h>
#include <stdatomic.h>
#include <sys/uio.h>
#include <time.h>

#define THREADS 8
#define DATA_LEN (1u << 18)

static uint8_t DATA[DATA_LEN + 64];
static size_t JOBS = 100000;
static atomic_int failures;

static void reference(mbh_algorithm alg, const uint8_t *msg, size_t len, uint8_t out[64]) {
    REQUIRE_OK(mbh_hash_many_with_engine(alg, "scalar", &msg, &len, 1, out, 64));
}

/* A random message: mostly short, some long, at any offset. */
static void message(struct rng *r, size_t *off, size_t *len) {
    size_t pick = rng_below(r, 100);
    *len = pick < 80 ? rng_below(r, 600) : pick < 99 ? rng_below(r, 4500) : rng_below(r, 40000);
    *off = rng_below(r, DATA_LEN - *len + 1);
}

/* ---- the pool ---- */

struct pool_arg {
    const mbh_pool *pool;
    uint64_t seed;
};

static void *pool_thread(void *p) {
    struct pool_arg *a = p;
    struct rng r = {a->seed};
    struct iovec iov[16];
    for (size_t i = 0; i < JOBS; i++) {
        const struct alg_info *alg = &ALGS[rng_below(&r, ALG_COUNT)];
        size_t off, len;
        message(&r, &off, &len);
        size_t n = 1 + rng_below(&r, 16);
        /* n pieces at sorted random cuts (some empty). */
        size_t cuts[17];
        cuts[0] = 0;
        cuts[n] = len;
        for (size_t k = 1; k < n; k++) cuts[k] = rng_below(&r, len + 1);
        for (size_t k = 1; k < n; k++)
            for (size_t j = k; j > 1 && cuts[j - 1] > cuts[j]; j--) {
                size_t t = cuts[j];
                cuts[j] = cuts[j - 1];
                cuts[j - 1] = t;
            }
        for (size_t k = 0; k < n; k++) {
            iov[k].iov_base = DATA + off + cuts[k];
            iov[k].iov_len = cuts[k + 1] - cuts[k];
        }
        uint8_t got[64], want[64];
        mbh_result res = mbh_pool_hash(a->pool, alg->alg, iov, n, got, sizeof got);
        reference(alg->alg, DATA + off, len, want);
        if (res != MBH_OK || memcmp(got, want, alg->digest_len) != 0) {
            fprintf(stderr, "pool: %s len %zu pieces %zu: result %u or wrong digest\n", alg->name,
                    len, n, (unsigned)res);
            atomic_fetch_add(&failures, 1);
        }
    }
    return NULL;
}

static void run_pool_threads(const mbh_pool *pool, const char *what) {
    pthread_t t[THREADS];
    struct pool_arg a[THREADS];
    int before = atomic_load(&failures);
    for (int i = 0; i < THREADS; i++) {
        a[i].pool = pool;
        a[i].seed = 0x5eed0000u + (uint64_t)i;
        CHECK(pthread_create(&t[i], NULL, pool_thread, &a[i]) == 0);
    }
    for (int i = 0; i < THREADS; i++) pthread_join(t[i], NULL);
    CHECK(atomic_load(&failures) == before);
    printf("%s: %d threads x %zu jobs\n", what, THREADS, JOBS);
}

/* The host's operations for mbh_pool_init: pthread mutexes and condition
 * variables, one pair per wait channel. */
struct host {
    pthread_mutex_t m[MBH_POOL_CHANNELS];
    pthread_cond_t c[MBH_POOL_CHANNELS];
    atomic_long waits;
};

static void host_lock(void *arg, uint32_t chan) { pthread_mutex_lock(&((struct host *)arg)->m[chan]); }
static void host_unlock(void *arg, uint32_t chan) {
    pthread_mutex_unlock(&((struct host *)arg)->m[chan]);
}
static void host_wait(void *arg, uint32_t chan) {
    struct host *h = arg;
    atomic_fetch_add(&h->waits, 1);
    pthread_cond_wait(&h->c[chan], &h->m[chan]);
}
static void host_wake(void *arg, uint32_t chan) { pthread_cond_broadcast(&((struct host *)arg)->c[chan]); }

static void test_pool(void) {
    mbh_pool *pool = NULL;
    REQUIRE_OK(mbh_pool_new(&pool));
    run_pool_threads(pool, "pool (mbh_pool_new)");
    mbh_pool_free(pool);

    static struct host host;
    for (int i = 0; i < (int)MBH_POOL_CHANNELS; i++) {
        pthread_mutex_init(&host.m[i], NULL);
        pthread_cond_init(&host.c[i], NULL);
    }
    static mbh_pool mem;
    /* One CPU: every other caller joins a combiner or is handed a slot. */
    mbh_pool_ops ops = {&host, host_lock, host_unlock, host_wait, host_wake, 1};
    REQUIRE_OK(mbh_pool_init(&mem, &ops));
    run_pool_threads(&mem, "pool (mbh_pool_init, host ops)");
    OK(mbh_pool_fini(&mem));
    printf("host ops: %ld waits\n", (long)atomic_load(&host.waits));
}

static void test_pool_misuse(void) {
    static mbh_pool zeroed;
    mbh_pool *pool;
    REQUIRE_OK(mbh_pool_new(&pool));
    uint8_t out[64], keep[64];
    memset(out, 0xa5, sizeof out);
    memcpy(keep, out, sizeof out);
    struct iovec iov[2] = {{DATA, 10}, {NULL, 5}};
    const struct iovec *v = iov;
    EXPECT(mbh_pool_hash(NULL, MBH_SHA256, v, 1, out, 64), MBH_NULL_ARGUMENT);
    EXPECT(mbh_pool_hash(&zeroed, MBH_SHA256, v, 1, out, 64), MBH_UNINITIALIZED);
    EXPECT(mbh_pool_hash(pool, 99, v, 1, out, 64), MBH_INVALID_ALGORITHM);
    EXPECT(mbh_pool_hash(pool, MBH_SHA256, v, 1, NULL, 64), MBH_NULL_ARGUMENT);
    EXPECT(mbh_pool_hash(pool, MBH_SHA512, v, 1, out, 63), MBH_BUFFER_TOO_SMALL);
    EXPECT(mbh_pool_hash(pool, MBH_SHA256, NULL, 1, out, 64), MBH_NULL_ARGUMENT);
    EXPECT(mbh_pool_hash(pool, MBH_SHA256, v, 2, out, 64), MBH_NULL_ARGUMENT);
    CHECK(memcmp(out, keep, sizeof out) == 0);
    /* No pieces: the empty message; a NULL empty piece is fine. */
    uint8_t want[64];
    iov[1].iov_len = 0;
    OK(mbh_pool_hash(pool, MBH_SHA256, NULL, 0, out, 32));
    reference(MBH_SHA256, NULL, 0, want);
    CHECK(memcmp(out, want, 32) == 0);
    OK(mbh_pool_hash(pool, MBH_SHA384, v, 2, out, 48));
    reference(MBH_SHA384, DATA, 10, want);
    CHECK(memcmp(out, want, 48) == 0);
    mbh_pool_free(pool);
    mbh_pool_free(NULL);
    mbh_pool_free(&zeroed); /* not a pool: ignored */

    mbh_pool_ops ops = {NULL, host_lock, host_unlock, NULL, host_wake, 0};
    static mbh_pool mem;
    EXPECT(mbh_pool_init(&mem, &ops), MBH_NULL_ARGUMENT);
    EXPECT(mbh_pool_init(&mem, NULL), MBH_NULL_ARGUMENT);
    EXPECT(mbh_pool_init(NULL, &ops), MBH_NULL_ARGUMENT);
    EXPECT(mbh_pool_hash(&mem, MBH_SHA256, v, 1, out, 64), MBH_UNINITIALIZED);
    EXPECT(mbh_pool_fini(&mem), MBH_UNINITIALIZED);
}

/* ---- the service ---- */

struct job {
    mbh_algorithm alg;
    size_t digest_len;
    uint32_t off, len;
    atomic_int calls;
    atomic_int status;
    uint8_t digest[64];
};

static void on_done(void *arg, mbh_result status, const uint8_t *digest, size_t len) {
    struct job *j = arg;
    if (status == MBH_OK && len == j->digest_len && digest != NULL) {
        memcpy(j->digest, digest, len);
    } else if (!(status == MBH_CANCELLED && digest == NULL && len == 0)) {
        atomic_fetch_add(&failures, 1);
    }
    atomic_store(&j->status, (int)status);
    atomic_fetch_add(&j->calls, 1);
}

/* Checks every job: called back exactly once, with the right digest (or,
 * if cancelling is allowed, cancelled). Returns the number cancelled. */
static size_t check_jobs(struct job *jobs, size_t n, int may_cancel) {
    size_t cancelled = 0, bad = 0;
    for (size_t i = 0; i < n; i++) {
        struct job *j = &jobs[i];
        if (atomic_load(&j->calls) != 1) {
            bad++;
            continue;
        }
        if (atomic_load(&j->status) == (int)MBH_CANCELLED) {
            cancelled++;
            if (!may_cancel) bad++;
            continue;
        }
        uint8_t want[64];
        reference(j->alg, DATA + j->off, j->len, want);
        if (memcmp(j->digest, want, j->digest_len) != 0) bad++;
    }
    if (bad) fprintf(stderr, "service: %zu of %zu jobs wrong\n", bad, n);
    CHECK(bad == 0);
    return cancelled;
}

struct svc_arg {
    mbh_service *svc;
    struct job *jobs;
    uint64_t seed;
};

static void *service_thread(void *p) {
    struct svc_arg *a = p;
    struct rng r = {a->seed};
    for (size_t i = 0; i < JOBS; i++) {
        struct job *j = &a->jobs[i];
        const struct alg_info *alg = &ALGS[rng_below(&r, ALG_COUNT)];
        size_t off, len;
        message(&r, &off, &len);
        j->alg = alg->alg;
        j->digest_len = alg->digest_len;
        j->off = (uint32_t)off;
        j->len = (uint32_t)len;
        mbh_result res = rng_below(&r, 2)
                             ? mbh_service_submit(a->svc, j->alg, DATA + off, len, on_done, j)
                             : MBH_QUEUE_FULL;
        while (res == MBH_QUEUE_FULL)
            res = mbh_service_try_submit(a->svc, j->alg, DATA + off, len, on_done, j);
        if (res != MBH_OK) {
            fprintf(stderr, "service submit: %s\n", mbh_result_str(res));
            atomic_fetch_add(&failures, 1);
            atomic_fetch_add(&j->calls, 1); /* counted, as if called back */
        }
    }
    return NULL;
}

static void test_service(void) {
    mbh_service *svc;
    REQUIRE_OK(mbh_service_new(0, &svc));
    struct job *jobs = calloc(THREADS * JOBS, sizeof *jobs);
    CHECK(jobs != NULL);
    if (!jobs) return;
    pthread_t t[THREADS];
    struct svc_arg a[THREADS];
    int before = atomic_load(&failures);
    for (int i = 0; i < THREADS; i++) {
        a[i].svc = svc;
        a[i].jobs = jobs + (size_t)i * JOBS;
        a[i].seed = 0xc0ffee00u + (uint64_t)i;
        CHECK(pthread_create(&t[i], NULL, service_thread, &a[i]) == 0);
    }
    for (int i = 0; i < THREADS; i++) pthread_join(t[i], NULL);
    OK(mbh_service_shutdown(svc, MBH_SHUTDOWN_FINISH));
    check_jobs(jobs, THREADS * JOBS, 0);
    CHECK(atomic_load(&failures) == before);
    mbh_service_free(svc);
    free(jobs);
    printf("service: %d threads x %zu jobs\n", THREADS, JOBS);
}

/* A callback that holds its worker until released. */
static atomic_int gate_open;
static atomic_int gate_reached;
static void on_gate(void *arg, mbh_result status, const uint8_t *digest, size_t len) {
    atomic_store(&gate_reached, 1);
    while (!atomic_load(&gate_open)) {
        struct timespec ts = {0, 1000000};
        nanosleep(&ts, NULL);
    }
    on_done(arg, status, digest, len);
}

static void *cancel_thread(void *svc) {
    OK(mbh_service_shutdown(svc, MBH_SHUTDOWN_CANCEL));
    return NULL;
}

static void sleep_ms(long ms) {
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000};
    nanosleep(&ts, NULL);
}

static void test_service_cancel_and_full(void) {
    enum { N = 400 };
    static struct job jobs[N + 1];
    for (size_t i = 0; i <= N; i++) {
        jobs[i].alg = ALGS[i % ALG_COUNT].alg;
        jobs[i].digest_len = ALGS[i % ALG_COUNT].digest_len;
        jobs[i].off = (uint32_t)(i * 7);
        jobs[i].len = (uint32_t)(i * 13 % 3000);
    }
    mbh_service *svc;
    REQUIRE_OK(mbh_service_new(1, &svc));
    atomic_store(&gate_open, 0);
    atomic_store(&gate_reached, 0);
    OK(mbh_service_submit(svc, jobs[0].alg, DATA, jobs[0].len, on_gate, &jobs[0]));
    while (!atomic_load(&gate_reached)) sleep_ms(1);
    /* The worker is held: fill the queue until it is full. */
    size_t queued = 1;
    mbh_result res = MBH_OK;
    while (queued < N && (res = mbh_service_try_submit(svc, jobs[queued].alg, DATA + jobs[queued].off,
                                                       jobs[queued].len, on_done, &jobs[queued])) == MBH_OK)
        queued++;
    /* The default queue holds 1024 jobs: N fit. Then shutdown with cancel,
     * released only after the cancel was asked for. */
    CHECK(queued == N);
    pthread_t t;
    CHECK(pthread_create(&t, NULL, cancel_thread, svc) == 0);
    /* Wait until the shutdown has begun, seen as try_submit refusing with
     * MBH_SHUT_DOWN (not by a sleep, which a slow machine or valgrind may
     * outlast); the probes accepted before that are jobs like the others. */
    enum { PROBES = 600 };
    static struct job probes[PROBES];
    size_t np = 0;
    int begun = 0;
    for (int tries = 0; tries < 10000 && !begun; tries++) {
        if (np < PROBES) {
            probes[np].alg = MBH_SHA256;
            probes[np].digest_len = 32;
            res = mbh_service_try_submit(svc, MBH_SHA256, DATA, 0, on_done, &probes[np]);
            if (res == MBH_OK) np++;
            begun = res == MBH_SHUT_DOWN;
            /* The queue (1024) holds the probes; full only if it fills. */
            CHECK(res == MBH_OK || res == MBH_SHUT_DOWN);
        }
        if (!begun) sleep_ms(1);
    }
    CHECK(begun);
    atomic_store(&gate_open, 1);
    pthread_join(t, NULL);
    size_t probes_cancelled = check_jobs(probes, np, 1);
    size_t cancelled = check_jobs(jobs, queued, 1);
    printf("cancel: %zu queued, %zu cancelled (and %zu of %zu probes)\n", queued, cancelled,
           probes_cancelled, np);
    CHECK(cancelled > 0);
    /* After shutdown: errors, the callback never called. */
    EXPECT(mbh_service_submit(svc, MBH_SHA256, DATA, 5, on_done, &jobs[N]), MBH_SHUT_DOWN);
    EXPECT(mbh_service_try_submit(svc, MBH_SHA256, DATA, 5, on_done, &jobs[N]), MBH_SHUT_DOWN);
    OK(mbh_service_shutdown(svc, MBH_SHUTDOWN_CANCEL));
    mbh_service_free(svc);
    CHECK(atomic_load(&jobs[N].calls) == 0);

    /* A full queue: one worker held, a queue of 1024 jobs. */
    static struct job more[1100];
    REQUIRE_OK(mbh_service_new(1, &svc));
    atomic_store(&gate_open, 0);
    atomic_store(&gate_reached, 0);
    more[0].alg = MBH_SHA256;
    more[0].digest_len = 32;
    OK(mbh_service_submit(svc, MBH_SHA256, DATA, 0, on_gate, &more[0]));
    while (!atomic_load(&gate_reached)) sleep_ms(1);
    size_t n = 1;
    while (n < 1100) {
        more[n].alg = MBH_SHA512;
        more[n].digest_len = 64;
        more[n].len = (uint32_t)n;
        res = mbh_service_try_submit(svc, MBH_SHA512, DATA, n, on_done, &more[n]);
        if (res != MBH_OK) break;
        n++;
    }
    EXPECT(res, MBH_QUEUE_FULL);
    atomic_store(&gate_open, 1);
    OK(mbh_service_shutdown(svc, MBH_SHUTDOWN_FINISH));
    check_jobs(more, n, 0);
    CHECK(atomic_load(&more[n].calls) == 0);
    mbh_service_free(svc);
    printf("full: %zu accepted before MBH_QUEUE_FULL\n", n);
}

static void test_service_misuse(void) {
    static struct { uint64_t junk[64]; } zeroed;
    const mbh_service *bad = (const mbh_service *)&zeroed;
    static struct job j;
    mbh_service *svc;
    EXPECT(mbh_service_new(2, NULL), MBH_NULL_ARGUMENT);
    REQUIRE_OK(mbh_service_new(2, &svc));
    EXPECT(mbh_service_submit(NULL, MBH_SHA256, DATA, 5, on_done, &j), MBH_NULL_ARGUMENT);
    EXPECT(mbh_service_submit(bad, MBH_SHA256, DATA, 5, on_done, &j), MBH_UNINITIALIZED);
    EXPECT(mbh_service_submit(svc, MBH_SHA256, DATA, 5, NULL, &j), MBH_NULL_ARGUMENT);
    EXPECT(mbh_service_try_submit(svc, MBH_SHA256, DATA, 5, NULL, &j), MBH_NULL_ARGUMENT);
    EXPECT(mbh_service_submit(svc, 0, DATA, 5, on_done, &j), MBH_INVALID_ALGORITHM);
    EXPECT(mbh_service_submit(svc, MBH_SHA256, NULL, 5, on_done, &j), MBH_NULL_ARGUMENT);
    EXPECT(mbh_service_shutdown(svc, 7), MBH_INVALID_ARGUMENT);
    EXPECT(mbh_service_shutdown(NULL, MBH_SHUTDOWN_FINISH), MBH_NULL_ARGUMENT);
    EXPECT(mbh_service_shutdown(bad, MBH_SHUTDOWN_FINISH), MBH_UNINITIALIZED);
    j.alg = MBH_SHA224;
    j.digest_len = 28;
    j.len = 0;
    OK(mbh_service_submit(svc, MBH_SHA224, NULL, 0, on_done, &j));
    OK(mbh_service_shutdown(svc, MBH_SHUTDOWN_FINISH));
    check_jobs(&j, 1, 0);
    mbh_service_free(svc);
    mbh_service_free(NULL);
    mbh_service_free((mbh_service *)&zeroed); /* not a service: ignored */
}

/* ---- engines switched while 8 threads hash ---- */

static atomic_int switching;
static atomic_long switches;

static void *switcher(void *p) {
    (void)p;
    static const mbh_algorithm fams[3] = {MBH_SHA256, MBH_SHA512, MBH_CRC32C};
    while (atomic_load(&switching)) {
        for (int f = 0; f < 3; f++) {
            size_t count = 0;
            OK(mbh_engine_count(fams[f], &count));
            for (size_t e = 0; e < count; e++) {
                const char *name;
                bool ok = false;
                OK(mbh_engine_name(fams[f], e, &name));
                OK(mbh_engine_supported(fams[f], name, &ok));
                if (ok) {
                    OK(mbh_set_engine(fams[f], name));
                    atomic_fetch_add(&switches, 1);
                }
            }
        }
    }
    return NULL;
}

/* CRC32C by a 256-entry table, the reference for the threads below. */
static uint32_t CRC_TABLE[256];

static void crc_table_init(void) {
    for (uint32_t i = 0; i < 256; i++) {
        uint32_t c = i;
        for (int k = 0; k < 8; k++) c = (c >> 1) ^ (0x82F63B78u & (0u - (c & 1)));
        CRC_TABLE[i] = c;
    }
}

static uint32_t crc_reference(const uint8_t *p, size_t n) {
    uint32_t c = 0xFFFFFFFFu;
    for (size_t i = 0; i < n; i++) c = (c >> 8) ^ CRC_TABLE[(c ^ p[i]) & 0xFF];
    return ~c;
}

static void *crc_thread(void *p) {
    struct rng r = {*(const uint64_t *)p};
    for (size_t i = 0; i < JOBS; i++) {
        size_t off, len;
        message(&r, &off, &len);
        uint32_t got = 0, want = crc_reference(DATA + off, len);
        mbh_result res = mbh_crc32c(DATA + off, len, &got);
        if (res != MBH_OK || got != want) {
            fprintf(stderr, "crc32c: len %zu offset %zu: result %u, %08x != %08x\n", len, off,
                    (unsigned)res, got, want);
            atomic_fetch_add(&failures, 1);
        }
    }
    return NULL;
}

static void run_crc_threads(const char *what) {
    pthread_t t[THREADS];
    uint64_t seeds[THREADS];
    int before = atomic_load(&failures);
    for (int i = 0; i < THREADS; i++) {
        seeds[i] = 0xc5c0000u + (uint64_t)i;
        CHECK(pthread_create(&t[i], NULL, crc_thread, &seeds[i]) == 0);
    }
    for (int i = 0; i < THREADS; i++) pthread_join(t[i], NULL);
    CHECK(atomic_load(&failures) == before);
    printf("%s: %d threads x %zu CRCs\n", what, THREADS, JOBS);
}

static void test_switching(void) {
    const char *name = NULL;
    OK(mbh_set_engine(MBH_SHA224, "scalar"));
    OK(mbh_get_engine(MBH_SHA256, &name));
    CHECK(name && strcmp(name, "scalar") == 0);
    EXPECT(mbh_set_engine(MBH_SHA256, "sha3"), MBH_UNKNOWN_ENGINE);
    EXPECT(mbh_set_engine(MBH_SHA256, NULL), MBH_NULL_ARGUMENT);
    EXPECT(mbh_set_engine(77, "auto"), MBH_INVALID_ALGORITHM);
    EXPECT(mbh_get_engine(MBH_SHA256, NULL), MBH_NULL_ARGUMENT);
    OK(mbh_get_engine(MBH_SHA224, &name));
    CHECK(name && strcmp(name, "scalar") == 0); /* unchanged by the errors */
    OK(mbh_set_engine(MBH_CRC32C, "table"));
    OK(mbh_get_engine(MBH_CRC32C, &name));
    CHECK(name && strcmp(name, "table") == 0);
    EXPECT(mbh_set_engine(MBH_CRC32C, "avx9000"), MBH_UNKNOWN_ENGINE);
    EXPECT(mbh_set_engine(MBH_CRC32C, "scalar"), MBH_UNKNOWN_ENGINE);
    OK(mbh_get_engine(MBH_CRC32C, &name));
    CHECK(name && strcmp(name, "table") == 0);
    {
        uint32_t crc = 0;
        OK(mbh_crc32c((const uint8_t *)"123456789", 9, &crc));
        CHECK(crc == 0xE3069283u);
        size_t count = 0;
        OK(mbh_engine_count(MBH_CRC32C, &count));
        CHECK(count == 5);
        bool ok = false;
        OK(mbh_engine_supported(MBH_CRC32C, "table", &ok));
        CHECK(ok);
        EXPECT(mbh_engine_supported(MBH_CRC32C, "scalar", &ok), MBH_UNKNOWN_ENGINE);
        EXPECT(mbh_digest_len(MBH_CRC32C, &count), MBH_INVALID_ALGORITHM);
    }

    size_t saved = JOBS;
    JOBS = JOBS / 4 + 1;
    mbh_pool *pool;
    REQUIRE_OK(mbh_pool_new(&pool));
    atomic_store(&switching, 1);
    pthread_t t;
    CHECK(pthread_create(&t, NULL, switcher, NULL) == 0);
    run_pool_threads(pool, "pool while engines switch");
    run_crc_threads("crc32c while engines switch");
    atomic_store(&switching, 0);
    pthread_join(t, NULL);
    mbh_pool_free(pool);
    JOBS = saved;
    OK(mbh_set_engine(MBH_SHA256, "auto"));
    OK(mbh_set_engine(MBH_SHA512, "auto"));
    OK(mbh_set_engine(MBH_CRC32C, "auto"));
    OK(mbh_get_engine(MBH_SHA384, &name));
    CHECK(name && strcmp(name, "auto") == 0);
    OK(mbh_get_engine(MBH_CRC32C, &name));
    CHECK(name && strcmp(name, "auto") == 0);
    printf("switching: %ld engine switches\n", (long)atomic_load(&switches));
    CHECK(atomic_load(&switches) > 0);
}

int main(int argc, char **argv) {
    if (argc > 1) JOBS = (size_t)strtoul(argv[1], NULL, 0);
    struct rng r = {42};
    for (size_t i = 0; i < sizeof DATA; i++) DATA[i] = (uint8_t)rng_next(&r);
    crc_table_init();
    test_pool_misuse();
    test_service_misuse();
    test_pool();
    test_service();
    test_service_cancel_and_full();
    test_switching();
    CHECK(atomic_load(&failures) == 0);
    return finish("concurrency");
}
