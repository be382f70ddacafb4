/*
 * multi_buffer.h: flags, statuses, errors and context macros shared by the
 * multi-buffer hashes, for programs built against mbhash's isa-l_crypto
 * compatible ABI (libmbhash). Written for mbhash; names and values follow
 * isa-l_crypto 2.25/2.26.
 */
#ifndef _MULTI_BUFFER_H_
#define _MULTI_BUFFER_H_

#ifdef __cplusplus
extern "C" {
#endif

/* The names of API 2.24 and earlier, unless NO_COMPAT_ISAL_CRYPTO_API_2_24. */
#ifndef NO_COMPAT_ISAL_CRYPTO_API_2_24
#define JOB_STS             ISAL_JOB_STS
#define STS_UNKNOWN         ISAL_STS_UNKNOWN
#define STS_BEING_PROCESSED ISAL_STS_BEING_PROCESSED
#define STS_COMPLETED       ISAL_STS_COMPLETED
#define STS_INTERNAL_ERROR  ISAL_STS_INTERNAL_ERROR
#define STS_ERROR           ISAL_STS_ERROR

#define HASH_CTX_FLAG ISAL_HASH_CTX_FLAG
#define HASH_UPDATE   ISAL_HASH_UPDATE
#define HASH_FIRST    ISAL_HASH_FIRST
#define HASH_LAST     ISAL_HASH_LAST
#define HASH_ENTIRE   ISAL_HASH_ENTIRE

#define HASH_CTX_STS            ISAL_HASH_CTX_STS
#define HASH_CTX_STS_IDLE       ISAL_HASH_CTX_STS_IDLE
#define HASH_CTX_STS_PROCESSING ISAL_HASH_CTX_STS_PROCESSING
#define HASH_CTX_STS_LAST       ISAL_HASH_CTX_STS_LAST
#define HASH_CTX_STS_COMPLETE   ISAL_HASH_CTX_STS_COMPLETE

#define HASH_CTX_ERROR                    ISAL_HASH_CTX_ERROR
#define HASH_CTX_ERROR_NONE               ISAL_HASH_CTX_ERROR_NONE
#define HASH_CTX_ERROR_INVALID_FLAGS      ISAL_HASH_CTX_ERROR_INVALID_FLAGS
#define HASH_CTX_ERROR_ALREADY_PROCESSING ISAL_HASH_CTX_ERROR_ALREADY_PROCESSING
#define HASH_CTX_ERROR_ALREADY_COMPLETED  ISAL_HASH_CTX_ERROR_ALREADY_COMPLETED

#define HASH_MB_NO_FLAGS ISAL_HASH_MB_NO_FLAGS
#define HASH_MB_FIRST    ISAL_HASH_MB_FIRST
#define HASH_MB_LAST     ISAL_HASH_MB_LAST

#define hash_ctx_user_data  isal_hash_ctx_user_data
#define hash_ctx_digest     isal_hash_ctx_digest
#define hash_ctx_processing isal_hash_ctx_processing
#define hash_ctx_complete   isal_hash_ctx_complete
#define hash_ctx_status     isal_hash_ctx_status
#define hash_ctx_error      isal_hash_ctx_error
#define hash_ctx_init       isal_hash_ctx_init
#endif /* !NO_COMPAT_ISAL_CRYPTO_API_2_24 */

/* The status of a job (the scheduler's view of a context): set to
 * ISAL_STS_BEING_PROCESSED when it enters a lane and to ISAL_STS_COMPLETED
 * when it leaves. */
typedef enum {
        ISAL_STS_UNKNOWN = 0,
        ISAL_STS_BEING_PROCESSED = 1,
        ISAL_STS_COMPLETED = 2,
        ISAL_STS_INTERNAL_ERROR, /* 3: never set by libmbhash */
        ISAL_STS_ERROR           /* 4: never set by libmbhash */
} ISAL_JOB_STS;

#define ISAL_HASH_MB_NO_FLAGS 0
#define ISAL_HASH_MB_FIRST    1
#define ISAL_HASH_MB_LAST     2

/* How a submitted chunk relates to its stream. */
typedef enum {
        ISAL_HASH_UPDATE = 0x00, /* a middle chunk */
        ISAL_HASH_FIRST = 0x01,  /* the first chunk: starts (or restarts) the stream */
        ISAL_HASH_LAST = 0x02,   /* the last chunk: pads and finishes the digest */
        ISAL_HASH_ENTIRE = 0x03, /* a whole message: FIRST | LAST */
} ISAL_HASH_CTX_FLAG;

/* A context's status (bits). */
typedef enum {
        ISAL_HASH_CTX_STS_IDLE = 0x00,       /* a stream is open and waits for its next chunk */
        ISAL_HASH_CTX_STS_PROCESSING = 0x01, /* in flight in a manager */
        ISAL_HASH_CTX_STS_LAST = 0x02,       /* in flight with its last chunk */
        ISAL_HASH_CTX_STS_COMPLETE = 0x04,   /* finished: the digest is ready (also after init) */
} ISAL_HASH_CTX_STS;

/* Why a submit handed a context back at once (its `error` field). */
typedef enum {
        ISAL_HASH_CTX_ERROR_NONE = 0,
        ISAL_HASH_CTX_ERROR_INVALID_FLAGS = -1,      /* flags beyond FIRST | LAST */
        ISAL_HASH_CTX_ERROR_ALREADY_PROCESSING = -2, /* the context is in flight */
        ISAL_HASH_CTX_ERROR_ALREADY_COMPLETED = -3,  /* UPDATE or LAST on a finished stream */
} ISAL_HASH_CTX_ERROR;

/* Accessors of any hash context (SHA-256 or SHA-512). */
#define isal_hash_ctx_user_data(ctx)  ((ctx)->user_data)
#define isal_hash_ctx_digest(ctx)     ((ctx)->job.result_digest)
#define isal_hash_ctx_processing(ctx) ((ctx)->status & ISAL_HASH_CTX_STS_PROCESSING)
#define isal_hash_ctx_complete(ctx)   ((ctx)->status == ISAL_HASH_CTX_STS_COMPLETE)
#define isal_hash_ctx_status(ctx)     ((ctx)->status)
#define isal_hash_ctx_error(ctx)      ((ctx)->error)
/* Prepares a context before its first submit (which must be FIRST or ENTIRE). */
#define isal_hash_ctx_init(ctx)                                                                    \
        do {                                                                                       \
                (ctx)->error = ISAL_HASH_CTX_ERROR_NONE;                                           \
                (ctx)->status = ISAL_HASH_CTX_STS_COMPLETE;                                        \
        } while (0)

#ifdef __cplusplus
}
#endif

#endif /* _MULTI_BUFFER_H_ */
