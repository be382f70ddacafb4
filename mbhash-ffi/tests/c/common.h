/* Shared helpers of the C tests: checks, hex, a seeded PRNG, algorithms. */
#ifndef MBH_TEST_COMMON_H
#define MBH_TEST_COMMON_H

#include "mbhash.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int checks_run;
static int checks_failed;

#define CHECK(cond)                                                                    \
    do {                                                                               \
        checks_run++;                                                                  \
        if (!(cond)) {                                                                 \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond);   \
            checks_failed++;                                                           \
        }                                                                              \
    } while (0)

/* `expr` must give the result code `want`. */
#define EXPECT(expr, want)                                                             \
    do {                                                                               \
        mbh_result got_ = (expr);                                                      \
        checks_run++;                                                                  \
        if (got_ != (want)) {                                                          \
            fprintf(stderr, "%s:%d: %s gave %u (%s), expected %s\n", __FILE__,         \
                    __LINE__, #expr, (unsigned)got_, mbh_result_str(got_), #want);     \
            checks_failed++;                                                           \
        }                                                                              \
    } while (0)

#define OK(expr) EXPECT(expr, MBH_OK)

/* A check that the rest of the test depends on. */
#define REQUIRE_OK(expr)                                                               \
    do {                                                                               \
        mbh_result got_ = (expr);                                                      \
        if (got_ != MBH_OK) {                                                          \
            fprintf(stderr, "%s:%d: %s gave %u (%s); cannot go on\n", __FILE__,        \
                    __LINE__, #expr, (unsigned)got_, mbh_result_str(got_));            \
            exit(1);                                                                   \
        }                                                                              \
    } while (0)

/* Prints the summary line and gives the exit status. */
static inline int finish(const char *name) {
    printf("%s: %d passed, %d failed\n", name, checks_run - checks_failed, checks_failed);
    return checks_failed == 0 ? 0 : 1;
}

/* Every hash algorithm of the C API, with the names of their NIST files. */
struct alg_info {
    mbh_algorithm alg;
    const char *name;
    const char *nist; /* prefix of tests/vectors/<nist>{Short,Long}Msg.rsp;
                         NULL: none (nist.c's known answers instead) */
    size_t digest_len;
};

#define ALG_COUNT 9

static const struct alg_info ALGS[ALG_COUNT] = {
    {MBH_SHA256, "sha256", "SHA256", MBH_SHA256_DIGEST_LEN},
    {MBH_SHA224, "sha224", "SHA224", MBH_SHA224_DIGEST_LEN},
    {MBH_SHA512, "sha512", "SHA512", MBH_SHA512_DIGEST_LEN},
    {MBH_SHA384, "sha384", "SHA384", MBH_SHA384_DIGEST_LEN},
    {MBH_SHA512_256, "sha512-256", "SHA512_256", MBH_SHA512_256_DIGEST_LEN},
    {MBH_SHA512_224, "sha512-224", "SHA512_224", MBH_SHA512_224_DIGEST_LEN},
    {MBH_MD5, "md5", NULL, MBH_MD5_DIGEST_LEN},
    {MBH_SHA1, "sha1", "SHA1", MBH_SHA1_DIGEST_LEN},
    {MBH_SM3, "sm3", NULL, MBH_SM3_DIGEST_LEN},
};

/* splitmix64: deterministic, seedable. */
struct rng {
    uint64_t state;
};

static inline uint64_t rng_next(struct rng *r) {
    uint64_t z = (r->state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* Uniform in 0..n-1 (n > 0). */
static inline size_t rng_below(struct rng *r, size_t n) {
    return (size_t)(rng_next(r) % (uint64_t)n);
}

static inline void rng_fill(struct rng *r, uint8_t *buf, size_t len) {
    for (size_t i = 0; i < len; i++) {
        buf[i] = (uint8_t)(rng_next(r) >> 56);
    }
}

static inline int hex_value(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

/* Decodes `2 * len` hex digits into `out`; 0 on success. */
static inline int hex_decode(const char *hex, uint8_t *out, size_t len) {
    for (size_t i = 0; i < len; i++) {
        int hi = hex_value(hex[2 * i]), lo = hex_value(hex[2 * i + 1]);
        if (hi < 0 || lo < 0) return -1;
        out[i] = (uint8_t)(hi * 16 + lo);
    }
    return 0;
}

static inline void hex_print(FILE *f, const uint8_t *bytes, size_t len) {
    for (size_t i = 0; i < len; i++) fprintf(f, "%02x", bytes[i]);
}

/* Compares two digests; prints both on a difference. */
static inline int same_digest(const char *what, const uint8_t *got, const uint8_t *want,
                              size_t len) {
    checks_run++;
    if (memcmp(got, want, len) == 0) return 1;
    checks_failed++;
    fprintf(stderr, "%s: digest mismatch\n  got  ", what);
    hex_print(stderr, got, len);
    fprintf(stderr, "\n  want ");
    hex_print(stderr, want, len);
    fprintf(stderr, "\n");
    return 0;
}

static inline void *xmalloc(size_t n) {
    void *p = malloc(n ? n : 1);
    if (!p) {
        fprintf(stderr, "out of memory\n");
        exit(1);
    }
    return p;
}

#endif /* MBH_TEST_COMMON_H */
