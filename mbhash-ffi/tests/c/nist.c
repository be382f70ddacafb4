/*
 * NIST CAVS vectors (tests/vectors/SHA*Msg.rsp at the repository root) through the
 * C API, for every algorithm: mbh_hash_many on the configured engine and on
 * "scalar" (the reference the stream tests compare against), and the job
 * manager with MBH_ENTIRE and with three-part streams, on every engine this
 * CPU runs. MD5 and SM3 have no CAVS files: RFC 1321's test suite and
 * GB/T 32905's examples stand in, with messages across the block and
 * padding boundaries whose digests were computed by an independent
 * implementation (Python's hashlib, OpenSSL).
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

/* ---- MD5 and SM3: known answers ---- */

struct kat {
    const char *msg;
    const char *md;
};

struct pattern_kat {
    size_t len;
    const char *md5, *sm3;
};

/* MD5: RFC 1321's test suite (appendix A.5). */
static const struct kat MD5_TEXT[] = {
    {"", "d41d8cd98f00b204e9800998ecf8427e"},
    {"a", "0cc175b9c0f1b6a831c399e269772661"},
    {"abc", "900150983cd24fb0d6963f7d28e17f72"},
    {"message digest", "f96b697d7cb7938d525a2f31aaf161d0"},
    {"abcdefghijklmnopqrstuvwxyz", "c3fcd3d76192e4007dfb496cca67e13b"},
    {"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789", "d174ab98d277d9f5a5611c2c9f419d9f"},
    {"12345678901234567890123456789012345678901234567890123456789012345678901234567890", "57edf4a22be3c955ac49da2e2107b67a"},
};
/* SM3: GB/T 32905-2016's examples (appendix A). */
static const struct kat SM3_TEXT[] = {
    {"abc", "66c7f0f462eeedd9d1f2d46bdc10e4e24167c4875cf2f7a2297da02b8f4ba8e0"},
    {"abcdabcdabcdabcdabcdabcdabcdabcdabcdabcdabcdabcdabcdabcdabcdabcd", "debe9ff92275b8a138604889c18e5a4d6fdb70e5387e5765293dcba39c0c5732"},
};
/* pattern(len) messages across block and padding boundaries; digests
 * from Python's hashlib (OpenSSL). */
static const struct pattern_kat PATTERNS[] = {
    {1, "dcb9be2f604e5df91deb9659bed4748d",
     "21b697eb0e7cc796703a245c65f335055688351a4c44037f75cfdbf9c5098f3b"},
    {55, "974d25fbd0f43ba8c7364eea731c2b6d",
     "d5f9e2a019d494c6c4aaf77110b9113878b5d5920d3804e68a844da696a201cd"},
    {56, "a2ff45202407deb99be7fdc01b1577cb",
     "1499aab4f48f9665c61a1c91dd6dd8467c4fa460ebf4cd4cf3f771d0ec59a4a4"},
    {57, "badf90b4e7e69201dc246dac3b665d19",
     "44f7549f814cd541205e5dfcb1153adf0c7d8f2ee8df4557cec23de4cc48197a"},
    {63, "655fe49c2258d2de4de638ace1c1a618",
     "35f2c6ee7242f5f85040dff0eceb6b7ed2977f8d8bc22888856884f453100d74"},
    {64, "e3ab394ce4eb7da020a27d2e2443143c",
     "cf1bff7b8582d52c021ba8ea9c1ca9e59d42f4458f5516a591fe049d2c7ed017"},
    {65, "801046e72893b95fa85c29056a96575f",
     "975bdd0a535819052d4ed7a13301a7cd05f07bce97d8b5e3ffcc7d4644adc732"},
    {119, "def9fbe3a5e16d82789ed91833f9cb02",
     "12942959f1e948243f6439cc71451c96ccd80505777e9f9654bb7ff3219a28dd"},
    {120, "9bafdf32277ca087bf47e7a92a125b6a",
     "5f2902fb330d320c319a2468506b74eb07d1be00c2596860a0d5cdd127d0cd81"},
    {127, "6659b15fd850baa9d9ca0ddb27e81ac2",
     "5b15b1fdbc4aafc4086c7b0bb8216685a5cf2c79b832191930503dd5187b7c8f"},
    {128, "52cc29caecfd9380a2261a80c58e6787",
     "6e8b14eda017697645306ec96c68f2fbf3204e2235ad53cc18770274e4038e76"},
    {129, "f81a1b6781db102796231ae0d5824d4b",
     "b7ae383b09ccddc2079d2e24417a9f9f452dc5b42b64dd3f78e2f1887b46e657"},
    {1000, "f8005195b42b4d79210e605abd0ddad1",
     "c2ba7b5a7a8585fb42b1bb53faceb15c61a6c94fbf842781c17d658b284f35b3"},
    {4095, "8c04545fa52944518ccbac85337d6628",
     "3145542cd48aa01b9977a6c2f1c5f2f1ae96e0f567d5368ae5328be4129d50b3"},
    {4096, "a69b23aaf71dc476ca3e39e8a11274d9",
     "8d972379a2b91f16840969a1bb4b71aeb35f87b5bfe66ec36d9df325cfa944d0"},
    {4097, "252ede7dbd2dce739c44e9f7b0a54361",
     "84663a80d7d760cddc37e7f5259c2d80a1b620c95c8c28965ed63bc50e93a6e5"},
    {65537, "5bd3aaa2047014b558a3b0f0f3416263",
     "63d734fe1acd815aa01711126e6c71aef7300cfb272e4fc34379ffe408a36fee"},
};

/* pattern(len): byte j is j * 7 + len * 13, mod 256. */
static uint8_t *pattern(size_t len) {
    uint8_t *msg = xmalloc(len);
    for (size_t j = 0; j < len; j++) msg[j] = (uint8_t)(j * 7 + len * 13);
    return msg;
}

/* Appends one vector; takes `msg` (from xmalloc). */
static void add_known(struct vector_set *set, uint8_t *msg, size_t len, const char *md,
                      size_t digest_len) {
    if (set->n == set->cap) {
        set->cap = set->cap ? 2 * set->cap : 64;
        struct vector *grown = realloc(set->v, set->cap * sizeof *set->v);
        if (!grown) exit(1);
        set->v = grown;
    }
    struct vector *v = &set->v[set->n++];
    v->msg = msg;
    v->len = len;
    if (strlen(md) != 2 * digest_len || hex_decode(md, v->md, digest_len)) {
        fprintf(stderr, "bad known answer %s\n", md);
        exit(1);
    }
}

/* The known answers of MD5 or SM3. */
static void known_answers(const struct alg_info *a, struct vector_set *set) {
    int md5 = a->alg == MBH_MD5;
    const struct kat *text = md5 ? MD5_TEXT : SM3_TEXT;
    size_t ntext = md5 ? sizeof MD5_TEXT / sizeof MD5_TEXT[0] : sizeof SM3_TEXT / sizeof SM3_TEXT[0];
    for (size_t i = 0; i < ntext; i++) {
        size_t len = strlen(text[i].msg);
        uint8_t *msg = xmalloc(len);
        memcpy(msg, text[i].msg, len);
        add_known(set, msg, len, text[i].md, a->digest_len);
    }
    for (size_t i = 0; i < sizeof PATTERNS / sizeof PATTERNS[0]; i++)
        add_known(set, pattern(PATTERNS[i].len), PATTERNS[i].len,
                  md5 ? PATTERNS[i].md5 : PATTERNS[i].sm3, a->digest_len);
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
    for (size_t k = 0; k < ALG_COUNT; k++) {
        const struct alg_info *a = &ALGS[k];
        struct vector_set set = {0};
        char path[4096];
        if (a->nist) {
            snprintf(path, sizeof path, "%s/%sShortMsg.rsp", argv[1], a->nist);
            parse_rsp(path, a->digest_len, quick ? 8 : 1, &set);
            if (!quick) {
                snprintf(path, sizeof path, "%s/%sLongMsg.rsp", argv[1], a->nist);
                parse_rsp(path, a->digest_len, 1, &set);
            }
        } else {
            CHECK(a->alg == MBH_MD5 || a->alg == MBH_SM3);
            known_answers(a, &set);
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
