/* The ISA-L compatible CRC functions (include/isa-l/crc.h, crc64.h): all
 * thirteen, and their *_base forms, with ISA-L's seed and inversion
 * conventions, against a bitwise reference written here; seeds chained
 * across pieces; crc16_t10dif_copy's copy, overlapping buffers included; a
 * NULL buffer with length 0 and crc32_iscsi's negative length.
 *
 * This file includes ISA-L's header names only (no mbhash.h), so that it
 * builds against ISA-L itself as well:
 *
 *   isal_crc            the checks above
 *   isal_crc small      fewer lengths (for valgrind)
 *   isal_crc dump       prints "function length seed value" for a fixed
 *                       matrix of inputs and seeds: the test compares the
 *                       dump of this program built against libmbhash with
 *                       the dump of it built against ISA-L's library
 *                       (without the Rocksoft functions for an ISA-L before
 *                       2.31: -DISAL_CRC_NO_ROCKSOFT)
 */
#include <crc.h>
#include <crc64.h>

#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int checks_run, checks_failed;

#define CHECK(cond)                                                                    \
    do {                                                                               \
        checks_run++;                                                                  \
        if (!(cond)) {                                                                 \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond);   \
            checks_failed++;                                                           \
        }                                                                              \
    } while (0)

static uint64_t rng_state = 0x15A1;
static uint64_t rng_next(void) {
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* ---- the reference: one bit at a time ---- */

static uint64_t reflect(uint64_t v, unsigned bits) {
    uint64_t r = 0;
    for (unsigned i = 0; i < bits; i++) r |= ((v >> i) & 1u) << (bits - 1 - i);
    return r;
}

/* The register of a CRC of `width` bits after the bytes: MSB first (norm)
 * or LSB first with the reflected polynomial (refl). */
static uint64_t ref_reg(unsigned width, uint64_t poly, bool refl, uint64_t reg, const uint8_t *p,
                        uint64_t n) {
    const uint64_t mask = width == 64 ? ~0ULL : (1ULL << width) - 1;
    const uint64_t top = 1ULL << (width - 1), rpoly = reflect(poly, width);
    for (uint64_t i = 0; i < n; i++) {
        if (refl) {
            reg ^= p[i];
            for (int k = 0; k < 8; k++) reg = (reg & 1) ? (reg >> 1) ^ rpoly : reg >> 1;
        } else {
            reg ^= (uint64_t)p[i] << (width - 8);
            for (int k = 0; k < 8; k++) reg = ((reg & top) ? (reg << 1) ^ poly : reg << 1) & mask;
        }
    }
    return reg & mask;
}

/* ---- the functions under test, in one shape ---- */

struct fn {
    const char *name;
    unsigned width;
    uint64_t poly;
    bool refl;
    bool inverted; /* ~seed in, ~register out (all but t10dif and iscsi) */
    uint64_t (*call)(uint64_t seed, const uint8_t *p, uint64_t n);
    uint64_t (*base)(uint64_t seed, const uint8_t *p, uint64_t n);
};

static uint64_t t10dif(uint64_t s, const uint8_t *p, uint64_t n) {
    return crc16_t10dif((uint16_t)s, p, n);
}
static uint64_t t10dif_b(uint64_t s, const uint8_t *p, uint64_t n) {
    return crc16_t10dif_base((uint16_t)s, (uint8_t *)p, n);
}
/* crc16_t10dif_copy, checked for its copy too. */
static uint64_t t10dif_copy(uint64_t s, const uint8_t *p, uint64_t n) {
    uint8_t *dst = malloc(n + 1);
    if (!dst) abort();
    dst[n] = 0xA5;
    uint16_t crc = crc16_t10dif_copy((uint16_t)s, dst, (uint8_t *)p, n);
    CHECK(memcmp(dst, p, n) == 0 && dst[n] == 0xA5);
    free(dst);
    return crc;
}
static uint64_t t10dif_copy_b(uint64_t s, const uint8_t *p, uint64_t n) {
    uint8_t *dst = malloc(n + 1);
    if (!dst) abort();
    dst[n] = 0x5A;
    uint16_t crc = crc16_t10dif_copy_base((uint16_t)s, dst, (uint8_t *)p, n);
    CHECK(memcmp(dst, p, n) == 0 && dst[n] == 0x5A);
    free(dst);
    return crc;
}
static uint64_t ieee(uint64_t s, const uint8_t *p, uint64_t n) {
    return crc32_ieee((uint32_t)s, p, n);
}
static uint64_t ieee_b(uint64_t s, const uint8_t *p, uint64_t n) {
    return crc32_ieee_base((uint32_t)s, (uint8_t *)p, n);
}
static uint64_t gzip(uint64_t s, const uint8_t *p, uint64_t n) {
    return crc32_gzip_refl((uint32_t)s, p, n);
}
static uint64_t gzip_b(uint64_t s, const uint8_t *p, uint64_t n) {
    return crc32_gzip_refl_base((uint32_t)s, (uint8_t *)p, n);
}
static uint64_t iscsi(uint64_t s, const uint8_t *p, uint64_t n) {
    return crc32_iscsi((unsigned char *)p, (int)n, (unsigned)s);
}
static uint64_t iscsi_b(uint64_t s, const uint8_t *p, uint64_t n) {
    return crc32_iscsi_base((unsigned char *)p, (int)n, (unsigned)s);
}

#define CRC64(x)                                                                       \
    static uint64_t x##_f(uint64_t s, const uint8_t *p, uint64_t n) {                  \
        return crc64_##x(s, p, n);                                                     \
    }                                                                                  \
    static uint64_t x##_bf(uint64_t s, const uint8_t *p, uint64_t n) {                 \
        return crc64_##x##_base(s, p, n);                                              \
    }
CRC64(ecma_refl)
CRC64(ecma_norm)
CRC64(iso_refl)
CRC64(iso_norm)
CRC64(jones_refl)
CRC64(jones_norm)
/* ISA-L before 2.31 has no Rocksoft functions: built against it, the
 * test defines ISAL_CRC_NO_ROCKSOFT. */
#ifndef ISAL_CRC_NO_ROCKSOFT
CRC64(rocksoft_refl)
CRC64(rocksoft_norm)
#endif

#define ECMA 0x42F0E1EBA9EA3693ULL
#define ISO 0x1BULL
#define JONES 0xAD93D23594C935A9ULL
#define ROCKSOFT 0xAD93D23594C93659ULL
static const struct fn FNS[] = {
    {"crc16_t10dif", 16, 0x8BB7, false, false, t10dif, t10dif_b},
    {"crc16_t10dif_copy", 16, 0x8BB7, false, false, t10dif_copy, t10dif_copy_b},
    {"crc32_ieee", 32, 0x04C11DB7, false, true, ieee, ieee_b},
    {"crc32_gzip_refl", 32, 0x04C11DB7, true, true, gzip, gzip_b},
    {"crc32_iscsi", 32, 0x1EDC6F41, true, false, iscsi, iscsi_b},
    {"crc64_ecma_refl", 64, ECMA, true, true, ecma_refl_f, ecma_refl_bf},
    {"crc64_ecma_norm", 64, ECMA, false, true, ecma_norm_f, ecma_norm_bf},
    {"crc64_iso_refl", 64, ISO, true, true, iso_refl_f, iso_refl_bf},
    {"crc64_iso_norm", 64, ISO, false, true, iso_norm_f, iso_norm_bf},
    {"crc64_jones_refl", 64, JONES, true, true, jones_refl_f, jones_refl_bf},
    {"crc64_jones_norm", 64, JONES, false, true, jones_norm_f, jones_norm_bf},
#ifndef ISAL_CRC_NO_ROCKSOFT
    {"crc64_rocksoft_refl", 64, ROCKSOFT, true, true, rocksoft_refl_f, rocksoft_refl_bf},
    {"crc64_rocksoft_norm", 64, ROCKSOFT, false, true, rocksoft_norm_f, rocksoft_norm_bf},
#endif
};
#define NFNS (sizeof FNS / sizeof FNS[0])

static uint64_t reference(const struct fn *f, uint64_t seed, const uint8_t *p, uint64_t n) {
    const uint64_t mask = f->width == 64 ? ~0ULL : (1ULL << f->width) - 1;
    uint64_t reg = f->inverted ? ~seed & mask : seed & mask;
    reg = ref_reg(f->width, f->poly, f->refl, reg, p, n);
    return f->inverted ? ~reg & mask : reg;
}

static int reported;

static void check_one(const struct fn *f, uint64_t seed, const uint8_t *p, uint64_t n) {
    uint64_t want = reference(f, seed, p, n), got = f->call(seed, p, n), base = f->base(seed, p, n);
    /* In two pieces, the first result seeding the second. */
    uint64_t cut = n ? rng_next() % (n + 1) : 0;
    uint64_t chained = f->call(f->call(seed, p, cut), p + cut, n - cut);
    checks_run++;
    if (got != want || base != want || chained != want) {
        checks_failed++;
        if (reported++ < 20)
            fprintf(stderr,
                    "%s len %" PRIu64 " seed %" PRIx64 ": want %" PRIx64 ", got %" PRIx64
                    ", base %" PRIx64 ", chained %" PRIx64 "\n",
                    f->name, n, seed, want, got, base, chained);
    }
}

/* The catalogue's check values of "123456789", through ISA-L's seeds. */
static void check_values(void) {
    unsigned char nine[] = "123456789";
    CHECK(crc16_t10dif(0, nine, 9) == 0xD0DB);
    CHECK(crc32_ieee(0, nine, 9) == 0xFC891918u);          /* CRC-32/BZIP2 */
    CHECK(crc32_gzip_refl(0, nine, 9) == 0xCBF43926u);     /* CRC-32/ISO-HDLC */
    CHECK(~crc32_iscsi(nine, 9, 0xFFFFFFFFu) == 0xE3069283u); /* CRC-32/ISCSI */
    CHECK(crc64_ecma_refl(0, nine, 9) == 0x995DC9BBDF1939FAULL);     /* CRC-64/XZ */
    CHECK(crc64_ecma_norm(0, nine, 9) == 0x62EC59E3F1A4F00AULL);     /* CRC-64/WE */
    CHECK(crc64_iso_refl(0, nine, 9) == 0xB90956C775A41001ULL);      /* CRC-64/GO-ISO */
#ifndef ISAL_CRC_NO_ROCKSOFT
    CHECK(crc64_rocksoft_refl(0, nine, 9) == 0xAE8B14860A799888ULL); /* CRC-64/NVME */
#endif
    CHECK(~crc64_jones_refl(~0ULL, nine, 9) == 0xE9C6D914C4B8D9CAULL); /* CRC-64/REDIS */
    /* CRC-64/ECMA-182: no inversion; through the inverted function with a
     * seed of ~0 and the result inverted back. */
    CHECK(~crc64_ecma_norm(~0ULL, nine, 9) == 0x6C40DF5F0B497347ULL);
}

static void check_edges(void) {
    /* NULL with length 0: the seed comes back (through the inversions). */
    for (size_t i = 0; i < NFNS; i++) {
        const struct fn *f = &FNS[i];
        if (strcmp(f->name, "crc16_t10dif_copy") == 0) continue;
        CHECK(f->call(0x1234, NULL, 0) == 0x1234);
        CHECK(f->base(0x1234, NULL, 0) == 0x1234);
    }
    uint8_t d = 0x77;
    CHECK(crc16_t10dif_copy(0x4321, &d, NULL, 0) == 0x4321 && d == 0x77);
    CHECK(crc16_t10dif_copy(0x4321, NULL, NULL, 0) == 0x4321);
    /* A negative length computes nothing, as ISA-L's base code. */
    unsigned char b[4] = {1, 2, 3, 4};
    CHECK(crc32_iscsi(b, -1, 0xABCDu) == 0xABCDu);
    CHECK(crc32_iscsi_base(b, -4, 0xABCDu) == 0xABCDu);
}

/* Overlapping copies: the CRC of the source as it was, the destination as
 * memmove leaves it. */
static void check_overlap(void) {
    enum { N = 5000 };
    uint8_t *buf = malloc(2 * N), *orig = malloc(2 * N);
    if (!buf || !orig) abort();
    for (size_t i = 0; i < 2 * N; i++) orig[i] = (uint8_t)(rng_next() >> 56);
    static const size_t shifts[] = {1, 7, 64, 4000};
    for (size_t k = 0; k < 4; k++) {
        size_t s = shifts[k];
        uint16_t want = crc16_t10dif(0, orig + s, N);
        memcpy(buf, orig, 2 * N);
        CHECK(crc16_t10dif_copy(0, buf, buf + s, N) == want); /* dst below src */
        CHECK(memcmp(buf, orig + s, N) == 0);
        want = crc16_t10dif(0, orig, N);
        memcpy(buf, orig, 2 * N);
        CHECK(crc16_t10dif_copy(0, buf + s, buf, N) == want); /* dst above src */
        CHECK(memcmp(buf + s, orig, N) == 0);
    }
    memcpy(buf, orig, 2 * N);
    CHECK(crc16_t10dif_copy(0, buf, buf, N) == crc16_t10dif(0, orig, N));
    CHECK(memcmp(buf, orig, N) == 0);
    free(buf);
    free(orig);
}

static void check_lengths(bool small) {
    enum { MAX = (1 << 20) + 16 };
    uint8_t *buf = malloc(MAX);
    if (!buf) abort();
    for (size_t i = 0; i < MAX; i++) buf[i] = (uint8_t)(rng_next() >> 56);
    static const uint64_t big[] = {511, 512, 513, 4095, 4096, 4097, 65535, 65536, 65537, 1 << 20};
    for (size_t i = 0; i < NFNS; i++) {
        const struct fn *f = &FNS[i];
        uint64_t top = small ? 64 : 300;
        for (size_t off = 0; off < 16; off += small ? 5 : 1)
            for (uint64_t n = 0; n <= top; n++) check_one(f, rng_next(), buf + off, n);
        for (size_t k = 0; k < sizeof big / sizeof big[0]; k++) {
            if (small && big[k] > 4097) break;
            check_one(f, 0, buf + k % 16, big[k]);
            check_one(f, rng_next(), buf + 1, big[k]);
        }
    }
    free(buf);
}

/* A fixed matrix, printed; the same for every build of this file. */
static void dump(void) {
    enum { MAX = 70000 };
    uint8_t *buf = malloc(MAX + 16);
    if (!buf) abort();
    for (size_t i = 0; i < MAX + 16; i++) buf[i] = (uint8_t)(rng_next() >> 56);
    static const uint64_t lens[] = {0,   1,   2,    3,    7,    8,    15,   16,    17,    31,
                                    32,  33,  63,   64,   65,   127,  128,  129,   255,   256,
                                    257, 511, 512,  513,  1023, 1024, 1025, 4095,  4096,  4097,
                                    8192, 16383, 16384, 16385, 65535, 65536, 65537, 69999};
    static const uint64_t seeds[] = {0, 1, 0xFFFFFFFFFFFFFFFFULL, 0x123456789ABCDEF0ULL};
    for (size_t i = 0; i < NFNS; i++) {
        const struct fn *f = &FNS[i];
        const uint64_t mask = f->width == 64 ? ~0ULL : (1ULL << f->width) - 1;
        for (size_t k = 0; k < sizeof lens / sizeof lens[0]; k++)
            for (size_t s = 0; s < 4; s++) {
                uint64_t seed = seeds[s] & mask, n = lens[k];
                printf("%s %" PRIu64 " %" PRIx64 " %" PRIx64 " %" PRIx64 "\n", f->name, n, seed,
                       f->call(seed, buf + (k % 16), n), f->base(seed, buf + (k % 16), n));
            }
    }
    free(buf);
}

int main(int argc, char **argv) {
    if (argc > 1 && strcmp(argv[1], "dump") == 0) {
        dump();
        return 0;
    }
    bool small = argc > 1 && strcmp(argv[1], "small") == 0;
    check_values();
    check_edges();
    check_overlap();
    check_lengths(small);
    printf("isal_crc: %d passed, %d failed\n", checks_run - checks_failed, checks_failed);
    return checks_failed == 0 ? 0 : 1;
}
