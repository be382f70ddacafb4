/*
 * Stack use of the kernel-style library, measured: an ordinary C program
 * (libc and pthreads are only the harness here) linked with the kernel
 * archive runs every export on a thread whose stack is a buffer of ours.
 * Before each call the unused part of the stack is painted; after it, the
 * deepest byte that changed tells how far below the caller's stack pointer
 * the call went (its return address, its frames, and any stack argument
 * the caller pushed).
 *
 * Every algorithm and every engine this CPU runs: managers and contexts
 * initialised, whole messages and streams submitted until the lanes are
 * full and the kernels run inside mbh_submit, flushes, digests, queries,
 * the pool alone and with another thread's jobs joining its lanes,
 * the isa-l_crypto compatible functions (mbh_hash_many is not in the
 * kernel-style library), and every CRC function (mbh_crc*, mbh_crc32c*,
 * the ISA-L CRC drop-in) on every CRC and CRC32C engine. Prints the deepest use of each function and fails
 * if any exceeds MBH_KERNEL_STACK_MAX.
 */
#define _GNU_SOURCE /* pthread_attr_setstack */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "isa-l/crc.h"
#include "isa-l/crc64.h"
#include "isa-l_crypto/sha256_mb.h"
#include "isa-l_crypto/sha512_mb.h"
#include "isa-l_crypto/md5_mb.h"
#include "isa-l_crypto/sha1_mb.h"
#include "isa-l_crypto/sm3_mb.h"
#include "mbhash.h"
#include <sys/uio.h>

#define STACK_SIZE (128 * 1024)
#define PAINT 0xa5
/* Bytes just below the caller's stack pointer left unpainted: the frames of
 * paint() and record() (a call using less than this is not seen). */
#define MARGIN 256

static unsigned char stack_mem[STACK_SIZE] __attribute__((aligned(4096)));
static int failures;

/* The deepest use of each function, by name. */
static struct use {
    const char *name;
    size_t bytes;
} uses[128];
static size_t nuses;

__attribute__((noinline)) static void paint(uintptr_t sp) {
    memset(stack_mem, PAINT, sp - MARGIN - (uintptr_t)stack_mem);
}

__attribute__((noinline)) static void record(const char *name, uintptr_t sp) {
    const unsigned char *p = stack_mem;
    const unsigned char *end = (const unsigned char *)(sp - MARGIN);
    while (p < end && *p == PAINT) p++;
    if (p == stack_mem) {
        fprintf(stderr, "%s overflowed the %d-byte test stack\n", name, STACK_SIZE);
        exit(1);
    }
    size_t bytes = sp - (uintptr_t)p;
    size_t i = 0;
    while (i < nuses && strcmp(uses[i].name, name) != 0) i++;
    if (i == nuses) {
        if (nuses == sizeof uses / sizeof uses[0]) abort();
        uses[nuses++] = (struct use){name, 0};
    }
    if (bytes > uses[i].bytes) uses[i].bytes = bytes;
}

/* Runs `call` with a freshly painted stack and records its depth under `name`. */
#define MEASURE(name, call)                                                                    \
    do {                                                                                       \
        uintptr_t sp_;                                                                         \
        __asm__ volatile("mov %%rsp, %0" : "=r"(sp_));                                         \
        paint(sp_);                                                                            \
        call;                                                                                  \
        record(name, sp_);                                                                     \
    } while (0)

static void expect_ok(mbh_result r, const char *what) {
    if (r != MBH_OK) {
        fprintf(stderr, "%s: %s\n", what, mbh_result_str(r));
        failures++;
    }
}

#define NCTX 40
static mbh_manager manager;
static mbh_ctx ctxs[NCTX];
static uint8_t data[300000 + NCTX];
/* Lengths around block and padding boundaries, and a few long ones. */
static const size_t LENS[] = {0, 1, 55, 56, 63, 64, 111, 112, 119, 127, 128, 200, 1000, 4096, 65536,
                              300000};
#define NLENS (sizeof LENS / sizeof LENS[0])

/* Every native export on one algorithm and engine (NULL: the default). */
static void native(mbh_algorithm alg, const char *engine) {
    mbh_result r;
    mbh_ctx *done;
    if (engine) {
        MEASURE("mbh_manager_init_with_engine", r = mbh_manager_init_with_engine(&manager, alg, engine));
    } else {
        MEASURE("mbh_manager_init", r = mbh_manager_init(&manager, alg));
    }
    expect_ok(r, "mbh_manager_init");
    for (size_t i = 0; i < NCTX; i++) {
        MEASURE("mbh_ctx_init", r = mbh_ctx_init(&ctxs[i], alg, &ctxs[i]));
        expect_ok(r, "mbh_ctx_init");
    }
    /* Whole messages: the lanes fill up and the kernels run inside submit. */
    for (size_t i = 0; i < NCTX; i++) {
        MEASURE("mbh_submit", r = mbh_submit(&manager, &ctxs[i], data, LENS[i % NLENS], MBH_ENTIRE, &done));
        expect_ok(r, "mbh_submit");
        /* Contexts that came back are simply reused below. */
    }
    do {
        MEASURE("mbh_flush", r = mbh_flush(&manager, &done));
        expect_ok(r, "mbh_flush");
    } while (done);
    /* Streams: every context in three parts. */
    for (size_t part = 0; part < 3; part++) {
        mbh_flags flags = part == 0 ? MBH_FIRST : part == 1 ? MBH_UPDATE : MBH_LAST;
        for (size_t i = 0; i < NCTX; i++) {
            MEASURE("mbh_submit", r = mbh_submit(&manager, &ctxs[i], data + part, LENS[(i + part) % NLENS] / 3, flags, &done));
            expect_ok(r, "mbh_submit (stream)");
        }
        do {
            MEASURE("mbh_flush", r = mbh_flush(&manager, &done));
            expect_ok(r, "mbh_flush");
        } while (done);
    }
    for (size_t i = 0; i < NCTX; i++) {
        uint8_t digest[MBH_MAX_DIGEST_LEN];
        size_t len;
        mbh_status status;
        void *user;
        mbh_algorithm a;
        MEASURE("mbh_ctx_digest", r = mbh_ctx_digest(&ctxs[i], digest, sizeof digest, &len));
        expect_ok(r, "mbh_ctx_digest");
        MEASURE("mbh_ctx_status", r = mbh_ctx_status(&ctxs[i], &status));
        expect_ok(r, "mbh_ctx_status");
        MEASURE("mbh_ctx_get_user_data", r = mbh_ctx_get_user_data(&ctxs[i], &user));
        expect_ok(r, "mbh_ctx_get_user_data");
        MEASURE("mbh_ctx_set_user_data", r = mbh_ctx_set_user_data(&ctxs[i], user));
        expect_ok(r, "mbh_ctx_set_user_data");
        MEASURE("mbh_ctx_algorithm", r = mbh_ctx_algorithm(&ctxs[i], &a));
        expect_ok(r, "mbh_ctx_algorithm");
        MEASURE("mbh_ctx_reset", r = mbh_ctx_reset(&ctxs[i]));
        expect_ok(r, "mbh_ctx_reset");
    }
    size_t lanes, in_flight;
    const char *name;
    MEASURE("mbh_manager_lanes", r = mbh_manager_lanes(&manager, &lanes));
    expect_ok(r, "mbh_manager_lanes");
    MEASURE("mbh_manager_in_flight", r = mbh_manager_in_flight(&manager, &in_flight));
    expect_ok(r, "mbh_manager_in_flight");
    MEASURE("mbh_manager_engine", r = mbh_manager_engine(&manager, &name));
    expect_ok(r, "mbh_manager_engine");
    /* Finishing a manager with jobs in flight releases them. */
    for (size_t i = 0; i < 5; i++) {
        MEASURE("mbh_submit", r = mbh_submit(&manager, &ctxs[i], data, 1000, MBH_ENTIRE, &done));
        expect_ok(r, "mbh_submit");
    }
    MEASURE("mbh_manager_fini", r = mbh_manager_fini(&manager));
    expect_ok(r, "mbh_manager_fini");
}

/* The pool, on one thread, with trivial host operations. */
static mbh_pool pool;
static void nop(void *arg, uint32_t slot) {
    (void)arg;
    (void)slot;
}

static void pooled(mbh_algorithm alg) {
    mbh_result r;
    mbh_pool_ops ops = {NULL, nop, nop, nop, nop, 0};
    MEASURE("mbh_pool_init", r = mbh_pool_init(&pool, &ops));
    expect_ok(r, "mbh_pool_init");
    uint8_t out[MBH_MAX_DIGEST_LEN];
    for (size_t i = 0; i < NLENS; i++) {
        size_t len = LENS[i], a = len / 3;
        struct iovec iov[3] = {{data, a}, {data + a, len / 2 - a}, {data + len / 2, len - len / 2}};
        MEASURE("mbh_pool_hash", r = mbh_pool_hash(&pool, alg, iov, 1 + i % 3, out, sizeof out));
        expect_ok(r, "mbh_pool_hash");
    }
    MEASURE("mbh_pool_fini", r = mbh_pool_fini(&pool));
    expect_ok(r, "mbh_pool_fini");
}

/* The pool with another thread's jobs joining: on one CPU (`cpus` 1), the
 * helper's calls join this thread's lanes while it combines (and this one
 * joins the helper's when it does), so the multi-lane kernels run inside
 * the measured calls. The host operations are trivial: a waiting caller
 * spins (the library loops until its job is done). */
static mbh_pool shared_pool;
static atomic_int helper_stop;
static mbh_algorithm helper_alg;

static void *helper(void *arg) {
    (void)arg;
    uint8_t out[MBH_MAX_DIGEST_LEN];
    struct iovec iov = {data, 65536};
    while (!atomic_load(&helper_stop)) {
        expect_ok(mbh_pool_hash(&shared_pool, helper_alg, &iov, 1, out, sizeof out),
                  "mbh_pool_hash (helper)");
    }
    return NULL;
}

static void pooled_shared(mbh_algorithm alg) {
    mbh_result r;
    mbh_pool_ops ops = {NULL, nop, nop, nop, nop, 1};
    expect_ok(mbh_pool_init(&shared_pool, &ops), "mbh_pool_init");
    helper_alg = alg;
    atomic_store(&helper_stop, 0);
    pthread_t t;
    if (pthread_create(&t, NULL, helper, NULL)) {
        fprintf(stderr, "cannot run the helper thread\n");
        exit(1);
    }
    uint8_t out[MBH_MAX_DIGEST_LEN];
    struct iovec iov = {data, 300000};
    for (int i = 0; i < 20; i++) {
        MEASURE("mbh_pool_hash", r = mbh_pool_hash(&shared_pool, alg, &iov, 1, out, sizeof out));
        expect_ok(r, "mbh_pool_hash (shared)");
    }
    atomic_store(&helper_stop, 1);
    pthread_join(t, NULL);
    expect_ok(mbh_pool_fini(&shared_pool), "mbh_pool_fini");
}

/* Queries that take no manager. */
static void queries(mbh_algorithm alg) {
    mbh_result r;
    size_t count, len;
    MEASURE("mbh_engine_count", r = mbh_engine_count(alg, &count));
    expect_ok(r, "mbh_engine_count");
    MEASURE("mbh_digest_len", r = mbh_digest_len(alg, &len));
    expect_ok(r, "mbh_digest_len");
    for (size_t e = 0; e < count; e++) {
        const char *name;
        bool supported;
        MEASURE("mbh_engine_name", r = mbh_engine_name(alg, e, &name));
        expect_ok(r, "mbh_engine_name");
        MEASURE("mbh_engine_supported", r = mbh_engine_supported(alg, name, &supported));
        expect_ok(r, "mbh_engine_supported");
    }
    const char *s;
    MEASURE("mbh_result_str", s = mbh_result_str(MBH_PANIC));
    MEASURE("mbh_version", s = mbh_version());
    (void)s;
}

static ISAL_SHA256_HASH_CTX_MGR isal256;
static ISAL_SHA256_HASH_CTX ctx256[NCTX];
static ISAL_SHA512_HASH_CTX_MGR isal512;
static ISAL_SHA512_HASH_CTX ctx512[NCTX];
static ISAL_MD5_HASH_CTX_MGR isalmd5;
static ISAL_MD5_HASH_CTX ctxmd5[NCTX];
static ISAL_SHA1_HASH_CTX_MGR isalsha1;
static ISAL_SHA1_HASH_CTX ctxsha1[NCTX];
static ISAL_SM3_HASH_CTX_MGR isalsm3;
static ISAL_SM3_HASH_CTX ctxsm3[NCTX];

/* The isa-l_crypto compatible functions of one family (`fam` as in the
 * function names, `FAM` as in the types). */
#define ISAL_FAMILY(fam, FAM, mgr, ctx)                                                        \
    do {                                                                                       \
        int e;                                                                                 \
        ISAL_##FAM##_HASH_CTX *out;                                                            \
        MEASURE("isal_" #fam "_ctx_mgr_init", e = isal_##fam##_ctx_mgr_init(&mgr));            \
        if (e) failures++;                                                                     \
        for (size_t i = 0; i < NCTX; i++) {                                                    \
            isal_hash_ctx_init(&ctx[i]);                                                       \
            MEASURE("isal_" #fam "_ctx_mgr_submit",                                            \
                    e = isal_##fam##_ctx_mgr_submit(&mgr, &ctx[i], &out, data,                 \
                                                    (uint32_t)LENS[i % NLENS],                 \
                                                    ISAL_HASH_ENTIRE));                        \
            if (e) failures++;                                                                 \
        }                                                                                      \
        do {                                                                                   \
            MEASURE("isal_" #fam "_ctx_mgr_flush", e = isal_##fam##_ctx_mgr_flush(&mgr, &out)); \
            if (e) failures++;                                                                 \
        } while (out);                                                                         \
    } while (0)

/* Every CRC function at every length of LENS, on the engines set now. */
static void crcs(void) {
    mbh_result r;
    unsigned char *d = data;
    static unsigned char copy[300000];
    for (mbh_crc_id id = 1; id < MBH_CRC_COUNT; id++) {
        uint64_t a = 0, b = 0;
        uint32_t w = 0;
        const char *name;
        mbh_crc_id back;
        MEASURE("mbh_crc_name", r = mbh_crc_name(id, &name));
        expect_ok(r, "mbh_crc_name");
        MEASURE("mbh_crc_from_name", r = mbh_crc_from_name(name, &back));
        expect_ok(r, "mbh_crc_from_name");
        MEASURE("mbh_crc_width", r = mbh_crc_width(id, &w));
        expect_ok(r, "mbh_crc_width");
        for (size_t i = 0; i < NLENS; i++) {
            size_t len = LENS[i];
            MEASURE("mbh_crc", r = mbh_crc(id, data + 1, len, &a));
            expect_ok(r, "mbh_crc");
            MEASURE("mbh_crc_append", r = mbh_crc_append(id, a, data, len, &b));
            expect_ok(r, "mbh_crc_append");
            MEASURE("mbh_crc_combine", r = mbh_crc_combine(id, a, b, len, &b));
            expect_ok(r, "mbh_crc_combine");
        }
    }
    for (size_t i = 0; i < NLENS; i++) {
        size_t n = LENS[i];
        uint16_t c16;
        uint32_t c32;
        uint64_t c64;
        MEASURE("mbh_crc16_t10dif", r = mbh_crc16_t10dif(data, n, &c16));
        MEASURE("mbh_crc16_t10dif_append", r = mbh_crc16_t10dif_append(c16, data, n, &c16));
        MEASURE("mbh_crc32", r = mbh_crc32(data, n, &c32));
        MEASURE("mbh_crc32_append", r = mbh_crc32_append(c32, data, n, &c32));
        MEASURE("mbh_crc32_bzip2", r = mbh_crc32_bzip2(data, n, &c32));
        MEASURE("mbh_crc32_bzip2_append", r = mbh_crc32_bzip2_append(c32, data, n, &c32));
        MEASURE("mbh_crc32_cksum", r = mbh_crc32_cksum(data, n, &c32));
        MEASURE("mbh_crc32_cksum_append", r = mbh_crc32_cksum_append(c32, data, n, &c32));
        MEASURE("mbh_crc64_nvme", r = mbh_crc64_nvme(data, n, &c64));
        MEASURE("mbh_crc64_nvme_append", r = mbh_crc64_nvme_append(c64, data, n, &c64));
        MEASURE("mbh_crc64_xz", r = mbh_crc64_xz(data, n, &c64));
        MEASURE("mbh_crc64_xz_append", r = mbh_crc64_xz_append(c64, data, n, &c64));
        MEASURE("mbh_crc64_ecma_182", r = mbh_crc64_ecma_182(data, n, &c64));
        MEASURE("mbh_crc64_ecma_182_append", r = mbh_crc64_ecma_182_append(c64, data, n, &c64));
        MEASURE("mbh_crc64_we", r = mbh_crc64_we(data, n, &c64));
        MEASURE("mbh_crc64_we_append", r = mbh_crc64_we_append(c64, data, n, &c64));
        MEASURE("mbh_crc64_go_iso", r = mbh_crc64_go_iso(data, n, &c64));
        MEASURE("mbh_crc64_go_iso_append", r = mbh_crc64_go_iso_append(c64, data, n, &c64));
        MEASURE("mbh_crc64_redis", r = mbh_crc64_redis(data, n, &c64));
        MEASURE("mbh_crc64_redis_append", r = mbh_crc64_redis_append(c64, data, n, &c64));
        MEASURE("mbh_crc32c", r = mbh_crc32c(data, n, &c32));
        MEASURE("mbh_crc32c_append", r = mbh_crc32c_append(c32, data, n, &c32));
        MEASURE("mbh_crc32c_combine", r = mbh_crc32c_combine(c32, c32, n, &c32));
        expect_ok(r, "mbh_crc*");
        /* The ISA-L drop-in (no error codes). */
        MEASURE("crc16_t10dif", c16 = crc16_t10dif(0, d, n));
        MEASURE("crc16_t10dif_copy", c16 = crc16_t10dif_copy(c16, copy, d, n));
        MEASURE("crc32_ieee", c32 = crc32_ieee(0, d, n));
        MEASURE("crc32_gzip_refl", c32 = crc32_gzip_refl(c32, d, n));
        MEASURE("crc32_iscsi", c32 = crc32_iscsi(d, (int)n, c32));
        MEASURE("crc64_ecma_refl", c64 = crc64_ecma_refl(0, d, n));
        MEASURE("crc64_ecma_norm", c64 = crc64_ecma_norm(c64, d, n));
        MEASURE("crc64_iso_refl", c64 = crc64_iso_refl(c64, d, n));
        MEASURE("crc64_iso_norm", c64 = crc64_iso_norm(c64, d, n));
        MEASURE("crc64_jones_refl", c64 = crc64_jones_refl(c64, d, n));
        MEASURE("crc64_jones_norm", c64 = crc64_jones_norm(c64, d, n));
        MEASURE("crc64_rocksoft_refl", c64 = crc64_rocksoft_refl(c64, d, n));
        MEASURE("crc64_rocksoft_norm", c64 = crc64_rocksoft_norm(c64, d, n));
        (void)c16;
    }
}

/* crcs() on every engine of `family` (MBH_CRC or MBH_CRC32C), then auto. */
static void crc_engines(mbh_algorithm family) {
    size_t count = 0;
    mbh_result r;
    MEASURE("mbh_engine_count", r = mbh_engine_count(family, &count));
    expect_ok(r, "mbh_engine_count (CRC)");
    for (size_t e = 0; e < count; e++) {
        const char *name, *now;
        bool supported = false;
        mbh_engine_name(family, e, &name);
        mbh_engine_supported(family, name, &supported);
        if (!supported) continue;
        MEASURE("mbh_set_engine", r = mbh_set_engine(family, name));
        expect_ok(r, "mbh_set_engine (CRC)");
        MEASURE("mbh_get_engine", r = mbh_get_engine(family, &now));
        expect_ok(r, "mbh_get_engine (CRC)");
        crcs();
    }
    expect_ok(mbh_set_engine(family, "auto"), "mbh_set_engine (CRC)");
}

static void *workload(void *arg) {
    (void)arg;
    static const mbh_algorithm algs[] = {MBH_SHA256, MBH_SHA224, MBH_SHA512, MBH_SHA384, MBH_SHA512_256,
                                         MBH_SHA512_224, MBH_MD5, MBH_SHA1, MBH_SM3};
    for (size_t a = 0; a < sizeof algs / sizeof algs[0]; a++) {
        queries(algs[a]);
        pooled(algs[a]);
        pooled_shared(algs[a]);
        native(algs[a], NULL);
        size_t count = 0;
        mbh_engine_count(algs[a], &count);
        for (size_t e = 0; e < count; e++) {
            const char *name;
            bool supported = false;
            mbh_engine_name(algs[a], e, &name);
            mbh_engine_supported(algs[a], name, &supported);
            if (supported) native(algs[a], name);
        }
    }
    crcs();
    crc_engines(MBH_CRC);
    crc_engines(MBH_CRC32C);
    ISAL_FAMILY(sha256, SHA256, isal256, ctx256);
    ISAL_FAMILY(sha512, SHA512, isal512, ctx512);
    ISAL_FAMILY(md5, MD5, isalmd5, ctxmd5);
    ISAL_FAMILY(sha1, SHA1, isalsha1, ctxsha1);
    ISAL_FAMILY(sm3, SM3, isalsm3, ctxsm3);
    return NULL;
}

int main(void) {
    for (size_t i = 0; i < sizeof data; i++) data[i] = (uint8_t)(i * 7 + i / 251);
    pthread_attr_t attr;
    pthread_t thread;
    if (pthread_attr_init(&attr) || pthread_attr_setstack(&attr, stack_mem, sizeof stack_mem) ||
        pthread_create(&thread, &attr, workload, NULL) || pthread_join(thread, NULL)) {
        fprintf(stderr, "cannot run the thread\n");
        return 1;
    }
    size_t worst = 0, pool_worst = 0;
    const char *worst_name = "";
    for (size_t i = 0; i < nuses; i++) {
        if (strcmp(uses[i].name, "mbh_pool_hash") == 0) {
            /* Bounded by MBH_KERNEL_POOL_STACK_MAX instead. */
            printf("  %-32s %6zu bytes (MBH_KERNEL_POOL_STACK_MAX)\n", uses[i].name, uses[i].bytes);
            if (uses[i].bytes > pool_worst) pool_worst = uses[i].bytes;
            continue;
        }
        if (uses[i].bytes <= MARGIN) {
            printf("  %-32s <= %3d bytes\n", uses[i].name, MARGIN);
        } else {
            printf("  %-32s %6zu bytes\n", uses[i].name, uses[i].bytes);
        }
        if (uses[i].bytes > worst) {
            worst = uses[i].bytes;
            worst_name = uses[i].name;
        }
    }
    printf("deepest: %zu bytes (%s); MBH_KERNEL_STACK_MAX is %zu\n", worst, worst_name,
           (size_t)MBH_KERNEL_STACK_MAX);
    printf("mbh_pool_hash: %zu bytes; MBH_KERNEL_POOL_STACK_MAX is %zu\n", pool_worst,
           (size_t)MBH_KERNEL_POOL_STACK_MAX);
    if (pool_worst == 0 || pool_worst > MBH_KERNEL_POOL_STACK_MAX) {
        printf("FAIL: mbh_pool_hash not measured or above MBH_KERNEL_POOL_STACK_MAX\n");
        failures++;
    }
    if (worst > MBH_KERNEL_STACK_MAX) {
        printf("FAIL: more than MBH_KERNEL_STACK_MAX\n");
        failures++;
    }
    if (failures) printf("FAILED: %d failures\n", failures);
    return failures ? 1 : 0;
}
