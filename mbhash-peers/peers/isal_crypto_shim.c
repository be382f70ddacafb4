/*
 * Bench-only glue to the multi-buffer SHA-256/SHA-512 managers of ISA-L
 * crypto, compiled by mbhash-cli's build.rs when the library is found.
 *
 * ISA-L exports, beside its dispatching managers, one manager per instruction
 * set (`_sha256_ctx_mgr_init_avx512`, ...). The bench times each one the CPU
 * supports, since the dispatcher does not always pick the fastest. build.rs
 * passes `-DMBB_HAVE_<symbol>` for every such symbol the archive defines.
 *
 * ISA-L's AVX kernels return with the upper halves of the vector registers
 * dirty (no `vzeroupper`): `mbb_isal_run` clears them on the way out, as a C
 * caller built for AVX does, so that the caller's next legacy-SSE
 * instruction pays no state transition.
 *
 * A handle owns one manager and `max` contexts; `mbb_isal_*_run` hashes up
 * to `max` whole messages (ISAL_HASH_ENTIRE) and writes big-endian digests.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#if defined(__x86_64__)
#include <cpuid.h>
#endif

#include <isa-l_crypto/sha256_mb.h>
#include <isa-l_crypto/sha512_mb.h>

typedef ISAL_SHA256_HASH_CTX *(*sha256_submit_fn)(ISAL_SHA256_HASH_CTX_MGR *, ISAL_SHA256_HASH_CTX *,
                                                  const void *, uint32_t, ISAL_HASH_CTX_FLAG);
typedef ISAL_SHA256_HASH_CTX *(*sha256_flush_fn)(ISAL_SHA256_HASH_CTX_MGR *);
typedef void (*sha256_init_fn)(ISAL_SHA256_HASH_CTX_MGR *);
typedef ISAL_SHA512_HASH_CTX *(*sha512_submit_fn)(ISAL_SHA512_HASH_CTX_MGR *, ISAL_SHA512_HASH_CTX *,
                                                  const void *, uint32_t, ISAL_HASH_CTX_FLAG);
typedef ISAL_SHA512_HASH_CTX *(*sha512_flush_fn)(ISAL_SHA512_HASH_CTX_MGR *);
typedef void (*sha512_init_fn)(ISAL_SHA512_HASH_CTX_MGR *);

/* CPU requirements of a variant. */
enum { NEED_NONE = 0, NEED_SSE41 = 1, NEED_SHA = 2, NEED_AVX = 4, NEED_AVX2 = 8, NEED_AVX512 = 16 };

static int cpu_has(int need)
{
#if defined(__x86_64__)
        unsigned a, b, c, d;
        __builtin_cpu_init();
        if ((need & NEED_SSE41) && !__builtin_cpu_supports("sse4.1"))
                return 0;
        if ((need & NEED_AVX) && !__builtin_cpu_supports("avx"))
                return 0;
        if ((need & NEED_AVX2) && !__builtin_cpu_supports("avx2"))
                return 0;
        if ((need & NEED_AVX512) &&
            !(__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
              __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512dq") &&
              __builtin_cpu_supports("avx512cd")))
                return 0;
        if (need & NEED_SHA) {
                if (!__get_cpuid_count(7, 0, &a, &b, &c, &d) || !(b & (1u << 29)))
                        return 0;
        }
        return 1;
#else
        return need == NEED_NONE;
#endif
}

static void clear_upper_state(void)
{
#if defined(__x86_64__)
        static int avx = -1;
        if (avx < 0)
                avx = cpu_has(NEED_AVX);
        if (avx)
                __asm__ volatile("vzeroupper" ::: "memory");
#endif
}

/* The dispatching managers, through the current API. */
static void disp256_init(ISAL_SHA256_HASH_CTX_MGR *m) { isal_sha256_ctx_mgr_init(m); }
static ISAL_SHA256_HASH_CTX *disp256_submit(ISAL_SHA256_HASH_CTX_MGR *m, ISAL_SHA256_HASH_CTX *c,
                                            const void *b, uint32_t l, ISAL_HASH_CTX_FLAG f)
{
        ISAL_SHA256_HASH_CTX *out = NULL;
        return isal_sha256_ctx_mgr_submit(m, c, &out, b, l, f) == 0 ? out : NULL;
}
static ISAL_SHA256_HASH_CTX *disp256_flush(ISAL_SHA256_HASH_CTX_MGR *m)
{
        ISAL_SHA256_HASH_CTX *out = NULL;
        return isal_sha256_ctx_mgr_flush(m, &out) == 0 ? out : NULL;
}
static void disp512_init(ISAL_SHA512_HASH_CTX_MGR *m) { isal_sha512_ctx_mgr_init(m); }
static ISAL_SHA512_HASH_CTX *disp512_submit(ISAL_SHA512_HASH_CTX_MGR *m, ISAL_SHA512_HASH_CTX *c,
                                            const void *b, uint32_t l, ISAL_HASH_CTX_FLAG f)
{
        ISAL_SHA512_HASH_CTX *out = NULL;
        return isal_sha512_ctx_mgr_submit(m, c, &out, b, l, f) == 0 ? out : NULL;
}
static ISAL_SHA512_HASH_CTX *disp512_flush(ISAL_SHA512_HASH_CTX_MGR *m)
{
        ISAL_SHA512_HASH_CTX *out = NULL;
        return isal_sha512_ctx_mgr_flush(m, &out) == 0 ? out : NULL;
}

#define DECLARE256(sfx)                                                                            \
        void _sha256_ctx_mgr_init_##sfx(ISAL_SHA256_HASH_CTX_MGR *);                              \
        ISAL_SHA256_HASH_CTX *_sha256_ctx_mgr_submit_##sfx(                                       \
                ISAL_SHA256_HASH_CTX_MGR *, ISAL_SHA256_HASH_CTX *, const void *, uint32_t,       \
                ISAL_HASH_CTX_FLAG);                                                              \
        ISAL_SHA256_HASH_CTX *_sha256_ctx_mgr_flush_##sfx(ISAL_SHA256_HASH_CTX_MGR *);
#define DECLARE512(sfx)                                                                            \
        void _sha512_ctx_mgr_init_##sfx(ISAL_SHA512_HASH_CTX_MGR *);                              \
        ISAL_SHA512_HASH_CTX *_sha512_ctx_mgr_submit_##sfx(                                       \
                ISAL_SHA512_HASH_CTX_MGR *, ISAL_SHA512_HASH_CTX *, const void *, uint32_t,       \
                ISAL_HASH_CTX_FLAG);                                                              \
        ISAL_SHA512_HASH_CTX *_sha512_ctx_mgr_flush_##sfx(ISAL_SHA512_HASH_CTX_MGR *);

#if defined(MBB_HAVE__sha256_ctx_mgr_init_sse_ni)
DECLARE256(sse_ni)
#endif
#if defined(MBB_HAVE__sha256_ctx_mgr_init_avx2)
DECLARE256(avx2)
#endif
#if defined(MBB_HAVE__sha256_ctx_mgr_init_avx512)
DECLARE256(avx512)
#endif
#if defined(MBB_HAVE__sha256_ctx_mgr_init_avx512_ni)
DECLARE256(avx512_ni)
#endif
#if defined(MBB_HAVE__sha512_ctx_mgr_init_avx2)
DECLARE512(avx2)
#endif
#if defined(MBB_HAVE__sha512_ctx_mgr_init_avx512)
DECLARE512(avx512)
#endif

struct variant256 {
        const char *name;
        int need;
        sha256_init_fn init;
        sha256_submit_fn submit;
        sha256_flush_fn flush;
};
struct variant512 {
        const char *name;
        int need;
        sha512_init_fn init;
        sha512_submit_fn submit;
        sha512_flush_fn flush;
};

#define V256(sfx, need)                                                                            \
        { #sfx, need, _sha256_ctx_mgr_init_##sfx, _sha256_ctx_mgr_submit_##sfx,                   \
          _sha256_ctx_mgr_flush_##sfx }
#define V512(sfx, need)                                                                            \
        { #sfx, need, _sha512_ctx_mgr_init_##sfx, _sha512_ctx_mgr_submit_##sfx,                   \
          _sha512_ctx_mgr_flush_##sfx }

static const struct variant256 VARIANTS256[] = {
        { "dispatch", NEED_NONE, disp256_init, disp256_submit, disp256_flush },
#if defined(MBB_HAVE__sha256_ctx_mgr_init_sse_ni)
        V256(sse_ni, NEED_SSE41 | NEED_SHA),
#endif
#if defined(MBB_HAVE__sha256_ctx_mgr_init_avx2)
        V256(avx2, NEED_AVX | NEED_AVX2),
#endif
#if defined(MBB_HAVE__sha256_ctx_mgr_init_avx512)
        V256(avx512, NEED_AVX | NEED_AVX2 | NEED_AVX512),
#endif
#if defined(MBB_HAVE__sha256_ctx_mgr_init_avx512_ni)
        V256(avx512_ni, NEED_AVX | NEED_AVX2 | NEED_AVX512 | NEED_SHA),
#endif
};
static const struct variant512 VARIANTS512[] = {
        { "dispatch", NEED_NONE, disp512_init, disp512_submit, disp512_flush },
#if defined(MBB_HAVE__sha512_ctx_mgr_init_avx2)
        V512(avx2, NEED_AVX | NEED_AVX2),
#endif
#if defined(MBB_HAVE__sha512_ctx_mgr_init_avx512)
        V512(avx512, NEED_AVX | NEED_AVX2 | NEED_AVX512),
#endif
};

/* Number of variants of algorithm `bits` (256 or 512). */
size_t mbb_isal_variants(int bits)
{
        return bits == 256 ? sizeof VARIANTS256 / sizeof VARIANTS256[0]
                           : sizeof VARIANTS512 / sizeof VARIANTS512[0];
}

/* Name of variant `i`, or NULL when out of range. */
const char *mbb_isal_variant_name(int bits, size_t i)
{
        if (i >= mbb_isal_variants(bits))
                return NULL;
        return bits == 256 ? VARIANTS256[i].name : VARIANTS512[i].name;
}

/* 1 when this CPU runs variant `i`. */
int mbb_isal_variant_usable(int bits, size_t i)
{
        if (i >= mbb_isal_variants(bits))
                return 0;
        return cpu_has(bits == 256 ? VARIANTS256[i].need : VARIANTS512[i].need);
}

struct mbb_isal {
        int bits;
        size_t variant;
        size_t max;
        void *mgr;
        void *ctxs;
};

static void *zalloc64(size_t n)
{
        size_t rounded = (n + 63) & ~(size_t) 63;
        void *p = aligned_alloc(64, rounded);
        if (p)
                memset(p, 0, rounded);
        return p;
}

void mbb_isal_free(struct mbb_isal *h)
{
        if (!h)
                return;
        free(h->mgr);
        free(h->ctxs);
        free(h);
}

/* A manager of variant `i` for up to `max` messages; NULL when the variant is
 * unknown, unusable on this CPU, or memory is short. */
struct mbb_isal *mbb_isal_new(int bits, size_t i, size_t max)
{
        struct mbb_isal *h;
        if ((bits != 256 && bits != 512) || !mbb_isal_variant_usable(bits, i) || max == 0)
                return NULL;
        h = calloc(1, sizeof *h);
        if (!h)
                return NULL;
        h->bits = bits;
        h->variant = i;
        h->max = max;
        if (bits == 256) {
                h->mgr = zalloc64(sizeof(ISAL_SHA256_HASH_CTX_MGR));
                h->ctxs = zalloc64(max * sizeof(ISAL_SHA256_HASH_CTX));
        } else {
                h->mgr = zalloc64(sizeof(ISAL_SHA512_HASH_CTX_MGR));
                h->ctxs = zalloc64(max * sizeof(ISAL_SHA512_HASH_CTX));
        }
        if (!h->mgr || !h->ctxs) {
                mbb_isal_free(h);
                return NULL;
        }
        if (bits == 256)
                VARIANTS256[i].init(h->mgr);
        else
                VARIANTS512[i].init(h->mgr);
        return h;
}

/* Hashes messages `msgs[k]` of `lens[k]` bytes, k < n <= max, into `out`
 * (n * 32 or n * 64 bytes, big-endian digests). 0 on success, -1 on misuse
 * or when a job did not complete. */
int mbb_isal_run(struct mbb_isal *h, const uint8_t *const *msgs, const uint32_t *lens, size_t n,
                 uint8_t *out)
{
        size_t k, w;
        if (!h || n > h->max)
                return -1;
        if (h->bits == 256) {
                const struct variant256 *v = &VARIANTS256[h->variant];
                ISAL_SHA256_HASH_CTX *ctxs = h->ctxs;
                for (k = 0; k < n; k++) {
                        isal_hash_ctx_init(&ctxs[k]);
                        v->submit(h->mgr, &ctxs[k], msgs[k], lens[k], ISAL_HASH_ENTIRE);
                }
                while (v->flush(h->mgr))
                        ;
                clear_upper_state();
                for (k = 0; k < n; k++) {
                        if (ctxs[k].status != ISAL_HASH_CTX_STS_COMPLETE ||
                            ctxs[k].error != ISAL_HASH_CTX_ERROR_NONE)
                                return -1;
                        for (w = 0; w < 8; w++) {
                                uint32_t x = ctxs[k].job.result_digest[w];
                                uint8_t *o = out + k * 32 + w * 4;
                                o[0] = x >> 24, o[1] = x >> 16, o[2] = x >> 8, o[3] = x;
                        }
                }
        } else {
                const struct variant512 *v = &VARIANTS512[h->variant];
                ISAL_SHA512_HASH_CTX *ctxs = h->ctxs;
                for (k = 0; k < n; k++) {
                        isal_hash_ctx_init(&ctxs[k]);
                        v->submit(h->mgr, &ctxs[k], msgs[k], lens[k], ISAL_HASH_ENTIRE);
                }
                while (v->flush(h->mgr))
                        ;
                clear_upper_state();
                for (k = 0; k < n; k++) {
                        if (ctxs[k].status != ISAL_HASH_CTX_STS_COMPLETE ||
                            ctxs[k].error != ISAL_HASH_CTX_ERROR_NONE)
                                return -1;
                        for (w = 0; w < 8; w++) {
                                uint64_t x = ctxs[k].job.result_digest[w];
                                uint8_t *o = out + k * 64 + w * 8;
                                for (int b = 0; b < 8; b++)
                                        o[b] = (uint8_t) (x >> (56 - 8 * b));
                        }
                }
        }
        return 0;
}

/*
 * MD5, SHA-1 and SM3: the same handle and run for each family, generated per
 * family by macros (the context and manager types differ, so each family has
 * its own wrappers and run loop; no function pointer is called through a
 * type it was not defined with).
 */
#include <isa-l_crypto/md5_mb.h>
#include <isa-l_crypto/sha1_mb.h>
#include <isa-l_crypto/sm3_mb.h>

typedef void (*gen_init_fn)(void *);
typedef void *(*gen_submit_fn)(void *, void *, const void *, uint32_t, ISAL_HASH_CTX_FLAG);
typedef void *(*gen_flush_fn)(void *);

struct gvariant {
        const char *name;
        int need;
        gen_init_fn init;
        gen_submit_fn submit;
        gen_flush_fn flush;
};

/* The dispatching manager of family `fam` (type prefix `FAM`). */
#define GEN_DISPATCH(fam, FAM)                                                                     \
        static void w_##fam##_init_dispatch(void *m) { isal_##fam##_ctx_mgr_init(m); }             \
        static void *w_##fam##_submit_dispatch(void *m, void *c, const void *b, uint32_t l,        \
                                               ISAL_HASH_CTX_FLAG f)                               \
        {                                                                                          \
                ISAL_##FAM##_HASH_CTX *out = NULL;                                                 \
                return isal_##fam##_ctx_mgr_submit(m, c, &out, b, l, f) == 0 ? out : NULL;         \
        }                                                                                          \
        static void *w_##fam##_flush_dispatch(void *m)                                             \
        {                                                                                          \
                ISAL_##FAM##_HASH_CTX *out = NULL;                                                 \
                return isal_##fam##_ctx_mgr_flush(m, &out) == 0 ? out : NULL;                      \
        }

/* The per-instruction-set manager `sfx` of family `fam`. */
#define GEN_ARCH(fam, FAM, sfx)                                                                    \
        void _##fam##_ctx_mgr_init_##sfx(ISAL_##FAM##_HASH_CTX_MGR *);                             \
        ISAL_##FAM##_HASH_CTX *_##fam##_ctx_mgr_submit_##sfx(                                      \
                ISAL_##FAM##_HASH_CTX_MGR *, ISAL_##FAM##_HASH_CTX *, const void *, uint32_t,      \
                ISAL_HASH_CTX_FLAG);                                                               \
        ISAL_##FAM##_HASH_CTX *_##fam##_ctx_mgr_flush_##sfx(ISAL_##FAM##_HASH_CTX_MGR *);          \
        static void w_##fam##_init_##sfx(void *m) { _##fam##_ctx_mgr_init_##sfx(m); }              \
        static void *w_##fam##_submit_##sfx(void *m, void *c, const void *b, uint32_t l,           \
                                            ISAL_HASH_CTX_FLAG f)                                  \
        {                                                                                          \
                return _##fam##_ctx_mgr_submit_##sfx(m, c, b, l, f);                               \
        }                                                                                          \
        static void *w_##fam##_flush_##sfx(void *m) { return _##fam##_ctx_mgr_flush_##sfx(m); }

#define GV(fam, sfx, need)                                                                         \
        { #sfx, need, w_##fam##_init_##sfx, w_##fam##_submit_##sfx, w_##fam##_flush_##sfx }

GEN_DISPATCH(md5, MD5)
GEN_DISPATCH(sha1, SHA1)
GEN_DISPATCH(sm3, SM3)
#if defined(MBB_HAVE__md5_ctx_mgr_init_avx2)
GEN_ARCH(md5, MD5, avx2)
#endif
#if defined(MBB_HAVE__md5_ctx_mgr_init_avx512)
GEN_ARCH(md5, MD5, avx512)
#endif
#if defined(MBB_HAVE__sha1_ctx_mgr_init_avx2)
GEN_ARCH(sha1, SHA1, avx2)
#endif
#if defined(MBB_HAVE__sha1_ctx_mgr_init_avx512)
GEN_ARCH(sha1, SHA1, avx512)
#endif
#if defined(MBB_HAVE__sha1_ctx_mgr_init_sse_ni)
GEN_ARCH(sha1, SHA1, sse_ni)
#endif
#if defined(MBB_HAVE__sha1_ctx_mgr_init_avx512_ni)
GEN_ARCH(sha1, SHA1, avx512_ni)
#endif
#if defined(MBB_HAVE__sm3_ctx_mgr_init_avx2)
GEN_ARCH(sm3, SM3, avx2)
#endif
#if defined(MBB_HAVE__sm3_ctx_mgr_init_avx512)
GEN_ARCH(sm3, SM3, avx512)
#endif

static const struct gvariant VARIANTS_MD5[] = {
        GV(md5, dispatch, NEED_NONE),
#if defined(MBB_HAVE__md5_ctx_mgr_init_avx2)
        GV(md5, avx2, NEED_AVX | NEED_AVX2),
#endif
#if defined(MBB_HAVE__md5_ctx_mgr_init_avx512)
        GV(md5, avx512, NEED_AVX | NEED_AVX2 | NEED_AVX512),
#endif
};
static const struct gvariant VARIANTS_SHA1[] = {
        GV(sha1, dispatch, NEED_NONE),
#if defined(MBB_HAVE__sha1_ctx_mgr_init_sse_ni)
        GV(sha1, sse_ni, NEED_SSE41 | NEED_SHA),
#endif
#if defined(MBB_HAVE__sha1_ctx_mgr_init_avx2)
        GV(sha1, avx2, NEED_AVX | NEED_AVX2),
#endif
#if defined(MBB_HAVE__sha1_ctx_mgr_init_avx512)
        GV(sha1, avx512, NEED_AVX | NEED_AVX2 | NEED_AVX512),
#endif
#if defined(MBB_HAVE__sha1_ctx_mgr_init_avx512_ni)
        GV(sha1, avx512_ni, NEED_AVX | NEED_AVX2 | NEED_AVX512 | NEED_SHA),
#endif
};
static const struct gvariant VARIANTS_SM3[] = {
        GV(sm3, dispatch, NEED_NONE),
#if defined(MBB_HAVE__sm3_ctx_mgr_init_avx2)
        GV(sm3, avx2, NEED_AVX | NEED_AVX2),
#endif
#if defined(MBB_HAVE__sm3_ctx_mgr_init_avx512)
        GV(sm3, avx512, NEED_AVX | NEED_AVX2 | NEED_AVX512),
#endif
};

/* Family codes of the Rust side: 5 MD5, 1 SHA-1, 3 SM3. */
static const struct gvariant *gtable(int fam, size_t *n)
{
        switch (fam) {
        case 5:
                *n = sizeof VARIANTS_MD5 / sizeof VARIANTS_MD5[0];
                return VARIANTS_MD5;
        case 1:
                *n = sizeof VARIANTS_SHA1 / sizeof VARIANTS_SHA1[0];
                return VARIANTS_SHA1;
        case 3:
                *n = sizeof VARIANTS_SM3 / sizeof VARIANTS_SM3[0];
                return VARIANTS_SM3;
        }
        *n = 0;
        return NULL;
}

size_t mbb_isal_fam_variants(int fam)
{
        size_t n;
        gtable(fam, &n);
        return n;
}

const char *mbb_isal_fam_variant_name(int fam, size_t i)
{
        size_t n;
        const struct gvariant *t = gtable(fam, &n);
        return i < n ? t[i].name : NULL;
}

int mbb_isal_fam_variant_usable(int fam, size_t i)
{
        size_t n;
        const struct gvariant *t = gtable(fam, &n);
        return i < n && cpu_has(t[i].need);
}

struct mbb_isal_fam {
        int fam;
        const struct gvariant *v;
        size_t max;
        void *mgr;
        void *ctxs;
};

void mbb_isal_fam_free(struct mbb_isal_fam *h)
{
        if (!h)
                return;
        free(h->mgr);
        free(h->ctxs);
        free(h);
}

struct mbb_isal_fam *mbb_isal_fam_new(int fam, size_t i, size_t max)
{
        size_t mgr_size, ctx_size;
        struct mbb_isal_fam *h;
        if (!mbb_isal_fam_variant_usable(fam, i) || max == 0)
                return NULL;
        switch (fam) {
        case 5:
                mgr_size = sizeof(ISAL_MD5_HASH_CTX_MGR), ctx_size = sizeof(ISAL_MD5_HASH_CTX);
                break;
        case 1:
                mgr_size = sizeof(ISAL_SHA1_HASH_CTX_MGR), ctx_size = sizeof(ISAL_SHA1_HASH_CTX);
                break;
        default:
                mgr_size = sizeof(ISAL_SM3_HASH_CTX_MGR), ctx_size = sizeof(ISAL_SM3_HASH_CTX);
                break;
        }
        h = calloc(1, sizeof *h);
        if (!h)
                return NULL;
        {
                size_t n;
                h->v = &gtable(fam, &n)[i];
        }
        h->fam = fam;
        h->max = max;
        h->mgr = zalloc64(mgr_size);
        h->ctxs = zalloc64(max * ctx_size);
        if (!h->mgr || !h->ctxs) {
                mbb_isal_fam_free(h);
                return NULL;
        }
        h->v->init(h->mgr);
        return h;
}

/* Submits every message, flushes, checks each context and writes its digest:
 * `nwords` 32-bit words, written little-endian for MD5 and SM3 (ISA-L's SM3
 * keeps its result words byte-swapped: the digest's bytes in memory order),
 * big-endian for SHA-1. */
#define GEN_RUN(FAM, nwords, little)                                                               \
        {                                                                                          \
                ISAL_##FAM##_HASH_CTX *ctxs = h->ctxs;                                             \
                for (k = 0; k < n; k++) {                                                          \
                        isal_hash_ctx_init(&ctxs[k]);                                              \
                        h->v->submit(h->mgr, &ctxs[k], msgs[k], lens[k], ISAL_HASH_ENTIRE);        \
                }                                                                                  \
                while (h->v->flush(h->mgr))                                                        \
                        ;                                                                          \
                clear_upper_state();                                                               \
                for (k = 0; k < n; k++) {                                                          \
                        if (ctxs[k].status != ISAL_HASH_CTX_STS_COMPLETE ||                        \
                            ctxs[k].error != ISAL_HASH_CTX_ERROR_NONE)                             \
                                return -1;                                                         \
                        for (w = 0; w < (nwords); w++) {                                           \
                                uint32_t x = ctxs[k].job.result_digest[w];                         \
                                uint8_t *o = out + (k * (nwords) + w) * 4;                         \
                                if (little)                                                        \
                                        o[0] = x, o[1] = x >> 8, o[2] = x >> 16, o[3] = x >> 24;   \
                                else                                                               \
                                        o[0] = x >> 24, o[1] = x >> 16, o[2] = x >> 8, o[3] = x;   \
                        }                                                                          \
                }                                                                                  \
        }

/* As mbb_isal_run, for MD5 (16-byte digests), SHA-1 (20) and SM3 (32). */
int mbb_isal_fam_run(struct mbb_isal_fam *h, const uint8_t *const *msgs, const uint32_t *lens,
                     size_t n, uint8_t *out)
{
        size_t k, w;
        if (!h || n > h->max)
                return -1;
        switch (h->fam) {
        case 5:
                GEN_RUN(MD5, 4, 1)
                break;
        case 1:
                GEN_RUN(SHA1, 5, 0)
                break;
        default:
                GEN_RUN(SM3, 8, 1)
                break;
        }
        return 0;
}
