import CacheChainCore

/// The clear-text start of every sealed entry (integers big-endian):
///
/// ```
/// magic "CCEN" (4) · format version (1) · key ID length n (1) · key ID (n, ASCII) · salt (32) · nonce (12) ·
/// segment size (4)
/// ```
///
/// followed by the segments, each `ciphertext · tag (16)`, whose plaintext is one `EntryCodec` record.
/// The version is the entry format's, `EntryCodec.version`. Every byte of the header is authenticated: it
/// is the start of every segment's associated data.
struct EnvelopeHeader {
    static let magic: [UInt8] = Array("CCEN".utf8)
    static let version = EntryCodec.version
    static let saltByteCount = 32
    static let defaultSegmentSize = 64 * 1024
    static let segmentSizes = 1024...(16 << 20)
    /// The longest header: a 255-byte key ID.
    static let maximumByteCount = 4 + 1 + 1 + 255 + saltByteCount + AES256GCM.nonceByteCount + 4

    let keyID: String
    let salt: [UInt8]
    let nonce: [UInt8]
    let segmentSize: Int
    /// The header's bytes as stored.
    let encoded: [UInt8]

    /// Builds a fresh header with a random salt and nonce.
    init(keyID: String, segmentSize: Int) throws(CacheChainError) {
        let random = try SecureRandom.bytes(Self.saltByteCount + AES256GCM.nonceByteCount)
        self.keyID = keyID
        salt = Array(random[0..<Self.saltByteCount])
        nonce = Array(random[Self.saltByteCount...])
        self.segmentSize = segmentSize
        var writer = BinaryWriter(byteOrder: .bigEndian, capacity: Self.maximumByteCount)
        writer.raw(Self.magic)
        writer.u8(Self.version)
        writer.u8(UInt8(keyID.utf8.count))
        writer.raw(keyID.utf8)
        writer.raw(salt)
        writer.raw(nonce)
        writer.u32(UInt32(segmentSize))
        encoded = writer.bytes
    }

    private init(keyID: String, salt: [UInt8], nonce: [UInt8], segmentSize: Int, encoded: [UInt8]) {
        self.keyID = keyID
        self.salt = salt
        self.nonce = nonce
        self.segmentSize = segmentSize
        self.encoded = encoded
    }

    /// Parses a header from the first bytes of an envelope.
    /// - Returns: The header, or `nil` when `bytes` is too short to hold it yet.
    /// - Throws: ``CacheChainError/Code/integrityCheckFailed`` for a foreign magic, an unknown version or a
    ///   malformed field.
    static func parse(_ bytes: UnsafeRawBufferPointer) throws(CacheChainError) -> EnvelopeHeader? {
        guard let layout = try Layout(bytes) else { return nil }
        let id = try layout.validKeyID(in: bytes)
        return EnvelopeHeader(
            keyID: id,
            salt: Array(bytes[layout.salt..<layout.salt + saltByteCount]),
            nonce: Array(bytes[layout.nonce..<layout.nonce + AES256GCM.nonceByteCount]),
            segmentSize: layout.segmentSize,
            encoded: Array(bytes[0..<layout.count])
        )
    }

    /// The nonce of segment `index`: the header's nonce with its last four bytes XORed with the index.
    func nonce(forSegment index: UInt32, into output: inout [UInt8]) {
        output = nonce
        output[8] ^= UInt8(truncatingIfNeeded: index >> 24)
        output[9] ^= UInt8(truncatingIfNeeded: index >> 16)
        output[10] ^= UInt8(truncatingIfNeeded: index >> 8)
        output[11] ^= UInt8(truncatingIfNeeded: index)
    }

    static func damaged(_ why: String) -> CacheChainError {
        CacheChainError(.integrityCheckFailed, "an encrypted entry's envelope is malformed: \(why)")
    }
}
