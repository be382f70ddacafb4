// The header compiles as C++ (g++ -std=c++11 -Wall -Wextra -Werror -pedantic)
// and the library links and runs from C++.
#include "mbhash.h"

#include <cstdio>
#include <cstring>
#include <string>

namespace {

int failed = 0;

void check(bool ok, const char *what) {
    if (!ok) {
        std::fprintf(stderr, "check failed: %s\n", what);
        failed++;
    }
}

std::string hex(const uint8_t *bytes, size_t len) {
    std::string s;
    char buf[3];
    for (size_t i = 0; i < len; i++) {
        std::snprintf(buf, sizeof buf, "%02x", bytes[i]);
        s += buf;
    }
    return s;
}

}  // namespace

int main() {
    static_assert(sizeof(mbh_ctx) == MBH_CTX_SIZE, "context size");
    static_assert(alignof(mbh_ctx) == MBH_CTX_ALIGN, "context alignment");
    static_assert(sizeof(mbh_manager) == MBH_MANAGER_SIZE, "manager size");
    static_assert(alignof(mbh_manager) == MBH_MANAGER_ALIGN, "manager alignment");

    mbh_manager *mgr = nullptr;
    mbh_result r = mbh_manager_new(MBH_SHA256, &mgr);
    switch (r) {  // a C++ enum: every case handled or warned about
    case MBH_OK:
        break;
    default:
        std::fprintf(stderr, "mbh_manager_new: %s\n", mbh_result_str(r));
        return 1;
    }
    mbh_ctx ctx;
    check(mbh_ctx_init(&ctx, MBH_SHA256, nullptr) == MBH_OK, "init");
    const uint8_t abc[] = {'a', 'b', 'c'};
    mbh_ctx *done = nullptr;
    check(mbh_submit(mgr, &ctx, abc, sizeof abc, MBH_ENTIRE, &done) == MBH_OK, "submit");
    while (done != &ctx && mbh_flush(mgr, &done) == MBH_OK && done) {
    }
    uint8_t digest[MBH_SHA256_DIGEST_LEN];
    size_t written = 0;
    check(mbh_ctx_digest(&ctx, digest, sizeof digest, &written) == MBH_OK, "digest");
    check(hex(digest, written) ==
              "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
          "sha256(abc)");
    mbh_manager_free(mgr);

    const uint8_t *msgs[] = {abc};
    size_t lens[] = {sizeof abc};
    uint8_t out[MBH_SHA384_DIGEST_LEN];
    check(mbh_hash_many(MBH_SHA384, msgs, lens, 1, out, sizeof out) == MBH_OK, "hash_many");
    check(hex(out, sizeof out) ==
              "cb00753f45a35e8bb5a03d699ac65007272c32ab0eded1631a8b605a43ff5bed"
              "8086072ba1e7cc2358baeca134c825a7",
          "sha384(abc)");
    std::printf("cxx: mbhash %s, %s\n", mbh_version(), failed ? "FAILED" : "ok");
    return failed ? 1 : 0;
}
