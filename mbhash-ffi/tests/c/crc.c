/* The CRC functions of mbhash.h (mbh_crc, mbh_crc_append, mbh_crc_combine,
 * the per-variant mbh_crc16_t10dif ... mbh_crc64_redis and their _append
 * forms, names and ids) against a bitwise reference written here from the
 * Rocksoft model (width, poly, init, refin, refout, xorout), independent of
 * every table and instruction the library uses: the catalogue's check value
 * of "123456789", the usual lengths (0-300, 511-513, 4095-4097, 64 KiB +- 1,
 * 1 MiB) at offsets 0-15, random splits, and every misuse as an error code.
 *
 *   crc [small]     small: fewer lengths (for valgrind)
 */
#include "common.h"

#include <stdbool.h>

struct spec {
    mbh_crc_id id;
    const char *name;
    unsigned width;
    uint64_t poly, init;
    bool refin, refout;
    uint64_t xorout, check;
    /* The variant's own functions, widened to 64 bits. */
    mbh_result (*one)(const uint8_t *, size_t, uint64_t *);
    mbh_result (*append)(uint64_t, const uint8_t *, size_t, uint64_t *);
};

/* Wrappers of the per-variant functions with their own output width. */
#define WRAP(fn, T)                                                                    \
    static mbh_result fn##_w(const uint8_t *p, size_t n, uint64_t *out) {              \
        T v = 0;                                                                       \
        mbh_result r = fn(p, n, &v);                                                   \
        if (r == MBH_OK) *out = v;                                                     \
        return r;                                                                      \
    }                                                                                  \
    static mbh_result fn##_append_w(uint64_t crc, const uint8_t *p, size_t n,          \
                                    uint64_t *out) {                                   \
        T v = 0;                                                                       \
        mbh_result r = fn##_append((T)crc, p, n, &v);                                  \
        if (r == MBH_OK) *out = v;                                                     \
        return r;                                                                      \
    }
WRAP(mbh_crc16_t10dif, uint16_t)
WRAP(mbh_crc32, uint32_t)
WRAP(mbh_crc32_bzip2, uint32_t)
WRAP(mbh_crc32_cksum, uint32_t)
WRAP(mbh_crc32c, uint32_t)
WRAP(mbh_crc64_nvme, uint64_t)
WRAP(mbh_crc64_xz, uint64_t)
WRAP(mbh_crc64_ecma_182, uint64_t)
WRAP(mbh_crc64_go_iso, uint64_t)
WRAP(mbh_crc64_redis, uint64_t)
WRAP(mbh_crc64_we, uint64_t)

#define ONES ~0ULL
static const struct spec SPECS[] = {
    {MBH_CRC_16_T10_DIF, "crc16-t10dif", 16, 0x8BB7, 0, false, false, 0, 0xD0DB,
     mbh_crc16_t10dif_w, mbh_crc16_t10dif_append_w},
    {MBH_CRC_32_ISO_HDLC, "crc32", 32, 0x04C11DB7, 0xFFFFFFFF, true, true, 0xFFFFFFFF,
     0xCBF43926, mbh_crc32_w, mbh_crc32_append_w},
    {MBH_CRC_32_BZIP2, "crc32-bzip2", 32, 0x04C11DB7, 0xFFFFFFFF, false, false, 0xFFFFFFFF,
     0xFC891918, mbh_crc32_bzip2_w, mbh_crc32_bzip2_append_w},
    {MBH_CRC_32_CKSUM, "crc32-cksum", 32, 0x04C11DB7, 0, false, false, 0xFFFFFFFF,
     0x765E7680, mbh_crc32_cksum_w, mbh_crc32_cksum_append_w},
    {MBH_CRC_32_ISCSI, "crc32c", 32, 0x1EDC6F41, 0xFFFFFFFF, true, true, 0xFFFFFFFF,
     0xE3069283, mbh_crc32c_w, mbh_crc32c_append_w},
    {MBH_CRC_64_NVME, "crc64-nvme", 64, 0xAD93D23594C93659, ONES, true, true, ONES,
     0xAE8B14860A799888, mbh_crc64_nvme_w, mbh_crc64_nvme_append_w},
    {MBH_CRC_64_XZ, "crc64-xz", 64, 0x42F0E1EBA9EA3693, ONES, true, true, ONES,
     0x995DC9BBDF1939FA, mbh_crc64_xz_w, mbh_crc64_xz_append_w},
    {MBH_CRC_64_ECMA_182, "crc64-ecma-182", 64, 0x42F0E1EBA9EA3693, 0, false, false, 0,
     0x6C40DF5F0B497347, mbh_crc64_ecma_182_w, mbh_crc64_ecma_182_append_w},
    {MBH_CRC_64_GO_ISO, "crc64-go-iso", 64, 0x1B, ONES, true, true, ONES,
     0xB90956C775A41001, mbh_crc64_go_iso_w, mbh_crc64_go_iso_append_w},
    {MBH_CRC_64_REDIS, "crc64-redis", 64, 0xAD93D23594C935A9, 0, true, true, 0,
     0xE9C6D914C4B8D9CA, mbh_crc64_redis_w, mbh_crc64_redis_append_w},
    {MBH_CRC_64_WE, "crc64-we", 64, 0x42F0E1EBA9EA3693, ONES, false, false, ONES,
     0x62EC59E3F1A4F00A, mbh_crc64_we_w, mbh_crc64_we_append_w},
    /* ISA-L's other CRC-64 functions from seed 0 (not catalogued; no
     * functions of their own). */
    {MBH_CRC_64_ISO_NORM, "crc64-iso-norm", 64, 0x1B, ONES, false, false, ONES,
     0x1B00415A776C026F, NULL, NULL},
    {MBH_CRC_64_JONES_REFL, "crc64-jones-refl", 64, 0xAD93D23594C935A9, ONES, true, true, ONES,
     0x3558E8E979F60D7E, NULL, NULL},
    {MBH_CRC_64_JONES_NORM, "crc64-jones-norm", 64, 0xAD93D23594C935A9, ONES, false, false,
     ONES, 0xDCF90FB7D3A994F3, NULL, NULL},
    {MBH_CRC_64_ROCKSOFT_NORM, "crc64-rocksoft-norm", 64, 0xAD93D23594C93659, ONES, false,
     false, ONES, 0xC0E340D3ED32F595, NULL, NULL},
};
#define NSPECS (sizeof SPECS / sizeof SPECS[0])

static uint64_t mask_of(unsigned width) {
    return width == 64 ? ~0ULL : (1ULL << width) - 1;
}

static uint64_t reflect(uint64_t v, unsigned bits) {
    uint64_t r = 0;
    for (unsigned i = 0; i < bits; i++) r |= ((v >> i) & 1u) << (bits - 1 - i);
    return r;
}

/* The Rocksoft model, one bit at a time, from the register `reg` (not yet
 * reflected out or xored): the register after the bytes. */
static uint64_t bitwise_reg(const struct spec *s, uint64_t reg, const uint8_t *p, size_t n) {
    const uint64_t top = 1ULL << (s->width - 1), mask = mask_of(s->width);
    for (size_t i = 0; i < n; i++) {
        uint64_t b = s->refin ? reflect(p[i], 8) : p[i];
        reg ^= b << (s->width - 8);
        for (int k = 0; k < 8; k++) reg = ((reg & top) ? (reg << 1) ^ s->poly : reg << 1) & mask;
    }
    return reg;
}

static uint64_t finish_reg(const struct spec *s, uint64_t reg) {
    return (s->refout ? reflect(reg, s->width) : reg) ^ s->xorout;
}

static uint64_t bitwise(const struct spec *s, const uint8_t *p, size_t n) {
    return finish_reg(s, bitwise_reg(s, s->init, p, n));
}

static int reported;

/* Every way to get the CRC of p[0..n) must give the bitwise value. */
static void check_one(const struct spec *s, const uint8_t *p, size_t n, struct rng *r) {
    uint64_t want = bitwise(s, p, n), got = 0, v = 0, a = 0, b = 0;
    OK(mbh_crc(s->id, p, n, &got));
    if (s->one) OK(s->one(p, n, &v));
    else v = got;
    size_t cut = n ? rng_below(r, n + 1) : 0;
    OK(mbh_crc(s->id, p, cut, &a));
    uint64_t ab = 0, ab2 = 0, comb = 0;
    OK(mbh_crc_append(s->id, a, p + cut, n - cut, &ab));
    if (s->append) OK(s->append(a, p + cut, n - cut, &ab2));
    else ab2 = ab;
    OK(mbh_crc(s->id, p + cut, n - cut, &b));
    OK(mbh_crc_combine(s->id, a, b, (uint64_t)(n - cut), &comb));
    checks_run++;
    if (got != want || v != want || ab != want || ab2 != want || comb != want) {
        checks_failed++;
        if (reported++ < 20)
            fprintf(stderr,
                    "%s len %zu cut %zu: want %016llx, mbh_crc %016llx, own %016llx, "
                    "append %016llx / %016llx, combine %016llx\n",
                    s->name, n, cut, (unsigned long long)want, (unsigned long long)got,
                    (unsigned long long)v, (unsigned long long)ab, (unsigned long long)ab2,
                    (unsigned long long)comb);
    }
}

static void check_values(void) {
    const uint8_t *nine = (const uint8_t *)"123456789";
    for (size_t i = 0; i < NSPECS; i++) {
        const struct spec *s = &SPECS[i];
        uint64_t v = 0;
        OK(mbh_crc(s->id, nine, 9, &v));
        CHECK(v == s->check);
        CHECK(bitwise(s, nine, 9) == s->check); /* the reference itself */
        if (s->one) {
            OK(s->one(nine, 9, &v));
            CHECK(v == s->check);
            OK(s->one(nine, 0, &v));
            CHECK(v == bitwise(s, nine, 0));
        }
        /* Empty input, with and without a pointer. */
        OK(mbh_crc(s->id, NULL, 0, &v));
        CHECK(v == bitwise(s, NULL, 0));
        /* Names and widths. */
        mbh_crc_id id = 0;
        OK(mbh_crc_from_name(s->name, &id));
        CHECK(id == s->id);
        const char *name = NULL;
        OK(mbh_crc_name(s->id, &name));
        CHECK(name != NULL && strcmp(name, s->name) == 0);
        unsigned width = 0;
        OK(mbh_crc_width(s->id, &width));
        CHECK(width == s->width);
    }
}

static void check_lengths(bool small) {
    enum { MAX = (1 << 20) + 16 };
    uint8_t *buf = xmalloc(MAX);
    struct rng r = {0x25};
    rng_fill(&r, buf, MAX);
    static const size_t big[] = {511, 512, 513, 4095, 4096, 4097, 65535, 65536, 65537, 1 << 20};
    for (size_t i = 0; i < NSPECS; i++) {
        const struct spec *s = &SPECS[i];
        size_t top = small ? 70 : 300;
        for (size_t off = 0; off < 16; off += small ? 5 : 1)
            for (size_t n = 0; n <= top; n++) check_one(s, buf + off, n, &r);
        for (size_t k = 0; k < sizeof big / sizeof big[0]; k++) {
            if (small && big[k] > 4097) break;
            for (size_t off = 0; off < 16; off += small ? 15 : 3) check_one(s, buf + off, big[k], &r);
        }
    }
    /* The 251-byte repeating pattern, all zeros, all ones. */
    for (size_t i = 0; i < 8192; i++) buf[i] = (uint8_t)(i % 251);
    for (size_t i = 0; i < NSPECS; i++) check_one(&SPECS[i], buf, 8192, &r);
    memset(buf, 0, 8192);
    for (size_t i = 0; i < NSPECS; i++) check_one(&SPECS[i], buf, 8192, &r);
    memset(buf, 0xFF, 8192);
    for (size_t i = 0; i < NSPECS; i++) check_one(&SPECS[i], buf, 8192, &r);
    free(buf);
}

/* Combine at lengths no data could have (none is read): combining is
 * associative, combine(combine(a, b, m), c, n) == combine(a, combine(b, c,
 * n), m + n), as for the CRCs of real messages A, B, C; and an empty B gives
 * A back. */
static void check_combine_long(void) {
    static const uint64_t lens[][2] = {
        {1, 1}, {1000, 3}, {1ULL << 40, 12345}, {1ULL << 63, (1ULL << 63) - 1},
        {0xFFFFFFFFFFFFULL, 0x7FFF0000FFFF0000ULL}};
    for (size_t i = 0; i < NSPECS; i++) {
        const struct spec *s = &SPECS[i];
        uint64_t a = 0, b = 0, c = 0, empty = 0, back = 0;
        OK(mbh_crc(s->id, (const uint8_t *)"abc", 3, &a));
        OK(mbh_crc(s->id, (const uint8_t *)"defgh", 5, &b));
        OK(mbh_crc(s->id, (const uint8_t *)"ij", 2, &c));
        OK(mbh_crc(s->id, NULL, 0, &empty));
        OK(mbh_crc_combine(s->id, a, empty, 0, &back));
        CHECK(back == a);
        for (size_t k = 0; k < sizeof lens / sizeof lens[0]; k++) {
            uint64_t m = lens[k][0], n = lens[k][1], ab = 0, abc = 0, bc = 0, abc2 = 0;
            OK(mbh_crc_combine(s->id, a, b, m, &ab));
            OK(mbh_crc_combine(s->id, ab, c, n, &abc));
            OK(mbh_crc_combine(s->id, b, c, n, &bc));
            OK(mbh_crc_combine(s->id, a, bc, m + n, &abc2));
            CHECK(abc == abc2);
        }
    }
}

static void misuse(void) {
    uint64_t v = 7;
    uint16_t v16 = 7;
    uint32_t v32 = 7;
    EXPECT(mbh_crc(0, (const uint8_t *)"a", 1, &v), MBH_UNKNOWN_CRC);
    EXPECT(mbh_crc(1000, (const uint8_t *)"a", 1, &v), MBH_UNKNOWN_CRC);
    EXPECT(mbh_crc(MBH_CRC_64_NVME, NULL, 1, &v), MBH_NULL_ARGUMENT);
    EXPECT(mbh_crc(MBH_CRC_64_NVME, (const uint8_t *)"a", 1, NULL), MBH_NULL_ARGUMENT);
    EXPECT(mbh_crc(MBH_CRC_64_NVME, (const uint8_t *)"a", (size_t)PTRDIFF_MAX + 1, &v),
           MBH_LENGTH_OVERFLOW);
    EXPECT(mbh_crc_append(0, 0, (const uint8_t *)"a", 1, &v), MBH_UNKNOWN_CRC);
    EXPECT(mbh_crc_append(MBH_CRC_32_ISO_HDLC, 0, NULL, 5, &v), MBH_NULL_ARGUMENT);
    EXPECT(mbh_crc_append(MBH_CRC_32_ISO_HDLC, 0, NULL, 0, NULL), MBH_NULL_ARGUMENT);
    EXPECT(mbh_crc_combine(0, 1, 2, 3, &v), MBH_UNKNOWN_CRC);
    EXPECT(mbh_crc_combine(MBH_CRC_16_T10_DIF, 1, 2, 3, NULL), MBH_NULL_ARGUMENT);
    /* A CRC value wider than the variant is refused, not truncated. */
    EXPECT(mbh_crc_append(MBH_CRC_16_T10_DIF, 0x10000, NULL, 0, &v), MBH_INVALID_ARGUMENT);
    EXPECT(mbh_crc_combine(MBH_CRC_32_ISO_HDLC, 1ULL << 32, 0, 0, &v), MBH_INVALID_ARGUMENT);
    EXPECT(mbh_crc_combine(MBH_CRC_32_ISO_HDLC, 0, 1ULL << 32, 0, &v), MBH_INVALID_ARGUMENT);
    CHECK(v == 7);
    EXPECT(mbh_crc16_t10dif(NULL, 1, &v16), MBH_NULL_ARGUMENT);
    EXPECT(mbh_crc16_t10dif((const uint8_t *)"a", 1, NULL), MBH_NULL_ARGUMENT);
    EXPECT(mbh_crc32_append(0, NULL, 2, &v32), MBH_NULL_ARGUMENT);
    EXPECT(mbh_crc64_nvme_append(0, (const uint8_t *)"a", 1, NULL), MBH_NULL_ARGUMENT);
    CHECK(v16 == 7 && v32 == 7);
    mbh_crc_id id = 9;
    EXPECT(mbh_crc_from_name("crc-nonesuch", &id), MBH_UNKNOWN_CRC);
    EXPECT(mbh_crc_from_name(NULL, &id), MBH_NULL_ARGUMENT);
    EXPECT(mbh_crc_from_name("crc32", NULL), MBH_NULL_ARGUMENT);
    CHECK(id == 9);
    const char *name = NULL;
    unsigned width = 0;
    EXPECT(mbh_crc_name(0, &name), MBH_UNKNOWN_CRC);
    EXPECT(mbh_crc_name(MBH_CRC_32_ISO_HDLC, NULL), MBH_NULL_ARGUMENT);
    EXPECT(mbh_crc_width(77, &width), MBH_UNKNOWN_CRC);
    EXPECT(mbh_crc_width(MBH_CRC_32_ISO_HDLC, NULL), MBH_NULL_ARGUMENT);
    CHECK(name == NULL && width == 0);
}

/* The ids cover 1..MBH_CRC_COUNT-1 and nothing else. */
static void id_space(void) {
    unsigned seen = 0;
    for (mbh_crc_id id = 0; id < 64; id++) {
        unsigned width = 0;
        mbh_result r = mbh_crc_width(id, &width);
        if (r == MBH_OK) seen++;
        CHECK((r == MBH_OK) == (id >= 1 && id < MBH_CRC_COUNT));
    }
    CHECK(seen == NSPECS);
}

/* MBHASH_CRC_ENGINE and MBHASH_CRC32C_ENGINE name no engine: every
 * function that computes a CRC reports it; names and widths still work. */
static void bad_env(void) {
    uint64_t v = 7;
    uint32_t v32 = 7;
    uint16_t v16 = 7;
    for (size_t i = 0; i < NSPECS; i++) {
        const struct spec *s = &SPECS[i];
        EXPECT(mbh_crc(s->id, (const uint8_t *)"a", 1, &v), MBH_UNKNOWN_ENGINE);
        EXPECT(mbh_crc_append(s->id, 0, (const uint8_t *)"a", 1, &v), MBH_UNKNOWN_ENGINE);
        EXPECT(mbh_crc_combine(s->id, 0, 0, 1, &v), MBH_UNKNOWN_ENGINE);
        unsigned width = 0;
        OK(mbh_crc_width(s->id, &width));
    }
    EXPECT(mbh_crc32((const uint8_t *)"a", 1, &v32), MBH_UNKNOWN_ENGINE);
    EXPECT(mbh_crc16_t10dif_append(0, (const uint8_t *)"a", 1, &v16), MBH_UNKNOWN_ENGINE);
    EXPECT(mbh_crc32c((const uint8_t *)"a", 1, &v32), MBH_UNKNOWN_ENGINE);
    CHECK(v == 7 && v32 == 7 && v16 == 7);
    /* A default set at run time overrides the variables. */
    OK(mbh_set_engine(MBH_CRC, "table"));
    OK(mbh_set_engine(MBH_CRC32C, "table"));
    for (size_t i = 0; i < NSPECS; i++) {
        OK(mbh_crc(SPECS[i].id, (const uint8_t *)"123456789", 9, &v));
        CHECK(v == SPECS[i].check);
    }
}

/* MBH_CRC in the engine functions: the CRC engines, listed, queried, set
 * and read back; every engine gives the same values. */
static void engines(void) {
    size_t count = 0;
    OK(mbh_engine_count(MBH_CRC, &count));
    CHECK(count == 5);
    struct rng r = {0xE9};
    uint8_t buf[3000];
    rng_fill(&r, buf, sizeof buf);
    for (size_t i = 0; i < count; i++) {
        const char *name = NULL;
        bool supported = false;
        OK(mbh_engine_name(MBH_CRC, i, &name));
        OK(mbh_engine_supported(MBH_CRC, name, &supported));
        if (!supported) {
            EXPECT(mbh_set_engine(MBH_CRC, name), MBH_UNSUPPORTED_ENGINE);
            continue;
        }
        OK(mbh_set_engine(MBH_CRC, name));
        const char *now = NULL;
        OK(mbh_get_engine(MBH_CRC, &now));
        CHECK(now != NULL && strcmp(now, name) == 0);
        for (size_t k = 0; k < NSPECS; k++)
            for (size_t n = 0; n < sizeof buf; n += 97) {
                uint64_t v = 0;
                OK(mbh_crc(SPECS[k].id, buf, n, &v));
                CHECK(v == bitwise(&SPECS[k], buf, n));
            }
    }
    const char *name = NULL;
    OK(mbh_engine_name(MBH_CRC, 0, &name));
    CHECK(strcmp(name, "auto") == 0);
    EXPECT(mbh_engine_name(MBH_CRC, 5, &name), MBH_OUT_OF_RANGE);
    EXPECT(mbh_set_engine(MBH_CRC, "bogus"), MBH_UNKNOWN_ENGINE);
    OK(mbh_set_engine(MBH_CRC, "auto"));
    /* No hash algorithm. */
    mbh_manager *m = NULL;
    EXPECT(mbh_manager_new(MBH_CRC, &m), MBH_INVALID_ALGORITHM);
    CHECK(m == NULL);
}

int main(int argc, char **argv) {
    if (argc > 1 && strcmp(argv[1], "bad-env") == 0) {
        bad_env();
        return finish("crc bad-env");
    }
    bool small = argc > 1 && strcmp(argv[1], "small") == 0;
    check_values();
    check_lengths(small);
    check_combine_long();
    misuse();
    id_space();
    engines();
    return finish("crc");
}
