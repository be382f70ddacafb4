/*
 * The kernel-style library with nothing else: this program has no C library
 * and no start files (it is built with -ffreestanding -fno-builtin -nostdlib
 * -static, see check.sh). It brings the few functions the library needs
 * (memcpy, memmove, memset, memcmp, bcmp), its own _start, and talks to the
 * kernel through the write and exit_group system calls only; if the
 * archive needed anything more, it would not link.
 *
 * It hashes the NIST example messages of every algorithm through
 * mbh_manager_init / mbh_ctx_init / mbh_submit / mbh_flush (the message of
 * one million 'a' in uneven chunks, interleaved with whole messages in other
 * lanes), on the default engine and on every engine this CPU supports, and
 * exits non-zero on any mismatch. (mbh_hash_many, which allocates, is not in
 * the kernel-style library.)
 *
 * Every named CRC (mbh_crc, the per-variant functions, mbh_crc32c and the
 * ISA-L CRC drop-in) against the catalogue's check values and a bit-by-bit
 * CRC written here from each CRC's parameters, at many lengths and offsets,
 * on every CRC and CRC32C engine this CPU runs (set with mbh_set_engine).
 */
#include "isa-l/crc.h"
#include "isa-l/crc64.h"
#include "mbhash.h"

/* ---- The C library functions the archive uses (see the README, "Kernel-style use"). ---- */

void *memcpy(void *restrict dst, const void *restrict src, size_t n) {
    unsigned char *d = dst;
    const unsigned char *s = src;
    while (n--) *d++ = *s++;
    return dst;
}

void *memmove(void *dst, const void *src, size_t n) {
    unsigned char *d = dst;
    const unsigned char *s = src;
    if (d < s) {
        while (n--) *d++ = *s++;
    } else {
        while (n--) d[n] = s[n];
    }
    return dst;
}

void *memset(void *dst, int c, size_t n) {
    unsigned char *d = dst;
    while (n--) *d++ = (unsigned char)c;
    return dst;
}

int memcmp(const void *a, const void *b, size_t n) {
    const unsigned char *x = a, *y = b;
    for (; n; n--, x++, y++) {
        if (*x != *y) return *x < *y ? -1 : 1;
    }
    return 0;
}

int bcmp(const void *a, const void *b, size_t n) { return memcmp(a, b, n); }

/* ---- System calls, output and the entry point. ---- */

static long syscall3(long nr, long a, long b, long c) {
    long ret;
    __asm__ volatile("syscall"
                     : "=a"(ret)
                     : "a"(nr), "D"(a), "S"(b), "d"(c)
                     : "rcx", "r11", "memory");
    return ret;
}

enum { SYS_WRITE = 1, SYS_EXIT_GROUP = 231 };

static void put(const char *s) {
    size_t n = 0;
    while (s[n]) n++;
    syscall3(SYS_WRITE, 1, (long)s, (long)n);
}

static void put_hex(const uint8_t *bytes, size_t n) {
    static const char digits[] = "0123456789abcdef";
    char buf[2 * MBH_MAX_DIGEST_LEN + 1];
    for (size_t i = 0; i < n; i++) {
        buf[2 * i] = digits[bytes[i] >> 4];
        buf[2 * i + 1] = digits[bytes[i] & 15];
    }
    buf[2 * n] = '\0';
    put(buf);
}

static void put_uint(size_t v) {
    char buf[24];
    char *p = buf + sizeof buf - 1;
    *p = '\0';
    do {
        *--p = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    put(p);
}

__attribute__((noreturn)) static void exit_group(int code) {
    syscall3(SYS_EXIT_GROUP, code, 0, 0);
    for (;;) {
    }
}

__attribute__((noreturn)) void start_c(void);

/* The process starts here with an aligned stack and no return address. */
__asm__(".text\n"
        ".globl _start\n"
        ".type _start, @function\n"
        "_start:\n"
        "    xor %ebp, %ebp\n"
        "    and $-16, %rsp\n"
        "    call start_c\n"
        "    ud2\n");

/* ---- The known answers. ---- */

enum message { ABC, EMPTY, BITS_448, BITS_896, MILLION_A, MESSAGES };

static const char *const MESSAGE_NAMES[MESSAGES] = {
    "\"abc\"", "empty", "448-bit", "896-bit", "1,000,000 'a'",
};

static const char *const MESSAGE_TEXT[MESSAGES] = {
    "abc",
    "",
    "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
    "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmno"
    "ijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu",
    0, /* million_a */
};

#define MILLION 1000000
static char million_a[MILLION];

/*
 * FIPS 180-4 examples (csrc.nist.gov, "Examples with intermediate values":
 * "abc" and the two-block messages) and the NIST test vectors for the empty
 * message and one million 'a'; the values were checked against OpenSSL
 * when this table was written.
 */
static const struct kat {
    mbh_algorithm alg;
    enum message msg;
    const char *md;
} KATS[] = {
    {MBH_SHA256, ABC, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"},
    {MBH_SHA256, EMPTY, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"},
    {MBH_SHA256, BITS_448, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"},
    {MBH_SHA256, BITS_896, "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1"},
    {MBH_SHA256, MILLION_A, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"},

    {MBH_SHA224, ABC, "23097d223405d8228642a477bda255b32aadbce4bda0b3f7e36c9da7"},
    {MBH_SHA224, EMPTY, "d14a028c2a3a2bc9476102bb288234c415a2b01f828ea62ac5b3e42f"},
    {MBH_SHA224, BITS_448, "75388b16512776cc5dba5da1fd890150b0c6455cb4f58b1952522525"},
    {MBH_SHA224, MILLION_A, "20794655980c91d8bbb4c1ea97618a4bf03f42581948b2ee4ee7ad67"},

    {MBH_SHA512, ABC,
     "ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a"
     "2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f"},
    {MBH_SHA512, EMPTY,
     "cf83e1357eefb8bdf1542850d66d8007d620e4050b5715dc83f4a921d36ce9ce"
     "47d0d13c5d85f2b0ff8318d2877eec2f63b931bd47417a81a538327af927da3e"},
    {MBH_SHA512, BITS_448,
     "204a8fc6dda82f0a0ced7beb8e08a41657c16ef468b228a8279be331a703c335"
     "96fd15c13b1b07f9aa1d3bea57789ca031ad85c7a71dd70354ec631238ca3445"},
    {MBH_SHA512, BITS_896,
     "8e959b75dae313da8cf4f72814fc143f8f7779c6eb9f7fa17299aeadb6889018"
     "501d289e4900f7e4331b99dec4b5433ac7d329eeb6dd26545e96e55b874be909"},
    {MBH_SHA512, MILLION_A,
     "e718483d0ce769644e2e42c7bc15b4638e1f98b13b2044285632a803afa973eb"
     "de0ff244877ea60a4cb0432ce577c31beb009c5c2c49aa2e4eadb217ad8cc09b"},

    {MBH_SHA384, ABC,
     "cb00753f45a35e8bb5a03d699ac65007272c32ab0eded1631a8b605a43ff5bed"
     "8086072ba1e7cc2358baeca134c825a7"},
    {MBH_SHA384, EMPTY,
     "38b060a751ac96384cd9327eb1b1e36a21fdb71114be07434c0cc7bf63f6e1da"
     "274edebfe76f65fbd51ad2f14898b95b"},
    {MBH_SHA384, BITS_896,
     "09330c33f71147e83d192fc782cd1b4753111b173b3b05d22fa08086e3b0f712"
     "fcc7c71a557e2db966c3e9fa91746039"},
    {MBH_SHA384, MILLION_A,
     "9d0e1809716474cb086e834e310a4a1ced149e9c00f248527972cec5704c2a5b"
     "07b8b3dc38ecc4ebae97ddd87f3d8985"},

    {MBH_SHA512_256, ABC, "53048e2681941ef99b2e29b76b4c7dabe4c2d0c634fc6d46e0e2f13107e7af23"},
    {MBH_SHA512_256, BITS_896, "3928e184fb8690f840da3988121d31be65cb9d3ef83ee6146feac861e19b563a"},

    {MBH_SHA512_224, ABC, "4634270f707b6a54daae7530460842e20e37ed265ceee9a43e8924aa"},
    {MBH_SHA512_224, BITS_896, "23fec5bb94d60b23308192640b0c453335d664734fe40e7268674af9"},
    /* MD5: RFC 1321's "abc" and ""; SHA-1: FIPS 180-4's examples and the
     * NIST vectors; SM3: GB/T 32905-2016's "abc"; the rest as Python's
     * hashlib computes them. */
    {MBH_MD5, ABC, "900150983cd24fb0d6963f7d28e17f72"},
    {MBH_MD5, EMPTY, "d41d8cd98f00b204e9800998ecf8427e"},
    {MBH_MD5, BITS_896, "03dd8807a93175fb062dfb55dc7d359c"},
    {MBH_MD5, MILLION_A, "7707d6ae4e027c70eea2a935c2296f21"},
    {MBH_SHA1, ABC, "a9993e364706816aba3e25717850c26c9cd0d89d"},
    {MBH_SHA1, EMPTY, "da39a3ee5e6b4b0d3255bfef95601890afd80709"},
    {MBH_SHA1, BITS_448, "84983e441c3bd26ebaae4aa1f95129e5e54670f1"},
    {MBH_SHA1, MILLION_A, "34aa973cd4c4daa4f61eeb2bdbad27316534016f"},
    {MBH_SM3, ABC, "66c7f0f462eeedd9d1f2d46bdc10e4e24167c4875cf2f7a2297da02b8f4ba8e0"},
    {MBH_SM3, EMPTY, "1ab21d8355cfa17f8e61194831e81a8f22bec8c728fefb747ed035eb5082aa2b"},
    {MBH_SM3, BITS_448, "639b6cc5e64d9e37a390b192df4fa1ea0720ab747ff692b9f38c4e66ad7b8c05"},
    {MBH_SM3, MILLION_A, "c8aaf89429554029e231941a2acc0ad61ff2a5acd8fadd25847a3a732b3b02c3"},
};

#define NKATS (sizeof KATS / sizeof KATS[0])

static const mbh_algorithm ALGS[] = {MBH_SHA256,     MBH_SHA224,     MBH_SHA512,
                                     MBH_SHA384,     MBH_SHA512_256, MBH_SHA512_224,
                                     MBH_MD5,        MBH_SHA1,       MBH_SM3};
static const char *const ALG_NAMES[] = {"sha256",     "sha224",     "sha512",
                                        "sha384",     "sha512/256", "sha512/224",
                                        "md5",        "sha1",       "sm3"};

static int failures;

static const uint8_t *message(enum message m, size_t *len) {
    if (m == MILLION_A) {
        *len = MILLION;
        return (const uint8_t *)million_a;
    }
    const char *text = MESSAGE_TEXT[m];
    size_t n = 0;
    while (text[n]) n++;
    *len = n;
    return (const uint8_t *)text;
}

static int hex_value(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    return c - 'a' + 10;
}

/* Compares a digest with the table; reports a mismatch. */
static void check(const struct kat *k, const char *alg, const char *engine, const char *how,
                  const uint8_t *got, size_t len) {
    uint8_t want[MBH_MAX_DIGEST_LEN];
    size_t want_len = 0;
    for (const char *h = k->md; h[0] && h[1]; h += 2) {
        want[want_len++] = (uint8_t)(hex_value(h[0]) << 4 | hex_value(h[1]));
    }
    if (len == want_len && memcmp(got, want, len) == 0) return;
    failures++;
    put("FAIL ");
    put(alg);
    put(" engine ");
    put(engine);
    put(" ");
    put(how);
    put(" ");
    put(MESSAGE_NAMES[k->msg]);
    put(": got ");
    put_hex(got, len);
    put(", want ");
    put(k->md);
    put("\n");
}

static void expect_ok(mbh_result r, const char *what) {
    if (r == MBH_OK) return;
    failures++;
    put("FAIL ");
    put(what);
    put(": ");
    put(mbh_result_str(r));
    put("\n");
}

/* Chunk lengths of the long message: every tail width, around block sizes. */
static const size_t CHUNKS[] = {1, 63, 64, 65, 127, 128, 129, 1000, 4096, 7, 100000};

static mbh_ctx ctxs[NKATS];
static mbh_manager manager;
static const struct kat *ctx_kat[NKATS];
static int ctx_back[NKATS];

/* Marks a context that came back from submit or flush. */
static void came_back(mbh_ctx *done) {
    if (done) ctx_back[done - ctxs] = 1;
}

/* Runs the vectors of `alg` through a manager on `engine` (NULL: the default). */
static void run_manager(mbh_algorithm alg, const char *alg_name, const char *engine) {
    const char *shown = engine ? engine : "default";
    mbh_result r = engine ? mbh_manager_init_with_engine(&manager, alg, engine)
                          : mbh_manager_init(&manager, alg);
    expect_ok(r, "mbh_manager_init");
    if (r != MBH_OK) return;
    size_t n = 0, long_one = NKATS;
    for (size_t i = 0; i < NKATS; i++) {
        if (KATS[i].alg != alg) continue;
        ctx_kat[n] = &KATS[i];
        ctx_back[n] = 0;
        expect_ok(mbh_ctx_init(&ctxs[n], alg, 0), "mbh_ctx_init");
        if (KATS[i].msg == MILLION_A) long_one = n;
        n++;
    }
    mbh_ctx *done;
    /* The whole messages wait in lanes while the long one streams by. */
    for (size_t i = 0; i < n; i++) {
        if (i == long_one) continue;
        size_t len;
        const uint8_t *msg = message(ctx_kat[i]->msg, &len);
        expect_ok(mbh_submit(&manager, &ctxs[i], msg, len, MBH_ENTIRE, &done), "mbh_submit");
        came_back(done);
    }
    if (long_one < NKATS) {
        size_t off = 0;
        for (size_t c = 0; off < MILLION; c++) {
            size_t len = CHUNKS[c % (sizeof CHUNKS / sizeof CHUNKS[0])];
            if (len > MILLION - off) len = MILLION - off;
            mbh_flags flags = (off == 0 ? MBH_FIRST : MBH_UPDATE) |
                              (off + len == MILLION ? MBH_LAST : MBH_UPDATE);
            ctx_back[long_one] = 0;
            r = mbh_submit(&manager, &ctxs[long_one], (const uint8_t *)million_a + off, len,
                           flags, &done);
            expect_ok(r, "mbh_submit (chunk)");
            if (r != MBH_OK) break;
            came_back(done);
            /* The next chunk waits until this one has been consumed. */
            while (!ctx_back[long_one]) {
                expect_ok(mbh_flush(&manager, &done), "mbh_flush");
                if (!done) break;
                came_back(done);
            }
            off += len;
        }
    }
    do {
        expect_ok(mbh_flush(&manager, &done), "mbh_flush");
        came_back(done);
    } while (done);
    for (size_t i = 0; i < n; i++) {
        uint8_t digest[MBH_MAX_DIGEST_LEN];
        size_t len = 0;
        r = mbh_ctx_digest(&ctxs[i], digest, sizeof digest, &len);
        expect_ok(r, "mbh_ctx_digest");
        if (r == MBH_OK) check(ctx_kat[i], alg_name, shown, "manager", digest, len);
    }
    expect_ok(mbh_manager_fini(&manager), "mbh_manager_fini");
}

/* The pool, single-threaded, on trivial host operations (nothing ever
 * waits, so they only count calls). The kernel has its own struct iovec. */
struct iovec {
    void *iov_base;
    size_t iov_len;
};

static mbh_pool pool;
static size_t ops_calls;

static void op(void *arg, uint32_t slot) {
    (void)slot;
    *(size_t *)arg += 1;
}

static void run_pool(void) {
    int before = failures;
    mbh_pool_ops ops = {&ops_calls, op, op, op, op, 0};
    expect_ok(mbh_pool_init(&pool, &ops), "mbh_pool_init");
    for (size_t i = 0; i < NKATS; i++) {
        size_t len;
        const uint8_t *msg = message(KATS[i].msg, &len);
        /* Three pieces at uneven cuts (empty ones for short messages). */
        size_t a = len / 3, b = len - len / 5;
        struct iovec iov[3] = {{(void *)msg, a}, {(void *)(msg + a), b - a},
                               {(void *)(msg + b), len - b}};
        uint8_t digest[MBH_MAX_DIGEST_LEN];
        mbh_result r = mbh_pool_hash(&pool, KATS[i].alg, iov, 3, digest,
                                     sizeof digest);
        expect_ok(r, "mbh_pool_hash");
        size_t n = 0;
        for (size_t g = 0; g < sizeof ALGS / sizeof ALGS[0]; g++)
            if (ALGS[g] == KATS[i].alg) {
                const char *h = KATS[i].md;
                while (h[n * 2]) n++;
                if (r == MBH_OK) check(&KATS[i], ALG_NAMES[g], "default", "pool", digest, n);
            }
    }
    if (mbh_pool_hash(&pool, 99, 0, 0, 0, 0) != MBH_INVALID_ALGORITHM) {
        put("FAIL mbh_pool_hash with a bad algorithm\n");
        failures++;
    }
    expect_ok(mbh_pool_fini(&pool), "mbh_pool_fini");
    put(failures == before ? "ok     " : "FAILED ");
    put("every vector through the pool (mbh_pool_init, trivial ops)\n");
}

/* Runs every vector of `alg` on `engine` (NULL: the default) and says so. */
static void run(size_t a, const char *engine) {
    int before = failures;
    run_manager(ALGS[a], ALG_NAMES[a], engine);
    put(failures == before ? "ok     " : "FAILED ");
    put(ALG_NAMES[a]);
    put(" on ");
    put(engine ? engine : "the default engine");
    put("\n");
}

/* ---- CRCs. ---- */

/* The parameters of every named CRC (the CRC catalogue's, reveng; the
 * *_NORM and JONES_REFL ones are ISA-L's functions, not catalogued, with
 * check values from a bit-by-bit computation) and its check value, the CRC
 * of "123456789". */
static const struct crc_kat {
    mbh_crc_id id;
    const char *name;
    unsigned width;
    uint64_t poly, init;
    bool refin, refout;
    uint64_t xorout, check;
} CRCS[] = {
    {MBH_CRC_32_ISO_HDLC, "crc32", 32, 0x04C11DB7, 0xFFFFFFFF, true, true, 0xFFFFFFFF, 0xCBF43926},
    {MBH_CRC_32_BZIP2, "crc32-bzip2", 32, 0x04C11DB7, 0xFFFFFFFF, false, false, 0xFFFFFFFF,
     0xFC891918},
    {MBH_CRC_32_CKSUM, "crc32-cksum", 32, 0x04C11DB7, 0, false, false, 0xFFFFFFFF, 0x765E7680},
    {MBH_CRC_32_ISCSI, "crc32c", 32, 0x1EDC6F41, 0xFFFFFFFF, true, true, 0xFFFFFFFF, 0xE3069283},
    {MBH_CRC_64_NVME, "crc64-nvme", 64, 0xAD93D23594C93659, ~0ull, true, true, ~0ull,
     0xAE8B14860A799888},
    {MBH_CRC_64_XZ, "crc64-xz", 64, 0x42F0E1EBA9EA3693, ~0ull, true, true, ~0ull,
     0x995DC9BBDF1939FA},
    {MBH_CRC_64_ECMA_182, "crc64-ecma-182", 64, 0x42F0E1EBA9EA3693, 0, false, false, 0,
     0x6C40DF5F0B497347},
    {MBH_CRC_64_WE, "crc64-we", 64, 0x42F0E1EBA9EA3693, ~0ull, false, false, ~0ull,
     0x62EC59E3F1A4F00A},
    {MBH_CRC_64_GO_ISO, "crc64-go-iso", 64, 0x1B, ~0ull, true, true, ~0ull, 0xB90956C775A41001},
    {MBH_CRC_64_REDIS, "crc64-redis", 64, 0xAD93D23594C935A9, 0, true, true, 0,
     0xE9C6D914C4B8D9CA},
    {MBH_CRC_64_ISO_NORM, "crc64-iso-norm", 64, 0x1B, ~0ull, false, false, ~0ull,
     0x1B00415A776C026F},
    {MBH_CRC_64_JONES_REFL, "crc64-jones-refl", 64, 0xAD93D23594C935A9, ~0ull, true, true, ~0ull,
     0x3558E8E979F60D7E},
    {MBH_CRC_64_JONES_NORM, "crc64-jones-norm", 64, 0xAD93D23594C935A9, ~0ull, false, false,
     ~0ull, 0xDCF90FB7D3A994F3},
    {MBH_CRC_64_ROCKSOFT_NORM, "crc64-rocksoft-norm", 64, 0xAD93D23594C93659, ~0ull, false, false,
     ~0ull, 0xC0E340D3ED32F595},
    {MBH_CRC_16_T10_DIF, "crc16-t10dif", 16, 0x8BB7, 0, false, false, 0, 0xD0DB},
};
#define NCRCS (sizeof CRCS / sizeof CRCS[0])

/* Lengths around the kernels' lane, vector and fold widths, and long ones. */
static const size_t CRC_LENS[] = {0,   1,   2,   3,   7,   8,   15,   16,   17,   31,   32,
                                  33,  47,  48,  63,  64,  65,  95,   127,  128,  129,  191,
                                  255, 256, 257, 511, 512, 513, 1023, 1024, 1025, 4095, 4096,
                                  4097, 8191, 65536, 70001};
#define NCRC_LENS (sizeof CRC_LENS / sizeof CRC_LENS[0])
/* Offsets into the data (the kernels' unaligned starts). */
#define CRC_OFFSETS 3
static uint8_t crc_data[70001 + CRC_OFFSETS * 21];
static uint64_t crc_want[NCRCS][NCRC_LENS][CRC_OFFSETS];

static uint64_t reflect(uint64_t v, unsigned width) {
    uint64_t r = 0;
    for (unsigned i = 0; i < width; i++) r |= ((v >> i) & 1) << (width - 1 - i);
    return r;
}

/* The CRC of `len` bytes, bit by bit, from the parameters alone. */
static uint64_t crc_bitwise(const struct crc_kat *k, const uint8_t *p, size_t len) {
    uint64_t mask = k->width == 64 ? ~0ull : (1ull << k->width) - 1;
    uint64_t reg;
    if (k->refin) {
        uint64_t poly = reflect(k->poly, k->width);
        reg = reflect(k->init, k->width);
        for (size_t i = 0; i < len; i++) {
            reg ^= p[i];
            for (int b = 0; b < 8; b++) reg = reg & 1 ? (reg >> 1) ^ poly : reg >> 1;
        }
        if (!k->refout) reg = reflect(reg, k->width);
    } else {
        uint64_t top = 1ull << (k->width - 1);
        reg = k->init;
        for (size_t i = 0; i < len; i++) {
            reg ^= (uint64_t)p[i] << (k->width - 8);
            for (int b = 0; b < 8; b++) reg = (reg & top ? (reg << 1) ^ k->poly : reg << 1) & mask;
        }
        if (k->refout) reg = reflect(reg, k->width);
    }
    return (reg ^ k->xorout) & mask;
}

static void crc_fail(const struct crc_kat *k, const char *how, size_t len, uint64_t got,
                     uint64_t want) {
    uint8_t g[8], w[8];
    for (int i = 0; i < 8; i++) {
        g[i] = (uint8_t)(got >> (56 - 8 * i));
        w[i] = (uint8_t)(want >> (56 - 8 * i));
    }
    failures++;
    put("FAIL ");
    put(k->name);
    put(" ");
    put(how);
    put(" at ");
    put_uint(len);
    put(" bytes: got ");
    put_hex(g, 8);
    put(", want ");
    put_hex(w, 8);
    put("\n");
}

/* The per-variant function of `id`, through mbh_crc's type. */
static mbh_result crc_by_name(mbh_crc_id id, const uint8_t *p, size_t len, uint64_t *out) {
    mbh_result r = MBH_OK;
    uint16_t v16 = 0;
    uint32_t v32 = 0;
    uint64_t v64 = 0;
    switch (id) {
    case MBH_CRC_32_ISO_HDLC: r = mbh_crc32(p, len, &v32); break;
    case MBH_CRC_32_BZIP2: r = mbh_crc32_bzip2(p, len, &v32); break;
    case MBH_CRC_32_CKSUM: r = mbh_crc32_cksum(p, len, &v32); break;
    case MBH_CRC_32_ISCSI: r = mbh_crc32c(p, len, &v32); break;
    case MBH_CRC_64_NVME: r = mbh_crc64_nvme(p, len, &v64); break;
    case MBH_CRC_64_XZ: r = mbh_crc64_xz(p, len, &v64); break;
    case MBH_CRC_64_ECMA_182: r = mbh_crc64_ecma_182(p, len, &v64); break;
    case MBH_CRC_64_WE: r = mbh_crc64_we(p, len, &v64); break;
    case MBH_CRC_64_GO_ISO: r = mbh_crc64_go_iso(p, len, &v64); break;
    case MBH_CRC_64_REDIS: r = mbh_crc64_redis(p, len, &v64); break;
    case MBH_CRC_16_T10_DIF: r = mbh_crc16_t10dif(p, len, &v16); break;
    default: return mbh_crc(id, p, len, out); /* ISA-L's *_norm: no function of its own */
    }
    *out = v64 | v32 | v16;
    return r;
}

/* ISA-L's function of `id` (its seed conventions: see isa-l/crc.h). */
static uint64_t crc_isal(mbh_crc_id id, const uint8_t *p, size_t len) {
    unsigned char *b = (unsigned char *)p;
    switch (id) {
    case MBH_CRC_32_ISO_HDLC: return crc32_gzip_refl(0, b, len);
    case MBH_CRC_32_BZIP2: return crc32_ieee(0, b, len);
    case MBH_CRC_32_ISCSI: return ~crc32_iscsi(b, (int)len, 0xFFFFFFFF) & 0xFFFFFFFF;
    case MBH_CRC_64_NVME: return crc64_rocksoft_refl(0, b, len);
    case MBH_CRC_64_XZ: return crc64_ecma_refl(0, b, len);
    case MBH_CRC_64_WE: return crc64_ecma_norm(0, b, len);
    case MBH_CRC_64_GO_ISO: return crc64_iso_refl(0, b, len);
    case MBH_CRC_64_ISO_NORM: return crc64_iso_norm(0, b, len);
    case MBH_CRC_64_JONES_REFL: return crc64_jones_refl(0, b, len);
    case MBH_CRC_64_JONES_NORM: return crc64_jones_norm(0, b, len);
    case MBH_CRC_64_ROCKSOFT_NORM: return crc64_rocksoft_norm(0, b, len);
    case MBH_CRC_16_T10_DIF: return crc16_t10dif(0, b, len);
    default: return crc_bitwise(&CRCS[0], 0, 0); /* none: never compared */
    }
}

static bool has_isal(mbh_crc_id id) {
    return id != MBH_CRC_32_CKSUM && id != MBH_CRC_64_ECMA_182 && id != MBH_CRC_64_REDIS;
}

/* Every CRC on the engines set now; `engine` names them in messages. */
static void run_crcs(const char *engine) {
    int before = failures;
    static uint8_t copy[70001];
    for (size_t c = 0; c < NCRCS; c++) {
        const struct crc_kat *k = &CRCS[c];
        uint64_t got = 0;
        expect_ok(mbh_crc(k->id, (const uint8_t *)"123456789", 9, &got), "mbh_crc");
        if (got != k->check) crc_fail(k, "check value", 9, got, k->check);
        for (size_t l = 0; l < NCRC_LENS; l++) {
            size_t len = CRC_LENS[l];
            for (size_t o = 0; o < CRC_OFFSETS; o++) {
                const uint8_t *p = crc_data + o * 21;
                uint64_t want = crc_want[c][l][o];
                expect_ok(mbh_crc(k->id, p, len, &got), "mbh_crc");
                if (got != want) crc_fail(k, "mbh_crc", len, got, want);
                expect_ok(crc_by_name(k->id, p, len, &got), "mbh_crc<variant>");
                if (got != want) crc_fail(k, "per-variant function", len, got, want);
                if (has_isal(k->id) && (got = crc_isal(k->id, p, len)) != want)
                    crc_fail(k, "ISA-L drop-in", len, got, want);
                /* In two pieces: append, and combine. */
                uint64_t a = 0, b = 0, whole = 0;
                size_t cut = len / 3;
                expect_ok(mbh_crc(k->id, p, cut, &a), "mbh_crc");
                expect_ok(mbh_crc_append(k->id, a, p + cut, len - cut, &whole), "mbh_crc_append");
                if (whole != want) crc_fail(k, "mbh_crc_append", len, whole, want);
                expect_ok(mbh_crc(k->id, p + cut, len - cut, &b), "mbh_crc");
                expect_ok(mbh_crc_combine(k->id, a, b, len - cut, &whole), "mbh_crc_combine");
                if (whole != want) crc_fail(k, "mbh_crc_combine", len, whole, want);
            }
        }
        if (k->id == MBH_CRC_16_T10_DIF) {
            /* The CRC while copying. */
            uint16_t v = crc16_t10dif_copy(0, copy, crc_data + 1, sizeof copy);
            uint64_t want = crc_bitwise(k, crc_data + 1, sizeof copy);
            if (v != want) crc_fail(k, "crc16_t10dif_copy", sizeof copy, v, want);
            if (memcmp(copy, crc_data + 1, sizeof copy) != 0) {
                put("FAIL crc16_t10dif_copy: the copy differs\n");
                failures++;
            }
        }
    }
    /* CRC32C's own functions, on 1024 bytes (CRC_LENS[29]) in two pieces. */
    uint32_t a32 = 0, b32 = 0, c32 = 0;
    uint64_t want32 = crc_want[3][29][0];
    expect_ok(mbh_crc32c(crc_data, 100, &a32), "mbh_crc32c");
    expect_ok(mbh_crc32c_append(a32, crc_data + 100, 924, &c32), "mbh_crc32c_append");
    if (c32 != want32) crc_fail(&CRCS[3], "mbh_crc32c_append", 1024, c32, want32);
    expect_ok(mbh_crc32c(crc_data + 100, 924, &b32), "mbh_crc32c");
    expect_ok(mbh_crc32c_combine(a32, b32, 924, &c32), "mbh_crc32c_combine");
    if (c32 != want32) crc_fail(&CRCS[3], "mbh_crc32c_combine", 1024, c32, want32);
    put(failures == before ? "ok     " : "FAILED ");
    put("every named CRC on ");
    put(engine);
    put("\n");
}

/* Every engine of `family` (MBH_CRC or MBH_CRC32C) this CPU runs. */
static size_t run_crc_engines(mbh_algorithm family, const char *family_name) {
    size_t count = 0, run = 0;
    expect_ok(mbh_engine_count(family, &count), "mbh_engine_count (CRC)");
    for (size_t e = 0; e < count; e++) {
        const char *name = 0;
        bool supported = false;
        expect_ok(mbh_engine_name(family, e, &name), "mbh_engine_name (CRC)");
        if (!name) continue;
        expect_ok(mbh_engine_supported(family, name, &supported), "mbh_engine_supported (CRC)");
        if (!supported) continue;
        expect_ok(mbh_set_engine(family, name), "mbh_set_engine (CRC)");
        const char *now = 0;
        expect_ok(mbh_get_engine(family, &now), "mbh_get_engine (CRC)");
        size_t n = 0;
        while (now && name[n] && now[n] == name[n]) n++;
        if (!now || now[n] != name[n]) {
            put("FAIL mbh_get_engine after mbh_set_engine\n");
            failures++;
        }
        put(family_name);
        put(" engine ");
        put(name);
        put(": ");
        run_crcs(name);
        run++;
    }
    expect_ok(mbh_set_engine(family, "auto"), "mbh_set_engine (CRC)");
    return run;
}

static void run_all_crcs(void) {
    uint32_t x = 0x9E3779B9u;
    for (size_t i = 0; i < sizeof crc_data; i++) {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        crc_data[i] = (uint8_t)x;
    }
    for (size_t c = 0; c < NCRCS; c++)
        for (size_t l = 0; l < NCRC_LENS; l++)
            for (size_t o = 0; o < CRC_OFFSETS; o++)
                crc_want[c][l][o] = crc_bitwise(&CRCS[c], crc_data + o * 21, CRC_LENS[l]);
    put("CRCs on the default engines: ");
    run_crcs("the default engines");
    /* auto and table at least, for each family. */
    if (run_crc_engines(MBH_CRC, "crc") < 2 || run_crc_engines(MBH_CRC32C, "crc32c") < 2) {
        put("FAIL too few CRC engines ran\n");
        failures++;
    }
}

void start_c(void) {
    memset(million_a, 'a', sizeof million_a);
    size_t engines_run = 0;
    for (size_t a = 0; a < sizeof ALGS / sizeof ALGS[0]; a++) {
        mbh_algorithm alg = ALGS[a];
        run(a, 0);
        size_t count = 0;
        expect_ok(mbh_engine_count(alg, &count), "mbh_engine_count");
        for (size_t e = 0; e < count; e++) {
            const char *name = 0;
            bool supported = false;
            expect_ok(mbh_engine_name(alg, e, &name), "mbh_engine_name");
            if (!name) continue;
            expect_ok(mbh_engine_supported(alg, name, &supported), "mbh_engine_supported");
            if (!supported) continue;
            run(a, name);
            engines_run++;
        }
    }
    run_pool();
    run_all_crcs();
    /* At least auto and scalar for each algorithm. */
    if (engines_run < 2 * sizeof ALGS / sizeof ALGS[0]) {
        put("FAIL too few engines ran\n");
        failures++;
    }
    put(failures ? "FAILED: " : "passed: ");
    put_uint((size_t)failures);
    put(" failures\n");
    exit_group(failures ? 1 : 0);
}
