/*
 * The C side-by-side bench: one program, built twice by scripts/bench-c.sh,
 * once against mbhash's C library (-DSIDE_MBHASH: the native manager
 * mbh_submit/mbh_flush, mbh_hash_many, the isa-l_crypto drop-in ABI,
 * mbh_crc32c) and once against ISA-L crypto and ISA-L (-DSIDE_ISAL: the
 * dispatching manager and every per-ISA manager the CPU runs, crc32_iscsi
 * and its per-ISA functions). The two libraries export the same isal_*
 * names, so they never share a binary.
 *
 * Each line printed is one cell and one entry:
 *   cell=sha256/64x8 entry=mbhash/manager ns=123.4 gbps=0.52 fp=1a2b3c4d
 * ns is per job (per call for CRC), gbps the bytes hashed per nanosecond,
 * fp a fingerprint of every digest of the cell, equal across entries and
 * across the two builds when both hash right.
 *
 *   driver [quick]
 */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#if defined(SIDE_MBHASH) || !defined(NO_ISAL_CRYPTO)
#define HAVE_SHA 1
#include <isa-l_crypto/sha256_mb.h>
#include <isa-l_crypto/sha512_mb.h>
#endif
#ifdef SIDE_MBHASH
#include <mbhash.h>
#define SIDE "mbhash"
#else
#ifndef NO_ISAL_CRC
#include <crc.h>
#endif
#define SIDE "isal"
#endif

#define AVX512 "avx512f avx512bw avx512vl avx512dq avx512cd"
#define MAX_JOBS 64
#define MAX_SIZE (128 * 1024)
#define CRC_MAX (1024 * 1024)

static uint8_t *data;
static int quick;

static double now_ns(void)
{
        struct timespec t;
        clock_gettime(CLOCK_MONOTONIC, &t);
        return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

/* Runs `run(arg)` (which does `units` units of `bytes` bytes each) for at
 * least `min_ns`, in batches; returns the best batch's ns per unit. */
static double time_best(void (*run)(void *), void *arg, double *gbps, size_t bytes)
{
        double min_batch = quick ? 2e6 : 20e6;
        int batches = quick ? 2 : 5;
        double best = 1e30;
        long reps = 1;
        /* Calibrate the repetitions so a batch lasts min_batch. */
        for (;;) {
                double t = now_ns();
                for (long i = 0; i < reps; i++)
                        run(arg);
                double e = now_ns() - t;
                if (e >= min_batch / 4 || reps > (1L << 30))
                        break;
                reps *= 2;
        }
        reps *= 4;
        for (int b = 0; b < batches; b++) {
                double t = now_ns();
                for (long i = 0; i < reps; i++)
                        run(arg);
                double e = (now_ns() - t) / (double)reps;
                if (e < best)
                        best = e;
        }
        *gbps = (double)bytes / best;
        return best;
}

static uint32_t fingerprint(const uint8_t *d, size_t n, uint32_t fp)
{
        for (size_t i = 0; i < n; i++)
                fp = (fp ^ d[i]) * 16777619u;
        return fp;
}

static void report(const char *alg, size_t size, int jobs, const char *entry, double ns,
                   double gbps, uint32_t fp)
{
        printf("cell=%s/%zux%d entry=%s/%s ns=%.2f gbps=%.4f fp=%08x\n", alg, size, jobs, SIDE,
               entry, ns, gbps, fp);
        fflush(stdout);
}

static int cpu_supports_all(const char *needs)
{
        char buf[128];
        snprintf(buf, sizeof buf, "%s", needs);
        __builtin_cpu_init();
        for (char *tok = strtok(buf, " "); tok; tok = strtok(NULL, " ")) {
                int ok;
                if (!strcmp(tok, "sse4.1"))
                        ok = __builtin_cpu_supports("sse4.1");
                else if (!strcmp(tok, "avx"))
                        ok = __builtin_cpu_supports("avx");
                else if (!strcmp(tok, "avx2"))
                        ok = __builtin_cpu_supports("avx2");
                else if (!strcmp(tok, "avx512f"))
                        ok = __builtin_cpu_supports("avx512f");
                else if (!strcmp(tok, "avx512bw"))
                        ok = __builtin_cpu_supports("avx512bw");
                else if (!strcmp(tok, "avx512vl"))
                        ok = __builtin_cpu_supports("avx512vl");
                else if (!strcmp(tok, "avx512dq"))
                        ok = __builtin_cpu_supports("avx512dq");
                else if (!strcmp(tok, "avx512cd"))
                        ok = __builtin_cpu_supports("avx512cd");
                else if (!strcmp(tok, "sha"))
                        ok = __builtin_cpu_supports("sha");
                else if (!strcmp(tok, "sse4.2"))
                        ok = __builtin_cpu_supports("sse4.2");
                else if (!strcmp(tok, "pclmul"))
                        ok = __builtin_cpu_supports("pclmul");
                else if (!strcmp(tok, "vpclmulqdq"))
                        ok = __builtin_cpu_supports("vpclmulqdq");
                else
                        ok = 0;
                if (!ok)
                        return 0;
        }
        return 1;
}

#ifdef HAVE_SHA
/* ---- isa-l_crypto's ABI: the drop-in (ours) or the library (theirs) ---- */

typedef ISAL_SHA256_HASH_CTX *(*s256_submit)(ISAL_SHA256_HASH_CTX_MGR *, ISAL_SHA256_HASH_CTX *,
                                             const void *, uint32_t, ISAL_HASH_CTX_FLAG);
typedef ISAL_SHA256_HASH_CTX *(*s256_flush)(ISAL_SHA256_HASH_CTX_MGR *);
typedef void (*s256_init)(ISAL_SHA256_HASH_CTX_MGR *);
typedef ISAL_SHA512_HASH_CTX *(*s512_submit)(ISAL_SHA512_HASH_CTX_MGR *, ISAL_SHA512_HASH_CTX *,
                                             const void *, uint32_t, ISAL_HASH_CTX_FLAG);
typedef ISAL_SHA512_HASH_CTX *(*s512_flush)(ISAL_SHA512_HASH_CTX_MGR *);
typedef void (*s512_init)(ISAL_SHA512_HASH_CTX_MGR *);

/* The current API, wrapped to the per-ISA signature. */
static void api256_init(ISAL_SHA256_HASH_CTX_MGR *m) { isal_sha256_ctx_mgr_init(m); }
static ISAL_SHA256_HASH_CTX *api256_submit(ISAL_SHA256_HASH_CTX_MGR *m, ISAL_SHA256_HASH_CTX *c,
                                           const void *b, uint32_t l, ISAL_HASH_CTX_FLAG f)
{
        ISAL_SHA256_HASH_CTX *out = NULL;
        if (isal_sha256_ctx_mgr_submit(m, c, &out, b, l, f) != 0)
                abort();
        return out;
}
static ISAL_SHA256_HASH_CTX *api256_flush(ISAL_SHA256_HASH_CTX_MGR *m)
{
        ISAL_SHA256_HASH_CTX *out = NULL;
        if (isal_sha256_ctx_mgr_flush(m, &out) != 0)
                abort();
        return out;
}
static void api512_init(ISAL_SHA512_HASH_CTX_MGR *m) { isal_sha512_ctx_mgr_init(m); }
static ISAL_SHA512_HASH_CTX *api512_submit(ISAL_SHA512_HASH_CTX_MGR *m, ISAL_SHA512_HASH_CTX *c,
                                           const void *b, uint32_t l, ISAL_HASH_CTX_FLAG f)
{
        ISAL_SHA512_HASH_CTX *out = NULL;
        if (isal_sha512_ctx_mgr_submit(m, c, &out, b, l, f) != 0)
                abort();
        return out;
}
static ISAL_SHA512_HASH_CTX *api512_flush(ISAL_SHA512_HASH_CTX_MGR *m)
{
        ISAL_SHA512_HASH_CTX *out = NULL;
        if (isal_sha512_ctx_mgr_flush(m, &out) != 0)
                abort();
        return out;
}

struct variant {
        const char *name;
        const char *needs; /* __builtin_cpu_supports names, space-separated */
        void (*init)(void);
        void (*submit)(void);
        void (*flush)(void);
};

#ifdef SIDE_ISAL
/* ISA-L crypto's per-ISA managers: exported, not declared in its headers. */
#define DECLARE256(isa)                                                                            \
        void _sha256_ctx_mgr_init_##isa(ISAL_SHA256_HASH_CTX_MGR *);                               \
        ISAL_SHA256_HASH_CTX *_sha256_ctx_mgr_submit_##isa(ISAL_SHA256_HASH_CTX_MGR *,             \
                                                           ISAL_SHA256_HASH_CTX *, const void *,   \
                                                           uint32_t, ISAL_HASH_CTX_FLAG);          \
        ISAL_SHA256_HASH_CTX *_sha256_ctx_mgr_flush_##isa(ISAL_SHA256_HASH_CTX_MGR *);
#define DECLARE512(isa)                                                                            \
        void _sha512_ctx_mgr_init_##isa(ISAL_SHA512_HASH_CTX_MGR *);                               \
        ISAL_SHA512_HASH_CTX *_sha512_ctx_mgr_submit_##isa(ISAL_SHA512_HASH_CTX_MGR *,             \
                                                           ISAL_SHA512_HASH_CTX *, const void *,   \
                                                           uint32_t, ISAL_HASH_CTX_FLAG);          \
        ISAL_SHA512_HASH_CTX *_sha512_ctx_mgr_flush_##isa(ISAL_SHA512_HASH_CTX_MGR *);
DECLARE256(sse)
DECLARE256(avx)
DECLARE256(avx2)
DECLARE256(avx512)
DECLARE256(sse_ni)
DECLARE256(avx512_ni)
DECLARE512(sse)
DECLARE512(avx)
DECLARE512(avx2)
DECLARE512(avx512)
#define V256(isa, needs)                                                                           \
        {#isa, needs, (void (*)(void))_sha256_ctx_mgr_init_##isa,                                  \
         (void (*)(void))_sha256_ctx_mgr_submit_##isa, (void (*)(void))_sha256_ctx_mgr_flush_##isa}
#define V512(isa, needs)                                                                           \
        {#isa, needs, (void (*)(void))_sha512_ctx_mgr_init_##isa,                                  \
         (void (*)(void))_sha512_ctx_mgr_submit_##isa, (void (*)(void))_sha512_ctx_mgr_flush_##isa}
static const struct variant V256S[] = {
        {"dispatch", "", (void (*)(void))api256_init, (void (*)(void))api256_submit,
         (void (*)(void))api256_flush},
        V256(sse, "sse4.1"),
        V256(avx, "avx"),
        V256(avx2, "avx2"),
        V256(avx512, AVX512),
        V256(sse_ni, "sse4.1 sha"),
        V256(avx512_ni, AVX512 " sha"),
};
static const struct variant V512S[] = {
        {"dispatch", "", (void (*)(void))api512_init, (void (*)(void))api512_submit,
         (void (*)(void))api512_flush},
        V512(sse, "sse4.1"),
        V512(avx, "avx"),
        V512(avx2, "avx2"),
        V512(avx512, AVX512),
};
#else
static const struct variant V256S[] = {
        {"dropin", "", (void (*)(void))api256_init, (void (*)(void))api256_submit,
         (void (*)(void))api256_flush},
};
static const struct variant V512S[] = {
        {"dropin", "", (void (*)(void))api512_init, (void (*)(void))api512_submit,
         (void (*)(void))api512_flush},
};
#endif

/* One cell's jobs: `jobs` messages of `size` bytes, whole (ENTIRE). */
struct cell {
        size_t size;
        int jobs;
        const struct variant *v;
        ISAL_SHA256_HASH_CTX_MGR *m256;
        ISAL_SHA512_HASH_CTX_MGR *m512;
        ISAL_SHA256_HASH_CTX c256[MAX_JOBS];
        ISAL_SHA512_HASH_CTX c512[MAX_JOBS];
        int done;
#ifdef SIDE_MBHASH
        mbh_manager mgr;
        mbh_ctx ctx[MAX_JOBS];
        const uint8_t *msgs[MAX_JOBS];
        size_t lens[MAX_JOBS];
        uint8_t out[MAX_JOBS * 64];
        mbh_algorithm alg;
#endif
};

static void run_isal256(void *arg)
{
        struct cell *c = arg;
        s256_submit submit = (s256_submit)c->v->submit;
        s256_flush flush = (s256_flush)c->v->flush;
        for (int j = 0; j < c->jobs; j++) {
                isal_hash_ctx_init(&c->c256[j]);
                if (submit(c->m256, &c->c256[j], data + (size_t)j * c->size, (uint32_t)c->size,
                           ISAL_HASH_ENTIRE))
                        c->done++;
        }
        while (flush(c->m256))
                c->done++;
}

static void run_isal512(void *arg)
{
        struct cell *c = arg;
        s512_submit submit = (s512_submit)c->v->submit;
        s512_flush flush = (s512_flush)c->v->flush;
        for (int j = 0; j < c->jobs; j++) {
                isal_hash_ctx_init(&c->c512[j]);
                if (submit(c->m512, &c->c512[j], data + (size_t)j * c->size, (uint32_t)c->size,
                           ISAL_HASH_ENTIRE))
                        c->done++;
        }
        while (flush(c->m512))
                c->done++;
}

static uint32_t fp256(const ISAL_SHA256_HASH_CTX *ctx, int jobs)
{
        uint32_t fp = 2166136261u;
        for (int j = 0; j < jobs; j++) {
                uint8_t d[32];
                for (int w = 0; w < 8; w++)
                        for (int b = 0; b < 4; b++)
                                d[4 * w + b] = (uint8_t)(ctx[j].job.result_digest[w] >> (24 - 8 * b));
                fp = fingerprint(d, 32, fp);
        }
        return fp;
}

static uint32_t fp512(const ISAL_SHA512_HASH_CTX *ctx, int jobs)
{
        uint32_t fp = 2166136261u;
        for (int j = 0; j < jobs; j++) {
                uint8_t d[64];
                for (int w = 0; w < 8; w++)
                        for (int b = 0; b < 8; b++)
                                d[8 * w + b] = (uint8_t)(ctx[j].job.result_digest[w] >> (56 - 8 * b));
                fp = fingerprint(d, 64, fp);
        }
        return fp;
}

#ifdef SIDE_MBHASH
static void run_manager(void *arg)
{
        struct cell *c = arg;
        mbh_ctx *done = NULL;
        for (int j = 0; j < c->jobs; j++) {
                if (mbh_submit(&c->mgr, &c->ctx[j], data + (size_t)j * c->size, c->size, MBH_ENTIRE,
                               &done) != MBH_OK)
                        abort();
                if (done)
                        c->done++;
        }
        for (;;) {
                if (mbh_flush(&c->mgr, &done) != MBH_OK)
                        abort();
                if (!done)
                        break;
                c->done++;
        }
}

static void run_hash_many(void *arg)
{
        struct cell *c = arg;
        if (mbh_hash_many(c->alg, c->msgs, c->lens, (size_t)c->jobs, c->out, sizeof c->out) != MBH_OK)
                abort();
        c->done += c->jobs;
}
#endif

static void sha_cell(int bits, size_t size, int jobs)
{
        static struct cell c;
        const char *alg = bits == 256 ? "sha256" : "sha512";
#ifdef SIDE_MBHASH
        size_t dlen = bits == 256 ? 32 : 64;
#endif
        const struct variant *vs = bits == 256 ? V256S : V512S;
        size_t nv = bits == 256 ? sizeof V256S / sizeof V256S[0] : sizeof V512S / sizeof V512S[0];
        double gbps;
        memset(&c, 0, sizeof c);
        c.size = size;
        c.jobs = jobs;
        for (size_t i = 0; i < nv; i++) {
                if (!cpu_supports_all(vs[i].needs))
                        continue;
                c.v = &vs[i];
                if (bits == 256) {
                        if (posix_memalign((void **)&c.m256, 64, sizeof *c.m256))
                                abort();
                        ((s256_init)vs[i].init)(c.m256);
                } else {
                        if (posix_memalign((void **)&c.m512, 64, sizeof *c.m512))
                                abort();
                        ((s512_init)vs[i].init)(c.m512);
                }
                c.done = 0;
                double ns = time_best(bits == 256 ? run_isal256 : run_isal512, &c, &gbps,
                                      size * (size_t)jobs);
                if (c.done % jobs)
                        abort();
                uint32_t fp = bits == 256 ? fp256(c.c256, jobs) : fp512(c.c512, jobs);
                report(alg, size, jobs, vs[i].name, ns / jobs, gbps, fp);
                free(c.m256);
                free(c.m512);
                c.m256 = NULL;
                c.m512 = NULL;
        }
#ifdef SIDE_MBHASH
        c.alg = bits == 256 ? MBH_SHA256 : MBH_SHA512;
        if (mbh_manager_init(&c.mgr, c.alg) != MBH_OK)
                abort();
        for (int j = 0; j < jobs; j++) {
                if (mbh_ctx_init(&c.ctx[j], c.alg, NULL) != MBH_OK)
                        abort();
                c.msgs[j] = data + (size_t)j * size;
                c.lens[j] = size;
        }
        c.done = 0;
        double ns = time_best(run_manager, &c, &gbps, size * (size_t)jobs);
        uint32_t fp = 2166136261u;
        for (int j = 0; j < jobs; j++) {
                uint8_t d[64];
                size_t n = 0;
                if (mbh_ctx_digest(&c.ctx[j], d, sizeof d, &n) != MBH_OK || n != dlen)
                        abort();
                fp = fingerprint(d, dlen, fp);
        }
        report(alg, size, jobs, "manager", ns / jobs, gbps, fp);
        mbh_manager_fini(&c.mgr);
        ns = time_best(run_hash_many, &c, &gbps, size * (size_t)jobs);
        report(alg, size, jobs, "hash_many", ns / jobs, gbps,
               fingerprint(c.out, dlen * (size_t)jobs, 2166136261u));
#endif
}

#endif /* HAVE_SHA */

/* ---- CRC32C (iSCSI) ---- */

struct crc_cell {
        size_t len;
        uint32_t sink;
        uint32_t (*fn)(const uint8_t *, size_t);
};

static void run_crc(void *arg)
{
        struct crc_cell *c = arg;
        c->sink ^= c->fn(data, c->len);
}

#ifdef SIDE_MBHASH
static uint32_t ours_crc32c(const uint8_t *d, size_t n)
{
        uint32_t crc;
        if (mbh_crc32c(d, n, &crc) != MBH_OK)
                abort();
        return crc;
}
static const struct {
        const char *name;
        const char *needs;
        uint32_t (*fn)(const uint8_t *, size_t);
} CRCS[] = {{"mbh_crc32c", "", ours_crc32c}};
#elif !defined(NO_ISAL_CRC)
/* ISA-L's crc32_iscsi takes (buf, len, init) and returns the register
 * without the final inversion: CRC-32C is ~crc32_iscsi(buf, len, ~0). The
 * per-ISA functions are exported but not declared. */
unsigned int crc32_iscsi_base(unsigned char *, int, unsigned int);
unsigned int crc32_iscsi_01(unsigned char *, int, unsigned int);
unsigned int crc32_iscsi_by8_02(unsigned char *, int, unsigned int);
unsigned int crc32_iscsi_avx2(unsigned char *, int, unsigned int);
unsigned int crc32_iscsi_by16_10(unsigned char *, int, unsigned int);
#define ISCSI(f)                                                                                   \
        static uint32_t call_##f(const uint8_t *d, size_t n)                                       \
        {                                                                                          \
                return ~f((unsigned char *)d, (int)n, 0xffffffffu);                                \
        }
ISCSI(crc32_iscsi)
ISCSI(crc32_iscsi_base)
ISCSI(crc32_iscsi_01)
ISCSI(crc32_iscsi_by8_02)
ISCSI(crc32_iscsi_avx2)
ISCSI(crc32_iscsi_by16_10)
static const struct {
        const char *name;
        const char *needs;
        uint32_t (*fn)(const uint8_t *, size_t);
} CRCS[] = {
        {"crc32_iscsi", "", call_crc32_iscsi},
        {"crc32_iscsi_base", "", call_crc32_iscsi_base},
        {"crc32_iscsi_01", "sse4.2 pclmul", call_crc32_iscsi_01},
        {"crc32_iscsi_by8_02", "avx sse4.2 pclmul", call_crc32_iscsi_by8_02},
        {"crc32_iscsi_avx2", "avx2 vpclmulqdq", call_crc32_iscsi_avx2},
        {"crc32_iscsi_by16_10", AVX512 " vpclmulqdq", call_crc32_iscsi_by16_10},
};
#endif

#if defined(SIDE_MBHASH) || !defined(NO_ISAL_CRC)
static void crc_cell(size_t len)
{
        struct crc_cell c;
        double gbps;
        for (size_t i = 0; i < sizeof CRCS / sizeof CRCS[0]; i++) {
                if (!cpu_supports_all(CRCS[i].needs))
                        continue;
                c.len = len;
                c.sink = 0;
                c.fn = CRCS[i].fn;
                uint32_t crc = c.fn(data, len);
                double ns = time_best(run_crc, &c, &gbps, len);
                report("crc32c", len, 1, CRCS[i].name, ns, gbps, crc);
        }
}
#endif

int main(int argc, char **argv)
{
        quick = argc > 1 && !strcmp(argv[1], "quick");
        size_t total = (size_t)MAX_JOBS * MAX_SIZE;
        if (total < CRC_MAX)
                total = CRC_MAX;
        if (posix_memalign((void **)&data, 64, total))
                return 1;
        uint64_t x = 0x9e3779b97f4a7c15u;
        for (size_t i = 0; i < total; i++) {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                data[i] = (uint8_t)x;
        }
#if defined(SIDE_MBHASH) || !defined(NO_ISAL_CRC)
        static const size_t crc_sizes[] = {64, 512, 4096, 65536, 1048576};
        for (size_t i = 0; i < sizeof crc_sizes / sizeof crc_sizes[0]; i++)
                if (!quick || crc_sizes[i] == 4096)
                        crc_cell(crc_sizes[i]);
#endif
#ifdef HAVE_SHA
        static const struct {
                int bits;
                size_t size;
                int jobs;
        } cells[] = {
                {256, 64, 1},       {256, 64, 2},        {256, 64, 4},       {256, 64, 8},
                {256, 64, 16},      {256, 64, 64},       {256, 4096, 2},     {256, 4096, 16},
                {256, 131072, 16},  {256, 131072, 64},   {512, 64, 1},       {512, 4096, 16},
                {512, 131072, 64},
        };
        for (size_t i = 0; i < sizeof cells / sizeof cells[0]; i++)
                if (!quick || (cells[i].size == 4096 && cells[i].jobs == 16))
                        sha_cell(cells[i].bits, cells[i].size, cells[i].jobs);
#endif
        free(data);
        return 0;
}
