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
#include <stdatomic.h>

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

// OpenSSL 3 looks algorithms up in its provider registry ("fetching") on every call that names one by
// a legacy getter (EVP_aes_256_gcm(), HMAC(EVP_sha256(), …)) or by string: a lock and a hash lookup each
// time, which dominated the cost of sealing or opening a 1 KiB entry. The fetched objects are immutable
// and thread-safe, so each is fetched once and kept for the life of the process (one per Swift module
// that imports this header; a lost race frees the spare).

/// The cached result of a fetch: the first caller stores it, later callers reuse it.
#define CACHECHAIN_FETCH_ONCE(type, fetch, release) \
    static _Atomic(type *) cached = NULL; \
    type *current = atomic_load_explicit(&cached, memory_order_acquire); \
    if (current != NULL) return current; \
    type *fetched = fetch; \
    if (fetched == NULL) return NULL; \
    type *expected = NULL; \
    if (atomic_compare_exchange_strong_explicit(&cached, &expected, fetched, memory_order_acq_rel, memory_order_acquire)) \
        return fetched; \
    release(fetched); \
    return expected;

/// AES-256-GCM from the default provider, fetched once.
static inline const EVP_CIPHER *cachechain_aes_256_gcm(void) {
    CACHECHAIN_FETCH_ONCE(EVP_CIPHER, EVP_CIPHER_fetch(NULL, "AES-256-GCM", NULL), EVP_CIPHER_free)
}

/// The HKDF KDF, fetched once.
static inline EVP_KDF *cachechain_hkdf_kdf(void) {
    CACHECHAIN_FETCH_ONCE(EVP_KDF, EVP_KDF_fetch(NULL, "HKDF", NULL), EVP_KDF_free)
}

/// The HMAC MAC, fetched once.
static inline EVP_MAC *cachechain_hmac_mac(void) {
    CACHECHAIN_FETCH_ONCE(EVP_MAC, EVP_MAC_fetch(NULL, "HMAC", NULL), EVP_MAC_free)
}

/// HKDF-SHA256 (RFC 5869, extract then expand) through OpenSSL 3's EVP_KDF. An empty salt is the RFC's
/// default (HashLen zero bytes). Returns 1 on success, 0 on failure (e.g. a length above 255 × 32).
static inline int cachechain_hkdf_sha256(
    const unsigned char *key, size_t keyLength,
    const unsigned char *salt, size_t saltLength,
    const unsigned char *info, size_t infoLength,
    unsigned char *output, size_t outputLength
) {
    EVP_KDF *kdf = cachechain_hkdf_kdf();
    if (kdf == NULL) return 0;
    EVP_KDF_CTX *context = EVP_KDF_CTX_new(kdf);
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

/// HMAC-SHA256 in one call through EVP_MAC; `output` receives 32 bytes. Returns 1 on success.
static inline int cachechain_hmac_sha256(
    const unsigned char *key, size_t keyLength,
    const unsigned char *data, size_t dataLength,
    unsigned char *output
) {
    static const unsigned char empty = 0;
    EVP_MAC *mac = cachechain_hmac_mac();
    if (mac == NULL) return 0;
    EVP_MAC_CTX *context = EVP_MAC_CTX_new(mac);
    if (context == NULL) return 0;
    OSSL_PARAM params[2];
    params[0] = OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_DIGEST, (char *)"SHA256", 0);
    params[1] = OSSL_PARAM_construct_end();
    size_t length = 0;
    int ok = EVP_MAC_init(context, key ? key : &empty, keyLength, params) == 1
        && EVP_MAC_update(context, data ? data : &empty, dataLength) == 1
        && EVP_MAC_final(context, output, &length, 32) == 1
        && length == 32;
    EVP_MAC_CTX_free(context);
    return ok ? 1 : 0;
}

#endif
