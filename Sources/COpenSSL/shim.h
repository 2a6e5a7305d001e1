#ifndef CACHECHAIN_OPENSSL_SHIM_H
#define CACHECHAIN_OPENSSL_SHIM_H

#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/kdf.h>
#include <openssl/params.h>
#include <openssl/rand.h>

// Typed wrappers over libcrypto (Debian's libssl-dev, OpenSSL 3) for what Swift cannot call directly or
// safely: EVP_CIPHER_CTX_ctrl takes an untyped `void *` whose meaning depends on a macro command, so each
// GCM command gets its own typed function; HKDF through EVP_KDF needs an OSSL_PARAM array built from
// macro names, which is done here in C.

/// Sets the GCM IV length (before the key and IV are set).
static inline int cachechain_evp_gcm_set_ivlen(EVP_CIPHER_CTX *context, int length) {
    return EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_GCM_SET_IVLEN, length, NULL);
}

/// Copies the GCM tag of the message just encrypted (after EVP_EncryptFinal_ex).
static inline int cachechain_evp_gcm_get_tag(EVP_CIPHER_CTX *context, unsigned char *tag, int length) {
    return EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_GCM_GET_TAG, length, tag);
}

/// Sets the expected GCM tag of the message being decrypted (before EVP_DecryptFinal_ex).
static inline int cachechain_evp_gcm_set_tag(EVP_CIPHER_CTX *context, const unsigned char *tag, int length) {
    return EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_GCM_SET_TAG, length, (void *)tag);
}

/// Overwrites memory with zeros in a way the compiler cannot optimize away.
static inline void cachechain_cleanse(void *pointer, size_t length) {
    OPENSSL_cleanse(pointer, length);
}

/// HKDF-SHA256 (RFC 5869, extract then expand) through OpenSSL 3's EVP_KDF. An empty salt is the RFC's
/// default (HashLen zero bytes). Returns 1 on success, 0 on failure (e.g. a length above 255 × 32).
static inline int cachechain_hkdf_sha256(
    const unsigned char *key, size_t keyLength,
    const unsigned char *salt, size_t saltLength,
    const unsigned char *info, size_t infoLength,
    unsigned char *output, size_t outputLength
) {
    EVP_KDF *kdf = EVP_KDF_fetch(NULL, "HKDF", NULL);
    if (kdf == NULL) return 0;
    EVP_KDF_CTX *context = EVP_KDF_CTX_new(kdf);
    EVP_KDF_free(kdf);
    if (context == NULL) return 0;
    static const unsigned char empty = 0;
    OSSL_PARAM params[5];
    size_t count = 0;
    params[count++] = OSSL_PARAM_construct_utf8_string(OSSL_KDF_PARAM_DIGEST, (char *)"SHA256", 0);
    params[count++] = OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_KEY, (void *)(key ? key : &empty), keyLength);
    if (saltLength > 0) params[count++] = OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_SALT, (void *)salt, saltLength);
    if (infoLength > 0) params[count++] = OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_INFO, (void *)info, infoLength);
    params[count] = OSSL_PARAM_construct_end();
    int result = EVP_KDF_derive(context, output, outputLength, params);
    EVP_KDF_CTX_free(context);
    return result == 1 ? 1 : 0;
}

/// HMAC-SHA256 in one call; `output` receives 32 bytes. Returns 1 on success.
static inline int cachechain_hmac_sha256(
    const unsigned char *key, size_t keyLength,
    const unsigned char *data, size_t dataLength,
    unsigned char *output
) {
    static const unsigned char empty = 0;
    unsigned int length = 0;
    unsigned char *result = HMAC(EVP_sha256(), key ? key : &empty, (int)keyLength, data ? data : &empty, dataLength, output, &length);
    return result != NULL && length == 32 ? 1 : 0;
}

#endif
