/*
 * NIST CAVS vectors (tests/vectors/SHA*Msg.rsp at the repository root) through the
 * C API, for every algorithm: mbh_hash_many on the configured engine and on
 * "scalar" (the reference the stream tests compare against), and the job
 * manager with MBH_ENTIRE and with three-part streams, on every engine this
 * CPU runs.
 *
 * usage: nist VECTOR_DIR [quick]   (quick: ShortMsg only, every 8th vector)
 */
#include "common.h"

struct vector {
    uint8_t *msg;
    size_t len;
    uint8_t md[MBH_MAX_DIGEST_LEN];
};

struct vector_set {
    struct vector *v;
    size_t n, cap;
};

/* Reads the whole file; NULL if missing. */
static char *read_file(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *text = xmalloc((size_t)size + 1);
    size_t got = fread(text, 1, (size_t)size, f);
    fclose(f);
    text[got] = '\0';
    return text;
}

/* Appends every "Len/Msg/MD" triple of an .rsp file (every `step`th one). */
static void parse_rsp(const char *path, size_t digest_len, size_t step, struct vector_set *set) {
    char *text = read_file(path);
    if (!text) {
        fprintf(stderr, "cannot read %s\n", path);
        exit(1);
    }
    size_t len_bits = 0, index = 0;
    int have_len = 0;
    uint8_t *msg = NULL;
    for (char *line = strtok(text, "\r\n"); line; line = strtok(NULL, "\r\n")) {
        if (strncmp(line, "Len = ", 6) == 0) {
            len_bits = (size_t)strtoull(line + 6, NULL, 10);
            have_len = 1;
        } else if (strncmp(line, "Msg = ", 6) == 0 && have_len) {
            size_t len = len_bits / 8;
            msg = xmalloc(len);
            if (hex_decode(line + 6, msg, len) != 0) {
                fprintf(stderr, "%s: bad Msg\n", path);
                exit(1);
            }
        } else if (strncmp(line, "MD = ", 5) == 0 && msg) {
            if (index++ % step == 0) {
                if (set->n == set->cap) {
                    set->cap = set->cap ? 2 * set->cap : 64;
                    struct vector *grown = realloc(set->v, set->cap * sizeof *set->v);
                    if (!grown) exit(1);
                    set->v = grown;
                }
                struct vector *v = &set->v[set->n++];
                v->msg = msg;
                v->len = len_bits / 8;
                if (strlen(line + 5) != 2 * digest_len || hex_decode(line + 5, v->md, digest_len)) {
                    fprintf(stderr, "%s: bad MD\n", path);
                    exit(1);
                }
            } else {
                free(msg);
            }
            msg = NULL;
            have_len = 0;
        }
    }
    free(msg);
    free(text);
}

/* mbh_hash_many (engine NULL: configured) against the vectors. */
static void check_hash_many(const struct alg_info *a, const char *engine,
                            const struct vector_set *set) {
    const uint8_t **msgs = xmalloc(set->n * sizeof *msgs);
    size_t *lens = xmalloc(set->n * sizeof *lens);
    uint8_t *out = xmalloc(set->n * a->digest_len);
    for (size_t i = 0; i < set->n; i++) {
        msgs[i] = set->v[i].msg;
        lens[i] = set->v[i].len;
    }
    size_t out_len = set->n * a->digest_len;
    if (engine) {
        OK(mbh_hash_many_with_engine(a->alg, engine, msgs, lens, set->n, out, out_len));
    } else {
        OK(mbh_hash_many(a->alg, msgs, lens, set->n, out, out_len));
    }
    char what[96];
    for (size_t i = 0; i < set->n; i++) {
        snprintf(what, sizeof what, "%s hash_many(%s) Len=%zu", a->name,
                 engine ? engine : "configured", set->v[i].len * 8);
        same_digest(what, out + i * a->digest_len, set->v[i].md, a->digest_len);
    }
    free(msgs);
    free(lens);
    free(out);
}

/* Checks a context that came back: a finished vector's digest. */
static void check_done(const struct alg_info *a, const char *engine, mbh_ctx *done,
                       const struct vector_set *set, size_t *completed) {
    void *user = NULL;
    OK(mbh_ctx_get_user_data(done, &user));
    const struct vector *v = user;
    mbh_status status;
    OK(mbh_ctx_status(done, &status));
    if (status != MBH_STATUS_COMPLETE) return; /* a part of a stream came back */
    uint8_t digest[MBH_MAX_DIGEST_LEN];
    size_t written = 0;
    OK(mbh_ctx_digest(done, digest, sizeof digest, &written));
    CHECK(written == a->digest_len);
    char what[96];
    snprintf(what, sizeof what, "%s manager(%s) Len=%zu", a->name, engine, v->len * 8);
    same_digest(what, digest, v->md, a->digest_len);
    CHECK(v >= set->v && v < set->v + set->n);
    (*completed)++;
}

/*
 * The job manager on `engine`: every vector as one MBH_ENTIRE job, or
 * (parts = 3) as FIRST / UPDATE / LAST, each part submitted after the
 * previous one came back.
 */
static void check_manager(const struct alg_info *a, const char *engine, int parts,
                          const struct vector_set *set) {
    mbh_manager *mgr = NULL;
    REQUIRE_OK(mbh_manager_new_with_engine(a->alg, engine, &mgr));
    mbh_ctx *ctxs = xmalloc(set->n * sizeof *ctxs);
    size_t *next_part = xmalloc(set->n * sizeof *next_part);
    size_t completed = 0;
    for (size_t i = 0; i < set->n; i++) {
        OK(mbh_ctx_init(&ctxs[i], a->alg, &set->v[i]));
        next_part[i] = 0;
    }
    /* Round-robin over the vectors: submit the next part of every context
       that is not in flight, then flush; repeat until every one is done. */
    while (completed < set->n) {
        for (size_t i = 0; i < set->n; i++) {
            mbh_status status;
            OK(mbh_ctx_status(&ctxs[i], &status));
            if (status == MBH_STATUS_PROCESSING || status == MBH_STATUS_COMPLETE) continue;
            const struct vector *v = &set->v[i];
            size_t p = next_part[i]++;
            size_t cut1 = v->len / 3, cut2 = v->len - v->len / 5;
            mbh_ctx *done = NULL;
            if (parts == 1) {
                OK(mbh_submit(mgr, &ctxs[i], v->msg, v->len, MBH_ENTIRE, &done));
            } else if (p == 0) {
                OK(mbh_submit(mgr, &ctxs[i], v->msg, cut1, MBH_FIRST, &done));
            } else if (p == 1) {
                OK(mbh_submit(mgr, &ctxs[i], v->msg + cut1, cut2 - cut1, MBH_UPDATE, &done));
            } else {
                OK(mbh_submit(mgr, &ctxs[i], v->msg + cut2, v->len - cut2, MBH_LAST, &done));
            }
            if (done) check_done(a, engine, done, set, &completed);
        }
        mbh_ctx *done = NULL;
        do {
            OK(mbh_flush(mgr, &done));
            if (done) check_done(a, engine, done, set, &completed);
        } while (done);
    }
    size_t in_flight = 99;
    OK(mbh_manager_in_flight(mgr, &in_flight));
    CHECK(in_flight == 0);
    mbh_manager_free(mgr);
    free(ctxs);
    free(next_part);
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: nist VECTOR_DIR [quick]\n");
        return 2;
    }
    int quick = argc > 2 && strcmp(argv[2], "quick") == 0;
    for (size_t k = 0; k < 6; k++) {
        const struct alg_info *a = &ALGS[k];
        struct vector_set set = {0};
        char path[4096];
        snprintf(path, sizeof path, "%s/%sShortMsg.rsp", argv[1], a->nist);
        parse_rsp(path, a->digest_len, quick ? 8 : 1, &set);
        if (!quick) {
            snprintf(path, sizeof path, "%s/%sLongMsg.rsp", argv[1], a->nist);
            parse_rsp(path, a->digest_len, 1, &set);
        }
        CHECK(set.n >= 8);

        check_hash_many(a, NULL, &set);
        check_hash_many(a, "scalar", &set);

        size_t engines = 0;
        OK(mbh_engine_count(a->alg, &engines));
        for (size_t e = 0; e < engines; e++) {
            const char *engine = NULL;
            bool supported = false;
            OK(mbh_engine_name(a->alg, e, &engine));
            OK(mbh_engine_supported(a->alg, engine, &supported));
            if (!supported) {
                printf("SKIPPED %s engine %s: not supported here\n", a->name, engine);
                continue;
            }
            check_manager(a, engine, 1, &set);
            check_manager(a, engine, 3, &set);
        }
        printf("%s: %zu vectors\n", a->name, set.n);
        for (size_t i = 0; i < set.n; i++) free(set.v[i].msg);
        free(set.v);
    }
    return finish("nist");
}
