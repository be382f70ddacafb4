/*
 * Known answers through the isa-l_crypto compatible ABI, for SHA-256,
 * SHA-512, MD5, SHA-1 and SM3: the known answers below (including one million 'a' in 1000-byte
 * updates), then the NIST CAVS vectors (tests/vectors/SHA{256,512}{Short,Long}Msg.rsp)
 * all in flight at once, whole through isal_*_submit with ISAL_HASH_ENTIRE,
 * and in three parts through the deprecated API.
 *
 * usage: isal_vectors VECTOR_DIR [quick]   (quick: ShortMsg only, every 8th vector)
 *
 * Included the way a program written for isa-l_crypto 2.26 includes it.
 */
#include <isa-l_crypto/isal_crypto_api.h>
#include <isa-l_crypto/multi_buffer.h>
#include <isa-l_crypto/sha256_mb.h>
#include <isa-l_crypto/sha512_mb.h>
#include <isa-l_crypto/md5_mb.h>
#include <isa-l_crypto/sha1_mb.h>
#include <isa-l_crypto/sm3_mb.h>

#include "isal_common.h"

struct vector {
    uint8_t *msg;
    size_t len;
    uint8_t md[64];
};

struct vector_set {
    struct vector *v;
    size_t n, cap;
};

static char *read_text(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "cannot read %s\n", path);
        exit(1);
    }
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *text = xmalloc((size_t)size + 1);
    size_t got = fread(text, 1, (size_t)size, f);
    fclose(f);
    text[got] = '\0';
    return text;
}

/* Appends every `step`th "Len/Msg/MD" triple of DIR/NAME. */
static void load(const char *dir, const char *name, size_t digest_len, size_t step,
                 struct vector_set *set) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    char *text = read_text(path);
    size_t len = 0, index = 0;
    uint8_t *msg = NULL;
    for (char *line = strtok(text, "\r\n"); line; line = strtok(NULL, "\r\n")) {
        if (strncmp(line, "Len = ", 6) == 0) {
            len = (size_t)strtoull(line + 6, NULL, 10) / 8;
        } else if (strncmp(line, "Msg = ", 6) == 0) {
            msg = xmalloc(len);
            if (hex_decode(line + 6, msg, len) != 0) {
                fprintf(stderr, "%s: bad Msg\n", path);
                exit(1);
            }
        } else if (strncmp(line, "MD = ", 5) == 0 && msg) {
            if (index++ % step != 0) {
                free(msg);
            } else {
                if (set->n == set->cap) {
                    set->cap = set->cap ? 2 * set->cap : 64;
                    set->v = realloc(set->v, set->cap * sizeof *set->v);
                    if (!set->v) exit(1);
                }
                struct vector *v = &set->v[set->n++];
                v->msg = msg;
                v->len = len;
                if (hex_decode(line + 5, v->md, digest_len) != 0) {
                    fprintf(stderr, "%s: bad MD\n", path);
                    exit(1);
                }
            }
            msg = NULL;
        }
    }
    free(text);
}

static void free_set(struct vector_set *set) {
    for (size_t i = 0; i < set->n; i++) free(set->v[i].msg);
    free(set->v);
}

/* Known answers: the FIPS 180-2 examples (SHA-256, SHA-512, SHA-1), RFC
 * 1321's "abc" and "" for MD5 (the others as Python's hashlib computes
 * them), GB/T 32905-2016's two examples for SM3 ("abc", "abcd" x 16). */
struct known {
    const char *msg;
    size_t repeat; /* the message is `msg` this many times */
    const char *sha256;
    const char *sha512;
    const char *md5;
    const char *sha1;
    const char *sm3;
};

static const struct known KNOWN[] = {
    {"abc", 1, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
     "ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a"
     "2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f",
     "900150983cd24fb0d6963f7d28e17f72", "a9993e364706816aba3e25717850c26c9cd0d89d",
     "66c7f0f462eeedd9d1f2d46bdc10e4e24167c4875cf2f7a2297da02b8f4ba8e0"},
    {"", 1, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
     "cf83e1357eefb8bdf1542850d66d8007d620e4050b5715dc83f4a921d36ce9ce"
     "47d0d13c5d85f2b0ff8318d2877eec2f63b931bd47417a81a538327af927da3e",
     "d41d8cd98f00b204e9800998ecf8427e", "da39a3ee5e6b4b0d3255bfef95601890afd80709",
     "1ab21d8355cfa17f8e61194831e81a8f22bec8c728fefb747ed035eb5082aa2b"},
    {"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", 1,
     "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1", NULL,
     "8215ef0796a20bcaaae116d3876c664a", "84983e441c3bd26ebaae4aa1f95129e5e54670f1",
     "639b6cc5e64d9e37a390b192df4fa1ea0720ab747ff692b9f38c4e66ad7b8c05"},
    {"abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqr"
     "lmnopqrsmnopqrstnopqrstu",
     1, NULL,
     "8e959b75dae313da8cf4f72814fc143f8f7779c6eb9f7fa17299aeadb6889018"
     "501d289e4900f7e4331b99dec4b5433ac7d329eeb6dd26545e96e55b874be909",
     "03dd8807a93175fb062dfb55dc7d359c", "a49b2446a02c645bf419f995b67091253a04a259",
     "78bcfb586acd983d7fae8e6930157f1562019e2caf68f1c98a855f1a95bb89bb"},
    {"abcdabcdabcdabcdabcdabcdabcdabcdabcdabcdabcdabcdabcdabcdabcdabcd", 1, NULL, NULL,
     "386f81fd57366030ae7ea0392a2c87ae", "37d21e4333301406f68bde5ca7a4ac4e116bb95a",
     "debe9ff92275b8a138604889c18e5a4d6fdb70e5387e5765293dcba39c0c5732"},
    /* One million 'a', submitted as 1000 chunks of 1000 bytes. */
    {NULL, 1000, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0",
     "e718483d0ce769644e2e42c7bc15b4638e1f98b13b2044285632a803afa973eb"
     "de0ff244877ea60a4cb0432ce577c31beb009c5c2c49aa2e4eadb217ad8cc09b",
     "7707d6ae4e027c70eea2a935c2296f21", "34aa973cd4c4daa4f61eeb2bdbad27316534016f",
     "c8aaf89429554029e231941a2acc0ad61ff2a5acd8fadd25847a3a732b3b02c3"},
};

#define ISAL_FAMILY 256
#include "isal_family.h"
#include "isal_vectors_body.h"
#undef ISAL_FAMILY

#define ISAL_FAMILY 512
#include "isal_family.h"
#include "isal_vectors_body.h"
#undef ISAL_FAMILY

#define ISAL_FAMILY 5
#include "isal_family.h"
#include "isal_vectors_body.h"
#undef ISAL_FAMILY

#define ISAL_FAMILY 1
#include "isal_family.h"
#include "isal_vectors_body.h"
#undef ISAL_FAMILY

#define ISAL_FAMILY 3
#include "isal_family.h"
#include "isal_vectors_body.h"
#undef ISAL_FAMILY

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: %s VECTOR_DIR [quick]\n", argv[0]);
        return 2;
    }
    int quick = argc > 2 && strcmp(argv[2], "quick") == 0;
    known_256();
    known_512();
    known_md5();
    known_sha1();
    known_sm3();
    nist_256(argv[1], quick);
    nist_512(argv[1], quick);
    return finish("isal_vectors");
}
