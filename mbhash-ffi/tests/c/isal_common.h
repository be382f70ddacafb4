/* Shared helpers of the isa-l_crypto ABI tests (isal_*.c): the checks and PRNG
 * of common.h, results of the isal_* functions, digests as bytes, and the
 * reference digests of the native API on the scalar engine. */
#ifndef MBH_ISAL_TEST_COMMON_H
#define MBH_ISAL_TEST_COMMON_H

#include "common.h"

#include <stddef.h>

/* An int result must be `want`. */
#define EXPECT_INT(expr, want)                                                         \
    do {                                                                               \
        int got_ = (int)(expr);                                                        \
        checks_run++;                                                                  \
        if (got_ != (int)(want)) {                                                     \
            fprintf(stderr, "%s:%d: %s gave %d, expected %s (%d)\n", __FILE__,         \
                    __LINE__, #expr, got_, #want, (int)(want));                        \
            checks_failed++;                                                           \
        }                                                                              \
    } while (0)

/* An isal_* call the rest of the test depends on. */
#define REQUIRE_ZERO(expr)                                                             \
    do {                                                                               \
        int got_ = (int)(expr);                                                        \
        if (got_ != 0) {                                                               \
            fprintf(stderr, "%s:%d: %s gave %d; cannot go on\n", __FILE__, __LINE__,   \
                    #expr, got_);                                                      \
            exit(1);                                                                   \
        }                                                                              \
    } while (0)

/* A digest of host-order words as its standard big-endian bytes. */
static inline void words32_to_bytes(const uint32_t *w, uint8_t *out) {
    for (int i = 0; i < 8; i++)
        for (int b = 0; b < 4; b++) out[4 * i + b] = (uint8_t)(w[i] >> (24 - 8 * b));
}

static inline void words64_to_bytes(const uint64_t *w, uint8_t *out) {
    for (int i = 0; i < 8; i++)
        for (int b = 0; b < 8; b++) out[8 * i + b] = (uint8_t)(w[i] >> (56 - 8 * b));
}

/* MD5's digest: four little-endian words. */
static inline void md5_words_to_bytes(const uint32_t *w, uint8_t *out) {
    for (int i = 0; i < 4; i++)
        for (int b = 0; b < 4; b++) out[4 * i + b] = (uint8_t)(w[i] >> (8 * b));
}

/* SHA-1's digest: five host-order words, as big-endian bytes. */
static inline void sha1_words_to_bytes(const uint32_t *w, uint8_t *out) {
    for (int i = 0; i < 5; i++)
        for (int b = 0; b < 4; b++) out[4 * i + b] = (uint8_t)(w[i] >> (24 - 8 * b));
}

/* SM3's digest as isa-l_crypto leaves it: the words byte-swapped, so the
 * digest's bytes are the words' bytes in memory. */
static inline void sm3_words_to_bytes(const uint32_t *w, uint8_t *out) { memcpy(out, w, 32); }

/* The digest of one message through the native API on the scalar engine: a
 * reference independent of the manager and kernels under test. */
static inline void reference(mbh_algorithm alg, const uint8_t *msg, size_t len, uint8_t *out) {
    const uint8_t *msgs[1] = {msg};
    size_t lens[1] = {len};
    REQUIRE_OK(mbh_hash_many_with_engine(alg, "scalar", msgs, lens, 1, out, MBH_MAX_DIGEST_LEN));
}

#endif /* MBH_ISAL_TEST_COMMON_H */
