package import CacheChainCore
internal import COpenSSL

/// HMAC-SHA256 (RFC 2104) through libcrypto.
package enum HMACSHA256 {
    /// The tag length in bytes.
    package static let byteCount = 32

    /// Computes the 32-byte tag of `message` under `key`.
    /// - Parameters:
    ///   - key: The key, any length.
    ///   - message: The message.
    /// - Returns: The tag.
    /// - Throws: ``CacheChainError`` when libcrypto fails.
    static func authenticationCode(key: UnsafeRawBufferPointer, message: UnsafeRawBufferPointer) throws(CacheChainError) -> [UInt8] {
        var tag = [UInt8](repeating: 0, count: byteCount)
        let status = tag.withUnsafeMutableBufferPointer { output in
            cachechain_hmac_sha256(
                key.baseAddress?.assumingMemoryBound(to: UInt8.self), key.count,
                message.baseAddress?.assumingMemoryBound(to: UInt8.self), message.count,
                output.baseAddress
            )
        }
        guard status == 1 else { throw openSSLFailure("HMAC-SHA256") }
        return tag
    }

    /// Computes the tag of `message` under `key` (array form, for tests and benchmarks).
    /// - Parameters:
    ///   - key: The key.
    ///   - message: The message.
    /// - Returns: The 32-byte tag.
    /// - Throws: ``CacheChainError`` when libcrypto fails.
    package static func authenticationCode(key: [UInt8], message: [UInt8]) throws(CacheChainError) -> [UInt8] {
        try key.withBytes { (keyBytes) throws(CacheChainError) in
            try message.withBytes { (messageBytes) throws(CacheChainError) in
                try authenticationCode(key: keyBytes, message: messageBytes)
            }
        }
    }

    /// Computes the tag of `message` under a secret key.
    static func authenticationCode(key: SecureBytes, message: [UInt8]) throws(CacheChainError) -> [UInt8] {
        try key.withBytes { (keyBytes) throws(CacheChainError) in
            try message.withBytes { (messageBytes) throws(CacheChainError) in
                try authenticationCode(key: keyBytes, message: messageBytes)
            }
        }
    }
}
