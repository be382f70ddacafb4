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
 *   driver [quick] [crc|sha]   (crc, sha: only those cells)
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

__attribute__((unused)) static uint32_t fingerprint(const uint8_t *d, size_t n, uint32_t fp)
{
        for (size_t i = 0; i < n; i++)
                fp = (fp ^ d[i]) * 16777619u;
        return fp;
}

__attribute__((unused)) static void report(const char *alg, size_t size, int jobs, const char *entry, double ns,
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

/* ---- every CRC of ISA-L's crc.h and crc64.h ----
 *
 * A cell is one ISA-L function at one size, named after it
 * (crc64_rocksoft_refl/4096x1). The ISA-L build times its dispatcher and
 * every per-ISA function the library exports (bench-c.sh defines
 * HAVE_<symbol> for each one nm finds) and the CPU runs; the mbhash build
 * times the drop-in of the same name (mbhash-ffi/include/isa-l), mbh_crc
 * with the variant's id, and the per-variant mbh_* function where there is
 * one. Every entry of a cell returns the same value: the ISA-L function from
 * seed 0 (crc32_iscsi: the standard CRC32C, ~crc32_iscsi(buf, len, ~0)),
 * which is the catalogue CRC of the matching mbhash variant. The
 * crc16_t10dif_copy cells copy into a second buffer (checked once) and also
 * time memcpy followed by crc16_t10dif, the work the copy form replaces. */

#if defined(SIDE_MBHASH) || !defined(NO_ISAL_CRC)
#define HAVE_CRC 1
#include <crc.h>
#include <crc64.h>
#endif

#ifdef HAVE_CRC
static uint8_t *dst;

struct crc_entry {
        const char *cell;  /* the ISA-L function the cell is named after */
        const char *entry; /* what is called */
        const char *needs; /* __builtin_cpu_supports names */
        uint64_t (*fn)(const uint8_t *, size_t);
};

/* One call of an ISA-L-shaped function from seed 0. */
#define SEED0(f)                                                                                   \
        static uint64_t call_##f(const uint8_t *d, size_t n)                                       \
        {                                                                                          \
                return f(0, (unsigned char *)d, (uint64_t)n);                                      \
        }
/* crc32_iscsi's order and convention: (buf, len, init), no inversions. */
#define ISCSI(f)                                                                                   \
        static uint64_t call_##f(const uint8_t *d, size_t n)                                       \
        {                                                                                          \
                return ~f((unsigned char *)d, (int)n, 0xffffffffu) & 0xffffffffu;                  \
        }
#define COPY(f)                                                                                    \
        static uint64_t call_##f(const uint8_t *d, size_t n)                                       \
        {                                                                                          \
                return f(0, dst, (unsigned char *)d, (uint64_t)n);                                 \
        }
#define E(cell, f, needs) {#cell, #f, needs, call_##f}

/* Both builds: the ISA-L names (ISA-L's or the drop-in's). */
SEED0(crc16_t10dif)
COPY(crc16_t10dif_copy)
SEED0(crc32_ieee)
SEED0(crc32_gzip_refl)
ISCSI(crc32_iscsi)
SEED0(crc64_ecma_refl)
SEED0(crc64_ecma_norm)
SEED0(crc64_iso_refl)
SEED0(crc64_iso_norm)
SEED0(crc64_jones_refl)
SEED0(crc64_jones_norm)
#ifdef SIDE_MBHASH
#define HAVE_crc64_rocksoft_refl 1
#define HAVE_crc64_rocksoft_norm 1
#else
/* ISA-L before 2.31 has no Rocksoft functions (nor in its crc64.h). */
#ifdef HAVE_crc64_rocksoft_refl
uint64_t crc64_rocksoft_refl(uint64_t, const unsigned char *, uint64_t);
uint64_t crc64_rocksoft_norm(uint64_t, const unsigned char *, uint64_t);
uint64_t crc64_rocksoft_refl_base(uint64_t, const unsigned char *, uint64_t);
uint64_t crc64_rocksoft_norm_base(uint64_t, const unsigned char *, uint64_t);
#endif
#endif
#ifdef HAVE_crc64_rocksoft_refl
SEED0(crc64_rocksoft_refl)
SEED0(crc64_rocksoft_norm)
#endif

static uint64_t call_memcpy_crc16_t10dif(const uint8_t *d, size_t n)
{
        memcpy(dst, d, n);
        return crc16_t10dif(0, dst, (uint64_t)n);
}

#ifdef SIDE_MBHASH
/* mbh_crc with a variant's id. */
#define BY_ID(name, id)                                                                            \
        static uint64_t call_mbh_crc_##name(const uint8_t *d, size_t n)                            \
        {                                                                                          \
                uint64_t crc;                                                                      \
                if (mbh_crc(id, d, n, &crc) != MBH_OK)                                             \
                        abort();                                                                   \
                return crc;                                                                        \
        }
/* A per-variant mbh_* function. */
#define PER(f, T)                                                                                  \
        static uint64_t call_##f(const uint8_t *d, size_t n)                                       \
        {                                                                                          \
                T crc;                                                                             \
                if (f(d, n, &crc) != MBH_OK)                                                       \
                        abort();                                                                   \
                return crc;                                                                        \
        }
BY_ID(t10dif, MBH_CRC_16_T10_DIF)
BY_ID(bzip2, MBH_CRC_32_BZIP2)
BY_ID(iso_hdlc, MBH_CRC_32_ISO_HDLC)
BY_ID(iscsi, MBH_CRC_32_ISCSI)
BY_ID(xz, MBH_CRC_64_XZ)
BY_ID(we, MBH_CRC_64_WE)
BY_ID(go_iso, MBH_CRC_64_GO_ISO)
BY_ID(iso_norm, MBH_CRC_64_ISO_NORM)
BY_ID(jones_refl, MBH_CRC_64_JONES_REFL)
BY_ID(jones_norm, MBH_CRC_64_JONES_NORM)
BY_ID(nvme, MBH_CRC_64_NVME)
BY_ID(rocksoft_norm, MBH_CRC_64_ROCKSOFT_NORM)
PER(mbh_crc16_t10dif, uint16_t)
PER(mbh_crc32_bzip2, uint32_t)
PER(mbh_crc32, uint32_t)
PER(mbh_crc32c, uint32_t)
PER(mbh_crc64_xz, uint64_t)
PER(mbh_crc64_we, uint64_t)
PER(mbh_crc64_go_iso, uint64_t)
PER(mbh_crc64_nvme, uint64_t)
#define ID(cell, name) {#cell, "mbh_crc(" #name ")", "", call_mbh_crc_##name}
static const struct crc_entry CRCS[] = {
        E(crc16_t10dif, crc16_t10dif, ""),
        ID(crc16_t10dif, t10dif),
        E(crc16_t10dif, mbh_crc16_t10dif, ""),
        E(crc16_t10dif_copy, crc16_t10dif_copy, ""),
        E(crc16_t10dif_copy, memcpy_crc16_t10dif, ""),
        E(crc32_ieee, crc32_ieee, ""),
        ID(crc32_ieee, bzip2),
        E(crc32_ieee, mbh_crc32_bzip2, ""),
        E(crc32_gzip_refl, crc32_gzip_refl, ""),
        ID(crc32_gzip_refl, iso_hdlc),
        E(crc32_gzip_refl, mbh_crc32, ""),
        E(crc32_iscsi, crc32_iscsi, ""),
        ID(crc32_iscsi, iscsi),
        E(crc32_iscsi, mbh_crc32c, ""),
        E(crc64_ecma_refl, crc64_ecma_refl, ""),
        ID(crc64_ecma_refl, xz),
        E(crc64_ecma_refl, mbh_crc64_xz, ""),
        E(crc64_ecma_norm, crc64_ecma_norm, ""),
        ID(crc64_ecma_norm, we),
        E(crc64_ecma_norm, mbh_crc64_we, ""),
        E(crc64_iso_refl, crc64_iso_refl, ""),
        ID(crc64_iso_refl, go_iso),
        E(crc64_iso_refl, mbh_crc64_go_iso, ""),
        E(crc64_iso_norm, crc64_iso_norm, ""),
        ID(crc64_iso_norm, iso_norm),
        E(crc64_jones_refl, crc64_jones_refl, ""),
        ID(crc64_jones_refl, jones_refl),
        E(crc64_jones_norm, crc64_jones_norm, ""),
        ID(crc64_jones_norm, jones_norm),
        E(crc64_rocksoft_refl, crc64_rocksoft_refl, ""),
        ID(crc64_rocksoft_refl, nvme),
        E(crc64_rocksoft_refl, mbh_crc64_nvme, ""),
        E(crc64_rocksoft_norm, crc64_rocksoft_norm, ""),
        ID(crc64_rocksoft_norm, rocksoft_norm),
};
#else
/* ISA-L's per-ISA functions: exported, most not declared in its headers
 * (the _base forms are). Declared and timed only where bench-c.sh found
 * the symbol in the library (HAVE_<name>). */
#define PCLMUL "sse4.2 pclmul"
#define AVX2V "avx2 vpclmulqdq"
#define AVX512V AVX512 " vpclmulqdq"
#define D16(f) uint16_t f(uint16_t, const unsigned char *, uint64_t);
#define D32(f) uint32_t f(uint32_t, const unsigned char *, uint64_t);
#define D64(f) uint64_t f(uint64_t, const unsigned char *, uint64_t);
#define DCOPY(f) uint16_t f(uint16_t, uint8_t *, uint8_t *, uint64_t);
#define DISCSI(f) unsigned int f(unsigned char *, int, unsigned int);
#define ISA_FNS(X)                                                                                 \
        X(crc16_t10dif, crc16_t10dif_01, D16, SEED0, PCLMUL)                                       \
        X(crc16_t10dif, crc16_t10dif_by4, D16, SEED0, PCLMUL)                                      \
        X(crc16_t10dif, crc16_t10dif_02, D16, SEED0, "avx " PCLMUL)                                \
        X(crc16_t10dif, crc16_t10dif_avx2, D16, SEED0, AVX2V)                                      \
        X(crc16_t10dif, crc16_t10dif_by16_10, D16, SEED0, AVX512V)                                 \
        X(crc16_t10dif_copy, crc16_t10dif_copy_by4, DCOPY, COPY, PCLMUL)                           \
        X(crc16_t10dif_copy, crc16_t10dif_copy_by4_02, DCOPY, COPY, "avx " PCLMUL)                 \
        X(crc32_ieee, crc32_ieee_01, D32, SEED0, PCLMUL)                                           \
        X(crc32_ieee, crc32_ieee_by4, D32, SEED0, PCLMUL)                                          \
        X(crc32_ieee, crc32_ieee_02, D32, SEED0, "avx " PCLMUL)                                    \
        X(crc32_ieee, crc32_ieee_avx2, D32, SEED0, AVX2V)                                          \
        X(crc32_ieee, crc32_ieee_by16_10, D32, SEED0, AVX512V)                                     \
        X(crc32_gzip_refl, crc32_gzip_refl_by8, D32, SEED0, PCLMUL)                                \
        X(crc32_gzip_refl, crc32_gzip_refl_by8_02, D32, SEED0, "avx " PCLMUL)                      \
        X(crc32_gzip_refl, crc32_gzip_refl_avx2, D32, SEED0, AVX2V)                                \
        X(crc32_gzip_refl, crc32_gzip_refl_by16_10, D32, SEED0, AVX512V)                           \
        X(crc32_iscsi, crc32_iscsi_01, DISCSI, ISCSI, PCLMUL)                                      \
        X(crc32_iscsi, crc32_iscsi_by8_02, DISCSI, ISCSI, "avx " PCLMUL)                           \
        X(crc32_iscsi, crc32_iscsi_avx2, DISCSI, ISCSI, AVX2V)                                     \
        X(crc32_iscsi, crc32_iscsi_by16_10, DISCSI, ISCSI, AVX512V)                                \
        X64(ecma_refl) X64(ecma_norm) X64(iso_refl) X64(iso_norm) X64(jones_refl)                  \
        X64(jones_norm) X64(rocksoft_refl) X64(rocksoft_norm)
#define X64(v)                                                                                     \
        X(crc64_##v, crc64_##v##_by8, D64, SEED0, PCLMUL)                                          \
        X(crc64_##v, crc64_##v##_avx2, D64, SEED0, AVX2V)                                          \
        X(crc64_##v, crc64_##v##_by16_10, D64, SEED0, AVX512V)
/* Declares and wraps each function found. */
#define X(cell, f, decl, wrap, needs) IF_##f(decl(f) wrap(f))
/* The entries of the functions found. */
#define Y(cell, f, decl, wrap, needs) IF_##f(E(cell, f, needs), )
#ifdef HAVE_crc16_t10dif_01
#define IF_crc16_t10dif_01(...) __VA_ARGS__
#else
#define IF_crc16_t10dif_01(...)
#endif
#ifdef HAVE_crc16_t10dif_by4
#define IF_crc16_t10dif_by4(...) __VA_ARGS__
#else
#define IF_crc16_t10dif_by4(...)
#endif
#ifdef HAVE_crc16_t10dif_02
#define IF_crc16_t10dif_02(...) __VA_ARGS__
#else
#define IF_crc16_t10dif_02(...)
#endif
#ifdef HAVE_crc16_t10dif_avx2
#define IF_crc16_t10dif_avx2(...) __VA_ARGS__
#else
#define IF_crc16_t10dif_avx2(...)
#endif
#ifdef HAVE_crc16_t10dif_by16_10
#define IF_crc16_t10dif_by16_10(...) __VA_ARGS__
#else
#define IF_crc16_t10dif_by16_10(...)
#endif
#ifdef HAVE_crc16_t10dif_copy_by4
#define IF_crc16_t10dif_copy_by4(...) __VA_ARGS__
#else
#define IF_crc16_t10dif_copy_by4(...)
#endif
#ifdef HAVE_crc16_t10dif_copy_by4_02
#define IF_crc16_t10dif_copy_by4_02(...) __VA_ARGS__
#else
#define IF_crc16_t10dif_copy_by4_02(...)
#endif
#ifdef HAVE_crc32_ieee_01
#define IF_crc32_ieee_01(...) __VA_ARGS__
#else
#define IF_crc32_ieee_01(...)
#endif
#ifdef HAVE_crc32_ieee_by4
#define IF_crc32_ieee_by4(...) __VA_ARGS__
#else
#define IF_crc32_ieee_by4(...)
#endif
#ifdef HAVE_crc32_ieee_02
#define IF_crc32_ieee_02(...) __VA_ARGS__
#else
#define IF_crc32_ieee_02(...)
#endif
#ifdef HAVE_crc32_ieee_avx2
#define IF_crc32_ieee_avx2(...) __VA_ARGS__
#else
#define IF_crc32_ieee_avx2(...)
#endif
#ifdef HAVE_crc32_ieee_by16_10
#define IF_crc32_ieee_by16_10(...) __VA_ARGS__
#else
#define IF_crc32_ieee_by16_10(...)
#endif
#ifdef HAVE_crc32_gzip_refl_by8
#define IF_crc32_gzip_refl_by8(...) __VA_ARGS__
#else
#define IF_crc32_gzip_refl_by8(...)
#endif
#ifdef HAVE_crc32_gzip_refl_by8_02
#define IF_crc32_gzip_refl_by8_02(...) __VA_ARGS__
#else
#define IF_crc32_gzip_refl_by8_02(...)
#endif
#ifdef HAVE_crc32_gzip_refl_avx2
#define IF_crc32_gzip_refl_avx2(...) __VA_ARGS__
#else
#define IF_crc32_gzip_refl_avx2(...)
#endif
#ifdef HAVE_crc32_gzip_refl_by16_10
#define IF_crc32_gzip_refl_by16_10(...) __VA_ARGS__
#else
#define IF_crc32_gzip_refl_by16_10(...)
#endif
#ifdef HAVE_crc32_iscsi_01
#define IF_crc32_iscsi_01(...) __VA_ARGS__
#else
#define IF_crc32_iscsi_01(...)
#endif
#ifdef HAVE_crc32_iscsi_by8_02
#define IF_crc32_iscsi_by8_02(...) __VA_ARGS__
#else
#define IF_crc32_iscsi_by8_02(...)
#endif
#ifdef HAVE_crc32_iscsi_avx2
#define IF_crc32_iscsi_avx2(...) __VA_ARGS__
#else
#define IF_crc32_iscsi_avx2(...)
#endif
#ifdef HAVE_crc32_iscsi_by16_10
#define IF_crc32_iscsi_by16_10(...) __VA_ARGS__
#else
#define IF_crc32_iscsi_by16_10(...)
#endif
#ifdef HAVE_crc64_ecma_refl_by8
#define IF_crc64_ecma_refl_by8(...) __VA_ARGS__
#else
#define IF_crc64_ecma_refl_by8(...)
#endif
#ifdef HAVE_crc64_ecma_refl_avx2
#define IF_crc64_ecma_refl_avx2(...) __VA_ARGS__
#else
#define IF_crc64_ecma_refl_avx2(...)
#endif
#ifdef HAVE_crc64_ecma_refl_by16_10
#define IF_crc64_ecma_refl_by16_10(...) __VA_ARGS__
#else
#define IF_crc64_ecma_refl_by16_10(...)
#endif
#ifdef HAVE_crc64_ecma_norm_by8
#define IF_crc64_ecma_norm_by8(...) __VA_ARGS__
#else
#define IF_crc64_ecma_norm_by8(...)
#endif
#ifdef HAVE_crc64_ecma_norm_avx2
#define IF_crc64_ecma_norm_avx2(...) __VA_ARGS__
#else
#define IF_crc64_ecma_norm_avx2(...)
#endif
#ifdef HAVE_crc64_ecma_norm_by16_10
#define IF_crc64_ecma_norm_by16_10(...) __VA_ARGS__
#else
#define IF_crc64_ecma_norm_by16_10(...)
#endif
#ifdef HAVE_crc64_iso_refl_by8
#define IF_crc64_iso_refl_by8(...) __VA_ARGS__
#else
#define IF_crc64_iso_refl_by8(...)
#endif
#ifdef HAVE_crc64_iso_refl_avx2
#define IF_crc64_iso_refl_avx2(...) __VA_ARGS__
#else
#define IF_crc64_iso_refl_avx2(...)
#endif
#ifdef HAVE_crc64_iso_refl_by16_10
#define IF_crc64_iso_refl_by16_10(...) __VA_ARGS__
#else
#define IF_crc64_iso_refl_by16_10(...)
#endif
#ifdef HAVE_crc64_iso_norm_by8
#define IF_crc64_iso_norm_by8(...) __VA_ARGS__
#else
#define IF_crc64_iso_norm_by8(...)
#endif
#ifdef HAVE_crc64_iso_norm_avx2
#define IF_crc64_iso_norm_avx2(...) __VA_ARGS__
#else
#define IF_crc64_iso_norm_avx2(...)
#endif
#ifdef HAVE_crc64_iso_norm_by16_10
#define IF_crc64_iso_norm_by16_10(...) __VA_ARGS__
#else
#define IF_crc64_iso_norm_by16_10(...)
#endif
#ifdef HAVE_crc64_jones_refl_by8
#define IF_crc64_jones_refl_by8(...) __VA_ARGS__
#else
#define IF_crc64_jones_refl_by8(...)
#endif
#ifdef HAVE_crc64_jones_refl_avx2
#define IF_crc64_jones_refl_avx2(...) __VA_ARGS__
#else
#define IF_crc64_jones_refl_avx2(...)
#endif
#ifdef HAVE_crc64_jones_refl_by16_10
#define IF_crc64_jones_refl_by16_10(...) __VA_ARGS__
#else
#define IF_crc64_jones_refl_by16_10(...)
#endif
#ifdef HAVE_crc64_jones_norm_by8
#define IF_crc64_jones_norm_by8(...) __VA_ARGS__
#else
#define IF_crc64_jones_norm_by8(...)
#endif
#ifdef HAVE_crc64_jones_norm_avx2
#define IF_crc64_jones_norm_avx2(...) __VA_ARGS__
#else
#define IF_crc64_jones_norm_avx2(...)
#endif
#ifdef HAVE_crc64_jones_norm_by16_10
#define IF_crc64_jones_norm_by16_10(...) __VA_ARGS__
#else
#define IF_crc64_jones_norm_by16_10(...)
#endif
#ifdef HAVE_crc64_rocksoft_refl_by8
#define IF_crc64_rocksoft_refl_by8(...) __VA_ARGS__
#else
#define IF_crc64_rocksoft_refl_by8(...)
#endif
#ifdef HAVE_crc64_rocksoft_refl_avx2
#define IF_crc64_rocksoft_refl_avx2(...) __VA_ARGS__
#else
#define IF_crc64_rocksoft_refl_avx2(...)
#endif
#ifdef HAVE_crc64_rocksoft_refl_by16_10
#define IF_crc64_rocksoft_refl_by16_10(...) __VA_ARGS__
#else
#define IF_crc64_rocksoft_refl_by16_10(...)
#endif
#ifdef HAVE_crc64_rocksoft_norm_by8
#define IF_crc64_rocksoft_norm_by8(...) __VA_ARGS__
#else
#define IF_crc64_rocksoft_norm_by8(...)
#endif
#ifdef HAVE_crc64_rocksoft_norm_avx2
#define IF_crc64_rocksoft_norm_avx2(...) __VA_ARGS__
#else
#define IF_crc64_rocksoft_norm_avx2(...)
#endif
#ifdef HAVE_crc64_rocksoft_norm_by16_10
#define IF_crc64_rocksoft_norm_by16_10(...) __VA_ARGS__
#else
#define IF_crc64_rocksoft_norm_by16_10(...)
#endif
ISA_FNS(X)
#undef X
#define X Y
SEED0(crc16_t10dif_base)
COPY(crc16_t10dif_copy_base)
SEED0(crc32_ieee_base)
SEED0(crc32_gzip_refl_base)
ISCSI(crc32_iscsi_base)
SEED0(crc64_ecma_refl_base)
SEED0(crc64_ecma_norm_base)
SEED0(crc64_iso_refl_base)
SEED0(crc64_iso_norm_base)
SEED0(crc64_jones_refl_base)
SEED0(crc64_jones_norm_base)
#ifdef HAVE_crc64_rocksoft_refl
SEED0(crc64_rocksoft_refl_base)
SEED0(crc64_rocksoft_norm_base)
#endif
static const struct crc_entry CRCS[] = {
        E(crc16_t10dif, crc16_t10dif, ""),
        E(crc16_t10dif, crc16_t10dif_base, ""),
        E(crc16_t10dif_copy, crc16_t10dif_copy, ""),
        E(crc16_t10dif_copy, crc16_t10dif_copy_base, ""),
        E(crc16_t10dif_copy, memcpy_crc16_t10dif, ""),
        E(crc32_ieee, crc32_ieee, ""),
        E(crc32_ieee, crc32_ieee_base, ""),
        E(crc32_gzip_refl, crc32_gzip_refl, ""),
        E(crc32_gzip_refl, crc32_gzip_refl_base, ""),
        E(crc32_iscsi, crc32_iscsi, ""),
        E(crc32_iscsi, crc32_iscsi_base, ""),
        E(crc64_ecma_refl, crc64_ecma_refl, ""),
        E(crc64_ecma_refl, crc64_ecma_refl_base, ""),
        E(crc64_ecma_norm, crc64_ecma_norm, ""),
        E(crc64_ecma_norm, crc64_ecma_norm_base, ""),
        E(crc64_iso_refl, crc64_iso_refl, ""),
        E(crc64_iso_refl, crc64_iso_refl_base, ""),
        E(crc64_iso_norm, crc64_iso_norm, ""),
        E(crc64_iso_norm, crc64_iso_norm_base, ""),
        E(crc64_jones_refl, crc64_jones_refl, ""),
        E(crc64_jones_refl, crc64_jones_refl_base, ""),
        E(crc64_jones_norm, crc64_jones_norm, ""),
        E(crc64_jones_norm, crc64_jones_norm_base, ""),
#ifdef HAVE_crc64_rocksoft_refl
        E(crc64_rocksoft_refl, crc64_rocksoft_refl, ""),
        E(crc64_rocksoft_refl, crc64_rocksoft_refl_base, ""),
        E(crc64_rocksoft_norm, crc64_rocksoft_norm, ""),
        E(crc64_rocksoft_norm, crc64_rocksoft_norm_base, ""),
#endif
        ISA_FNS(Y)
};
#endif

struct crc_cell {
        size_t len;
        uint64_t sink;
        uint64_t (*fn)(const uint8_t *, size_t);
};

static void run_crc(void *arg)
{
        struct crc_cell *c = arg;
        c->sink ^= c->fn(data, c->len);
}

/* Every entry at `len` bytes; the cells in the order of CRCS (the
 * per-ISA entries of a cell come after the others, same cell names). */
static void crc_cells(size_t len)
{
        struct crc_cell c;
        double gbps;
        for (size_t i = 0; i < sizeof CRCS / sizeof CRCS[0]; i++) {
                if (!cpu_supports_all(CRCS[i].needs))
                        continue;
                c.len = len;
                c.sink = 0;
                c.fn = CRCS[i].fn;
                memset(dst, 0, len);
                uint64_t crc = c.fn(data, len);
                if (strstr(CRCS[i].cell, "_copy") && memcmp(dst, data, len))
                        abort();
                double ns = time_best(run_crc, &c, &gbps, len);
                printf("cell=%s/%zux1 entry=%s/%s ns=%.2f gbps=%.4f fp=%016llx\n", CRCS[i].cell,
                       len, SIDE, CRCS[i].entry, ns, gbps, (unsigned long long)crc);
                fflush(stdout);
        }
}
#endif /* HAVE_CRC */

int main(int argc, char **argv)
{
        int crc_only = 0, sha_only = 0;
        for (int a = 1; a < argc; a++) {
                if (!strcmp(argv[a], "quick"))
                        quick = 1;
                else if (!strcmp(argv[a], "crc"))
                        crc_only = 1;
                else if (!strcmp(argv[a], "sha"))
                        sha_only = 1;
                else {
                        fprintf(stderr, "driver: unknown argument %s\n", argv[a]);
                        return 2;
                }
        }
        (void)crc_only;
        (void)sha_only;
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
#ifdef HAVE_CRC
        if (posix_memalign((void **)&dst, 64, CRC_MAX))
                return 1;
        static const size_t crc_sizes[] = {64, 512, 4096, 65536, 1048576};
        for (size_t i = 0; i < sizeof crc_sizes / sizeof crc_sizes[0] && !sha_only; i++)
                if (!quick || crc_sizes[i] == 4096)
                        crc_cells(crc_sizes[i]);
        free(dst);
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
        for (size_t i = 0; i < sizeof cells / sizeof cells[0] && !crc_only; i++)
                if (!quick || (cells[i].size == 4096 && cells[i].jobs == 16))
                        sha_cell(cells[i].bits, cells[i].size, cells[i].jobs);
#endif
        free(data);
        return 0;
}
