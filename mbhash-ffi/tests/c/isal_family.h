/*
 * Names of one hash family for the test bodies (isal_*_body.h), which are
 * written once and included once per family: define ISAL_FAMILY as 256,
 * 512, 5 (MD5), 1 (SHA-1) or 3 (SM3), then include this file and the body. No include guard: it is included
 * again for the other family.
 *
 *   F_CTX, F_MGR          the context and manager types
 *   F_INIT/SUBMIT/FLUSH   the isal_* functions
 *   F_OLD_INIT/...        the deprecated functions
 *   F_WORD                a digest word
 *   F_BLOCK, F_LANES      block size, isa-l_crypto's lane count
 *   F_ALG, F_DIGEST_LEN   the native algorithm for references, digest bytes
 *   F_NAME                "sha256", "sha512", "md5", "sha1" or "sm3"
 *   F_DIGEST_BYTES        the digest words of a context as the digest's bytes
 *   F_KNOWN               the family's field of isal_vectors.c's known answers
 *   F(name)               name_256, name_512, name_md5, name_sha1 or
 *                         name_sm3: per-family function names
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
#undef F_KNOWN
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
#define F_KNOWN        sha256
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
#define F_KNOWN        sha512
#define F(name)        name##_512
#elif ISAL_FAMILY == 5
#define F_CTX          ISAL_MD5_HASH_CTX
#define F_MGR          ISAL_MD5_HASH_CTX_MGR
#define F_INIT         isal_md5_ctx_mgr_init
#define F_SUBMIT       isal_md5_ctx_mgr_submit
#define F_FLUSH        isal_md5_ctx_mgr_flush
#define F_OLD_INIT     md5_ctx_mgr_init
#define F_OLD_SUBMIT   md5_ctx_mgr_submit
#define F_OLD_FLUSH    md5_ctx_mgr_flush
#define F_WORD         ISAL_MD5_WORD_T
#define F_BLOCK        ISAL_MD5_BLOCK_SIZE
#define F_LANES        ISAL_MD5_MAX_LANES
#define F_ALG          MBH_MD5
#define F_DIGEST_LEN   16
#define F_NAME         "md5"
#define F_DIGEST_BYTES md5_words_to_bytes
#define F_KNOWN        md5
#define F(name)        name##_md5
#elif ISAL_FAMILY == 1
#define F_CTX          ISAL_SHA1_HASH_CTX
#define F_MGR          ISAL_SHA1_HASH_CTX_MGR
#define F_INIT         isal_sha1_ctx_mgr_init
#define F_SUBMIT       isal_sha1_ctx_mgr_submit
#define F_FLUSH        isal_sha1_ctx_mgr_flush
#define F_OLD_INIT     sha1_ctx_mgr_init
#define F_OLD_SUBMIT   sha1_ctx_mgr_submit
#define F_OLD_FLUSH    sha1_ctx_mgr_flush
#define F_WORD         ISAL_SHA1_WORD_T
#define F_BLOCK        ISAL_SHA1_BLOCK_SIZE
#define F_LANES        ISAL_SHA1_MAX_LANES
#define F_ALG          MBH_SHA1
#define F_DIGEST_LEN   20
#define F_NAME         "sha1"
#define F_DIGEST_BYTES sha1_words_to_bytes
#define F_KNOWN        sha1
#define F(name)        name##_sha1
#elif ISAL_FAMILY == 3
#define F_CTX          ISAL_SM3_HASH_CTX
#define F_MGR          ISAL_SM3_HASH_CTX_MGR
#define F_INIT         isal_sm3_ctx_mgr_init
#define F_SUBMIT       isal_sm3_ctx_mgr_submit
#define F_FLUSH        isal_sm3_ctx_mgr_flush
#define F_OLD_INIT     sm3_ctx_mgr_init
#define F_OLD_SUBMIT   sm3_ctx_mgr_submit
#define F_OLD_FLUSH    sm3_ctx_mgr_flush
#define F_WORD         uint32_t
#define F_BLOCK        ISAL_SM3_BLOCK_SIZE
#define F_LANES        ISAL_SM3_MAX_LANES
#define F_ALG          MBH_SM3
#define F_DIGEST_LEN   32
#define F_NAME         "sm3"
#define F_DIGEST_BYTES sm3_words_to_bytes
#define F_KNOWN        sm3
#define F(name)        name##_sm3
#else
#error "define ISAL_FAMILY as 256, 512, 5, 1 or 3"
#endif
