package import CacheChainCore
internal import COpenSSL

/// Cryptographically secure random bytes from OpenSSL's CSPRNG (`RAND_bytes`).
package enum SecureRandom {
    /// Fills a buffer with random bytes.
    /// - Parameter buffer: The buffer to fill.
    /// - Throws: ``CacheChainError`` when the generator is not seeded or fails.
    static func fill(_ buffer: UnsafeMutableRawBufferPointer) throws(CacheChainError) {
        guard buffer.count > 0 else { return }
        guard RAND_bytes(buffer.baseAddress?.assumingMemoryBound(to: UInt8.self), Int32(buffer.count)) == 1 else {
            throw openSSLFailure("RAND_bytes")
        }
    }

    /// Returns `count` random bytes.
    /// - Parameter count: How many.
    /// - Returns: The bytes.
    /// - Throws: ``CacheChainError`` when the generator fails.
    package static func bytes(_ count: Int) throws(CacheChainError) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        try bytes.withMutableBytes { (buffer) throws(CacheChainError) in try fill(buffer) }
        return bytes
    }
}
