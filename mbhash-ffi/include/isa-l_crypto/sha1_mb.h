/*
 * sha1_mb.h: multi-buffer SHA-1, isa-l_crypto's context API, for
 * programs built against mbhash's isa-l_crypto compatible ABI (libmbhash).
 * Written for mbhash; names, types and layouts follow isa-l_crypto 2.25/2.26
 * (on 64-bit targets), so that a program written for isa-l_crypto compiles
 * unchanged and links against libmbhash instead of libisal_crypto.
 *
 * Usage, as with isa-l_crypto:
 *
 *   ISAL_SHA1_HASH_CTX_MGR mgr;      (656 bytes; all state is in here)
 *   ISAL_SHA1_HASH_CTX ctx, *done;   (320 bytes each)
 *   isal_sha1_ctx_mgr_init(&mgr);
 *   isal_hash_ctx_init(&ctx);
 *   isal_sha1_ctx_mgr_submit(&mgr, &ctx, &done, buf, len, ISAL_HASH_ENTIRE);
 *   ...more submits; each may hand back a finished context in `done`...
 *   while (isal_sha1_ctx_mgr_flush(&mgr, &done) == 0 && done != NULL) { ... }
 *
 * A stream is FIRST, any number of UPDATEs, then LAST (or one ENTIRE); a
 * context is resubmitted only after it came back. Contexts come back out of
 * order. A chunk that does not complete a block is kept in the context's
 * partial block, and the context comes back at once with status IDLE. When
 * a LAST chunk's context comes back, isal_hash_ctx_complete(ctx) holds and
 * isal_hash_ctx_digest(ctx) is the digest as five host-order words.
 *
 * The manager needs no cleanup. Which SIMD kernels run is mbhash's choice
 * (MBHASH_SHA1_ENGINE names one; by default `auto`).
 */
#ifndef _SHA1_MB_H_
#define _SHA1_MB_H_

#include <stdint.h>
#include <string.h>
#include "multi_buffer.h"
#include "types.h"

#ifndef _MSC_VER
#include <stdbool.h>
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* The names of API 2.24 and earlier, unless NO_COMPAT_ISAL_CRYPTO_API_2_24. */
#ifndef NO_COMPAT_ISAL_CRYPTO_API_2_24
#define SHA1_DIGEST_NWORDS       ISAL_SHA1_DIGEST_NWORDS
#define SHA1_PADLENGTHFIELD_SIZE ISAL_SHA1_PADLENGTHFIELD_SIZE
#define SHA1_MAX_LANES           ISAL_SHA1_MAX_LANES
#define SHA1_MIN_LANES           ISAL_SHA1_MIN_LANES
#define SHA1_BLOCK_SIZE          ISAL_SHA1_BLOCK_SIZE
#define SHA1_WORD_T              ISAL_SHA1_WORD_T

#define SHA1_JOB          ISAL_SHA1_JOB
#define SHA1_MB_ARGS_X16  ISAL_SHA1_MB_ARGS_X16
#define SHA1_LANE_DATA    ISAL_SHA1_LANE_DATA
#define SHA1_MB_JOB_MGR   ISAL_SHA1_MB_JOB_MGR
#define SHA1_HASH_CTX_MGR ISAL_SHA1_HASH_CTX_MGR
#define SHA1_HASH_CTX     ISAL_SHA1_HASH_CTX
#endif /* !NO_COMPAT_ISAL_CRYPTO_API_2_24 */

#define ISAL_SHA1_DIGEST_NWORDS       5
#define ISAL_SHA1_MAX_LANES           16
#define ISAL_SHA1_MIN_LANES           4
#define ISAL_SHA1_BLOCK_SIZE          64
#define ISAL_SHA1_PADLENGTHFIELD_SIZE 8

typedef uint32_t sha1_digest_array[ISAL_SHA1_DIGEST_NWORDS][ISAL_SHA1_MAX_LANES];
typedef uint32_t ISAL_SHA1_WORD_T;

/* A job: the scheduler's view of a context (128 bytes, aligned to 64). */
typedef struct {
        uint8_t *buffer; /* the blocks of the job in flight */
        uint32_t len;    /* how many blocks */
        /* The chaining state as host-order words: the digest once complete. */
        DECLARE_ALIGNED(uint32_t result_digest[ISAL_SHA1_DIGEST_NWORDS], 64);
        ISAL_JOB_STS status;
        void *user_data; /* the caller's; never touched */
} ISAL_SHA1_JOB;

/*
 * The manager. Its size and alignment are isa-l_crypto's (656 bytes, aligned
 * to 16), and so are the declared fields. A manager just initialised holds
 * in each what isa-l_crypto's initialisation leaves there; after that, what
 * they hold is private to libmbhash: treat the manager as opaque.
 */
typedef struct {
        sha1_digest_array digest;
        uint8_t *data_ptr[ISAL_SHA1_MAX_LANES];
} ISAL_SHA1_MB_ARGS_X16;

typedef struct {
        ISAL_SHA1_JOB *job_in_lane;
} ISAL_SHA1_LANE_DATA;

typedef struct {
        ISAL_SHA1_MB_ARGS_X16 args;
        DECLARE_ALIGNED(uint32_t lens[ISAL_SHA1_MAX_LANES], 16);
        uint64_t unused_lanes;
        ISAL_SHA1_LANE_DATA ldata[ISAL_SHA1_MAX_LANES];
        uint32_t num_lanes_inuse;
} ISAL_SHA1_MB_JOB_MGR;

typedef struct {
        ISAL_SHA1_MB_JOB_MGR mgr;
} ISAL_SHA1_HASH_CTX_MGR;

/*
 * A context: one message stream (320 bytes, aligned to 64). Set up with
 * isal_hash_ctx_init; the caller may read it (and set user_data) while it is
 * not in flight. libmbhash needs it aligned to 8 only.
 */
typedef struct {
        ISAL_SHA1_JOB job;             /* at offset 0 */
        ISAL_HASH_CTX_STS status;        /* ISAL_HASH_CTX_STS_* bits */
        ISAL_HASH_CTX_ERROR error;       /* why the last submit handed it back, or NONE */
        uint64_t total_length;           /* bytes submitted so far (advanced at submit) */
        const void *incoming_buffer;     /* what is left of the chunk in flight */
        uint32_t incoming_buffer_length; /* its length in bytes */
        uint8_t partial_block_buffer[ISAL_SHA1_BLOCK_SIZE * 2]; /* partial block, padding */
        uint32_t partial_block_buffer_length;
        void *user_data; /* the caller's; never touched */
} ISAL_SHA1_HASH_CTX;

/* The deprecated API: the finished context, or NULL. */

/* Initialises a manager. */
ISAL_DEPRECATED("Please use isal_sha1_ctx_mgr_init() instead")
void
sha1_ctx_mgr_init(ISAL_SHA1_HASH_CTX_MGR *mgr);

/* Submits `len` bytes at `buffer` as the next chunk of ctx's stream; returns
 * a context that came back (ctx itself with `error` set if refused), or NULL. */
ISAL_DEPRECATED("Please use isal_sha1_ctx_mgr_submit() instead")
ISAL_SHA1_HASH_CTX *
sha1_ctx_mgr_submit(ISAL_SHA1_HASH_CTX_MGR *mgr, ISAL_SHA1_HASH_CTX *ctx, const void *buffer,
                      uint32_t len, ISAL_HASH_CTX_FLAG flags);

/* Runs the jobs in flight until a context comes back; NULL if none is left. */
ISAL_DEPRECATED("Please use isal_sha1_ctx_mgr_flush() instead")
ISAL_SHA1_HASH_CTX *
sha1_ctx_mgr_flush(ISAL_SHA1_HASH_CTX_MGR *mgr);

/* The API of 2.25 and later: 0, or an ISAL_CRYPTO_ERR_* code (isal_crypto_api.h). */

/* Initialises a manager. */
int
isal_sha1_ctx_mgr_init(ISAL_SHA1_HASH_CTX_MGR *mgr);

/* Submits `len` bytes at `buffer` (NULL allowed only with FIRST or LAST and
 * len 0) as the next chunk of ctx_in's stream; *ctx_out is a context that
 * came back, or NULL. A refused context is also written to *ctx_out, with
 * ISAL_CRYPTO_ERR_INVALID_FLAGS, _ALREADY_PROCESSING or _ALREADY_COMPLETED. */
int
isal_sha1_ctx_mgr_submit(ISAL_SHA1_HASH_CTX_MGR *mgr, ISAL_SHA1_HASH_CTX *ctx_in,
                           ISAL_SHA1_HASH_CTX **ctx_out, const void *buffer, const uint32_t len,
                           const ISAL_HASH_CTX_FLAG flags);

/* Runs the jobs in flight until a context comes back: *ctx_out, or NULL if
 * none is left. */
int
isal_sha1_ctx_mgr_flush(ISAL_SHA1_HASH_CTX_MGR *mgr, ISAL_SHA1_HASH_CTX **ctx_out);

#ifdef __cplusplus
}
#endif

#endif /* _SHA1_MB_H_ */
