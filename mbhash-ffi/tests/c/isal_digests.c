/*
 * The same workload for isa-l_crypto and for the drop-in: built twice, once
 * against isa-l_crypto's own headers and library, once against mbhash's
 * drop-in headers and libmbhash (never both in one program), and the two
 * outputs compared byte for byte by tests/isal.rs.
 *
 * For each family (SHA-256, SHA-512, MD5, SHA-1, SM3): JOBS streams of
 * pseudo-random lengths (block edges, short, long), cut into chunks of odd
 * sizes (FIRST, UPDATE..., LAST, or one ENTIRE), up to a pseudo-random
 * number of streams in flight at once, flushes at random points; for each
 * stream the bytes of job.result_digest as the manager leaves them (host
 * words for SHA, little-endian words for MD5, byte-swapped words for SM3),
 * and the context's total_length and status.
 *
 * usage: isal_digests [JOBS]   (default 300)
 */
#define _POSIX_C_SOURCE 200809L
#include <isa-l_crypto/md5_mb.h>
#include <isa-l_crypto/sha1_mb.h>
#include <isa-l_crypto/sha256_mb.h>
#include <isa-l_crypto/sha512_mb.h>
#include <isa-l_crypto/sm3_mb.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t rng_state;

static uint64_t rng_next(void) {
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

static size_t below(size_t n) { return (size_t)(rng_next() % n); }

static size_t random_len(size_t block) {
    switch (below(6)) {
    case 0: return below(3 * block);
    case 1: return block * (1 + below(4)) + below(3) - 1;
    case 2:
    case 3: return below(5000);
    case 4: return below(40000);
    default: return 60000 + below(100000);
    }
}

static void *xmalloc(size_t n) {
    void *p = malloc(n ? n : 1);
    if (!p) {
        fprintf(stderr, "out of memory\n");
        exit(1);
    }
    return p;
}

static int failures;

#define REQUIRE(expr)                                                                  \
    do {                                                                               \
        int r_ = (expr);                                                               \
        if (r_ != 0) {                                                                 \
            fprintf(stderr, "%s:%d: %s gave %d\n", __FILE__, __LINE__, #expr, r_);     \
            exit(1);                                                                   \
        }                                                                              \
    } while (0)

/* One stream: its message, how far it is submitted, where its chunks end. */
struct job {
    uint8_t *msg;
    size_t len, sent;
    int open, done;
};

/* The workload of one family: `fam` as in the function names, `FAM` as in
 * the types, `block` its block size. */
#define FAMILY(fam, FAM, block)                                                        \
    static void run_##fam(size_t njobs, uint64_t seed) {                              \
        rng_state = seed;                                                              \
        ISAL_##FAM##_HASH_CTX_MGR *mgr = NULL;                                         \
        if (posix_memalign((void **)&mgr, 64, sizeof *mgr)) exit(1);                   \
        ISAL_##FAM##_HASH_CTX *ctxs = NULL;                                            \
        if (posix_memalign((void **)&ctxs, 64, njobs * sizeof *ctxs)) exit(1);         \
        struct job *jobs = xmalloc(njobs * sizeof *jobs);                              \
        REQUIRE(isal_##fam##_ctx_mgr_init(mgr));                                       \
        for (size_t i = 0; i < njobs; i++) {                                           \
            jobs[i].len = random_len(block);                                           \
            jobs[i].msg = xmalloc(jobs[i].len);                                        \
            for (size_t k = 0; k < jobs[i].len; k++) jobs[i].msg[k] = (uint8_t)rng_next(); \
            jobs[i].sent = 0;                                                          \
            jobs[i].open = jobs[i].done = 0;                                           \
            isal_hash_ctx_init(&ctxs[i]);                                              \
            ctxs[i].user_data = &jobs[i];                                              \
        }                                                                              \
        size_t max_open = 1 + below(40), next = 0, finished = 0;                       \
        /* Contexts that came back and wait for their next chunk. */                   \
        size_t *idle = xmalloc(njobs * sizeof *idle), nidle = 0;                       \
        while (finished < njobs) {                                                     \
            ISAL_##FAM##_HASH_CTX *out = NULL;                                         \
            size_t i;                                                                  \
            if (nidle > 0 && (next == njobs || nidle >= max_open || below(2))) {       \
                size_t k = below(nidle);                                               \
                i = idle[k];                                                           \
                idle[k] = idle[--nidle];                                               \
            } else if (next < njobs) {                                                 \
                i = next++;                                                            \
            } else {                                                                   \
                REQUIRE(isal_##fam##_ctx_mgr_flush(mgr, &out));                        \
                if (!out) {                                                            \
                    fprintf(stderr, "%s: flush gave nothing, %zu open\n", #fam,        \
                            njobs - finished);                                         \
                    exit(1);                                                           \
                }                                                                      \
                goto back;                                                             \
            }                                                                          \
            {                                                                          \
                struct job *j = &jobs[i];                                              \
                size_t left = j->len - j->sent;                                        \
                size_t chunk = below(4) == 0 ? left : below(3 * block + 1) * (1 + below(40)); \
                if (chunk > left) chunk = left;                                        \
                int flags = j->open ? ISAL_HASH_UPDATE : ISAL_HASH_FIRST;              \
                if (chunk == left) flags |= ISAL_HASH_LAST;                            \
                REQUIRE(isal_##fam##_ctx_mgr_submit(mgr, &ctxs[i], &out, j->msg + j->sent, \
                                                    (uint32_t)chunk,                   \
                                                    (ISAL_HASH_CTX_FLAG)flags));       \
                j->sent += chunk;                                                      \
                j->open = 1;                                                           \
            }                                                                          \
            if (below(8) == 0 && !out) REQUIRE(isal_##fam##_ctx_mgr_flush(mgr, &out)); \
        back:                                                                          \
            while (out) {                                                              \
                struct job *j = out->user_data;                                        \
                size_t k = (size_t)(j - jobs);                                         \
                if (isal_hash_ctx_complete(out)) {                                     \
                    j->done = 1;                                                       \
                    finished++;                                                        \
                } else {                                                               \
                    idle[nidle++] = k;                                                 \
                }                                                                      \
                out = NULL;                                                            \
                if (finished < njobs && nidle == 0 && next == njobs)                   \
                    REQUIRE(isal_##fam##_ctx_mgr_flush(mgr, &out));                    \
            }                                                                          \
        }                                                                              \
        for (size_t i = 0; i < njobs; i++) {                                           \
            const uint8_t *d = (const uint8_t *)ctxs[i].job.result_digest;             \
            printf("%s %zu %zu %llu %d ", #fam, i, jobs[i].len,                        \
                   (unsigned long long)ctxs[i].total_length, (int)ctxs[i].status);     \
            for (size_t b = 0; b < sizeof ctxs[i].job.result_digest; b++) printf("%02x", d[b]); \
            printf("\n");                                                              \
            free(jobs[i].msg);                                                         \
        }                                                                              \
        free(idle);                                                                    \
        free(jobs);                                                                    \
        free(ctxs);                                                                    \
        free(mgr);                                                                     \
    }

FAMILY(sha256, SHA256, ISAL_SHA256_BLOCK_SIZE)
FAMILY(sha512, SHA512, ISAL_SHA512_BLOCK_SIZE)
FAMILY(md5, MD5, ISAL_MD5_BLOCK_SIZE)
FAMILY(sha1, SHA1, ISAL_SHA1_BLOCK_SIZE)
FAMILY(sm3, SM3, ISAL_SM3_BLOCK_SIZE)

int main(int argc, char **argv) {
    size_t jobs = argc > 1 ? (size_t)strtoull(argv[1], NULL, 0) : 300;
    run_sha256(jobs, 1);
    run_sha512(jobs, 2);
    run_md5(jobs, 3);
    run_sha1(jobs, 4);
    run_sm3(jobs, 5);
    return failures;
}
