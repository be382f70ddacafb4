/*
 * Bench-only glue to ISA-L's CRC32C (`crc32_iscsi`), compiled by
 * mbhash-cli's build.rs when the library is found.
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
