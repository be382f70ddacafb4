/*
 * crc.h: ISA-L's 16- and 32-bit CRC functions, for programs built against
 * mbhash's ISA-L compatible ABI (libmbhash). Written for mbhash; names,
 * signatures and seed conventions follow ISA-L 2.32 (include/crc.h), so that
 * a program written for ISA-L's CRCs compiles unchanged and links against
 * libmbhash instead of libisal. The CRC-64 functions are in crc64.h.
 *
 * Seed conventions, as ISA-L's (each function continues from its seed, so a
 * buffer may be given in pieces, the result of one call seeding the next):
 *
 *   crc16_t10dif(seed, buf, len)     CRC-16/T10-DIF (poly 0x8BB7, not
 *                                    reflected); the register itself: no
 *                                    inversion in or out. Seed 0 for a new CRC.
 *   crc16_t10dif_copy(seed, dst, src, len)
 *                                    the same CRC of src, while copying len
 *                                    bytes from src to dst (T10 PI insert).
 *                                    The buffers must not overlap.
 *   crc32_ieee(seed, buf, len)       CRC-32 with poly 0x04C11DB7, not
 *                                    reflected, inverted in and out: seed 0
 *                                    gives CRC-32/BZIP2 (0xFC891918 for
 *                                    "123456789").
 *   crc32_gzip_refl(seed, buf, len)  CRC-32 of zlib and gzip (reflected,
 *                                    inverted in and out): seed 0 gives
 *                                    CRC-32/ISO-HDLC (0xCBF43926), and
 *                                    crc32_gzip_refl(crc, ...) is zlib's
 *                                    crc32(crc, ...).
 *   crc32_iscsi(buf, len, seed)      CRC-32C (Castagnoli), reflected; the
 *                                    register itself: seed 0xFFFFFFFF and
 *                                    invert the result for CRC-32/ISCSI
 *                                    (0xE3069283). Note the argument order,
 *                                    ISA-L's, and the int length: a negative
 *                                    length is taken as 0.
 *
 * The *_base functions compute the same values with mbhash's table kernel
 * (ISA-L's portable C code is its *_base); the others with the kernel
 * mbhash picks for the CPU and size (MBHASH_CRC_ENGINE / MBHASH_CRC32C_ENGINE
 * name one; by default `auto`). A NULL buffer with a length of 0 is
 * accepted; these functions return no errors (ISA-L's have none): an engine
 * named by the environment that cannot run falls back to `auto`, as mbhash's
 * infallible Rust functions do (mbh_crc reports it as an error). A Rust
 * panic inside (a bug in mbhash) aborts the process: with no error code,
 * any value returned would be a wrong CRC taken for a good one.
 */
#ifndef _CRC_H_
#define _CRC_H_

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Multi-binary functions */

uint16_t crc16_t10dif(uint16_t init_crc, const unsigned char *buf, uint64_t len);

uint16_t crc16_t10dif_copy(uint16_t init_crc, uint8_t *dst, uint8_t *src, uint64_t len);

uint32_t crc32_ieee(uint32_t init_crc, const unsigned char *buf, uint64_t len);

uint32_t crc32_gzip_refl(uint32_t init_crc, const unsigned char *buf, uint64_t len);

unsigned int crc32_iscsi(unsigned char *buffer, int len, unsigned int init_crc);

/* Base functions: the same values from mbhash's table kernel. */

unsigned int crc32_iscsi_base(unsigned char *buffer, int len, unsigned int crc_init);

uint16_t crc16_t10dif_base(uint16_t seed, uint8_t *buf, uint64_t len);

uint16_t crc16_t10dif_copy_base(uint16_t init_crc, uint8_t *dst, uint8_t *src, uint64_t len);

uint32_t crc32_ieee_base(uint32_t seed, uint8_t *buf, uint64_t len);

uint32_t crc32_gzip_refl_base(uint32_t seed, uint8_t *buf, uint64_t len);

#ifdef __cplusplus
}
#endif

#endif /* _CRC_H_ */
