/*
 * The C side-by-side bench: one program, built twice by scripts/bench-c.sh,
 * once against mbhash's C library (-DSIDE_MBHASH: the native manager
 * mbh_submit/mbh_flush, mbh_hash_many, the isa-l_crypto drop-in ABI, the
 * ISA-L CRC drop-in and mbh_crc*) and once against ISA-L crypto and ISA-L
 * (-DSIDE_ISAL: for SHA-256, SHA-512, MD5, SHA-1 and SM3 the dispatching
 * manager and every per-ISA manager the CPU runs, base included; every CRC
 * function and its per-ISA forms). The two libraries export the same isal_*
 * names, so they never share a binary.
 *
 * Each line printed is one cell and one entry:
 *   cell=sha256/64x8 entry=mbhash/manager ns=123.4 gbps=0.52 fp=1a2b3c4d
 * ns is per job (per call for CRC), gbps the bytes hashed per nanosecond,
 * fp a fingerprint of every digest of the cell, equal across entries and
 * across the two builds when both hash right.
 *
 *   driver [quick] [cputime] [crc|sha|md5|sha1|sm3]
 *
 * (quick: fewer cells and shorter batches; cputime: time by the process's
 * CPU time; a group: only its cells, sha being SHA-2.)
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
#include <isa-l_crypto/md5_mb.h>
#include <isa-l_crypto/sha1_mb.h>
#include <isa-l_crypto/sm3_mb.h>
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
/* The clock batches are timed by: wall time, or (cputime) the CPU time of
 * the process, which leaves out the time other processes held the CPU (on
 * a shared machine), not what they do to the caches. */
static clockid_t clock_id = CLOCK_MONOTONIC;

static double now_ns(void)
{
        struct timespec t;
        clock_gettime(clock_id, &t);
        return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

/* Runs `run(arg)` (which does `units` units of `bytes` bytes each) for at
 * least `min_ns`, in batches; returns the best batch's ns per unit. */
__attribute__((unused)) static double time_best(void (*run)(void *), void *arg, double *gbps,
                                                size_t bytes)
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

__attribute__((unused)) static int cpu_supports_all(const char *needs)
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
/* ---- isa-l_crypto's ABI: the drop-in (ours) or the library (theirs) ----
 *
 * Five families, each through the same code: SHA-256, SHA-512, MD5, SHA-1
 * and SM3. A cell is `jobs` messages of `size` bytes, each submitted whole
 * (ENTIRE), then the manager flushed. */

struct variant {
        const char *name;
        const char *needs; /* __builtin_cpu_supports names, space-separated */
        void (*init)(void);
        void (*submit)(void);
        void (*flush)(void);
};

/* One cell's jobs, for any family: the contexts and manager are the
 * family's types, held as bytes. */
struct cell {
        size_t size;
        int jobs;
        const struct variant *v;
        void *mgr;
        void *ctxs; /* MAX_JOBS contexts of the family */
        int done;
#ifdef SIDE_MBHASH
        mbh_manager mgr_native;
        mbh_ctx ctx[MAX_JOBS];
        const uint8_t *msgs[MAX_JOBS];
        size_t lens[MAX_JOBS];
        uint8_t out[MAX_JOBS * 64];
        mbh_algorithm alg;
#endif
};

/* A digest's words as the digest's bytes, in the family's convention. */
static void be32_bytes(const void *w, size_t dlen, uint8_t *out)
{
        const uint32_t *x = w;
        for (size_t i = 0; i < dlen; i++)
                out[i] = (uint8_t)(x[i / 4] >> (24 - 8 * (i % 4)));
}
static void be64_bytes(const void *w, size_t dlen, uint8_t *out)
{
        const uint64_t *x = w;
        for (size_t i = 0; i < dlen; i++)
                out[i] = (uint8_t)(x[i / 8] >> (56 - 8 * (i % 8)));
}
/* MD5: little-endian words. */
static void le32_bytes(const void *w, size_t dlen, uint8_t *out)
{
        const uint32_t *x = w;
        for (size_t i = 0; i < dlen; i++)
                out[i] = (uint8_t)(x[i / 4] >> (8 * (i % 4)));
}
/* SM3: isa-l_crypto leaves the words byte-swapped, so the digest is the
 * words' bytes in memory. */
static void mem_bytes(const void *w, size_t dlen, uint8_t *out) { memcpy(out, w, dlen); }

/* Per family (tag: sha256, ...; T: ISAL_SHA256, ...): the current API
 * wrapped to the per-ISA managers' signature, the cell's run over the
 * isa-l_crypto ABI, and a context's digest as bytes. */
#define FAMILY(tag, T, dlen, to_bytes)                                                            \
        typedef T##_HASH_CTX *(*tag##_submit_fn)(T##_HASH_CTX_MGR *, T##_HASH_CTX *,               \
                                                 const void *, uint32_t, ISAL_HASH_CTX_FLAG);      \
        typedef T##_HASH_CTX *(*tag##_flush_fn)(T##_HASH_CTX_MGR *);                               \
        typedef void (*tag##_init_fn)(T##_HASH_CTX_MGR *);                                         \
        static void tag##_api_init(T##_HASH_CTX_MGR *m) { isal_##tag##_ctx_mgr_init(m); }          \
        static T##_HASH_CTX *tag##_api_submit(T##_HASH_CTX_MGR *m, T##_HASH_CTX *c,                \
                                              const void *b, uint32_t l, ISAL_HASH_CTX_FLAG f)     \
        {                                                                                          \
                T##_HASH_CTX *out = NULL;                                                          \
                if (isal_##tag##_ctx_mgr_submit(m, c, &out, b, l, f) != 0)                         \
                        abort();                                                                   \
                return out;                                                                        \
        }                                                                                          \
        static T##_HASH_CTX *tag##_api_flush(T##_HASH_CTX_MGR *m)                                  \
        {                                                                                          \
                T##_HASH_CTX *out = NULL;                                                          \
                if (isal_##tag##_ctx_mgr_flush(m, &out) != 0)                                      \
                        abort();                                                                   \
                return out;                                                                        \
        }                                                                                          \
        static void tag##_run(void *arg)                                                           \
        {                                                                                          \
                struct cell *c = arg;                                                              \
                T##_HASH_CTX *ctx = c->ctxs;                                                       \
                tag##_submit_fn submit = (tag##_submit_fn)c->v->submit;                            \
                tag##_flush_fn flush = (tag##_flush_fn)c->v->flush;                                \
                for (int j = 0; j < c->jobs; j++) {                                                \
                        isal_hash_ctx_init(&ctx[j]);                                               \
                        if (submit(c->mgr, &ctx[j], data + (size_t)j * c->size,                    \
                                   (uint32_t)c->size, ISAL_HASH_ENTIRE))                           \
                                c->done++;                                                         \
                }                                                                                  \
                while (flush(c->mgr))                                                              \
                        c->done++;                                                                 \
        }                                                                                          \
        static void tag##_init(void (*init)(void), void *mgr) { ((tag##_init_fn)init)(mgr); }      \
        static void tag##_digest(const void *ctxs, int j, uint8_t *out)                            \
        {                                                                                          \
                to_bytes(((const T##_HASH_CTX *)ctxs)[j].job.result_digest, dlen, out);            \
        }
FAMILY(sha256, ISAL_SHA256, 32, be32_bytes)
FAMILY(sha512, ISAL_SHA512, 64, be64_bytes)
FAMILY(md5, ISAL_MD5, 16, le32_bytes)
FAMILY(sha1, ISAL_SHA1, 20, be32_bytes)
FAMILY(sm3, ISAL_SM3, 32, mem_bytes)

/* The dispatching API (ISA-L) or the drop-in (mbhash) of a family. */
#define API(tag, name)                                                                             \
        {name, "", (void (*)(void))tag##_api_init, (void (*)(void))tag##_api_submit,               \
         (void (*)(void))tag##_api_flush}

#ifdef SIDE_ISAL
/* ISA-L crypto's per-ISA managers (base: its portable C one): exported, not
 * declared in its headers. */
#define DECLARE(tag, T, isa)                                                                       \
        void _##tag##_ctx_mgr_init_##isa(T##_HASH_CTX_MGR *);                                      \
        T##_HASH_CTX *_##tag##_ctx_mgr_submit_##isa(T##_HASH_CTX_MGR *, T##_HASH_CTX *,            \
                                                    const void *, uint32_t, ISAL_HASH_CTX_FLAG);   \
        T##_HASH_CTX *_##tag##_ctx_mgr_flush_##isa(T##_HASH_CTX_MGR *);
#define V(tag, isa, needs)                                                                         \
        {#isa, needs, (void (*)(void))_##tag##_ctx_mgr_init_##isa,                                 \
         (void (*)(void))_##tag##_ctx_mgr_submit_##isa,                                            \
         (void (*)(void))_##tag##_ctx_mgr_flush_##isa}
DECLARE(sha256, ISAL_SHA256, base)
DECLARE(sha256, ISAL_SHA256, sse)
DECLARE(sha256, ISAL_SHA256, avx)
DECLARE(sha256, ISAL_SHA256, avx2)
DECLARE(sha256, ISAL_SHA256, avx512)
DECLARE(sha256, ISAL_SHA256, sse_ni)
DECLARE(sha256, ISAL_SHA256, avx512_ni)
DECLARE(sha512, ISAL_SHA512, base)
DECLARE(sha512, ISAL_SHA512, sse)
DECLARE(sha512, ISAL_SHA512, avx)
DECLARE(sha512, ISAL_SHA512, avx2)
DECLARE(sha512, ISAL_SHA512, avx512)
DECLARE(md5, ISAL_MD5, base)
DECLARE(md5, ISAL_MD5, sse)
DECLARE(md5, ISAL_MD5, avx)
DECLARE(md5, ISAL_MD5, avx2)
DECLARE(md5, ISAL_MD5, avx512)
DECLARE(sha1, ISAL_SHA1, base)
DECLARE(sha1, ISAL_SHA1, sse)
DECLARE(sha1, ISAL_SHA1, avx)
DECLARE(sha1, ISAL_SHA1, avx2)
DECLARE(sha1, ISAL_SHA1, avx512)
DECLARE(sha1, ISAL_SHA1, sse_ni)
DECLARE(sha1, ISAL_SHA1, avx512_ni)
DECLARE(sm3, ISAL_SM3, base)
DECLARE(sm3, ISAL_SM3, avx2)
DECLARE(sm3, ISAL_SM3, avx512)
static const struct variant V256S[] = {
        API(sha256, "dispatch"),
        V(sha256, base, ""),
        V(sha256, sse, "sse4.1"),
        V(sha256, avx, "avx"),
        V(sha256, avx2, "avx2"),
        V(sha256, avx512, AVX512),
        V(sha256, sse_ni, "sse4.1 sha"),
        V(sha256, avx512_ni, AVX512 " sha"),
};
static const struct variant V512S[] = {
        API(sha512, "dispatch"),
        V(sha512, base, ""),
        V(sha512, sse, "sse4.1"),
        V(sha512, avx, "avx"),
        V(sha512, avx2, "avx2"),
        V(sha512, avx512, AVX512),
};
/* MD5's avx512 manager runs 32 lanes (two sets of 16), avx2 16. */
static const struct variant VMD5S[] = {
        API(md5, "dispatch"),
        V(md5, base, ""),
        V(md5, sse, "sse4.1"),
        V(md5, avx, "avx"),
        V(md5, avx2, "avx2"),
        V(md5, avx512, AVX512),
};
static const struct variant VSHA1S[] = {
        API(sha1, "dispatch"),
        V(sha1, base, ""),
        V(sha1, sse, "sse4.1"),
        V(sha1, avx, "avx"),
        V(sha1, avx2, "avx2"),
        V(sha1, avx512, AVX512),
        V(sha1, sse_ni, "sse4.1 sha"),
        V(sha1, avx512_ni, AVX512 " sha"),
};
static const struct variant VSM3S[] = {
        API(sm3, "dispatch"),
        V(sm3, base, ""),
        V(sm3, avx2, "avx2"),
        V(sm3, avx512, AVX512),
};
#else
static const struct variant V256S[] = {API(sha256, "dropin")};
static const struct variant V512S[] = {API(sha512, "dropin")};
static const struct variant VMD5S[] = {API(md5, "dropin")};
static const struct variant VSHA1S[] = {API(sha1, "dropin")};
static const struct variant VSM3S[] = {API(sm3, "dropin")};
#endif

struct family {
        const char *name; /* the cells' prefix, and the --only selector */
        const struct variant *vs;
        size_t nv;
        size_t mgr_size, ctx_size, dlen;
        void (*run)(void *);
        void (*init)(void (*)(void), void *);
        void (*digest)(const void *, int, uint8_t *);
#ifdef SIDE_MBHASH
        mbh_algorithm alg;
#define NATIVE(a) , a
#else
#define NATIVE(a)
#endif
};

#define FAM(tag, T, vs, dlen, alg)                                                                 \
        {#tag, vs, sizeof vs / sizeof vs[0], sizeof(T##_HASH_CTX_MGR), sizeof(T##_HASH_CTX), dlen, \
         tag##_run, tag##_init, tag##_digest NATIVE(alg)}
enum { F_SHA256, F_SHA512, F_MD5, F_SHA1, F_SM3 };
static const struct family FAMILIES[] = {
        FAM(sha256, ISAL_SHA256, V256S, 32, MBH_SHA256),
        FAM(sha512, ISAL_SHA512, V512S, 64, MBH_SHA512),
        FAM(md5, ISAL_MD5, VMD5S, 16, MBH_MD5),
        FAM(sha1, ISAL_SHA1, VSHA1S, 20, MBH_SHA1),
        FAM(sm3, ISAL_SM3, VSM3S, 32, MBH_SM3),
};

#ifdef SIDE_MBHASH
static void run_manager(void *arg)
{
        struct cell *c = arg;
        mbh_ctx *done = NULL;
        for (int j = 0; j < c->jobs; j++) {
                if (mbh_submit(&c->mgr_native, &c->ctx[j], data + (size_t)j * c->size, c->size,
                               MBH_ENTIRE, &done) != MBH_OK)
                        abort();
                if (done)
                        c->done++;
        }
        for (;;) {
                if (mbh_flush(&c->mgr_native, &done) != MBH_OK)
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

static void hash_cell(const struct family *f, size_t size, int jobs)
{
        static struct cell c;
        double gbps;
        memset(&c, 0, sizeof c);
        c.size = size;
        c.jobs = jobs;
        if (posix_memalign(&c.ctxs, 64, f->ctx_size * MAX_JOBS))
                abort();
        for (size_t i = 0; i < f->nv; i++) {
                if (!cpu_supports_all(f->vs[i].needs))
                        continue;
                c.v = &f->vs[i];
                if (posix_memalign(&c.mgr, 64, f->mgr_size))
                        abort();
                f->init(f->vs[i].init, c.mgr);
                c.done = 0;
                double ns = time_best(f->run, &c, &gbps, size * (size_t)jobs);
                if (c.done % jobs)
                        abort();
                uint32_t fp = 2166136261u;
                for (int j = 0; j < jobs; j++) {
                        uint8_t d[64];
                        f->digest(c.ctxs, j, d);
                        fp = fingerprint(d, f->dlen, fp);
                }
                report(f->name, size, jobs, f->vs[i].name, ns / jobs, gbps, fp);
                free(c.mgr);
                c.mgr = NULL;
        }
        free(c.ctxs);
        c.ctxs = NULL;
#ifdef SIDE_MBHASH
        c.alg = f->alg;
        if (mbh_manager_init(&c.mgr_native, c.alg) != MBH_OK)
                abort();
        for (int j = 0; j < jobs; j++) {
                if (mbh_ctx_init(&c.ctx[j], c.alg, NULL) != MBH_OK)
                        abort();
                c.msgs[j] = data + (size_t)j * size;
                c.lens[j] = size;
        }
        c.done = 0;
        double ns = time_best(run_manager, &c, &gbps, size * (size_t)jobs);
        if (c.done % jobs)
                abort();
        uint32_t fp = 2166136261u;
        for (int j = 0; j < jobs; j++) {
                uint8_t d[64];
                size_t n = 0;
                if (mbh_ctx_digest(&c.ctx[j], d, sizeof d, &n) != MBH_OK || n != f->dlen)
                        abort();
                fp = fingerprint(d, f->dlen, fp);
        }
        report(f->name, size, jobs, "manager", ns / jobs, gbps, fp);
        mbh_manager_fini(&c.mgr_native);
        ns = time_best(run_hash_many, &c, &gbps, size * (size_t)jobs);
        report(f->name, size, jobs, "hash_many", ns / jobs, gbps,
               fingerprint(c.out, f->dlen * (size_t)jobs, 2166136261u));
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

/* The cells of one --only selector (NULL: all): crc, sha (SHA-2), md5,
 * sha1 or sm3. */
static const char *only;
__attribute__((unused)) static int selected(const char *group)
{
        return !only || !strcmp(only, group);
}

int main(int argc, char **argv)
{
        for (int a = 1; a < argc; a++) {
                if (!strcmp(argv[a], "quick"))
                        quick = 1;
                else if (!strcmp(argv[a], "cputime"))
                        clock_id = CLOCK_PROCESS_CPUTIME_ID;
                else if (!only && (!strcmp(argv[a], "crc") || !strcmp(argv[a], "sha") ||
                                   !strcmp(argv[a], "md5") || !strcmp(argv[a], "sha1") ||
                                   !strcmp(argv[a], "sm3")))
                        only = argv[a];
                else {
                        fprintf(stderr, "driver: unknown argument %s\n", argv[a]);
                        return 2;
                }
        }
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
        for (size_t i = 0; i < sizeof crc_sizes / sizeof crc_sizes[0] && selected("crc"); i++)
                if (!quick || crc_sizes[i] == 4096)
                        crc_cells(crc_sizes[i]);
        free(dst);
#endif
#ifdef HAVE_SHA
        /* SHA-2: the cells of its targets. Quick: 4 KiB x 16 of each family. */
        static const struct {
                int family;
                size_t size;
                int jobs;
        } cells[] = {
                {F_SHA256, 64, 1},      {F_SHA256, 64, 2},     {F_SHA256, 64, 4},
                {F_SHA256, 64, 8},      {F_SHA256, 64, 16},    {F_SHA256, 64, 64},
                {F_SHA256, 4096, 2},    {F_SHA256, 4096, 16},  {F_SHA256, 131072, 16},
                {F_SHA256, 131072, 64}, {F_SHA512, 64, 1},     {F_SHA512, 4096, 16},
                {F_SHA512, 131072, 64},
        };
        for (size_t i = 0; i < sizeof cells / sizeof cells[0] && selected("sha"); i++)
                if (!quick || (cells[i].size == 4096 && cells[i].jobs == 16))
                        hash_cell(&FAMILIES[cells[i].family], cells[i].size, cells[i].jobs);
        /* MD5, SHA-1, SM3: the grid of their issue, every size by every job
         * count. */
        static const int grid_families[] = {F_MD5, F_SHA1, F_SM3};
        static const size_t grid_sizes[] = {64, 4096, 131072};
        static const int grid_jobs[] = {1, 2, 8, 16, 64};
        for (size_t f = 0; f < sizeof grid_families / sizeof grid_families[0]; f++) {
                const struct family *fam = &FAMILIES[grid_families[f]];
                if (!selected(fam->name))
                        continue;
                for (size_t s = 0; s < sizeof grid_sizes / sizeof grid_sizes[0]; s++)
                        for (size_t j = 0; j < sizeof grid_jobs / sizeof grid_jobs[0]; j++)
                                if (!quick || (grid_sizes[s] == 4096 && grid_jobs[j] == 16))
                                        hash_cell(fam, grid_sizes[s], grid_jobs[j]);
        }
#endif
        free(data);
        return 0;
}
