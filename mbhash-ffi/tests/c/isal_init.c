/*
 * A new manager holds in every declared field what isa-l_crypto's own
 * isal_sha{256,512}_ctx_mgr_init leaves there (its AVX-512 managers, of the
 * drop-in's lane counts, and MD5's of 32 lanes): for SHA-256, SHA-1 and SM3
 * everything zero but unused_lanes = 0xfedcba9876543210; for SHA-512
 * everything zero but lens[j] = j and unused_lanes = 0x0706050403020100; for
 * MD5 everything zero but lens[j] = 0xffffffff and unused_lanes[k] =
 * 0x0706050403020100 + k * 0x0808080808080808 (but for lens[0] and lens[1],
 * zero in the drop-in: its lane set's masks). Then what isa-l_crypto's flush test
 * does with the fields: it reads lens while it flushes (a signed shift of
 * each, which UBSan checks; valgrind checks that the bytes are defined).
 *
 * usage: isal_init
 */
#define _POSIX_C_SOURCE 200809L
#include <isa-l_crypto/isal_crypto_api.h>
#include <isa-l_crypto/sha256_mb.h>
#include <isa-l_crypto/sha512_mb.h>
#include <isa-l_crypto/md5_mb.h>
#include <isa-l_crypto/sha1_mb.h>
#include <isa-l_crypto/sm3_mb.h>

#include "isal_common.h"

#include <stdlib.h>

/* Every byte of a manager just initialised against what isa-l_crypto's
 * initialisation leaves: zero except the 8-byte values `vals` at `offs`. */
static void check_bytes(const char *what, const uint8_t *m, size_t size, const size_t *offs,
                        const uint64_t *vals, size_t nvals) {
    for (size_t i = 0; i < size; i++) {
        uint8_t want = 0;
        for (size_t k = 0; k < nvals; k++)
            if (i >= offs[k] && i < offs[k] + 8) want = (uint8_t)(vals[k] >> (8 * (i - offs[k])));
        if (m[i] != want) {
            fprintf(stderr, "%s: byte %zu is 0x%02x, isa-l_crypto leaves 0x%02x\n", what, i, m[i],
                    want);
            checks_failed++;
            return;
        }
    }
    checks_run++;
}

/* The lens of isa-l_crypto's flush test: each as a signed 32-bit length
 * (byte_length << 4 | lane), turned into bytes with a signed shift. */
static int32_t lens_sum_256(const ISAL_SHA256_HASH_CTX_MGR *mgr) {
    int32_t sum = 0;
    for (int i = 0; i < ISAL_SHA256_MAX_LANES; i++) {
        int32_t len = (int32_t)mgr->mgr.lens[i];
        len = (len >= 16) ? (len >> 4 << 6) : 0;
        sum ^= len;
    }
    return sum;
}

static int64_t lens_sum_512(const ISAL_SHA512_HASH_CTX_MGR *mgr) {
    int64_t sum = 0;
    for (int i = 0; i < ISAL_SHA512_MAX_LANES; i++) {
        int32_t len = (int32_t)mgr->mgr.lens[i];
        len = (len >= 16) ? (len >> 4 << 6) : 0;
        sum ^= len;
    }
    return sum;
}

#define BUFS 15
#define TEST_LEN (64 * 1024)

static uint8_t *bufs[BUFS];

static void sha256(void) {
    ISAL_SHA256_HASH_CTX_MGR *mgr = NULL;
    REQUIRE_ZERO(posix_memalign((void **)&mgr, 16, sizeof *mgr));
    memset(mgr, 0xaa, sizeof *mgr);
    REQUIRE_ZERO(isal_sha256_ctx_mgr_init(mgr));
    size_t offs[1] = {offsetof(ISAL_SHA256_MB_JOB_MGR, unused_lanes)};
    uint64_t vals[1] = {0xfedcba9876543210u};
    check_bytes("sha256 init over 0xaa", (const uint8_t *)mgr, sizeof *mgr, offs, vals, 1);
    CHECK(mgr->mgr.unused_lanes == 0xfedcba9876543210u && mgr->mgr.num_lanes_inuse == 0);
    free(mgr);

    /* Uninitialised memory (valgrind sees every byte written), then the
     * flush test's reading of lens. */
    REQUIRE_ZERO(posix_memalign((void **)&mgr, 16, sizeof *mgr));
    REQUIRE_ZERO(isal_sha256_ctx_mgr_init(mgr));
    check_bytes("sha256 init", (const uint8_t *)mgr, sizeof *mgr, offs, vals, 1);
    static ISAL_SHA256_HASH_CTX ctx[BUFS];
    ISAL_SHA256_HASH_CTX *done;
    int32_t seen = 0;
    int back = 0;
    for (int i = 0; i < BUFS; i++) {
        isal_hash_ctx_init(&ctx[i]);
        REQUIRE_ZERO(isal_sha256_ctx_mgr_submit(mgr, &ctx[i], &done, bufs[i],
                                                (uint32_t)(TEST_LEN / 16 * (i + 1)),
                                                ISAL_HASH_ENTIRE));
        if (done != NULL) back++;
        seen ^= lens_sum_256(mgr);
    }
    while (isal_sha256_ctx_mgr_flush(mgr, &done) == 0 && done != NULL) {
        seen ^= lens_sum_256(mgr);
        back++;
    }
    CHECK(back == BUFS);
    for (int i = 0; i < BUFS; i++) {
        uint8_t got[32], want[64];
        words32_to_bytes(ctx[i].job.result_digest, got);
        reference(MBH_SHA256, bufs[i], TEST_LEN / 16 * (size_t)(i + 1), want);
        CHECK(memcmp(got, want, 32) == 0);
    }
    printf("sha256: %d contexts back (lens read: %d)\n", back, (int)(seen & 1));
    free(mgr);
}

static void sha512(void) {
    ISAL_SHA512_HASH_CTX_MGR *mgr = NULL;
    REQUIRE_ZERO(posix_memalign((void **)&mgr, 16, sizeof *mgr));
    memset(mgr, 0xaa, sizeof *mgr);
    REQUIRE_ZERO(isal_sha512_ctx_mgr_init(mgr));
    size_t offs[8];
    uint64_t vals[8];
    for (int j = 0; j < 7; j++) {
        offs[j] = offsetof(ISAL_SHA512_MB_JOB_MGR, lens) + 8 * (size_t)(j + 1);
        vals[j] = (uint64_t)(j + 1);
    }
    offs[7] = offsetof(ISAL_SHA512_MB_JOB_MGR, unused_lanes);
    vals[7] = 0x0706050403020100u;
    check_bytes("sha512 init over 0xaa", (const uint8_t *)mgr, sizeof *mgr, offs, vals, 8);
    for (int j = 0; j < ISAL_SHA512_MAX_LANES; j++) CHECK(mgr->mgr.lens[j] == (uint64_t)j);
    free(mgr);

    REQUIRE_ZERO(posix_memalign((void **)&mgr, 16, sizeof *mgr));
    REQUIRE_ZERO(isal_sha512_ctx_mgr_init(mgr));
    check_bytes("sha512 init", (const uint8_t *)mgr, sizeof *mgr, offs, vals, 8);
    static ISAL_SHA512_HASH_CTX ctx[BUFS];
    ISAL_SHA512_HASH_CTX *done;
    int64_t seen = 0;
    int back = 0;
    for (int i = 0; i < BUFS; i++) {
        isal_hash_ctx_init(&ctx[i]);
        REQUIRE_ZERO(isal_sha512_ctx_mgr_submit(mgr, &ctx[i], &done, bufs[i],
                                                (uint32_t)(TEST_LEN / 16 * (i + 1)),
                                                ISAL_HASH_ENTIRE));
        if (done != NULL) back++;
        seen ^= lens_sum_512(mgr);
    }
    while (isal_sha512_ctx_mgr_flush(mgr, &done) == 0 && done != NULL) {
        seen ^= lens_sum_512(mgr);
        back++;
    }
    CHECK(back == BUFS);
    for (int i = 0; i < BUFS; i++) {
        uint8_t got[64], want[64];
        words64_to_bytes(ctx[i].job.result_digest, got);
        reference(MBH_SHA512, bufs[i], TEST_LEN / 16 * (size_t)(i + 1), want);
        CHECK(memcmp(got, want, 64) == 0);
    }
    printf("sha512: %d contexts back (lens read: %d)\n", back, (int)(seen & 1));
    free(mgr);
}

/* MD5, SHA-1 and SM3: as above, through isal_family.h. F(expected) gives the
 * 8-byte values isa-l_crypto's initialisation leaves. */
static size_t expected_md5(size_t *offs, uint64_t *vals) {
    size_t n = 0;
    /* lens[0] and lens[1] hold the drop-in's busy and done masks over its 32
     * lanes, zero when empty (isa-l_crypto leaves 0xffffffff there). */
    for (size_t j = 1; j < 16; j++) {
        offs[n] = offsetof(ISAL_MD5_MB_JOB_MGR, lens) + 8 * j;
        vals[n++] = UINT64_MAX;
    }
    for (size_t k = 0; k < 4; k++) {
        offs[n] = offsetof(ISAL_MD5_MB_JOB_MGR, unused_lanes) + 8 * k;
        vals[n++] = 0x0706050403020100u + k * 0x0808080808080808u;
    }
    return n;
}

static size_t expected_sha1(size_t *offs, uint64_t *vals) {
    offs[0] = offsetof(ISAL_SHA1_MB_JOB_MGR, unused_lanes);
    vals[0] = 0xfedcba9876543210u;
    return 1;
}

static size_t expected_sm3(size_t *offs, uint64_t *vals) {
    offs[0] = offsetof(ISAL_SM3_MB_JOB_MGR, unused_lanes);
    vals[0] = 0xfedcba9876543210u;
    return 1;
}

#define INIT_BODY                                                                      \
    static void F(init)(void) {                                                        \
        size_t offs[32];                                                               \
        uint64_t vals[32];                                                             \
        size_t n = F(expected)(offs, vals);                                            \
        F_MGR *mgr = NULL;                                                             \
        REQUIRE_ZERO(posix_memalign((void **)&mgr, 16, sizeof *mgr));                  \
        memset(mgr, 0xaa, sizeof *mgr);                                                \
        REQUIRE_ZERO(F_INIT(mgr));                                                     \
        check_bytes(F_NAME " init over 0xaa", (const uint8_t *)mgr, sizeof *mgr, offs, \
                    vals, n);                                                          \
        CHECK(mgr->mgr.num_lanes_inuse == 0);                                          \
        free(mgr);                                                                     \
        REQUIRE_ZERO(posix_memalign((void **)&mgr, 16, sizeof *mgr));                  \
        REQUIRE_ZERO(F_INIT(mgr));                                                     \
        check_bytes(F_NAME " init", (const uint8_t *)mgr, sizeof *mgr, offs, vals, n); \
        static F_CTX ctx[BUFS];                                                        \
        F_CTX *done;                                                                   \
        int32_t seen = 0;                                                              \
        int back = 0;                                                                  \
        for (int i = 0; i < BUFS; i++) {                                               \
            isal_hash_ctx_init(&ctx[i]);                                               \
            REQUIRE_ZERO(F_SUBMIT(mgr, &ctx[i], &done, bufs[i],                        \
                                  (uint32_t)(TEST_LEN / 16 * (i + 1)), ISAL_HASH_ENTIRE)); \
            if (done != NULL) back++;                                                  \
            seen ^= F(lens_sum)(mgr);                                                  \
        }                                                                              \
        while (F_FLUSH(mgr, &done) == 0 && done != NULL) {                             \
            seen ^= F(lens_sum)(mgr);                                                  \
            back++;                                                                    \
        }                                                                              \
        CHECK(back == BUFS);                                                           \
        for (int i = 0; i < BUFS; i++) {                                               \
            uint8_t got[F_DIGEST_LEN], want[MBH_MAX_DIGEST_LEN];                       \
            F_DIGEST_BYTES(ctx[i].job.result_digest, got);                             \
            reference(F_ALG, bufs[i], TEST_LEN / 16 * (size_t)(i + 1), want);          \
            CHECK(memcmp(got, want, F_DIGEST_LEN) == 0);                               \
        }                                                                              \
        printf("%s: %d contexts back (lens read: %d)\n", F_NAME, back, (int)(seen & 1)); \
        free(mgr);                                                                     \
    }

/* The flush test's reading of lens, for any family's manager. */
#define LENS_SUM_BODY                                                                  \
    static int32_t F(lens_sum)(const F_MGR *mgr) {                                     \
        int32_t sum = 0;                                                               \
        for (int i = 0; i < F_LANES; i++) {                                            \
            int32_t len = (int32_t)mgr->mgr.lens[i];                                   \
            len = (len >= 16) ? (len >> 4 << 6) : 0;                                   \
            sum ^= len;                                                                \
        }                                                                              \
        return sum;                                                                    \
    }

#define ISAL_FAMILY 5
#include "isal_family.h"
LENS_SUM_BODY
INIT_BODY
#undef ISAL_FAMILY

#define ISAL_FAMILY 1
#include "isal_family.h"
LENS_SUM_BODY
INIT_BODY
#undef ISAL_FAMILY

#define ISAL_FAMILY 3
#include "isal_family.h"
LENS_SUM_BODY
INIT_BODY
#undef ISAL_FAMILY

int main(void) {
    struct rng r = {0x1234};
    for (int i = 0; i < BUFS; i++) {
        size_t len = TEST_LEN / 16 * (size_t)(i + 1);
        bufs[i] = malloc(len);
        if (bufs[i] == NULL) return 1;
        for (size_t k = 0; k < len; k++) bufs[i][k] = (uint8_t)(rng_next(&r) >> 56);
    }
    sha256();
    sha512();
    init_md5();
    init_sha1();
    init_sm3();
    for (int i = 0; i < BUFS; i++) free(bufs[i]);
    return finish("isal_init");
}
