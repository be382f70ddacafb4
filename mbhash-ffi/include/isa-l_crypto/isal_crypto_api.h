/*
 * isal_crypto_api.h: the error codes of isa-l_crypto's 2.25+ API, for
 * programs built against mbhash's isa-l_crypto compatible ABI (libmbhash).
 * Written for mbhash; names and values follow isa-l_crypto 2.26.
 *
 * Only the multi-buffer SHA-256 / SHA-512 functions are provided by
 * libmbhash; the other codes are listed so that the values match.
 */
#ifndef _ISAL_CRYPTO_API_H
#define _ISAL_CRYPTO_API_H

#ifdef __cplusplus
extern "C" {
#endif

#define CONCAT_VERSION_(a, b, c) a##.##b##.##c
#define CONCAT_VERSION(a, b, c)  CONCAT_VERSION_(a, b, c)
#define TO_STRING_(a)            #a
#define TO_STRING(a)             TO_STRING_(a)

/* The isa-l_crypto API level these headers describe. */
#define ISAL_CRYPTO_MAJOR_VERSION 2
#define ISAL_CRYPTO_MINOR_VERSION 26
#define ISAL_CRYPTO_PATCH_VERSION 0
#define ISAL_CRYPTO_MAKE_VERSION(maj, min, patch) ((maj) * 0x10000 + (min) * 0x100 + (patch))
#define ISAL_CRYPTO_VERSION                                                                        \
        ISAL_CRYPTO_MAKE_VERSION(ISAL_CRYPTO_MAJOR_VERSION, ISAL_CRYPTO_MINOR_VERSION,             \
                                 ISAL_CRYPTO_PATCH_VERSION)
#define ISAL_CRYPTO_VERSION_STR                                                                    \
        TO_STRING(CONCAT_VERSION(ISAL_CRYPTO_MAJOR_VERSION, ISAL_CRYPTO_MINOR_VERSION,             \
                                 ISAL_CRYPTO_PATCH_VERSION))

/* What an isal_* function returns: 0, or one of these. */
typedef enum {
        ISAL_CRYPTO_ERR_NONE = 0,           /* success */
        ISAL_CRYPTO_ERR_NULL_SRC = 2000,    /* NULL source buffer */
        ISAL_CRYPTO_ERR_NULL_DST,           /* 2001: NULL destination */
        ISAL_CRYPTO_ERR_NULL_CTX,           /* 2002: NULL (or misaligned) context or ctx_out */
        ISAL_CRYPTO_ERR_NULL_MGR,           /* 2003: NULL, misaligned or uninitialised manager */
        ISAL_CRYPTO_ERR_NULL_KEY,           /* 2004 */
        ISAL_CRYPTO_ERR_NULL_EXP_KEY,       /* 2005 */
        ISAL_CRYPTO_ERR_NULL_IV,            /* 2006 */
        ISAL_CRYPTO_ERR_NULL_AUTH,          /* 2007 */
        ISAL_CRYPTO_ERR_NULL_AAD,           /* 2008 */
        ISAL_CRYPTO_ERR_CIPH_LEN,           /* 2009 */
        ISAL_CRYPTO_ERR_AUTH_TAG_LEN,       /* 2010 */
        ISAL_CRYPTO_ERR_INVALID_FLAGS,      /* 2011: flags other than UPDATE/FIRST/LAST/ENTIRE */
        ISAL_CRYPTO_ERR_ALREADY_PROCESSING, /* 2012: the context is in flight */
        ISAL_CRYPTO_ERR_ALREADY_COMPLETED,  /* 2013: UPDATE or LAST on a finished stream */
        ISAL_CRYPTO_ERR_XTS_NULL_TWEAK,     /* 2014 */
        ISAL_CRYPTO_ERR_XTS_SAME_KEYS,      /* 2015 */
        ISAL_CRYPTO_ERR_SELF_TEST,          /* 2016 */
        ISAL_CRYPTO_ERR_FIPS_INVALID_ALGO,  /* 2017 */
        ISAL_CRYPTO_ERR_WINDOW_SIZE,        /* 2018 */
        ISAL_CRYPTO_ERR_NULL_OFFSET,        /* 2019 */
        ISAL_CRYPTO_ERR_NULL_MATCH,         /* 2020 */
        ISAL_CRYPTO_ERR_NULL_MASK,          /* 2021 */
        ISAL_CRYPTO_ERR_NULL_INIT_VAL,      /* 2022 */
        ISAL_CRYPTO_ERR_FIPS_DISABLED,      /* 2023 */
        ISAL_CRYPTO_ERR_MAX                 /* not an error: one past the last */
} ISAL_CRYPTO_ERROR;

/*
 * mbhash extensions (not in isa-l_crypto).
 *
 * MBH_ISAL_ERR_ENGINE: isal_sha*_ctx_mgr_init found that the engine named by
 * MBHASH_SHA256_ENGINE / MBHASH_SHA512_ENGINE is unknown or does not run on
 * this CPU; the manager stays uninitialised. (The deprecated
 * sha*_ctx_mgr_init, which cannot report it, prints the reason and aborts.)
 *
 * MBH_ISAL_ERR_PANIC: a Rust panic was caught (a bug in mbhash); the manager
 * it happened in refuses work with this code until initialised again.
 */
#define MBH_ISAL_ERR_ENGINE 2900
#define MBH_ISAL_ERR_PANIC  2901

#ifdef __cplusplus
}
#endif

#endif /* _ISAL_CRYPTO_API_H */
