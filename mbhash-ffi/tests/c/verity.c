/* fs-verity digests and dm-verity hash images through the C API:
 * known answers produced by the peers (`fsverity digest` of fsverity-utils
 * 1.5, `veritysetup format` of cryptsetup 2.6.1) on a fixed pattern; the
 * definitions rebuilt here from mbh_hash_many for small trees; buffer and
 * file descriptor paths agreeing; verification finding a flipped byte;
 * every error code. */
#define _POSIX_C_SOURCE 200809L
#include "common.h"

#include <unistd.h>

/* 10000 bytes: byte i is (31 i + 7) mod 251. */
static uint8_t pattern[10000];

static void fill_pattern(void) {
    for (size_t i = 0; i < sizeof pattern; i++) pattern[i] = (uint8_t)((i * 31 + 7) % 251);
}

static void unhex(const char *hex, uint8_t *out, size_t len) {
    REQUIRE_OK(hex_decode(hex, out, len) == 0 ? MBH_OK : MBH_PANIC);
}

/* A temporary file holding `len` bytes; its descriptor. */
static int temp_file(const uint8_t *data, size_t len) {
    FILE *f = tmpfile();
    if (!f) {
        fprintf(stderr, "tmpfile failed\n");
        exit(1);
    }
    int fd = dup(fileno(f));
    fclose(f);
    if (fd < 0 || (len && pwrite(fd, data, len, 0) != (ssize_t)len)) {
        fprintf(stderr, "cannot write a temporary file\n");
        exit(1);
    }
    return fd;
}

static void fsverity_known_answers(void) {
    /* fsverity digest kat --salt=0102 */
    uint8_t want[64];
    const uint8_t salt[2] = {1, 2};
    mbh_fsverity_result r;
    OK(mbh_fsverity_digest(MBH_SHA256, 4096, salt, 2, pattern, sizeof pattern, &r));
    unhex("18f8ff45d69bb9ff87193f4366f2fe3c4711df0b7dfe050d2134f7248d241bbb", want, 32);
    CHECK(r.digest_len == 32);
    same_digest("fsverity sha256 4096 salt 0102", r.digest, want, 32);
    CHECK(r.tree_len == 4096);
    /* The descriptor's fields. */
    CHECK(r.descriptor[0] == 1 && r.descriptor[1] == 1 && r.descriptor[2] == 12);
    CHECK(r.descriptor[3] == 2 && r.descriptor[80] == 1 && r.descriptor[81] == 2);
    CHECK(r.descriptor[8] == (10000 & 0xff) && r.descriptor[9] == (10000 >> 8));
    CHECK(memcmp(r.descriptor + 16, r.root_hash, 32) == 0);
    /* The file digest is the hash of the descriptor. */
    const uint8_t *msgs[1] = {r.descriptor};
    size_t lens[1] = {MBH_FSVERITY_DESCRIPTOR_LEN};
    uint8_t d[32];
    OK(mbh_hash_many(MBH_SHA256, msgs, lens, 1, d, sizeof d));
    same_digest("digest = H(descriptor)", r.digest, d, 32);

    /* fsverity digest kat --hash-alg=sha512 --block-size=1024 */
    OK(mbh_fsverity_digest(MBH_SHA512, 1024, NULL, 0, pattern, sizeof pattern, &r));
    unhex("1c0c6e2a16ce988868ba0a831dc715c4ac22abf9d6465a9a8d3fe7b5ec2ffb54"
          "8de8369beb2b09d87f62026b42ee71b8f602c5248f40c1a20a00f6f9993b282b",
          want, 64);
    CHECK(r.digest_len == 64);
    same_digest("fsverity sha512 1024", r.digest, want, 64);
}

/* One data block: the root hash is H(salt padded to 64 bytes || block
 * zero-padded); an empty file's is zeros. */
static void fsverity_definition(void) {
    uint8_t msg[64 + 4096];
    memset(msg, 0, sizeof msg);
    msg[0] = 0xab;
    memcpy(msg + 64, pattern, 1000);
    const uint8_t *msgs[1] = {msg};
    size_t lens[1] = {sizeof msg};
    uint8_t want[32];
    OK(mbh_hash_many(MBH_SHA256, msgs, lens, 1, want, sizeof want));
    mbh_fsverity_result r;
    const uint8_t salt[1] = {0xab};
    OK(mbh_fsverity_digest(MBH_SHA256, 4096, salt, 1, pattern, 1000, &r));
    same_digest("fsverity one block", r.root_hash, want, 32);
    CHECK(r.tree_len == 0);
    OK(mbh_fsverity_digest(MBH_SHA256, 4096, NULL, 0, NULL, 0, &r));
    uint8_t zeros[32] = {0};
    same_digest("fsverity empty", r.root_hash, zeros, 32);
}

static void fsverity_fd(void) {
    int data = temp_file(pattern, sizeof pattern);
    int tree = temp_file(NULL, 0);
    const uint8_t salt[2] = {1, 2};
    mbh_fsverity_result a, b;
    OK(mbh_fsverity_digest(MBH_SHA256, 1024, salt, 2, pattern, sizeof pattern, &a));
    for (uint32_t jobs = 0; jobs <= 3; jobs++) {
        OK(mbh_fsverity_digest_fd(MBH_SHA256, 1024, salt, 2, data, jobs ? tree : -1, jobs, &b));
        same_digest("fsverity fd", b.digest, a.digest, 32);
        CHECK(b.tree_len == a.tree_len);
    }
    /* 10 blocks of 1 KiB: one tree block holding 10 hashes. */
    CHECK(a.tree_len == 1024);
    uint8_t block[1024];
    CHECK(pread(tree, block, sizeof block, 0) == (ssize_t)sizeof block);
    uint8_t msg[64 + 1024];
    memset(msg, 0, sizeof msg);
    msg[0] = 1;
    msg[1] = 2;
    memcpy(msg + 64, block, 1024);
    const uint8_t *msgs[1] = {msg};
    size_t lens[1] = {sizeof msg};
    uint8_t root[32];
    OK(mbh_hash_many(MBH_SHA256, msgs, lens, 1, root, sizeof root));
    same_digest("fsverity root = H(salt || tree block)", a.root_hash, root, 32);
    close(data);
    close(tree);
}

static mbh_dmverity_params dm_defaults(void) {
    static const uint8_t salt[2] = {1, 2};
    static const uint8_t uuid[16] = {0x0a, 0x1b, 0x2c, 0x3d, 0x4e, 0x5f, 0x46, 0x07,
                                     0x88, 0x19, 0x2a, 0x3b, 0x4c, 0x5d, 0x6e, 0x7f};
    mbh_dmverity_params p;
    memset(&p, 0, sizeof p);
    p.alg = MBH_SHA256;
    p.version = 1;
    p.data_block_size = 512;
    p.hash_block_size = 512;
    p.salt = salt;
    p.salt_len = 2;
    p.superblock = 1;
    memcpy(p.uuid, uuid, 16);
    return p;
}

static void dmverity_known_answer(void) {
    /* veritysetup format kat img --salt=0102 --data-block-size=512
     * --hash-block-size=512 --uuid=0a1b2c3d-4e5f-4607-8819-2a3b4c5d6e7f:
     * the root hash, and the SHA-256 of the 2048-byte image. */
    mbh_dmverity_params p = dm_defaults();
    uint64_t len = 0;
    OK(mbh_dmverity_image_len(&p, sizeof pattern, &len));
    CHECK(len == 2048);
    uint8_t image[2048];
    mbh_dmverity_result r;
    OK(mbh_dmverity_format(&p, pattern, sizeof pattern, image, sizeof image, &r));
    uint8_t want[32];
    unhex("a50f98ed3e3cb5f9ab4b680a00398e7c580f262deddf2be64156e4d4297839a4", want, 32);
    CHECK(r.root_hash_len == 32 && r.data_blocks == 19 && r.hash_blocks == 3);
    CHECK(r.image_len == 2048);
    same_digest("dm-verity root", r.root_hash, want, 32);
    const uint8_t *msgs[1] = {image};
    size_t lens[1] = {sizeof image};
    uint8_t h[32];
    OK(mbh_hash_many(MBH_SHA256, msgs, lens, 1, h, sizeof h));
    unhex("bdd0b86d4d7acc65ecd5efd52ac6b0179fb0ed3b2e5248565a23481902817fc3", want, 32);
    same_digest("dm-verity image", h, want, 32);
    CHECK(memcmp(image, "verity\0\0", 8) == 0);

    /* The same through descriptors, then verified; then a flipped byte in
     * data block 7 and one in the top hash block. */
    int data = temp_file(pattern, sizeof pattern);
    int hash = temp_file(NULL, 0);
    mbh_dmverity_result f;
    OK(mbh_dmverity_format_fd(&p, data, hash, 2, &f));
    same_digest("dm-verity fd root", f.root_hash, r.root_hash, 32);
    uint8_t back[2048];
    CHECK(pread(hash, back, sizeof back, 0) == (ssize_t)sizeof back);
    CHECK(memcmp(back, image, sizeof back) == 0);
    uint64_t bad_data = 99, bad_hash = 99;
    OK(mbh_dmverity_verify_fd(&p, data, hash, r.root_hash, 32, 1, &bad_data, &bad_hash));
    CHECK(bad_data == 0 && bad_hash == 0);
    uint8_t x = pattern[7 * 512 + 3] ^ 1;
    CHECK(pwrite(data, &x, 1, 7 * 512 + 3) == 1);
    OK(mbh_dmverity_verify_fd(&p, data, hash, r.root_hash, 32, 0, &bad_data, &bad_hash));
    CHECK(bad_data == 1 && bad_hash == 0);
    x = pattern[7 * 512 + 3];
    CHECK(pwrite(data, &x, 1, 7 * 512 + 3) == 1);
    x = back[512 + 5] ^ 1;
    CHECK(pwrite(hash, &x, 1, 512 + 5) == 1);
    OK(mbh_dmverity_verify_fd(&p, data, hash, r.root_hash, 32, 0, &bad_data, &bad_hash));
    /* The top block no longer matches the root hash, and level-0 block 0
     * no longer matches the entry the top block holds for it. */
    CHECK(bad_data == 0 && bad_hash == 2);
    close(data);
    close(hash);
}

/* Two data blocks, format 1 and 0, no superblock: the root hash rebuilt
 * from its definition. */
static void dmverity_definition(void) {
    for (uint32_t version = 0; version <= 1; version++) {
        mbh_dmverity_params p = dm_defaults();
        p.superblock = 0;
        p.version = version;
        uint8_t msg[2 + 512];
        uint8_t level[512];
        memset(level, 0, sizeof level);
        for (int b = 0; b < 2; b++) {
            if (version == 1) {
                msg[0] = 1, msg[1] = 2;
                memcpy(msg + 2, pattern + 512 * b, 512);
            } else {
                memcpy(msg, pattern + 512 * b, 512);
                msg[512] = 1, msg[513] = 2;
            }
            const uint8_t *msgs[1] = {msg};
            size_t lens[1] = {sizeof msg};
            OK(mbh_hash_many(MBH_SHA256, msgs, lens, 1, level + 32 * b, 32));
        }
        if (version == 1) {
            msg[0] = 1, msg[1] = 2;
            memcpy(msg + 2, level, 512);
        } else {
            memcpy(msg, level, 512);
            msg[512] = 1, msg[513] = 2;
        }
        const uint8_t *msgs[1] = {msg};
        size_t lens[1] = {sizeof msg};
        uint8_t want[32];
        OK(mbh_hash_many(MBH_SHA256, msgs, lens, 1, want, sizeof want));
        uint8_t image[512];
        mbh_dmverity_result r;
        OK(mbh_dmverity_format(&p, pattern, 1024 + 100, image, sizeof image, &r));
        same_digest("dm-verity two blocks", r.root_hash, want, 32);
        CHECK(memcmp(image, level, 512) == 0);
        CHECK(r.data_blocks == 2 && r.image_len == 512);
        /* Root hash only. */
        OK(mbh_dmverity_format(&p, pattern, 1024, NULL, 0, &r));
        same_digest("dm-verity root only", r.root_hash, want, 32);
    }
}

static void errors(void) {
    mbh_fsverity_result fr;
    uint8_t salt[300] = {0};
    EXPECT(mbh_fsverity_digest(MBH_SHA256, 4096, NULL, 0, pattern, 10, NULL), MBH_NULL_ARGUMENT);
    EXPECT(mbh_fsverity_digest(MBH_SHA256, 4096, NULL, 1, pattern, 10, &fr), MBH_NULL_ARGUMENT);
    EXPECT(mbh_fsverity_digest(MBH_SHA256, 4096, NULL, 0, NULL, 10, &fr), MBH_NULL_ARGUMENT);
    EXPECT(mbh_fsverity_digest(MBH_SHA384, 4096, NULL, 0, pattern, 10, &fr),
           MBH_INVALID_PARAMETER);
    EXPECT(mbh_fsverity_digest(99, 4096, NULL, 0, pattern, 10, &fr), MBH_INVALID_ALGORITHM);
    EXPECT(mbh_fsverity_digest(MBH_SHA256, 3000, NULL, 0, pattern, 10, &fr),
           MBH_INVALID_PARAMETER);
    EXPECT(mbh_fsverity_digest(MBH_SHA256, 512, NULL, 0, pattern, 10, &fr),
           MBH_INVALID_PARAMETER);
    EXPECT(mbh_fsverity_digest(MBH_SHA256, 131072, NULL, 0, pattern, 10, &fr),
           MBH_INVALID_PARAMETER);
    EXPECT(mbh_fsverity_digest(MBH_SHA256, 4096, salt, 33, pattern, 10, &fr),
           MBH_INVALID_PARAMETER);
    EXPECT(mbh_fsverity_digest_fd(MBH_SHA256, 4096, NULL, 0, -1, -1, 1, &fr),
           MBH_INVALID_PARAMETER);

    mbh_dmverity_params p = dm_defaults();
    mbh_dmverity_result r;
    uint64_t len;
    EXPECT(mbh_dmverity_image_len(NULL, 10, &len), MBH_NULL_ARGUMENT);
    EXPECT(mbh_dmverity_image_len(&p, 100, &len), MBH_BAD_IMAGE);
    p.data_blocks = 100;
    EXPECT(mbh_dmverity_image_len(&p, sizeof pattern, &len), MBH_BAD_IMAGE);
    p = dm_defaults();
    p.version = 2;
    EXPECT(mbh_dmverity_format(&p, pattern, sizeof pattern, NULL, 0, &r), MBH_INVALID_PARAMETER);
    p = dm_defaults();
    p.hash_block_size = 1000;
    EXPECT(mbh_dmverity_format(&p, pattern, sizeof pattern, NULL, 0, &r), MBH_INVALID_PARAMETER);
    p = dm_defaults();
    p.salt = salt;
    p.salt_len = 257;
    EXPECT(mbh_dmverity_format(&p, pattern, sizeof pattern, NULL, 0, &r), MBH_INVALID_PARAMETER);
    p = dm_defaults();
    p.salt = NULL;
    EXPECT(mbh_dmverity_format(&p, pattern, sizeof pattern, NULL, 0, &r), MBH_NULL_ARGUMENT);
    p = dm_defaults();
    uint8_t small[1024];
    EXPECT(mbh_dmverity_format(&p, pattern, sizeof pattern, small, sizeof small, &r),
           MBH_BUFFER_TOO_SMALL);
    EXPECT(mbh_dmverity_format(&p, pattern, sizeof pattern, NULL, 5, &r), MBH_NULL_ARGUMENT);

    /* Verification: a truncated image, a missing superblock, a root hash of
     * the wrong length. */
    int data = temp_file(pattern, sizeof pattern);
    uint8_t image[2048];
    OK(mbh_dmverity_format(&p, pattern, sizeof pattern, image, sizeof image, &r));
    uint64_t bd, bh;
    int truncated = temp_file(image, 2000);
    EXPECT(mbh_dmverity_verify_fd(&p, data, truncated, r.root_hash, 32, 1, &bd, &bh),
           MBH_BAD_IMAGE);
    int nosb = temp_file(pattern, 2048);
    EXPECT(mbh_dmverity_verify_fd(&p, data, nosb, r.root_hash, 32, 1, &bd, &bh), MBH_BAD_IMAGE);
    int good = temp_file(image, sizeof image);
    EXPECT(mbh_dmverity_verify_fd(&p, data, good, r.root_hash, 31, 1, &bd, &bh),
           MBH_INVALID_PARAMETER);
    EXPECT(mbh_dmverity_verify_fd(&p, data, good, r.root_hash, 32, 1, NULL, &bh),
           MBH_NULL_ARGUMENT);
    p.alg = MBH_SHA512;
    uint8_t root64[64] = {0};
    EXPECT(mbh_dmverity_verify_fd(&p, data, good, root64, 64, 1, &bd, &bh), MBH_BAD_IMAGE);
    close(data);
    close(truncated);
    close(nosb);
    close(good);
    CHECK(strcmp(mbh_result_str(MBH_BAD_IMAGE), "unknown result code") != 0);
}

int main(void) {
    fill_pattern();
    fsverity_known_answers();
    fsverity_definition();
    fsverity_fd();
    dmverity_known_answer();
    dmverity_definition();
    errors();
    return finish("verity");
}
