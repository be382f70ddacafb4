/*
 * Names of one hash family for the test bodies (isal_*_body.h), which are
 * written once and included once per family: define ISAL_FAMILY as 256 or
 * 512, then include this file and the body. No include guard: it is included
 * again for the other family.
 *
 *   F_CTX, F_MGR          the context and manager types
 *   F_INIT/SUBMIT/FLUSH   the isal_* functions
 *   F_OLD_INIT/...        the deprecated functions
 *   F_WORD                a digest word
 *   F_BLOCK, F_LANES      block size, isa-l_crypto's lane count
 *   F_ALG, F_DIGEST_LEN   the native algorithm for references, digest bytes
 *   F_NAME                "sha256" or "sha512"
 *   F(name)               name_256 or name_512: per-family function names
 */
#undef F_CTX
#undef F_MGR
#undef F_INIT
#undef F_SUBMIT
#undef F_FLUSH
#undef F_OLD_INIT
#undef F_OLD_SUBMIT
#undef F_OLD_FLUSH
#undef F_WORD
#undef F_BLOCK
#undef F_LANES
#undef F_ALG
#undef F_DIGEST_LEN
#undef F_NAME
#undef F_DIGEST_BYTES
#undef F

#if ISAL_FAMILY == 256
#define F_CTX          ISAL_SHA256_HASH_CTX
#define F_MGR          ISAL_SHA256_HASH_CTX_MGR
#define F_INIT         isal_sha256_ctx_mgr_init
#define F_SUBMIT       isal_sha256_ctx_mgr_submit
#define F_FLUSH        isal_sha256_ctx_mgr_flush
#define F_OLD_INIT     sha256_ctx_mgr_init
#define F_OLD_SUBMIT   sha256_ctx_mgr_submit
#define F_OLD_FLUSH    sha256_ctx_mgr_flush
#define F_WORD         ISAL_SHA256_WORD_T
#define F_BLOCK        ISAL_SHA256_BLOCK_SIZE
#define F_LANES        ISAL_SHA256_MAX_LANES
#define F_ALG          MBH_SHA256
#define F_DIGEST_LEN   32
#define F_NAME         "sha256"
#define F_DIGEST_BYTES words32_to_bytes
#define F(name)        name##_256
#elif ISAL_FAMILY == 512
#define F_CTX          ISAL_SHA512_HASH_CTX
#define F_MGR          ISAL_SHA512_HASH_CTX_MGR
#define F_INIT         isal_sha512_ctx_mgr_init
#define F_SUBMIT       isal_sha512_ctx_mgr_submit
#define F_FLUSH        isal_sha512_ctx_mgr_flush
#define F_OLD_INIT     sha512_ctx_mgr_init
#define F_OLD_SUBMIT   sha512_ctx_mgr_submit
#define F_OLD_FLUSH    sha512_ctx_mgr_flush
#define F_WORD         ISAL_SHA512_WORD_T
#define F_BLOCK        ISAL_SHA512_BLOCK_SIZE
#define F_LANES        ISAL_SHA512_MAX_LANES
#define F_ALG          MBH_SHA512
#define F_DIGEST_LEN   64
#define F_NAME         "sha512"
#define F_DIGEST_BYTES words64_to_bytes
#define F(name)        name##_512
#else
#error "define ISAL_FAMILY as 256 or 512"
#endif
