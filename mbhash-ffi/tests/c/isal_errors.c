/*
 * Errors and edge cases of the isa-l_crypto compatible ABI, for SHA-256,
 * SHA-512, MD5, SHA-1 and SM3: every ISAL_CRYPTO_ERR_* code of the isal_* functions in
 * isa-l_crypto's order of checks, the context errors of the deprecated
 * functions, short chunks buffered (the context comes back at once, IDLE),
 * total_length advancing at submit, flush of an empty manager, a context in
 * flight submitted again, the fields of a finished job, and pointers that
 * are NULL, misaligned or not initialised.
 *
 * usage: isal_errors            (the checks)
 *        isal_errors bad-env    (MBHASH_<FAMILY>_ENGINE of every family names
 *                                an engine that cannot run: init fails)
 *        isal_errors old-init   (the deprecated init with such an engine:
 *                                expected to abort)
 */
#include <isa-l_crypto/isal_crypto_api.h>
#include <isa-l_crypto/sha256_mb.h>
#include <isa-l_crypto/sha512_mb.h>
#include <isa-l_crypto/md5_mb.h>
#include <isa-l_crypto/sha1_mb.h>
#include <isa-l_crypto/sm3_mb.h>

#include "isal_common.h"

#include <stdalign.h>

#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

#define ISAL_FAMILY 256
#include "isal_family.h"
#include "isal_errors_body.h"
#undef ISAL_FAMILY

#define ISAL_FAMILY 512
#include "isal_family.h"
#include "isal_errors_body.h"
#undef ISAL_FAMILY

#define ISAL_FAMILY 5
#include "isal_family.h"
#include "isal_errors_body.h"
#undef ISAL_FAMILY

#define ISAL_FAMILY 1
#include "isal_family.h"
#include "isal_errors_body.h"
#undef ISAL_FAMILY

#define ISAL_FAMILY 3
#include "isal_family.h"
#include "isal_errors_body.h"
#undef ISAL_FAMILY

int main(int argc, char **argv) {
    if (argc > 1 && strcmp(argv[1], "bad-env") == 0) {
        bad_env_256();
        bad_env_512();
        bad_env_md5();
        bad_env_sha1();
        bad_env_sm3();
    } else if (argc > 1 && strcmp(argv[1], "old-init") == 0) {
        ISAL_SHA256_HASH_CTX_MGR mgr;
        sha256_ctx_mgr_init(&mgr);
        fprintf(stderr, "sha256_ctx_mgr_init returned\n");
        return 0;
    } else {
        errors_256();
        errors_512();
        errors_md5();
        errors_sha1();
        errors_sm3();
    }
    return finish("isal_errors");
}
