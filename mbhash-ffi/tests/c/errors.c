/*
 * Every error code of the C API: NULL for every pointer argument, invalid
 * algorithms and flags, a context of another algorithm than the manager, a
 * context resubmitted while in flight, UPDATE/LAST on a context with no open
 * stream, lengths past PTRDIFF_MAX, unknown and unsupported engine names,
 * misaligned and uninitialised caller memory, short output buffers, and a
 * Rust panic caught at the boundary. Outputs are untouched on error, and
 * after each error the manager keeps working.
 *
 * usage: errors            (run with MBHASH_DISABLE=avx512 so that one
 *                           engine is unsupported)
 *        errors bad-env    (run with MBHASH_SHA256_ENGINE=bogus and
 *                           MBHASH_SHA512_ENGINE=avx512, avx512 disabled)
 */
#include "common.h"

#include <stdalign.h>
#include <stdint.h>

static const uint8_t ABC[3] = {'a', 'b', 'c'};
/* FIPS 180-4 examples: "abc". */
static const char *const ABC_SHA256 =
    "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";
static const char *const ABC_SHA224 = "23097d223405d8228642a477bda255b32aadbce4bda0b3f7e36c9da7";
static const char *const ABC_SHA512 =
    "ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a"
    "2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f";
static const char *const EMPTY_SHA256 =
    "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

/* A recognisable pointer value that no function should write. */
static mbh_ctx sentinel_ctx;
#define SENTINEL (&sentinel_ctx)

/* The manager still hashes "abc" right: the check after every error. Drains
   the manager (other contexts in flight come back too). */
static void still_works(mbh_manager *mgr, mbh_algorithm alg, const char *want_hex) {
    mbh_ctx ctx;
    OK(mbh_ctx_init(&ctx, alg, NULL));
    mbh_ctx *done = NULL;
    int back = 0;
    OK(mbh_submit(mgr, &ctx, ABC, sizeof ABC, MBH_ENTIRE, &done));
    back |= done == &ctx;
    do {
        OK(mbh_flush(mgr, &done));
        back |= done == &ctx;
    } while (done);
    CHECK(back);
    uint8_t got[MBH_MAX_DIGEST_LEN], want[MBH_MAX_DIGEST_LEN];
    size_t len = strlen(want_hex) / 2, written = 0;
    CHECK(hex_decode(want_hex, want, len) == 0);
    OK(mbh_ctx_digest(&ctx, got, sizeof got, &written));
    CHECK(written == len);
    same_digest("still works", got, want, len);
}

/* An engine of `alg`'s family that this CPU does not run, or NULL. */
static const char *unsupported_engine(mbh_algorithm alg) {
    size_t n = 0;
    OK(mbh_engine_count(alg, &n));
    for (size_t i = 0; i < n; i++) {
        const char *name = NULL;
        bool supported = true;
        OK(mbh_engine_name(alg, i, &name));
        OK(mbh_engine_supported(alg, name, &supported));
        if (!supported) return name;
    }
    return NULL;
}

static void result_strings(void) {
    const char *seen[MBH_UNKNOWN_CRC + 1];
    for (uint32_t r = 0; r <= MBH_UNKNOWN_CRC; r++) {
        const char *s = mbh_result_str(r);
        CHECK(s != NULL && strlen(s) > 0);
        for (uint32_t q = 0; q < r; q++) CHECK(strcmp(s, seen[q]) != 0);
        seen[r] = s;
    }
    CHECK(MBH_PANIC == 16);
    CHECK(MBH_QUEUE_FULL == 17 && MBH_SHUT_DOWN == 18 && MBH_CANCELLED == 19);
    CHECK(MBH_INVALID_ARGUMENT == 20);
    CHECK(MBH_INVALID_PARAMETER == 21 && MBH_IO_ERROR == 22 && MBH_BAD_IMAGE == 23);
    CHECK(MBH_WOULD_DEADLOCK == 24 && MBH_OUT_OF_MEMORY == 25);
    CHECK(MBH_UNKNOWN_CRC == 26);
    CHECK(strcmp(mbh_result_str(MBH_UNKNOWN_CRC + 1), "unknown result code") == 0);
    CHECK(strcmp(mbh_result_str(UINT32_MAX), "unknown result code") == 0);
    const char *v = mbh_version();
    CHECK(v != NULL && v[0] >= '0' && v[0] <= '9' && strchr(v, '.') != NULL);
}

static void algorithms_and_lengths(void) {
    size_t len = 12345;
    EXPECT(mbh_digest_len(MBH_SHA256, NULL), MBH_NULL_ARGUMENT);
    EXPECT(mbh_digest_len(0, &len), MBH_INVALID_ALGORITHM);
    EXPECT(mbh_digest_len(7, &len), MBH_INVALID_ALGORITHM);
    EXPECT(mbh_digest_len(UINT32_MAX, &len), MBH_INVALID_ALGORITHM);
    CHECK(len == 12345);
    for (size_t k = 0; k < ALG_COUNT; k++) {
        OK(mbh_digest_len(ALGS[k].alg, &len));
        CHECK(len == ALGS[k].digest_len);
    }
}

static void engines(void) {
    size_t n = 0;
    const char *name = NULL;
    bool supported = false;
    EXPECT(mbh_engine_count(MBH_SHA256, NULL), MBH_NULL_ARGUMENT);
    EXPECT(mbh_engine_count(0, &n), MBH_INVALID_ALGORITHM);
    OK(mbh_engine_count(MBH_SHA224, &n));
    EXPECT(mbh_engine_name(MBH_SHA224, 0, NULL), MBH_NULL_ARGUMENT);
    EXPECT(mbh_engine_name(99, 0, &name), MBH_INVALID_ALGORITHM);
    EXPECT(mbh_engine_name(MBH_SHA224, n, &name), MBH_OUT_OF_RANGE);
    EXPECT(mbh_engine_name(MBH_SHA224, SIZE_MAX, &name), MBH_OUT_OF_RANGE);
    CHECK(name == NULL);
    OK(mbh_engine_name(MBH_SHA224, 0, &name));
    CHECK(name && strcmp(name, "auto") == 0);
    OK(mbh_engine_name(MBH_SHA384, 1, &name));
    CHECK(name && strcmp(name, "scalar") == 0);
    EXPECT(mbh_engine_supported(MBH_SHA256, NULL, &supported), MBH_NULL_ARGUMENT);
    EXPECT(mbh_engine_supported(MBH_SHA256, "auto", NULL), MBH_NULL_ARGUMENT);
    EXPECT(mbh_engine_supported(0, "auto", &supported), MBH_INVALID_ALGORITHM);
    EXPECT(mbh_engine_supported(MBH_SHA256, "sha3", &supported), MBH_UNKNOWN_ENGINE);
    EXPECT(mbh_engine_supported(MBH_SHA256, "\xff", &supported), MBH_UNKNOWN_ENGINE);
    EXPECT(mbh_engine_supported(MBH_SHA256, "", &supported), MBH_UNKNOWN_ENGINE);
    /* Engines are per family: SHA-NI runs only the SHA-256 family. */
    EXPECT(mbh_engine_supported(MBH_SHA512, "shani", &supported), MBH_UNKNOWN_ENGINE);
    CHECK(!supported);
    OK(mbh_engine_supported(MBH_SHA512, "scalar", &supported));
    CHECK(supported);
}

static void managers(void) {
    mbh_manager *mgr = (mbh_manager *)SENTINEL;
    EXPECT(mbh_manager_new(MBH_SHA256, NULL), MBH_NULL_ARGUMENT);
    EXPECT(mbh_manager_new(0, &mgr), MBH_INVALID_ALGORITHM);
    EXPECT(mbh_manager_new_with_engine(MBH_SHA256, NULL, &mgr), MBH_NULL_ARGUMENT);
    EXPECT(mbh_manager_new_with_engine(MBH_SHA256, "auto", NULL), MBH_NULL_ARGUMENT);
    EXPECT(mbh_manager_new_with_engine(7, "auto", &mgr), MBH_INVALID_ALGORITHM);
    EXPECT(mbh_manager_new_with_engine(MBH_SHA256, "sha3", &mgr), MBH_UNKNOWN_ENGINE);
    EXPECT(mbh_manager_new_with_engine(MBH_SHA384, "shani", &mgr), MBH_UNKNOWN_ENGINE);
    EXPECT(mbh_manager_new_with_engine(MBH_SHA256, "AVX2", &mgr), MBH_UNKNOWN_ENGINE);
    const char *unsupported = unsupported_engine(MBH_SHA512);
    if (unsupported) {
        EXPECT(mbh_manager_new_with_engine(MBH_SHA512, unsupported, &mgr),
               MBH_UNSUPPORTED_ENGINE);
    } else {
        printf("SKIPPED MBH_UNSUPPORTED_ENGINE: every engine runs here "
               "(run with MBHASH_DISABLE=avx512)\n");
    }
    CHECK(mgr == (mbh_manager *)SENTINEL);
    mbh_manager_free(NULL);

    /* Caller memory: alignment, and nothing written on error. */
    alignas(MBH_MANAGER_ALIGN) static unsigned char mem[MBH_MANAGER_SIZE + MBH_MANAGER_ALIGN];
    mbh_manager *aligned = (mbh_manager *)mem;
    mbh_manager *misaligned = (mbh_manager *)(void *)(mem + 4);
    memset(mem, 0xab, sizeof mem);
    EXPECT(mbh_manager_init(NULL, MBH_SHA256), MBH_NULL_ARGUMENT);
    EXPECT(mbh_manager_init(misaligned, MBH_SHA256), MBH_MISALIGNED);
    EXPECT(mbh_manager_init(aligned, 0), MBH_INVALID_ALGORITHM);
    EXPECT(mbh_manager_init_with_engine(aligned, MBH_SHA256, NULL), MBH_NULL_ARGUMENT);
    EXPECT(mbh_manager_init_with_engine(aligned, MBH_SHA256, "nope"), MBH_UNKNOWN_ENGINE);
    EXPECT(mbh_manager_init_with_engine(misaligned, MBH_SHA256, "auto"), MBH_MISALIGNED);
    if (unsupported) {
        EXPECT(mbh_manager_init_with_engine(aligned, MBH_SHA512, unsupported),
               MBH_UNSUPPORTED_ENGINE);
    }
    int untouched = 1;
    for (size_t i = 0; i < sizeof mem; i++) untouched &= mem[i] == 0xab;
    CHECK(untouched);

    /* Uninitialised (zeroed) and finished managers. */
    memset(mem, 0, sizeof mem);
    mbh_ctx *done = SENTINEL;
    size_t count = 77;
    const char *name = NULL;
    EXPECT(mbh_flush(aligned, &done), MBH_UNINITIALIZED);
    EXPECT(mbh_manager_fini(aligned), MBH_UNINITIALIZED);
    EXPECT(mbh_manager_lanes(aligned, &count), MBH_UNINITIALIZED);
    EXPECT(mbh_manager_in_flight(aligned, &count), MBH_UNINITIALIZED);
    EXPECT(mbh_manager_engine(aligned, &name), MBH_UNINITIALIZED);
    EXPECT(mbh_flush(misaligned, &done), MBH_MISALIGNED);
    OK(mbh_manager_init_with_engine(aligned, MBH_SHA256, "scalar"));
    OK(mbh_manager_engine(aligned, &name));
    CHECK(name && strcmp(name, "scalar") == 0);
    OK(mbh_manager_lanes(aligned, &count));
    CHECK(count == 1);
    still_works(aligned, MBH_SHA256, ABC_SHA256);
    OK(mbh_manager_fini(aligned));
    EXPECT(mbh_manager_fini(aligned), MBH_UNINITIALIZED);
    EXPECT(mbh_flush(aligned, &done), MBH_UNINITIALIZED);
    CHECK(done == SENTINEL);
    CHECK(count == 1);

    /* NULL outputs of the queries. */
    OK(mbh_manager_new(MBH_SHA256, &mgr));
    EXPECT(mbh_manager_lanes(NULL, &count), MBH_NULL_ARGUMENT);
    EXPECT(mbh_manager_lanes(mgr, NULL), MBH_NULL_ARGUMENT);
    EXPECT(mbh_manager_in_flight(NULL, &count), MBH_NULL_ARGUMENT);
    EXPECT(mbh_manager_in_flight(mgr, NULL), MBH_NULL_ARGUMENT);
    EXPECT(mbh_manager_engine(NULL, &name), MBH_NULL_ARGUMENT);
    EXPECT(mbh_manager_engine(mgr, NULL), MBH_NULL_ARGUMENT);
    EXPECT(mbh_manager_fini(NULL), MBH_NULL_ARGUMENT);
    EXPECT(mbh_flush(NULL, &done), MBH_NULL_ARGUMENT);
    EXPECT(mbh_flush(mgr, NULL), MBH_NULL_ARGUMENT);
    still_works(mgr, MBH_SHA256, ABC_SHA256);
    mbh_manager_free(mgr);
}

static void contexts(void) {
    mbh_ctx ctx, zeroed;
    alignas(MBH_CTX_ALIGN) static unsigned char mem[MBH_CTX_SIZE + MBH_CTX_ALIGN];
    mbh_ctx *misaligned = (mbh_ctx *)(void *)(mem + 1);
    memset(&zeroed, 0, sizeof zeroed);
    void *user = SENTINEL;
    mbh_algorithm alg = 0;
    mbh_status status = (mbh_status)99;
    uint8_t out[MBH_MAX_DIGEST_LEN];
    size_t written = 99;

    EXPECT(mbh_ctx_init(NULL, MBH_SHA256, NULL), MBH_NULL_ARGUMENT);
    EXPECT(mbh_ctx_init(misaligned, MBH_SHA256, NULL), MBH_MISALIGNED);
    EXPECT(mbh_ctx_init(&ctx, 0, NULL), MBH_INVALID_ALGORITHM);
    EXPECT(mbh_ctx_init(&ctx, 7, NULL), MBH_INVALID_ALGORITHM);
    OK(mbh_ctx_init(&ctx, MBH_SHA512_224, &ctx));

    EXPECT(mbh_ctx_reset(NULL), MBH_NULL_ARGUMENT);
    EXPECT(mbh_ctx_reset(&zeroed), MBH_UNINITIALIZED);
    EXPECT(mbh_ctx_set_user_data(NULL, NULL), MBH_NULL_ARGUMENT);
    EXPECT(mbh_ctx_set_user_data(&zeroed, NULL), MBH_UNINITIALIZED);
    EXPECT(mbh_ctx_get_user_data(NULL, &user), MBH_NULL_ARGUMENT);
    EXPECT(mbh_ctx_get_user_data(&ctx, NULL), MBH_NULL_ARGUMENT);
    EXPECT(mbh_ctx_get_user_data(&zeroed, &user), MBH_UNINITIALIZED);
    CHECK(user == SENTINEL);
    EXPECT(mbh_ctx_algorithm(NULL, &alg), MBH_NULL_ARGUMENT);
    EXPECT(mbh_ctx_algorithm(&ctx, NULL), MBH_NULL_ARGUMENT);
    EXPECT(mbh_ctx_algorithm(&zeroed, &alg), MBH_UNINITIALIZED);
    EXPECT(mbh_ctx_status(NULL, &status), MBH_NULL_ARGUMENT);
    EXPECT(mbh_ctx_status(&ctx, NULL), MBH_NULL_ARGUMENT);
    EXPECT(mbh_ctx_status(&zeroed, &status), MBH_UNINITIALIZED);
    EXPECT(mbh_ctx_status(misaligned, &status), MBH_MISALIGNED);
    CHECK(alg == 0 && status == (mbh_status)99);

    OK(mbh_ctx_get_user_data(&ctx, &user));
    CHECK(user == &ctx);
    OK(mbh_ctx_set_user_data(&ctx, SENTINEL));
    OK(mbh_ctx_get_user_data(&ctx, &user));
    CHECK(user == SENTINEL);
    OK(mbh_ctx_algorithm(&ctx, &alg));
    CHECK(alg == MBH_SHA512_224);
    OK(mbh_ctx_status(&ctx, &status));
    CHECK(status == MBH_STATUS_NEW);

    /* Digest: NULLs, no stream yet, short buffer; the output untouched. */
    memset(out, 0xee, sizeof out);
    EXPECT(mbh_ctx_digest(NULL, out, sizeof out, &written), MBH_NULL_ARGUMENT);
    EXPECT(mbh_ctx_digest(&ctx, NULL, sizeof out, &written), MBH_NULL_ARGUMENT);
    EXPECT(mbh_ctx_digest(&ctx, out, sizeof out, NULL), MBH_NULL_ARGUMENT);
    EXPECT(mbh_ctx_digest(&zeroed, out, sizeof out, &written), MBH_UNINITIALIZED);
    EXPECT(mbh_ctx_digest(&ctx, out, sizeof out, &written), MBH_NOT_COMPLETE);
    mbh_manager *mgr = NULL;
    REQUIRE_OK(mbh_manager_new(MBH_SHA256, &mgr));
    mbh_ctx c256, *done = NULL;
    OK(mbh_ctx_init(&c256, MBH_SHA256, NULL));
    OK(mbh_submit(mgr, &c256, ABC, sizeof ABC, MBH_FIRST, &done));
    CHECK(done == &c256); /* a partial block comes back at once */
    OK(mbh_ctx_status(&c256, &status));
    CHECK(status == MBH_STATUS_IDLE);
    EXPECT(mbh_ctx_digest(&c256, out, sizeof out, &written), MBH_NOT_COMPLETE);
    OK(mbh_submit(mgr, &c256, NULL, 0, MBH_LAST, &done));
    while (done != &c256) OK(mbh_flush(mgr, &done));
    EXPECT(mbh_ctx_digest(&c256, out, 31, &written), MBH_BUFFER_TOO_SMALL);
    int untouched = written == 99;
    for (size_t i = 0; i < sizeof out; i++) untouched &= out[i] == 0xee;
    CHECK(untouched);
    OK(mbh_ctx_digest(&c256, out, 32, &written));
    CHECK(written == 32);
    uint8_t want[32];
    hex_decode(ABC_SHA256, want, 32);
    same_digest("abc in two parts", out, want, 32);
    OK(mbh_ctx_reset(&c256));
    OK(mbh_ctx_status(&c256, &status));
    CHECK(status == MBH_STATUS_NEW);
    mbh_manager_free(mgr);
}

static void submits(void) {
    mbh_manager *mgr = NULL, *mgr224 = NULL;
    REQUIRE_OK(mbh_manager_new_with_engine(MBH_SHA256, "auto", &mgr));
    REQUIRE_OK(mbh_manager_new(MBH_SHA224, &mgr224));
    static uint8_t block[4096];
    mbh_ctx ctx, other, zeroed;
    alignas(MBH_CTX_ALIGN) static unsigned char mem[MBH_CTX_SIZE + MBH_CTX_ALIGN];
    mbh_ctx *misaligned = (mbh_ctx *)(void *)(mem + 2);
    memset(&zeroed, 0, sizeof zeroed);
    OK(mbh_ctx_init(&ctx, MBH_SHA256, NULL));
    OK(mbh_ctx_init(&other, MBH_SHA512, NULL));
    mbh_ctx *done = SENTINEL;

    /* NULL for every pointer argument. */
    EXPECT(mbh_submit(NULL, &ctx, ABC, 3, MBH_ENTIRE, &done), MBH_NULL_ARGUMENT);
    EXPECT(mbh_submit(mgr, NULL, ABC, 3, MBH_ENTIRE, &done), MBH_NULL_ARGUMENT);
    EXPECT(mbh_submit(mgr, &ctx, NULL, 3, MBH_ENTIRE, &done), MBH_NULL_ARGUMENT);
    EXPECT(mbh_submit(mgr, &ctx, ABC, 3, MBH_ENTIRE, NULL), MBH_NULL_ARGUMENT);
    /* Invalid flags. */
    EXPECT(mbh_submit(mgr, &ctx, ABC, 3, 4, &done), MBH_INVALID_FLAGS);
    EXPECT(mbh_submit(mgr, &ctx, ABC, 3, 7, &done), MBH_INVALID_FLAGS);
    EXPECT(mbh_submit(mgr, &ctx, ABC, 3, 0x80000000u, &done), MBH_INVALID_FLAGS);
    /* Another algorithm than the manager's (same family, and not). */
    EXPECT(mbh_submit(mgr, &other, ABC, 3, MBH_ENTIRE, &done), MBH_WRONG_ALGORITHM);
    EXPECT(mbh_submit(mgr224, &ctx, ABC, 3, MBH_ENTIRE, &done), MBH_WRONG_ALGORITHM);
    /* Uninitialised and misaligned memory. */
    EXPECT(mbh_submit(mgr, &zeroed, ABC, 3, MBH_ENTIRE, &done), MBH_UNINITIALIZED);
    EXPECT(mbh_submit(mgr, misaligned, ABC, 3, MBH_ENTIRE, &done), MBH_MISALIGNED);
    EXPECT(mbh_submit((mbh_manager *)(void *)&zeroed, &ctx, ABC, 3, MBH_ENTIRE, &done),
           MBH_UNINITIALIZED);
    /* Longer than PTRDIFF_MAX: refused before any byte is read. */
    EXPECT(mbh_submit(mgr, &ctx, ABC, SIZE_MAX, MBH_ENTIRE, &done), MBH_LENGTH_OVERFLOW);
    EXPECT(mbh_submit(mgr, &ctx, ABC, (size_t)PTRDIFF_MAX + 1, MBH_FIRST, &done),
           MBH_LENGTH_OVERFLOW);
    /* UPDATE / LAST with no open stream. */
    EXPECT(mbh_submit(mgr, &ctx, ABC, 3, MBH_UPDATE, &done), MBH_ALREADY_COMPLETED);
    EXPECT(mbh_submit(mgr, &ctx, ABC, 3, MBH_LAST, &done), MBH_ALREADY_COMPLETED);
    CHECK(done == SENTINEL);
    still_works(mgr, MBH_SHA256, ABC_SHA256);
    still_works(mgr224, MBH_SHA224, ABC_SHA224);

    /* Resubmitting a context in flight (needs a manager with 2+ lanes). */
    size_t lanes = 0, in_flight = 0;
    OK(mbh_manager_lanes(mgr, &lanes));
    if (lanes >= 2) {
        OK(mbh_submit(mgr, &ctx, block, sizeof block, MBH_ENTIRE, &done));
        CHECK(done == NULL);
        mbh_status status;
        OK(mbh_ctx_status(&ctx, &status));
        CHECK(status == MBH_STATUS_PROCESSING);
        done = SENTINEL;
        EXPECT(mbh_submit(mgr, &ctx, ABC, 3, MBH_ENTIRE, &done), MBH_ALREADY_PROCESSING);
        EXPECT(mbh_submit(mgr, &ctx, ABC, 3, MBH_UPDATE, &done), MBH_ALREADY_PROCESSING);
        EXPECT(mbh_submit(mgr, &ctx, ABC, 3, 9, &done), MBH_INVALID_FLAGS);
        /* ... also into another manager of its algorithm. */
        mbh_manager *second = NULL;
        REQUIRE_OK(mbh_manager_new(MBH_SHA256, &second));
        EXPECT(mbh_submit(second, &ctx, ABC, 3, MBH_ENTIRE, &done), MBH_ALREADY_PROCESSING);
        mbh_manager_free(second);
        CHECK(done == SENTINEL);
        uint8_t out[32];
        size_t written = 0;
        EXPECT(mbh_ctx_digest(&ctx, out, sizeof out, &written), MBH_ALREADY_PROCESSING);
        EXPECT(mbh_ctx_reset(&ctx), MBH_ALREADY_PROCESSING);
        void *user = SENTINEL;
        OK(mbh_ctx_set_user_data(&ctx, &ctx)); /* allowed in flight */
        OK(mbh_ctx_get_user_data(&ctx, &user));
        CHECK(user == &ctx);
        OK(mbh_manager_in_flight(mgr, &in_flight));
        CHECK(in_flight == 1);
        still_works(mgr, MBH_SHA256, ABC_SHA256); /* flushes ctx out too */
        OK(mbh_manager_in_flight(mgr, &in_flight));
        CHECK(in_flight == 0);
        OK(mbh_ctx_status(&ctx, &status));
        CHECK(status == MBH_STATUS_COMPLETE);
    } else {
        printf("SKIPPED MBH_ALREADY_PROCESSING: the auto engine has one lane here\n");
        OK(mbh_submit(mgr, &ctx, block, sizeof block, MBH_ENTIRE, &done));
    }
    /* UPDATE / LAST on a completed context. */
    done = SENTINEL;
    EXPECT(mbh_submit(mgr, &ctx, ABC, 3, MBH_UPDATE, &done), MBH_ALREADY_COMPLETED);
    EXPECT(mbh_submit(mgr, &ctx, ABC, 3, MBH_LAST, &done), MBH_ALREADY_COMPLETED);
    CHECK(done == SENTINEL);
    /* NULL data with length 0 is an empty chunk. */
    OK(mbh_submit(mgr, &ctx, NULL, 0, MBH_ENTIRE, &done));
    while (done != &ctx) OK(mbh_flush(mgr, &done));
    uint8_t got[32], want[32];
    size_t written = 0;
    OK(mbh_ctx_digest(&ctx, got, sizeof got, &written));
    hex_decode(EMPTY_SHA256, want, 32);
    same_digest("empty message", got, want, 32);
    still_works(mgr, MBH_SHA256, ABC_SHA256);

    /* Freeing a manager releases the contexts in flight in it. */
    if (lanes >= 2) {
        OK(mbh_ctx_init(&ctx, MBH_SHA256, NULL));
        OK(mbh_submit(mgr, &ctx, block, sizeof block, MBH_ENTIRE, &done));
        CHECK(done == NULL);
        mbh_manager_free(mgr);
        mbh_status status;
        OK(mbh_ctx_status(&ctx, &status));
        CHECK(status == MBH_STATUS_NEW);
        REQUIRE_OK(mbh_manager_new(MBH_SHA256, &mgr));
        OK(mbh_submit(mgr, &ctx, ABC, 3, MBH_ENTIRE, &done));
    }
    mbh_manager_free(mgr);
    mbh_manager_free(mgr224);
}

static void hash_many(void) {
    const uint8_t *msgs[3] = {ABC, NULL, ABC};
    size_t lens[3] = {3, 0, 3};
    uint8_t out[3 * 32];
    memset(out, 0xee, sizeof out);
    OK(mbh_hash_many(MBH_SHA256, NULL, NULL, 0, NULL, 0));
    EXPECT(mbh_hash_many(MBH_SHA256, NULL, lens, 3, out, sizeof out), MBH_NULL_ARGUMENT);
    EXPECT(mbh_hash_many(MBH_SHA256, msgs, NULL, 3, out, sizeof out), MBH_NULL_ARGUMENT);
    EXPECT(mbh_hash_many(MBH_SHA256, msgs, lens, 3, NULL, sizeof out), MBH_NULL_ARGUMENT);
    EXPECT(mbh_hash_many(0, msgs, lens, 3, out, sizeof out), MBH_INVALID_ALGORITHM);
    EXPECT(mbh_hash_many(MBH_SHA256, msgs, lens, 3, out, sizeof out - 1), MBH_BUFFER_TOO_SMALL);
    EXPECT(mbh_hash_many(MBH_SHA256, msgs, lens, SIZE_MAX / 4, out, sizeof out),
           MBH_LENGTH_OVERFLOW);
    EXPECT(mbh_hash_many(MBH_SHA256, msgs, lens, SIZE_MAX / 256, out, sizeof out),
           MBH_BUFFER_TOO_SMALL);
    lens[1] = 1; /* a NULL message with a length */
    EXPECT(mbh_hash_many(MBH_SHA256, msgs, lens, 3, out, sizeof out), MBH_NULL_ARGUMENT);
    lens[1] = 0;
    lens[2] = SIZE_MAX;
    EXPECT(mbh_hash_many(MBH_SHA256, msgs, lens, 3, out, sizeof out), MBH_LENGTH_OVERFLOW);
    lens[2] = 3;
    EXPECT(mbh_hash_many_with_engine(MBH_SHA256, NULL, msgs, lens, 3, out, sizeof out),
           MBH_NULL_ARGUMENT);
    EXPECT(mbh_hash_many_with_engine(MBH_SHA256, "sha3", msgs, lens, 3, out, sizeof out),
           MBH_UNKNOWN_ENGINE);
    const char *unsupported = unsupported_engine(MBH_SHA256);
    if (unsupported) {
        EXPECT(mbh_hash_many_with_engine(MBH_SHA256, unsupported, msgs, lens, 3, out,
                                         sizeof out),
               MBH_UNSUPPORTED_ENGINE);
    }
    int untouched = 1;
    for (size_t i = 0; i < sizeof out; i++) untouched &= out[i] == 0xee;
    CHECK(untouched);
    OK(mbh_hash_many(MBH_SHA256, msgs, lens, 3, out, sizeof out));
    uint8_t abc[32], empty[32];
    hex_decode(ABC_SHA256, abc, 32);
    hex_decode(EMPTY_SHA256, empty, 32);
    same_digest("hash_many abc", out, abc, 32);
    same_digest("hash_many empty", out + 32, empty, 32);
    same_digest("hash_many abc again", out + 64, abc, 32);
    uint8_t big[MBH_SHA512_DIGEST_LEN + 1];
    OK(mbh_hash_many_with_engine(MBH_SHA512, "scalar", msgs, lens, 1, big, sizeof big));
    uint8_t want512[64];
    hex_decode(ABC_SHA512, want512, 64);
    same_digest("hash_many sha512 abc", big, want512, 64);
}

#ifdef MBH_TEST_DEBUG_PANIC
/* Test hook of debug builds (not in the header). */
mbh_result mbh_debug_panic(mbh_manager *mgr);

static void panics(void) {
    EXPECT(mbh_debug_panic(NULL), MBH_PANIC);
    mbh_manager *mgr = NULL, *bystander = NULL;
    REQUIRE_OK(mbh_manager_new_with_engine(MBH_SHA512, "auto", &mgr));
    REQUIRE_OK(mbh_manager_new(MBH_SHA512, &bystander));
    still_works(mgr, MBH_SHA512, ABC_SHA512);
    size_t lanes = 0;
    OK(mbh_manager_lanes(mgr, &lanes));
    static uint8_t block[1024];
    mbh_ctx ctx, *done = NULL;
    OK(mbh_ctx_init(&ctx, MBH_SHA512, NULL));
    OK(mbh_submit(mgr, &ctx, block, sizeof block, MBH_ENTIRE, &done));
    /* A panic inside a manager operation poisons that manager only. */
    EXPECT(mbh_debug_panic(mgr), MBH_PANIC);
    done = SENTINEL;
    EXPECT(mbh_submit(mgr, &ctx, ABC, 3, MBH_ENTIRE, &done), MBH_POISONED);
    mbh_ctx fresh;
    OK(mbh_ctx_init(&fresh, MBH_SHA512, NULL));
    EXPECT(mbh_submit(mgr, &fresh, ABC, 3, MBH_ENTIRE, &done), MBH_POISONED);
    EXPECT(mbh_flush(mgr, &done), MBH_POISONED);
    CHECK(done == SENTINEL);
    size_t n = 0;
    OK(mbh_manager_in_flight(mgr, &n));
    CHECK(n == (lanes >= 2 ? 1u : 0u));
    still_works(bystander, MBH_SHA512, ABC_SHA512);
    /* Freeing it releases its contexts, which work elsewhere. */
    mbh_manager_free(mgr);
    mbh_status status;
    OK(mbh_ctx_status(&ctx, &status));
    CHECK(status == MBH_STATUS_NEW || status == MBH_STATUS_COMPLETE);
    OK(mbh_submit(bystander, &ctx, ABC, 3, MBH_ENTIRE, &done));
    do OK(mbh_flush(bystander, &done)); while (done);
    uint8_t got[64], want[64];
    size_t written = 0;
    OK(mbh_ctx_digest(&ctx, got, sizeof got, &written));
    hex_decode(ABC_SHA512, want, 64);
    same_digest("context of a poisoned manager, reused", got, want, 64);
    mbh_manager_free(bystander);
}
#else
static void panics(void) {
    printf("SKIPPED MBH_PANIC: mbh_debug_panic exists only in debug builds\n");
}
#endif

/* Run with MBHASH_SHA256_ENGINE=bogus, MBHASH_SHA512_ENGINE=avx512 and
   MBHASH_DISABLE=avx512: the configured engines are refused, not replaced. */
static void bad_env(void) {
    mbh_manager *mgr = (mbh_manager *)SENTINEL;
    alignas(MBH_MANAGER_ALIGN) static unsigned char mem[MBH_MANAGER_SIZE];
    EXPECT(mbh_manager_new(MBH_SHA256, &mgr), MBH_UNKNOWN_ENGINE);
    EXPECT(mbh_manager_new(MBH_SHA224, &mgr), MBH_UNKNOWN_ENGINE);
    EXPECT(mbh_manager_init((mbh_manager *)mem, MBH_SHA256), MBH_UNKNOWN_ENGINE);
    EXPECT(mbh_manager_new(MBH_SHA512, &mgr), MBH_UNSUPPORTED_ENGINE);
    EXPECT(mbh_manager_new(MBH_SHA384, &mgr), MBH_UNSUPPORTED_ENGINE);
    CHECK(mgr == (mbh_manager *)SENTINEL);
    uint8_t out[64];
    const uint8_t *msgs[1] = {ABC};
    size_t lens[1] = {3};
    EXPECT(mbh_hash_many(MBH_SHA256, msgs, lens, 1, out, sizeof out), MBH_UNKNOWN_ENGINE);
    EXPECT(mbh_hash_many(MBH_SHA512, msgs, lens, 1, out, sizeof out), MBH_UNSUPPORTED_ENGINE);
    /* Naming an engine explicitly still works. */
    OK(mbh_manager_new_with_engine(MBH_SHA256, "auto", &mgr));
    still_works(mgr, MBH_SHA256, ABC_SHA256);
    mbh_manager_free(mgr);
    OK(mbh_hash_many_with_engine(MBH_SHA512, "scalar", msgs, lens, 1, out, sizeof out));
}

int main(int argc, char **argv) {
    if (argc > 1 && strcmp(argv[1], "bad-env") == 0) {
        bad_env();
        return finish("errors bad-env");
    }
    result_strings();
    algorithms_and_lengths();
    engines();
    managers();
    contexts();
    submits();
    hash_many();
    panics();
    (void)ALGS;
    return finish("errors");
}
