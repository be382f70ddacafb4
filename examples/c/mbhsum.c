/*
 * mbhsum: a sha256sum-style tool on the mbhash C API.
 *
 *   mbhsum [-a ALGORITHM] [-e ENGINE] FILE...
 *
 * ALGORITHM: sha256 (default), sha224, sha512, sha384, sha512-256,
 * sha512-224. ENGINE: an engine name (default: the configured one).
 *
 * Many files are hashed at once, each as a multi-part stream read in 64 KiB
 * chunks: a file's buffer is refilled only when its context has come back
 * from mbh_submit or mbh_flush (until then the manager may read it).
 * Digests are printed in the order of the arguments.
 *
 * Build (installed library):
 *   cc -std=c11 mbhsum.c $(pkg-config --cflags --libs mbhash) -o mbhsum
 */
#include <mbhash.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHUNK (64 * 1024)
#define MAX_OPEN 32 /* files being read at once */

struct job {
    mbh_ctx ctx; /* the context lives in the job: no allocation per chunk */
    const char *path;
    FILE *file;
    uint8_t buf[CHUNK];
    int error;
    uint8_t digest[MBH_MAX_DIGEST_LEN];
    size_t digest_len;
};

static const struct {
    const char *name;
    mbh_algorithm alg;
} ALGORITHMS[] = {
    {"sha256", MBH_SHA256},         {"sha224", MBH_SHA224},
    {"sha512", MBH_SHA512},         {"sha384", MBH_SHA384},
    {"sha512-256", MBH_SHA512_256}, {"sha512-224", MBH_SHA512_224},
};

static int fail(const char *what, mbh_result r) {
    fprintf(stderr, "mbhsum: %s: %s\n", what, mbh_result_str(r));
    return 2;
}

/*
 * Reads the next chunk of `job` and submits it. Returns the context the
 * manager hands back (maybe another job's), through `done`.
 */
static mbh_result feed(mbh_manager *mgr, struct job *job, int first, mbh_ctx **done) {
    size_t n = fread(job->buf, 1, CHUNK, job->file);
    int last = n < CHUNK; /* a short read: end of file (or an error) */
    if (last && ferror(job->file)) job->error = errno ? errno : EIO;
    mbh_flags flags = first ? (last ? MBH_ENTIRE : MBH_FIRST) : (last ? MBH_LAST : MBH_UPDATE);
    if (last) {
        fclose(job->file);
        job->file = NULL;
    }
    return mbh_submit(mgr, &job->ctx, job->buf, n, flags, done);
}

/* A context came back: keep its stream going, or keep its digest. */
static mbh_result came_back(mbh_manager *mgr, mbh_ctx *ctx, mbh_ctx **done, int *finished) {
    void *user = NULL;
    mbh_result r = mbh_ctx_get_user_data(ctx, &user);
    if (r != MBH_OK) return r;
    struct job *job = user;
    if (job->file) return feed(mgr, job, 0, done); /* buf is ours again */
    *finished += 1;
    *done = NULL;
    return mbh_ctx_digest(ctx, job->digest, sizeof job->digest, &job->digest_len);
}

int main(int argc, char **argv) {
    mbh_algorithm alg = MBH_SHA256;
    const char *engine = NULL;
    int i = 1;
    for (; i + 1 < argc && argv[i][0] == '-'; i += 2) {
        if (strcmp(argv[i], "-e") == 0) {
            engine = argv[i + 1];
        } else if (strcmp(argv[i], "-a") == 0) {
            size_t k = 0, n = sizeof ALGORITHMS / sizeof ALGORITHMS[0];
            while (k < n && strcmp(ALGORITHMS[k].name, argv[i + 1]) != 0) k++;
            if (k == n) {
                fprintf(stderr, "mbhsum: unknown algorithm %s\n", argv[i + 1]);
                return 2;
            }
            alg = ALGORITHMS[k].alg;
        } else {
            break;
        }
    }
    int nfiles = argc - i;
    if (nfiles <= 0) {
        fprintf(stderr, "usage: mbhsum [-a ALGORITHM] [-e ENGINE] FILE...\n");
        return 2;
    }
    struct job *jobs = calloc((size_t)nfiles, sizeof *jobs);
    if (!jobs) return 2;

    mbh_manager *mgr = NULL;
    mbh_result r = engine ? mbh_manager_new_with_engine(alg, engine, &mgr)
                          : mbh_manager_new(alg, &mgr);
    if (r != MBH_OK) return fail(engine ? engine : "mbh_manager_new", r);

    int next = 0, open = 0, finished = 0, status = 0;
    while (finished < nfiles) {
        mbh_ctx *done = NULL;
        if (next < nfiles && open < MAX_OPEN) {
            /* Start the next file. */
            struct job *job = &jobs[next++];
            job->path = argv[i + next - 1];
            job->file = fopen(job->path, "rb");
            if (!job->file) {
                job->error = errno;
                finished++;
                continue;
            }
            open++;
            if ((r = mbh_ctx_init(&job->ctx, alg, job)) != MBH_OK) return fail("init", r);
            r = feed(mgr, job, 1, &done);
        } else {
            /* Every slot is busy: let the manager finish something. */
            r = mbh_flush(mgr, &done);
        }
        /* Each context that comes back is fed its next chunk, which may hand
           back another context, and so on. */
        while (r == MBH_OK && done) {
            int before = finished;
            r = came_back(mgr, done, &done, &finished);
            open -= finished - before;
        }
        if (r != MBH_OK) return fail("submit", r);
    }
    mbh_manager_free(mgr);

    for (int k = 0; k < nfiles; k++) {
        if (jobs[k].error) {
            fprintf(stderr, "mbhsum: %s: %s\n", jobs[k].path, strerror(jobs[k].error));
            status = 1;
            continue;
        }
        for (size_t b = 0; b < jobs[k].digest_len; b++) printf("%02x", jobs[k].digest[b]);
        printf("  %s\n", jobs[k].path);
    }
    free(jobs);
    return status;
}
