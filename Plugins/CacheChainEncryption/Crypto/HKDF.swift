package import CacheChainCore
internal import COpenSSL

/// HKDF-SHA256 (RFC 5869): extract-then-expand key derivation through OpenSSL 3's `EVP_KDF`.
package enum HKDFSHA256 {
    /// Derives `outputByteCount` bytes from input keying material, a salt and context information.
    /// - Parameters:
    ///   - key: The input keying material.
    ///   - salt: The salt (empty: RFC 5869's default of 32 zero bytes).
    ///   - info: Context that separates derived keys.
    ///   - outputByteCount: At most 255 × 32 bytes.
    ///   - output: Receives the derived bytes; its count must be `outputByteCount`.
    /// - Throws: ``CacheChainError`` for a length above 8160 bytes or a libcrypto failure.
    static func derive(
        key: UnsafeRawBufferPointer,
        salt: UnsafeRawBufferPointer,
        info: UnsafeRawBufferPointer,
        into output: UnsafeMutableRawBufferPointer
    ) throws(CacheChainError) {
        guard output.count > 0, output.count <= 255 * 32 else {
            throw CacheChainError(.storageFailed, "HKDF-SHA256 cannot derive \(output.count) bytes (1…8160)")
        }
        let status = cachechain_hkdf_sha256(
            key.baseAddress?.assumingMemoryBound(to: UInt8.self), key.count,
            salt.baseAddress?.assumingMemoryBound(to: UInt8.self), salt.count,
            info.baseAddress?.assumingMemoryBound(to: UInt8.self), info.count,
            output.baseAddress?.assumingMemoryBound(to: UInt8.self), output.count
        )
        guard status == 1 else { throw openSSLFailure("HKDF-SHA256") }
    }

    /// Derives a key (array form, for tests and benchmarks).
    /// - Parameters:
    ///   - key: The input keying material.
    ///   - salt: The salt.
    ///   - info: The context information.
    ///   - outputByteCount: The number of bytes.
    /// - Returns: The derived bytes.
    /// - Throws: ``CacheChainError`` for an impossible length or a libcrypto failure.
    package static func deriveKey(key: [UInt8], salt: [UInt8], info: [UInt8], outputByteCount: Int) throws(CacheChainError) -> [UInt8] {
        var output = [UInt8](repeating: 0, count: outputByteCount)
        try key.withBytes { (keyBytes) throws(CacheChainError) in
            try salt.withBytes { (saltBytes) throws(CacheChainError) in
                try info.withBytes { (infoBytes) throws(CacheChainError) in
                    try output.withMutableBytes { (outputBytes) throws(CacheChainError) in
                        try derive(key: keyBytes, salt: saltBytes, info: infoBytes, into: outputBytes)
                    }
                }
            }
        }
        return output
    }

    /// Derives a secret from a secret, keeping the result in wiped memory.
    static func deriveKey(from key: SecureBytes, salt: UnsafeRawBufferPointer, info: [UInt8], byteCount: Int) throws(CacheChainError) -> SecureBytes {
        try SecureBytes(count: byteCount) { (output) throws(CacheChainError) in
            try key.withBytes { (keyBytes) throws(CacheChainError) in
                try info.withBytes { (infoBytes) throws(CacheChainError) in
                    try derive(key: keyBytes, salt: salt, info: infoBytes, into: output)
                }
            }
        }
    }
}
