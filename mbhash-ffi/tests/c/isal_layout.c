/*
 * The isa-l_crypto compatible headers: sizes, alignments, field offsets and
 * constant values identical to isa-l_crypto 2.25/2.26 on x86-64 (SHA-256,
 * SHA-512, MD5, SHA-1, SM3), checked at
 * compile time; the 2.24 names still compile.
 */
#include <isa-l_crypto/isal_crypto_api.h>
#include <isa-l_crypto/sha256_mb.h>
#include <isa-l_crypto/sha512_mb.h>
#include <isa-l_crypto/md5_mb.h>
#include <isa-l_crypto/sha1_mb.h>
#include <isa-l_crypto/sm3_mb.h>

#include <stdalign.h>
#include <stddef.h>
#include <stdio.h>

#define SIZE(t, n)      _Static_assert(sizeof(t) == (n), "sizeof " #t)
#define ALIGN(t, n)     _Static_assert(_Alignof(t) == (n), "_Alignof " #t)
#define OFFSET(t, f, n) _Static_assert(offsetof(t, f) == (n), "offsetof " #t " " #f)

/* SHA-256 */
SIZE(ISAL_SHA256_JOB, 128);
ALIGN(ISAL_SHA256_JOB, 64);
OFFSET(ISAL_SHA256_JOB, buffer, 0);
OFFSET(ISAL_SHA256_JOB, len, 8);
OFFSET(ISAL_SHA256_JOB, result_digest, 64);
OFFSET(ISAL_SHA256_JOB, status, 96);
OFFSET(ISAL_SHA256_JOB, user_data, 104);
SIZE(((ISAL_SHA256_JOB *)0)->result_digest, 32);

SIZE(ISAL_SHA256_HASH_CTX, 320);
ALIGN(ISAL_SHA256_HASH_CTX, 64);
OFFSET(ISAL_SHA256_HASH_CTX, job, 0);
OFFSET(ISAL_SHA256_HASH_CTX, job.result_digest, 64);
OFFSET(ISAL_SHA256_HASH_CTX, status, 128);
OFFSET(ISAL_SHA256_HASH_CTX, error, 132);
OFFSET(ISAL_SHA256_HASH_CTX, total_length, 136);
OFFSET(ISAL_SHA256_HASH_CTX, incoming_buffer, 144);
OFFSET(ISAL_SHA256_HASH_CTX, incoming_buffer_length, 152);
OFFSET(ISAL_SHA256_HASH_CTX, partial_block_buffer, 156);
OFFSET(ISAL_SHA256_HASH_CTX, partial_block_buffer_length, 284);
OFFSET(ISAL_SHA256_HASH_CTX, user_data, 288);

SIZE(ISAL_SHA256_HASH_CTX_MGR, 848);
ALIGN(ISAL_SHA256_HASH_CTX_MGR, 16);
SIZE(ISAL_SHA256_MB_JOB_MGR, 848);
OFFSET(ISAL_SHA256_MB_JOB_MGR, args, 0);
OFFSET(ISAL_SHA256_MB_JOB_MGR, args.data_ptr, 512);
OFFSET(ISAL_SHA256_MB_JOB_MGR, lens, 640);
OFFSET(ISAL_SHA256_MB_JOB_MGR, unused_lanes, 704);
OFFSET(ISAL_SHA256_MB_JOB_MGR, ldata, 712);
OFFSET(ISAL_SHA256_MB_JOB_MGR, num_lanes_inuse, 840);
SIZE(sha256_digest_array, 512);
SIZE(ISAL_SHA256_WORD_T, 4);

/* SHA-512 */
SIZE(ISAL_SHA512_JOB, 192);
ALIGN(ISAL_SHA512_JOB, 64);
OFFSET(ISAL_SHA512_JOB, buffer, 0);
OFFSET(ISAL_SHA512_JOB, len, 8);
OFFSET(ISAL_SHA512_JOB, result_digest, 64);
OFFSET(ISAL_SHA512_JOB, status, 128);
OFFSET(ISAL_SHA512_JOB, user_data, 136);
SIZE(((ISAL_SHA512_JOB *)0)->result_digest, 64);

SIZE(ISAL_SHA512_HASH_CTX, 512);
ALIGN(ISAL_SHA512_HASH_CTX, 64);
OFFSET(ISAL_SHA512_HASH_CTX, job, 0);
OFFSET(ISAL_SHA512_HASH_CTX, job.result_digest, 64);
OFFSET(ISAL_SHA512_HASH_CTX, status, 192);
OFFSET(ISAL_SHA512_HASH_CTX, error, 196);
OFFSET(ISAL_SHA512_HASH_CTX, total_length, 200);
OFFSET(ISAL_SHA512_HASH_CTX, incoming_buffer, 208);
OFFSET(ISAL_SHA512_HASH_CTX, incoming_buffer_length, 216);
OFFSET(ISAL_SHA512_HASH_CTX, partial_block_buffer, 220);
OFFSET(ISAL_SHA512_HASH_CTX, partial_block_buffer_length, 476);
OFFSET(ISAL_SHA512_HASH_CTX, user_data, 480);

SIZE(ISAL_SHA512_HASH_CTX_MGR, 720);
ALIGN(ISAL_SHA512_HASH_CTX_MGR, 8);
SIZE(ISAL_SHA512_MB_JOB_MGR, 720);
OFFSET(ISAL_SHA512_MB_JOB_MGR, args.data_ptr, 512);
OFFSET(ISAL_SHA512_MB_JOB_MGR, lens, 576);
OFFSET(ISAL_SHA512_MB_JOB_MGR, unused_lanes, 640);
OFFSET(ISAL_SHA512_MB_JOB_MGR, ldata, 648);
OFFSET(ISAL_SHA512_MB_JOB_MGR, num_lanes_inuse, 712);
SIZE(sha512_digest_array, 512);
SIZE(ISAL_SHA512_WORD_T, 8);

/* MD5, SHA-1, SM3: contexts of SHA-256's layout, jobs with 32-bit lengths
 * (MD5, SHA-1), MD5's manager with room for 32 lanes. */
#define CTX64(t)                                                                       \
    SIZE(t, 320);                                                                      \
    ALIGN(t, 64);                                                                      \
    OFFSET(t, job.result_digest, 64);                                                  \
    OFFSET(t, status, 128);                                                            \
    OFFSET(t, error, 132);                                                             \
    OFFSET(t, total_length, 136);                                                      \
    OFFSET(t, incoming_buffer, 144);                                                   \
    OFFSET(t, incoming_buffer_length, 152);                                            \
    OFFSET(t, partial_block_buffer, 156);                                              \
    OFFSET(t, partial_block_buffer_length, 284);                                       \
    OFFSET(t, user_data, 288)
CTX64(ISAL_MD5_HASH_CTX);
CTX64(ISAL_SHA1_HASH_CTX);
CTX64(ISAL_SM3_HASH_CTX);

SIZE(ISAL_MD5_JOB, 128);
ALIGN(ISAL_MD5_JOB, 64);
OFFSET(ISAL_MD5_JOB, len, 8);
SIZE(((ISAL_MD5_JOB *)0)->len, 4);
OFFSET(ISAL_MD5_JOB, result_digest, 64);
OFFSET(ISAL_MD5_JOB, status, 80);
OFFSET(ISAL_MD5_JOB, user_data, 88);
SIZE(ISAL_MD5_HASH_CTX_MGR, 1192);
ALIGN(ISAL_MD5_HASH_CTX_MGR, 8);
OFFSET(ISAL_MD5_MB_JOB_MGR, args.data_ptr, 512);
OFFSET(ISAL_MD5_MB_JOB_MGR, lens, 768);
OFFSET(ISAL_MD5_MB_JOB_MGR, unused_lanes, 896);
SIZE(((ISAL_MD5_MB_JOB_MGR *)0)->unused_lanes, 32);
OFFSET(ISAL_MD5_MB_JOB_MGR, ldata, 928);
OFFSET(ISAL_MD5_MB_JOB_MGR, num_lanes_inuse, 1184);
SIZE(isal_md5_digest_array, 512);
SIZE(ISAL_MD5_WORD_T, 4);

SIZE(ISAL_SHA1_JOB, 128);
OFFSET(ISAL_SHA1_JOB, len, 8);
SIZE(((ISAL_SHA1_JOB *)0)->len, 4);
OFFSET(ISAL_SHA1_JOB, result_digest, 64);
OFFSET(ISAL_SHA1_JOB, status, 84);
OFFSET(ISAL_SHA1_JOB, user_data, 88);
SIZE(ISAL_SHA1_HASH_CTX_MGR, 656);
ALIGN(ISAL_SHA1_HASH_CTX_MGR, 16);
OFFSET(ISAL_SHA1_MB_JOB_MGR, args.data_ptr, 320);
OFFSET(ISAL_SHA1_MB_JOB_MGR, lens, 448);
OFFSET(ISAL_SHA1_MB_JOB_MGR, unused_lanes, 512);
OFFSET(ISAL_SHA1_MB_JOB_MGR, ldata, 520);
OFFSET(ISAL_SHA1_MB_JOB_MGR, num_lanes_inuse, 648);
SIZE(sha1_digest_array, 320);
SIZE(ISAL_SHA1_WORD_T, 4);

SIZE(ISAL_SM3_JOB, 128);
OFFSET(ISAL_SM3_JOB, len, 8);
SIZE(((ISAL_SM3_JOB *)0)->len, 8);
OFFSET(ISAL_SM3_JOB, result_digest, 64);
OFFSET(ISAL_SM3_JOB, status, 96);
OFFSET(ISAL_SM3_JOB, user_data, 104);
SIZE(ISAL_SM3_HASH_CTX_MGR, 848);
ALIGN(ISAL_SM3_HASH_CTX_MGR, 8);
OFFSET(ISAL_SM3_MB_JOB_MGR, args.data_ptr, 512);
OFFSET(ISAL_SM3_MB_JOB_MGR, lens, 640);
OFFSET(ISAL_SM3_MB_JOB_MGR, unused_lanes, 704);
OFFSET(ISAL_SM3_MB_JOB_MGR, ldata, 712);
OFFSET(ISAL_SM3_MB_JOB_MGR, num_lanes_inuse, 840);
SIZE(isal_sm3_digest_array, 512);

_Static_assert(ISAL_MD5_DIGEST_NWORDS == 4 && ISAL_MD5_MAX_LANES == 32 &&
                   ISAL_MD5_MIN_LANES == 8 && ISAL_MD5_BLOCK_SIZE == 64 &&
                   ISAL_MD5_PADLENGTHFIELD_SIZE == 8 && ISAL_SHA1_DIGEST_NWORDS == 5 &&
                   ISAL_SHA1_MAX_LANES == 16 && ISAL_SHA1_MIN_LANES == 4 &&
                   ISAL_SHA1_BLOCK_SIZE == 64 && ISAL_SHA1_PADLENGTHFIELD_SIZE == 8 &&
                   ISAL_SM3_DIGEST_NWORDS == 8 && ISAL_SM3_MAX_LANES == 16 &&
                   ISAL_SM3_BLOCK_SIZE == 64,
               "MD5, SHA-1, SM3 constants");
_Static_assert(sizeof(MD5_HASH_CTX) == 320 && sizeof(MD5_HASH_CTX_MGR) == 1192 &&
                   sizeof(MD5_JOB) == 128 && sizeof(MD5_MB_JOB_MGR) == 1192 &&
                   sizeof(MD5_MB_ARGS_X32) == 768 && sizeof(MD5_LANE_DATA) == 8 &&
                   sizeof(md5_digest_array) == 512 && MD5_MAX_LANES == 32 &&
                   MD5_MIN_LANES == 8 && MD5_BLOCK_SIZE == 64 && MD5_DIGEST_NWORDS == 4 &&
                   MD5_PADLENGTHFIELD_SIZE == 8 && sizeof(MD5_WORD_T) == 4,
               "MD5 2.24 names");
_Static_assert(sizeof(SHA1_HASH_CTX) == 320 && sizeof(SHA1_HASH_CTX_MGR) == 656 &&
                   sizeof(SHA1_JOB) == 128 && sizeof(SHA1_MB_JOB_MGR) == 656 &&
                   sizeof(SHA1_MB_ARGS_X16) == 448 && sizeof(SHA1_LANE_DATA) == 8 &&
                   SHA1_MAX_LANES == 16 && SHA1_MIN_LANES == 4 && SHA1_BLOCK_SIZE == 64 &&
                   SHA1_DIGEST_NWORDS == 5 && SHA1_PADLENGTHFIELD_SIZE == 8 &&
                   sizeof(SHA1_WORD_T) == 4,
               "SHA-1 2.24 names");
_Static_assert(sizeof(SM3_HASH_CTX) == 320 && sizeof(SM3_HASH_CTX_MGR) == 848 &&
                   sizeof(SM3_JOB) == 128 && sizeof(SM3_MB_JOB_MGR) == 848 &&
                   sizeof(SM3_MB_ARGS_X16) == 640 && sizeof(SM3_LANE_DATA) == 8 &&
                   sizeof(sm3_digest_array) == 512 && SM3_MAX_LANES == 16 &&
                   SM3_BLOCK_SIZE == 64 && SM3_DIGEST_NWORDS == 8,
               "SM3 2.24 names");

/* Shared enums: 4-byte C enums with isa-l_crypto's values. */
SIZE(ISAL_HASH_CTX_STS, 4);
SIZE(ISAL_HASH_CTX_ERROR, 4);
SIZE(ISAL_JOB_STS, 4);
_Static_assert(ISAL_HASH_UPDATE == 0 && ISAL_HASH_FIRST == 1 && ISAL_HASH_LAST == 2 &&
                   ISAL_HASH_ENTIRE == 3,
               "flags");
_Static_assert(ISAL_HASH_CTX_STS_IDLE == 0 && ISAL_HASH_CTX_STS_PROCESSING == 1 &&
                   ISAL_HASH_CTX_STS_LAST == 2 && ISAL_HASH_CTX_STS_COMPLETE == 4,
               "statuses");
_Static_assert(ISAL_HASH_CTX_ERROR_NONE == 0 && ISAL_HASH_CTX_ERROR_INVALID_FLAGS == -1 &&
                   ISAL_HASH_CTX_ERROR_ALREADY_PROCESSING == -2 &&
                   ISAL_HASH_CTX_ERROR_ALREADY_COMPLETED == -3,
               "context errors");
_Static_assert(ISAL_STS_UNKNOWN == 0 && ISAL_STS_BEING_PROCESSED == 1 && ISAL_STS_COMPLETED == 2 &&
                   ISAL_STS_INTERNAL_ERROR == 3 && ISAL_STS_ERROR == 4,
               "job statuses");
_Static_assert(ISAL_CRYPTO_ERR_NONE == 0 && ISAL_CRYPTO_ERR_NULL_SRC == 2000 &&
                   ISAL_CRYPTO_ERR_NULL_DST == 2001 && ISAL_CRYPTO_ERR_NULL_CTX == 2002 &&
                   ISAL_CRYPTO_ERR_NULL_MGR == 2003 && ISAL_CRYPTO_ERR_INVALID_FLAGS == 2011 &&
                   ISAL_CRYPTO_ERR_ALREADY_PROCESSING == 2012 &&
                   ISAL_CRYPTO_ERR_ALREADY_COMPLETED == 2013 &&
                   ISAL_CRYPTO_ERR_XTS_NULL_TWEAK == 2014 && ISAL_CRYPTO_ERR_SELF_TEST == 2016,
               "error codes");
_Static_assert(ISAL_SHA256_BLOCK_SIZE == 64 && ISAL_SHA256_DIGEST_NWORDS == 8 &&
                   ISAL_SHA256_MAX_LANES == 16 && ISAL_SHA256_MIN_LANES == 4 &&
                   ISAL_SHA256_PADLENGTHFIELD_SIZE == 8,
               "SHA-256 constants");
_Static_assert(ISAL_SHA512_BLOCK_SIZE == 128 && ISAL_SHA512_DIGEST_NWORDS == 8 &&
                   ISAL_SHA512_MAX_LANES == 8 && ISAL_SHA512_MIN_LANES == 2 &&
                   ISAL_SHA512_PADLENGTHFIELD_SIZE == 16,
               "SHA-512 constants");
_Static_assert(ISAL_CRYPTO_VERSION == 0x021a00, "API level 2.26.0");

/* The names of API 2.24 are the same types and values. */
_Static_assert(sizeof(SHA256_HASH_CTX) == sizeof(ISAL_SHA256_HASH_CTX) &&
                   sizeof(SHA256_HASH_CTX_MGR) == sizeof(ISAL_SHA256_HASH_CTX_MGR) &&
                   sizeof(SHA256_JOB) == 128 && sizeof(SHA256_MB_JOB_MGR) == 848 &&
                   sizeof(SHA256_MB_ARGS_X16) == 640 && sizeof(SHA256_LANE_DATA) == 8 &&
                   SHA256_BLOCK_SIZE == 64 && SHA256_DIGEST_NWORDS == 8 &&
                   SHA256_MAX_LANES == 16 && SHA256_MIN_LANES == 4 &&
                   SHA256_PADLENGTHFIELD_SIZE == 8 && sizeof(SHA256_WORD_T) == 4,
               "SHA-256 2.24 names");
_Static_assert(sizeof(SHA512_HASH_CTX) == sizeof(ISAL_SHA512_HASH_CTX) &&
                   sizeof(SHA512_HASH_CTX_MGR) == sizeof(ISAL_SHA512_HASH_CTX_MGR) &&
                   sizeof(SHA512_JOB) == 192 && sizeof(SHA512_MB_JOB_MGR) == 720 &&
                   sizeof(SHA512_MB_ARGS_X8) == 576 && sizeof(SHA512_LANE_DATA) == 8 &&
                   SHA512_BLOCK_SIZE == 128 && SHA512_MAX_LANES == 8 &&
                   sizeof(SHA512_WORD_T) == 8,
               "SHA-512 2.24 names");
_Static_assert(HASH_UPDATE == 0 && HASH_FIRST == 1 && HASH_LAST == 2 && HASH_ENTIRE == 3 &&
                   HASH_CTX_STS_IDLE == 0 && HASH_CTX_STS_PROCESSING == 1 &&
                   HASH_CTX_STS_LAST == 2 && HASH_CTX_STS_COMPLETE == 4 &&
                   HASH_CTX_ERROR_NONE == 0 && HASH_CTX_ERROR_INVALID_FLAGS == -1 &&
                   HASH_CTX_ERROR_ALREADY_PROCESSING == -2 &&
                   HASH_CTX_ERROR_ALREADY_COMPLETED == -3 && STS_COMPLETED == 2 &&
                   HASH_MB_NO_FLAGS == 0 && HASH_MB_FIRST == 1 && HASH_MB_LAST == 2,
               "2.24 enum names");

int main(void) {
    /* The context macros, on both families (at run time: they are macros). */
    int run = 0, failed = 0;
#define T(cond) (run++, (cond) ? (void)0 : (void)(failed++, fprintf(stderr, "failed: %s\n", #cond)))
    ISAL_SHA256_HASH_CTX c256;
    ISAL_SHA512_HASH_CTX c512;
    int tag = 7;
    memset(&c256, 0xa5, sizeof c256);
    memset(&c512, 0xa5, sizeof c512);
    isal_hash_ctx_init(&c256);
    hash_ctx_init(&c512);
    T(isal_hash_ctx_complete(&c256) && hash_ctx_complete(&c512));
    T(!isal_hash_ctx_processing(&c256) && !hash_ctx_processing(&c512));
    T(isal_hash_ctx_status(&c256) == ISAL_HASH_CTX_STS_COMPLETE);
    T(hash_ctx_status(&c512) == HASH_CTX_STS_COMPLETE);
    T(isal_hash_ctx_error(&c256) == ISAL_HASH_CTX_ERROR_NONE && hash_ctx_error(&c512) == 0);
    c256.status = (ISAL_HASH_CTX_STS)(ISAL_HASH_CTX_STS_PROCESSING | ISAL_HASH_CTX_STS_LAST);
    T(isal_hash_ctx_processing(&c256) && !isal_hash_ctx_complete(&c256));
    isal_hash_ctx_user_data(&c256) = &tag;
    hash_ctx_user_data(&c512) = &tag;
    T(c256.user_data == &tag && c512.user_data == &tag);
    T((void *)isal_hash_ctx_digest(&c256) == (void *)c256.job.result_digest);
    T((void *)hash_ctx_digest(&c512) == (void *)c512.job.result_digest);
    T(sizeof(isal_hash_ctx_digest(&c256)[0]) == 4 && sizeof(hash_ctx_digest(&c512)[0]) == 8);
    /* DECLARE_ALIGNED from types.h. */
    DECLARE_ALIGNED(uint8_t aligned[8], 64);
    aligned[0] = 1;
    T(((uintptr_t)aligned & 63) == 0 && aligned[0] == 1);
#undef T
    printf("isal_layout: %d passed, %d failed\n", run - failed, failed);
    return failed == 0 ? 0 : 1;
}
