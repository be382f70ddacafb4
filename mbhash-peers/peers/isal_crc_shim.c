/*
 * Bench-only glue to ISA-L's CRCs (`crc32_iscsi` and the functions of
 * crc.h and crc64.h), compiled by mbhash-peers' build.rs when the library
 * is found.
 *
 * ISA-L's AVX-512 kernels return with the upper halves of the vector
 * registers dirty (no `vzeroupper`). The next legacy-SSE instruction of the
 * caller then pays a state transition on Intel cores, a fixed cost per call
 * that would be charged to ISA-L (and to whatever runs next) in a benchmark.
 * A C caller built for AVX clears the state on the way out, as done here.
 */
#include <stddef.h>
#include <stdint.h>
#if defined(__x86_64__)
#include <cpuid.h>
#endif

unsigned int crc32_iscsi(unsigned char *buffer, int len, unsigned int init_crc);

static int has_avx(void)
{
#if defined(__x86_64__)
        static int cached = -1;
        if (cached < 0) {
                __builtin_cpu_init();
                cached = __builtin_cpu_supports("avx") ? 1 : 0;
        }
        return cached;
#else
        return 0;
#endif
}

/* The standard CRC32C of `len` bytes at `buf`. */
uint32_t mbb_isal_crc32c(const uint8_t *buf, size_t len)
{
        uint32_t crc = ~0u;
        while (len > 0) {
                int n = len > (1u << 30) ? (1 << 30) : (int) len;
                crc = crc32_iscsi((unsigned char *) buf, n, crc);
                buf += n;
                len -= (size_t) n;
        }
#if defined(__x86_64__)
        if (has_avx())
                __asm__ volatile("vzeroupper" ::: "memory");
#endif
        return ~crc;
}

/*
 * Every CRC of ISA-L's crc.h and crc64.h, from seed 0 (crc32_iscsi: the
 * standard CRC32C), numbered as mbhash-peers' `IsalCrcFn`. The Rocksoft
 * functions came with ISA-L 2.31: build.rs defines MBB_HAVE_ROCKSOFT when
 * the library has them.
 */
uint16_t crc16_t10dif(uint16_t init_crc, const unsigned char *buf, uint64_t len);
uint32_t crc32_ieee(uint32_t init_crc, const unsigned char *buf, uint64_t len);
uint32_t crc32_gzip_refl(uint32_t init_crc, const unsigned char *buf, uint64_t len);
uint64_t crc64_ecma_refl(uint64_t init_crc, const unsigned char *buf, uint64_t len);
uint64_t crc64_ecma_norm(uint64_t init_crc, const unsigned char *buf, uint64_t len);
uint64_t crc64_iso_refl(uint64_t init_crc, const unsigned char *buf, uint64_t len);
uint64_t crc64_iso_norm(uint64_t init_crc, const unsigned char *buf, uint64_t len);
uint64_t crc64_jones_refl(uint64_t init_crc, const unsigned char *buf, uint64_t len);
uint64_t crc64_jones_norm(uint64_t init_crc, const unsigned char *buf, uint64_t len);
#ifdef MBB_HAVE_ROCKSOFT
uint64_t crc64_rocksoft_refl(uint64_t init_crc, const unsigned char *buf, uint64_t len);
uint64_t crc64_rocksoft_norm(uint64_t init_crc, const unsigned char *buf, uint64_t len);
#endif

/* 1 when function `f` is linked. */
int mbb_isal_crc_has(int f)
{
        switch (f) {
        case 0: case 1: case 2: case 3: case 4: case 5: case 6: case 7: case 8: case 9:
                return 1;
        case 10: case 11:
#ifdef MBB_HAVE_ROCKSOFT
                return 1;
#else
                return 0;
#endif
        default:
                return 0;
        }
}

/* Function `f` over `len` bytes at `buf` from seed 0; ~0 for a function
 * not linked (the caller asks mbb_isal_crc_has first). */
uint64_t mbb_isal_crc(int f, const uint8_t *buf, size_t len)
{
        uint64_t r;
        switch (f) {
        case 0: r = crc16_t10dif(0, buf, len); break;
        case 1: r = crc32_ieee(0, buf, len); break;
        case 2: r = crc32_gzip_refl(0, buf, len); break;
        case 3: r = mbb_isal_crc32c(buf, len); return r;
        case 4: r = crc64_ecma_refl(0, buf, len); break;
        case 5: r = crc64_ecma_norm(0, buf, len); break;
        case 6: r = crc64_iso_refl(0, buf, len); break;
        case 7: r = crc64_iso_norm(0, buf, len); break;
        case 8: r = crc64_jones_refl(0, buf, len); break;
        case 9: r = crc64_jones_norm(0, buf, len); break;
#ifdef MBB_HAVE_ROCKSOFT
        case 10: r = crc64_rocksoft_refl(0, buf, len); break;
        case 11: r = crc64_rocksoft_norm(0, buf, len); break;
#endif
        default: return ~(uint64_t) 0;
        }
#if defined(__x86_64__)
        if (has_avx())
                __asm__ volatile("vzeroupper" ::: "memory");
#endif
        return r;
}
