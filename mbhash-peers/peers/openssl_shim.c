/*
 * Bench-only glue to OpenSSL's one-stream digests (libcrypto's EVP layer),
 * compiled by build.rs when libcrypto and its headers are found.
 *
 * `mbb_openssl_md` names a digest once (EVP_MD_fetch, so no lookup is timed);
 * `mbb_openssl_digest` hashes one whole message with EVP_Digest, as a caller
 * of OpenSSL's one-shot API does.
 */
#include <stddef.h>
#include <string.h>

#include <openssl/evp.h>

/* The fetched digest `name` ("MD5", "SHA1", "SM3", "SHA256", ...), or NULL
 * when this OpenSSL lacks it. */
const void *mbb_openssl_md(const char *name)
{
        return EVP_MD_fetch(NULL, name, NULL);
}

/* Digest bytes of `md`. */
int mbb_openssl_md_size(const void *md)
{
        return md ? EVP_MD_get_size(md) : -1;
}

/* Hashes `len` bytes at `data` with `md` into `out` (room for
 * mbb_openssl_md_size(md) bytes). 0 on success. */
int mbb_openssl_digest(const void *md, const unsigned char *data, size_t len, unsigned char *out)
{
        unsigned int n = 0;
        if (!md)
                return -1;
        return EVP_Digest(data, len, out, &n, md, NULL) == 1 ? 0 : -1;
}
