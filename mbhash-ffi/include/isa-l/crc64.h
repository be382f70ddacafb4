/*
 * crc64.h: ISA-L's CRC-64 functions, for programs built against mbhash's
 * ISA-L compatible ABI (libmbhash). Written for mbhash; names, signatures
 * and seed conventions follow ISA-L 2.32 (include/crc64.h), so that a
 * program written for ISA-L's CRCs compiles unchanged and links against
 * libmbhash instead of libisal.
 *
 * crc64_<poly>_<refl|norm>(seed, buf, len): the CRC-64 of the polynomial,
 * reflected (refl) or not (norm), with the register inverted in and out, so
 * that the result of one call seeds the next and seed 0 starts a new CRC:
 *
 *   ecma      0x42F0E1EBA9EA3693   refl, seed 0: CRC-64/XZ (0x995DC9BBDF1939FA)
 *                                  norm, seed 0: CRC-64/WE (0x62EC59E3F1A4F00A)
 *   iso       0x000000000000001B   refl, seed 0: CRC-64/GO-ISO (0xB90956C775A41001)
 *   jones     0xAD93D23594C935A9   refl: CRC-64/REDIS is ~crc64_jones_refl(~0, ...)
 *                                  (REDIS neither inverts in nor out)
 *   rocksoft  0xAD93D23594C93659   refl, seed 0: CRC-64/NVME (0xAE8B14860A799888)
 *
 * The *_base functions compute the same values with mbhash's table kernel;
 * the others with the kernel mbhash picks for the CPU and size
 * (MBHASH_CRC_ENGINE names one; by default `auto`). A NULL buffer with a
 * length of 0 is accepted; these functions return no errors (ISA-L's have
 * none). A Rust panic inside (a bug in mbhash) aborts the process.
 */
#ifndef _CRC64_H_
#define _CRC64_H_

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Multi-binary functions */

uint64_t crc64_ecma_refl(uint64_t init_crc, const unsigned char *buf, uint64_t len);
uint64_t crc64_ecma_norm(uint64_t init_crc, const unsigned char *buf, uint64_t len);
uint64_t crc64_iso_refl(uint64_t init_crc, const unsigned char *buf, uint64_t len);
uint64_t crc64_iso_norm(uint64_t init_crc, const unsigned char *buf, uint64_t len);
uint64_t crc64_jones_refl(uint64_t init_crc, const unsigned char *buf, uint64_t len);
uint64_t crc64_jones_norm(uint64_t init_crc, const unsigned char *buf, uint64_t len);
uint64_t crc64_rocksoft_refl(uint64_t init_crc, const unsigned char *buf, uint64_t len);
uint64_t crc64_rocksoft_norm(uint64_t init_crc, const unsigned char *buf, uint64_t len);

/* Base functions: the same values from mbhash's table kernel. */

uint64_t crc64_ecma_refl_base(uint64_t init_crc, const unsigned char *buf, uint64_t len);
uint64_t crc64_ecma_norm_base(uint64_t init_crc, const unsigned char *buf, uint64_t len);
uint64_t crc64_iso_refl_base(uint64_t init_crc, const unsigned char *buf, uint64_t len);
uint64_t crc64_iso_norm_base(uint64_t init_crc, const unsigned char *buf, uint64_t len);
uint64_t crc64_jones_refl_base(uint64_t init_crc, const unsigned char *buf, uint64_t len);
uint64_t crc64_jones_norm_base(uint64_t init_crc, const unsigned char *buf, uint64_t len);
uint64_t crc64_rocksoft_refl_base(uint64_t init_crc, const unsigned char *buf, uint64_t len);
uint64_t crc64_rocksoft_norm_base(uint64_t init_crc, const unsigned char *buf, uint64_t len);

#ifdef __cplusplus
}
#endif

#endif /* _CRC64_H_ */
