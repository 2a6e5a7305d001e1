package import CacheChainCore

/// AES-256-GCM (NIST SP 800-38D) with 96-bit nonces and 128-bit tags, over libcrypto's EVP interface.
///
/// The one-shot functions serve tests and benchmarks; the storage seals segments through a reused
/// ``AESGCMContext``.
package enum AES256GCM {
    /// The key length in bytes.
    package static let keyByteCount = 32
    /// The nonce length in bytes.
    package static let nonceByteCount = 12
    /// The tag length in bytes.
    package static let tagByteCount = 16

    /// Encrypts and authenticates a message.
    /// - Parameters:
    ///   - plaintext: The message.
    ///   - key: A 32-byte key.
    ///   - nonce: A 12-byte nonce, never reused under the same key.
    ///   - aad: Associated data, authenticated but not encrypted.
    /// - Returns: The ciphertext (as long as the plaintext) and the 16-byte tag.
    /// - Throws: ``CacheChainError`` for wrong sizes or a libcrypto failure.
    package static func seal(
        _ plaintext: [UInt8],
        key: [UInt8],
        nonce: [UInt8],
        authenticating aad: [UInt8] = []
    ) throws(CacheChainError) -> (ciphertext: [UInt8], tag: [UInt8]) {
        var ciphertext = [UInt8](repeating: 0, count: plaintext.count)
        var tag = [UInt8](repeating: 0, count: tagByteCount)
        let context = try key.withBytes { (keyBytes) throws(CacheChainError) in
            try AESGCMContext(key: keyBytes, encrypting: true)
        }
        try nonce.withBytes { (nonceBytes) throws(CacheChainError) in
            try aad.withBytes { (aadBytes) throws(CacheChainError) in
                try plaintext.withBytes { (input) throws(CacheChainError) in
                    try ciphertext.withMutableBytes { (output) throws(CacheChainError) in
                        try tag.withMutableBytes { (tagBytes) throws(CacheChainError) in
                            try context.seal(nonce: nonceBytes, aad: aadBytes, plaintext: input, ciphertext: output, tag: tagBytes)
                        }
                    }
                }
            }
        }
        return (ciphertext, tag)
    }

    /// Checks and decrypts a message.
    /// - Parameters:
    ///   - ciphertext: The ciphertext.
    ///   - tag: The 16-byte tag.
    ///   - key: The 32-byte key.
    ///   - nonce: The 12-byte nonce.
    ///   - aad: The associated data given to ``seal(_:key:nonce:authenticating:)``.
    /// - Returns: The plaintext.
    /// - Throws: ``CacheChainError/Code/integrityCheckFailed`` when anything was altered; no plaintext then.
    package static func open(
        _ ciphertext: [UInt8],
        tag: [UInt8],
        key: [UInt8],
        nonce: [UInt8],
        authenticating aad: [UInt8] = []
    ) throws(CacheChainError) -> [UInt8] {
        var plaintext = [UInt8](repeating: 0, count: ciphertext.count)
        let context = try key.withBytes { (keyBytes) throws(CacheChainError) in
            try AESGCMContext(key: keyBytes, encrypting: false)
        }
        try nonce.withBytes { (nonceBytes) throws(CacheChainError) in
            try aad.withBytes { (aadBytes) throws(CacheChainError) in
                try ciphertext.withBytes { (input) throws(CacheChainError) in
                    try tag.withBytes { (tagBytes) throws(CacheChainError) in
                        try plaintext.withMutableBytes { (output) throws(CacheChainError) in
                            try context.open(nonce: nonceBytes, aad: aadBytes, ciphertext: input, tag: tagBytes, plaintext: output)
                        }
                    }
                }
            }
        }
        return plaintext
    }

    /// Encrypts `input` into `output` in place-sized segments under one key schedule, as the storage does:
    /// for throughput measurements.
    /// - Parameters:
    ///   - input: The plaintext.
    ///   - output: Receives the ciphertext; at least as long as `input`.
    ///   - key: The 32-byte key.
    ///   - segmentSize: The bytes sealed per nonce.
    /// - Throws: ``CacheChainError`` on a libcrypto failure.
    package static func sealSegments(
        _ input: UnsafeRawBufferPointer,
        into output: UnsafeMutableRawBufferPointer,
        key: [UInt8],
        segmentSize: Int
    ) throws(CacheChainError) {
        let context = try key.withBytes { (keyBytes) throws(CacheChainError) in
            try AESGCMContext(key: keyBytes, encrypting: true)
        }
        var nonce = [UInt8](repeating: 0, count: nonceByteCount)
        var tag = [UInt8](repeating: 0, count: tagByteCount)
        var offset = 0
        var index: UInt32 = 0
        while offset < input.count {
            let end = min(input.count, offset + segmentSize)
            withUnsafeBytes(of: index.bigEndian) { for position in 0..<4 { nonce[8 + position] = $0[position] } }
            try nonce.withBytes { (nonceBytes) throws(CacheChainError) in
                try tag.withMutableBytes { (tagBytes) throws(CacheChainError) in
                    try context.seal(
                        nonce: nonceBytes,
                        aad: UnsafeRawBufferPointer(start: nil, count: 0),
                        plaintext: UnsafeRawBufferPointer(rebasing: input[offset..<end]),
                        ciphertext: UnsafeMutableRawBufferPointer(rebasing: output[offset..<end]),
                        tag: tagBytes
                    )
                }
            }
            offset = end
            index += 1
        }
    }
}
