/* The header as a C99 program sees it, built with -std=c99 -Wc++-compat
 * -Werror (see tests/c.rs): no tag that is also a typedef of another type,
 * no name without the mbh_ prefix, and the result types 32 bits wide. */
#include "mbhash.h"

#include <stdio.h>
#include <string.h>
#include <sys/uio.h>

/* The caller's own `iovec`, an ordinary name (the header once declared
 * one, a typedef). */
static const int iovec = 1;

typedef char result_is_32_bits[sizeof(mbh_result) == 4 ? 1 : -1];
typedef char status_is_32_bits[sizeof(mbh_status) == 4 ? 1 : -1];

/* The names C callers use, as before: the enum tags and the typedefs. */
static enum mbh_result as_tag(mbh_result r) { return r; }

int main(void) {
    int failed = 0, run = 0;
    const uint8_t abc[3] = {'a', 'b', 'c'};
    const uint8_t *msg = abc;
    size_t len = 3, written = 0;
    uint8_t out[MBH_MAX_DIGEST_LEN];
    mbh_ctx ctx;
    mbh_status status = MBH_STATUS_COMPLETE;
    struct iovec iov;
    mbh_pool *pool = NULL;
    result_is_32_bits r32;
    status_is_32_bits s32;
    (void)r32;
    (void)s32;

#define CHECK(c)                                                            \
    do {                                                                    \
        run++;                                                              \
        if (!(c)) {                                                         \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #c); \
            failed++;                                                       \
        }                                                                   \
    } while (0)

    CHECK(iovec == 1);
    CHECK(as_tag(mbh_hash_many(MBH_SHA256, &msg, &len, 1, out, sizeof out)) == MBH_OK);
    CHECK(out[0] == 0xba && out[31] == 0xad);
    CHECK(strcmp(mbh_result_str(MBH_WOULD_DEADLOCK), "unknown result code") != 0);

    /* mbh_ctx_digest's errors, as documented. */
    CHECK(mbh_ctx_init(&ctx, MBH_SHA256, NULL) == MBH_OK);
    CHECK(mbh_ctx_status(&ctx, &status) == MBH_OK && status == MBH_STATUS_NEW);
    CHECK(mbh_ctx_digest(&ctx, out, sizeof out, &written) == MBH_NOT_COMPLETE);
    CHECK(mbh_ctx_digest(&ctx, NULL, sizeof out, &written) == MBH_NULL_ARGUMENT);
    CHECK(mbh_ctx_digest(&ctx, out, sizeof out, NULL) == MBH_NULL_ARGUMENT);
    CHECK(mbh_ctx_digest(NULL, out, sizeof out, &written) == MBH_NULL_ARGUMENT);
    CHECK(written == 0);

    /* A struct iovec goes to mbh_pool_hash as it is. */
    iov.iov_base = (void *)abc;
    iov.iov_len = sizeof abc;
    CHECK(mbh_pool_new(&pool) == MBH_OK);
    CHECK(mbh_pool_hash(pool, MBH_SHA256, &iov, 1, out, sizeof out) == MBH_OK);
    CHECK(out[0] == 0xba && out[31] == 0xad);
    mbh_pool_free(pool);

    printf("c99: %d passed, %d failed\n", run - failed, failed);
    return failed != 0;
}
