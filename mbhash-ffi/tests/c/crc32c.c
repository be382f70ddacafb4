/* CRC32C through the C API: the check value, the RFC 3720 (iSCSI) B.4
 * vectors, append and combine against whole-buffer CRCs over random splits,
 * and NULL arguments. */
#include "common.h"

/* A bitwise reference: the reflected polynomial 0x82F63B78, one bit at a
 * time (independent of every table and instruction the library uses). */
static uint32_t crc32c_bitwise(const uint8_t *p, size_t n) {
    uint32_t crc = 0xFFFFFFFFu;
    for (size_t i = 0; i < n; i++) {
        crc ^= p[i];
        for (int k = 0; k < 8; k++)
            crc = (crc >> 1) ^ (0x82F63B78u & (0u - (crc & 1u)));
    }
    return ~crc;
}

static void vectors(void) {
    uint32_t crc = 0;
    OK(mbh_crc32c((const uint8_t *)"123456789", 9, &crc));
    CHECK(crc == 0xE3069283u);

    uint8_t buf[32];
    memset(buf, 0, sizeof buf);
    OK(mbh_crc32c(buf, 32, &crc));
    CHECK(crc == 0x8A9136AAu);
    memset(buf, 0xFF, sizeof buf);
    OK(mbh_crc32c(buf, 32, &crc));
    CHECK(crc == 0x62A8AB43u);
    for (int i = 0; i < 32; i++) buf[i] = (uint8_t)i;
    OK(mbh_crc32c(buf, 32, &crc));
    CHECK(crc == 0x46DD794Eu);
    for (int i = 0; i < 32; i++) buf[i] = (uint8_t)(31 - i);
    OK(mbh_crc32c(buf, 32, &crc));
    CHECK(crc == 0x113FDB5Cu);

    OK(mbh_crc32c(NULL, 0, &crc));
    CHECK(crc == 0);
}

static void splits(void) {
    struct rng r = {0xC3C3};
    enum { MAX = 70000 };
    uint8_t *buf = malloc(MAX + 8);
    CHECK(buf != NULL);
    if (!buf) return;
    rng_fill(&r, buf, MAX + 8);
    for (int round = 0; round < 200; round++) {
        size_t off = rng_below(&r, 8);
        size_t len = round < 100 ? (size_t)round * 13 : rng_below(&r, MAX);
        size_t cut = len ? rng_below(&r, len + 1) : 0;
        const uint8_t *p = buf + off;
        uint32_t whole = 0, a = 0, b = 0, ab = 0, combined = 0;
        OK(mbh_crc32c(p, len, &whole));
        CHECK(whole == crc32c_bitwise(p, len));
        OK(mbh_crc32c(p, cut, &a));
        OK(mbh_crc32c_append(a, p + cut, len - cut, &ab));
        CHECK(ab == whole);
        OK(mbh_crc32c(p + cut, len - cut, &b));
        OK(mbh_crc32c_combine(a, b, (uint64_t)(len - cut), &combined));
        CHECK(combined == whole);
    }
    free(buf);
}

static void null_arguments(void) {
    uint32_t crc = 7;
    EXPECT(mbh_crc32c(NULL, 1, &crc), MBH_NULL_ARGUMENT);
    EXPECT(mbh_crc32c((const uint8_t *)"a", 1, NULL), MBH_NULL_ARGUMENT);
    EXPECT(mbh_crc32c_append(0, NULL, 5, &crc), MBH_NULL_ARGUMENT);
    EXPECT(mbh_crc32c_combine(1, 2, 3, NULL), MBH_NULL_ARGUMENT);
    CHECK(crc == 7); /* untouched on error */
}

int main(void) {
    vectors();
    splits();
    null_arguments();
    return finish("crc32c");
}
