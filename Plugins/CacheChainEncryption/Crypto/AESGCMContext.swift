import CacheChainCore
internal import COpenSSL

/// One libcrypto AES-256-GCM context whose key schedule is set once and reused for many messages (the
/// segments of one entry), each with its own nonce and associated data.
///
/// A context is used by one call at a time: it lives inside one seal or open call, or is parked idle in a
/// ``SubkeyContexts`` slot between opens (taken out under the slot's lock before use).
final class AESGCMContext: @unchecked Sendable { // invariant: never used by two calls at once — owned by one seal/open call, or parked in a SubkeyContexts slot and taken out under its lock
    private let context: OpaquePointer
    private let isEncrypting: Bool

    /// Creates a context for encryption or decryption under a 32-byte key.
    /// - Throws: ``CacheChainError`` for a key of the wrong size or a libcrypto failure.
    init(key: UnsafeRawBufferPointer, encrypting: Bool) throws(CacheChainError) {
        guard key.count == AES256GCM.keyByteCount else {
            throw CacheChainError(.storageFailed, "AES-256-GCM needs a 32-byte key, got \(key.count) bytes")
        }
        guard let context = EVP_CIPHER_CTX_new() else { throw openSSLFailure("EVP_CIPHER_CTX_new") }
        self.context = context
        isEncrypting = encrypting
        let mode: Int32 = encrypting ? 1 : 0
        // Every stored property is set: a throw from here on runs deinit, which frees the context.
        guard let cipher = cachechain_aes_256_gcm() else { throw openSSLFailure("EVP_CIPHER_fetch(AES-256-GCM)") }
        guard EVP_CipherInit_ex2(context, cipher, nil, nil, mode, nil) == 1,
              cachechain_evp_gcm_set_ivlen(context, Int32(AES256GCM.nonceByteCount)) == 1,
              EVP_CipherInit_ex2(context, nil, key.baseAddress?.assumingMemoryBound(to: UInt8.self), nil, mode, nil) == 1
        else { throw openSSLFailure("AES-256-GCM key setup") }
    }

    /// Encrypts `plaintext` into `ciphertext` (same length) and writes the 16-byte tag.
    /// - Throws: ``CacheChainError`` for wrong buffer sizes or a libcrypto failure.
    func seal(
        nonce: UnsafeRawBufferPointer,
        aad: UnsafeRawBufferPointer,
        plaintext: UnsafeRawBufferPointer,
        ciphertext: UnsafeMutableRawBufferPointer,
        tag: UnsafeMutableRawBufferPointer
    ) throws(CacheChainError) {
        precondition(isEncrypting, "seal on a decryption context")
        precondition(ciphertext.count >= plaintext.count && tag.count == AES256GCM.tagByteCount, "wrong output sizes")
        try start(nonce: nonce, aad: aad)
        try update(input: plaintext, output: ciphertext)
        var written: Int32 = 0
        guard EVP_EncryptFinal_ex(context, ciphertext.baseAddress?.assumingMemoryBound(to: UInt8.self), &written) == 1,
              cachechain_evp_gcm_get_tag(context, tag.baseAddress?.assumingMemoryBound(to: UInt8.self), Int32(tag.count)) == 1
        else { throw openSSLFailure("AES-256-GCM seal") }
    }

    /// Decrypts `ciphertext` into `plaintext` (same length) and checks the tag. On a mismatch the output is
    /// wiped before the error is thrown, so unauthenticated plaintext never leaves this call.
    /// - Throws: ``CacheChainError/Code/integrityCheckFailed`` when the tag does not match.
    func open(
        nonce: UnsafeRawBufferPointer,
        aad: UnsafeRawBufferPointer,
        ciphertext: UnsafeRawBufferPointer,
        tag: UnsafeRawBufferPointer,
        plaintext: UnsafeMutableRawBufferPointer
    ) throws(CacheChainError) {
        precondition(!isEncrypting, "open on an encryption context")
        precondition(plaintext.count >= ciphertext.count, "wrong output size")
        guard tag.count == AES256GCM.tagByteCount else {
            throw CacheChainError(.integrityCheckFailed, "AES-256-GCM tag has \(tag.count) bytes, expected 16")
        }
        do throws(CacheChainError) {
            try start(nonce: nonce, aad: aad)
            try update(input: ciphertext, output: plaintext)
            var written: Int32 = 0
            guard cachechain_evp_gcm_set_tag(context, tag.baseAddress?.assumingMemoryBound(to: UInt8.self), Int32(tag.count)) == 1,
                  EVP_DecryptFinal_ex(context, plaintext.baseAddress?.assumingMemoryBound(to: UInt8.self), &written) == 1
            else {
                _ = openSSLFailure("AES-256-GCM open")  // drains the error queue
                throw CacheChainError(.integrityCheckFailed, "AES-256-GCM authentication failed")
            }
        } catch {
            cachechain_cleanse(plaintext.baseAddress, ciphertext.count)
            throw error
        }
    }

    private func start(nonce: UnsafeRawBufferPointer, aad: UnsafeRawBufferPointer) throws(CacheChainError) {
        guard nonce.count == AES256GCM.nonceByteCount else {
            throw CacheChainError(.storageFailed, "AES-256-GCM needs a 12-byte nonce, got \(nonce.count) bytes")
        }
        let mode: Int32 = isEncrypting ? 1 : 0
        guard EVP_CipherInit_ex(context, nil, nil, nil, nonce.baseAddress?.assumingMemoryBound(to: UInt8.self), mode) == 1 else {
            throw openSSLFailure("AES-256-GCM nonce setup")
        }
        var offset = 0
        while offset < aad.count {
            let length = min(aad.count - offset, 1 << 30)
            var written: Int32 = 0
            guard EVP_CipherUpdate(context, nil, &written, aad.baseAddress?.advanced(by: offset).assumingMemoryBound(to: UInt8.self), Int32(length)) == 1 else {
                throw openSSLFailure("AES-256-GCM associated data")
            }
            offset += length
        }
    }

    private func update(input: UnsafeRawBufferPointer, output: UnsafeMutableRawBufferPointer) throws(CacheChainError) {
        var offset = 0
        while offset < input.count {
            let length = min(input.count - offset, 1 << 30)
            var written: Int32 = 0
            guard EVP_CipherUpdate(
                context,
                output.baseAddress?.advanced(by: offset).assumingMemoryBound(to: UInt8.self),
                &written,
                input.baseAddress?.advanced(by: offset).assumingMemoryBound(to: UInt8.self),
                Int32(length)
            ) == 1, Int(written) == length else { throw openSSLFailure("AES-256-GCM update") }
            offset += length
        }
    }

    deinit {
        EVP_CIPHER_CTX_free(context)  // also wipes the key schedule
    }
}
