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
