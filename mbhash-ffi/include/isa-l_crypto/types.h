/*
 * types.h: the alignment and deprecation macros of isa-l_crypto's public
 * headers, for programs built against mbhash's isa-l_crypto compatible ABI
 * (libmbhash). Written for mbhash; names and meanings follow isa-l_crypto
 * 2.25/2.26.
 */
#ifndef __TYPES_H
#define __TYPES_H

#ifdef __cplusplus
extern "C" {
#endif

/* DECLARE_ALIGNED(decl, n): `decl`, aligned to n bytes.
 * aligned_free(p): frees memory from posix_memalign. */
#if defined(_MSC_VER)
#define DECLARE_ALIGNED(decl, alignval) __declspec(align(alignval)) decl
#define posix_memalign(p, algn, len)                                                               \
        (NULL == (*((char **) (p)) = (void *) _aligned_malloc(len, algn)))
#define aligned_free(x) _aligned_free(x)
#else
#define DECLARE_ALIGNED(decl, alignval) decl __attribute__((aligned(alignval)))
#define aligned_free(x)                 free(x)
#ifndef __forceinline
#define __forceinline static inline
#endif
#endif

#ifdef DEBUG
#define DEBUG_PRINT(x) printf x
#else
#define DEBUG_PRINT(x)                                                                             \
        do {                                                                                       \
        } while (0)
#endif

/* ISAL_DEPRECATED(message): marks a declaration deprecated; empty when
 * ISAL_UNIT_TEST is defined. */
#if !defined(ISAL_UNIT_TEST) && (defined(__GNUC__) || defined(__clang__))
#define ISAL_DEPRECATED(message) __attribute__((deprecated(message)))
#elif !defined(ISAL_UNIT_TEST) && defined(_MSC_VER)
#define ISAL_DEPRECATED(message) __declspec(deprecated(message))
#else
#define ISAL_DEPRECATED(message)
#endif

#define ISAL_EXPERIMENTAL(message) ISAL_DEPRECATED("Experimental: " message)

#ifdef __cplusplus
}
#endif

#endif /* __TYPES_H */
