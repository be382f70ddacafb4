// The isa-l_crypto compatible headers compile as C++ (-std=c++11, all
// warnings as errors) and the library runs from C++: "abc" through both
// families.
#include <isa-l_crypto/isal_crypto_api.h>
#include <isa-l_crypto/multi_buffer.h>
#include <isa-l_crypto/sha256_mb.h>
#include <isa-l_crypto/sha512_mb.h>
#include <isa-l_crypto/types.h>

#include <cstdio>

static_assert(sizeof(ISAL_SHA256_HASH_CTX) == 320 && alignof(ISAL_SHA256_HASH_CTX) == 64, "");
static_assert(sizeof(ISAL_SHA512_HASH_CTX) == 512 && alignof(ISAL_SHA512_HASH_CTX) == 64, "");
static_assert(sizeof(ISAL_SHA256_HASH_CTX_MGR) == 848 && alignof(ISAL_SHA256_HASH_CTX_MGR) == 16,
              "");
static_assert(sizeof(ISAL_SHA512_HASH_CTX_MGR) == 720 && alignof(ISAL_SHA512_HASH_CTX_MGR) == 8,
              "");

int main() {
    int failed = 0;
    {
        ISAL_SHA256_HASH_CTX_MGR mgr;
        ISAL_SHA256_HASH_CTX ctx, *out = nullptr;
        failed += isal_sha256_ctx_mgr_init(&mgr) != ISAL_CRYPTO_ERR_NONE;
        isal_hash_ctx_init(&ctx);
        failed += isal_sha256_ctx_mgr_submit(&mgr, &ctx, &out, "abc", 3, ISAL_HASH_ENTIRE) != 0;
        while (out == nullptr && isal_sha256_ctx_mgr_flush(&mgr, &out) == 0 && out == nullptr) {
        }
        failed += out != &ctx || !isal_hash_ctx_complete(&ctx);
        failed += isal_hash_ctx_digest(&ctx)[0] != 0xba7816bfu;
    }
    {
        ISAL_SHA512_HASH_CTX_MGR mgr;
        ISAL_SHA512_HASH_CTX ctx, *out = nullptr;
        failed += isal_sha512_ctx_mgr_init(&mgr) != ISAL_CRYPTO_ERR_NONE;
        hash_ctx_init(&ctx);
        failed += isal_sha512_ctx_mgr_submit(&mgr, &ctx, &out, "abc", 3, HASH_ENTIRE) != 0;
        while (out == nullptr && isal_sha512_ctx_mgr_flush(&mgr, &out) == 0 && out == nullptr) {
        }
        failed += out != &ctx || !hash_ctx_complete(&ctx);
        failed += hash_ctx_digest(&ctx)[0] != 0xddaf35a193617abaull;
    }
    std::printf("isal_cxx: %d passed, %d failed\n", failed ? 0 : 1, failed ? 1 : 0);
    return failed ? 1 : 0;
}
