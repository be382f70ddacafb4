/*
 * Random streams through the isa-l_crypto compatible ABI, for SHA-256,
 * SHA-512, MD5, SHA-1 and SM3: JOBS messages of random lengths, each cut into chunks of odd
 * random sizes (FIRST, UPDATE..., LAST; or one ENTIRE; sometimes an empty
 * first or last chunk without a buffer), submitted in random order with up
 * to a random number of streams open at once, through the isal_* and the
 * deprecated functions mixed on one manager, with random flushes between.
 * Every chunk is copied into its own allocation, freed as soon as its
 * context comes back (so ASan sees any read past a chunk or after it came
 * back). Every context that comes back is checked (status, error,
 * total_length) and every digest is compared with the native API on the
 * scalar engine.
 *
 * usage: isal_random [JOBS [SEED]]   (default 1000 jobs)
 *
 * Included the way a program written for isa-l_crypto before 2.26 did,
 * with -I.../isa-l_crypto.
 */
#include "isal_crypto_api.h"
#include "sha256_mb.h"
#include "sha512_mb.h"
#include "md5_mb.h"
#include "sha1_mb.h"
#include "sm3_mb.h"

#include "isal_common.h"

/* A random message length: mostly short, some around block multiples,
 * a few large. */
static size_t random_len(struct rng *r, size_t block) {
    switch (rng_below(r, 8)) {
    case 0:
    case 1:
    case 2: return rng_below(r, 3 * block);
    case 3: return block * (1 + rng_below(r, 4)) + rng_below(r, 3) - 1;
    case 4:
    case 5: return rng_below(r, 4096);
    case 6: return rng_below(r, 40000);
    default: return 60000 + rng_below(r, 140000);
    }
}

#define ISAL_FAMILY 256
#include "isal_family.h"
#include "isal_random_body.h"
#undef ISAL_FAMILY

#define ISAL_FAMILY 512
#include "isal_family.h"
#include "isal_random_body.h"
#undef ISAL_FAMILY

#define ISAL_FAMILY 5
#include "isal_family.h"
#include "isal_random_body.h"
#undef ISAL_FAMILY

#define ISAL_FAMILY 1
#include "isal_family.h"
#include "isal_random_body.h"
#undef ISAL_FAMILY

#define ISAL_FAMILY 3
#include "isal_family.h"
#include "isal_random_body.h"
#undef ISAL_FAMILY

int main(int argc, char **argv) {
    size_t jobs = argc > 1 ? (size_t)strtoull(argv[1], NULL, 0) : 1000;
    uint64_t seed = argc > 2 ? strtoull(argv[2], NULL, 0) : 0x15a1c0de;
    random_256(jobs, seed);
    random_512(jobs, seed ^ 0x5151);
    random_md5(jobs, seed ^ 0x3d5);
    random_sha1(jobs, seed ^ 0x5a1);
    random_sm3(jobs, seed ^ 0x533);
    return finish("isal_random");
}
