import CacheChainCore
internal import COpenSSL

extension EnvelopeCodec {
    /// The fast path of ``open(_:names:keys:metadataOnly:spool:)`` for the common small entry: an in-memory
    /// envelope of exactly one segment is opened with one AES-GCM call on the envelope's own bytes and the
    /// kept context of its subkey, without the streaming buffers.
    ///
    /// The same checks as the streaming path — the segment is opened as segment 0 and final, with the same
    /// nonce and associated data; the plaintext must hold exactly its metadata and the body length the
    /// metadata records — with the same errors. Nothing is returned before the tag is verified, and the
    /// decrypted buffer is wiped once the body is copied out of it.
    /// - Returns: The entry, or `nil` when the envelope is not one whole segment (the streaming path then
    ///   opens it, or says what is wrong with it).
    static func openSingleSegment(
        _ envelope: [UInt8],
        names: EntryNames,
        keys: any KeyProvider,
        metadataOnly: Bool
    ) throws(CacheChainError) -> CacheEntry? {
        let header = try envelope.withBytes { (bytes) throws(CacheChainError) in try EnvelopeHeader.parse(bytes) }
        guard let header else { return nil }
        let sealedCount = envelope.count - header.encoded.count
        guard sealedCount >= AES256GCM.tagByteCount, sealedCount <= header.segmentSize + AES256GCM.tagByteCount else { return nil }
        let key = try providedKey(header, keys)
        var aad = aadPrefix(header, names) + [0, 0, 0, 0, 0]
        SegmentAAD.set(&aad, index: 0, final: true)
        var nonce: [UInt8] = []
        header.nonce(forSegment: 0, into: &nonce)
        let count = sealedCount - AES256GCM.tagByteCount
        var plaintext = [UInt8](repeating: 0, count: count)
        defer { plaintext.withUnsafeMutableBytes { cachechain_cleanse($0.baseAddress, $0.count) } }
        try subkey(key, header).withOpeningContext { (context) throws(CacheChainError) in
            do throws(CacheChainError) {
                try envelope.withBytes { (bytes) throws(CacheChainError) in
                    let sealed = UnsafeRawBufferPointer(rebasing: bytes[header.encoded.count...])
                    try nonce.withBytes { (nonceBytes) throws(CacheChainError) in
                        try aad.withBytes { (aadBytes) throws(CacheChainError) in
                            try plaintext.withMutableBytes { (output) throws(CacheChainError) in
                                try context.open(
                                    nonce: nonceBytes, aad: aadBytes,
                                    ciphertext: UnsafeRawBufferPointer(rebasing: sealed[0..<count]),
                                    tag: UnsafeRawBufferPointer(rebasing: sealed[count...]),
                                    plaintext: output
                                )
                            }
                        }
                    }
                }
            } catch {
                throw SegmentOpener.failedAuthentication(segment: 0)
            }
        }
        return try entry(from: plaintext, key: key, salt: header.salt, metadataOnly: metadataOnly)
    }

    /// The entry in an authenticated plaintext `metadata length (4) · metadata · body`.
    private static func entry(
        from plaintext: [UInt8],
        key: EncryptionKey,
        salt: [UInt8],
        metadataOnly: Bool
    ) throws(CacheChainError) -> CacheEntry {
        guard plaintext.count >= 4 else { throw PlaintextAssembler.malformed("metadata missing") }
        let length = plaintext[0..<4].reduce(0) { $0 << 8 | Int($1) }
        guard length <= PlaintextAssembler.maximumMetadataLength else { throw PlaintextAssembler.malformed("metadata length") }
        guard plaintext.count - 4 >= length else { throw PlaintextAssembler.malformed("metadata missing") }
        let metadata = Array(plaintext[4..<4 + length])
        let decoded = try key.derived.metadata(salt: salt, plaintext: metadata)
        if metadataOnly { return decoded.entry }
        let bodyCount = plaintext.count - 4 - length
        guard bodyCount <= decoded.bodyLength else { throw PlaintextAssembler.malformed("body longer than recorded") }
        guard bodyCount == decoded.bodyLength else { throw PlaintextAssembler.malformed("body shorter than recorded") }
        var entry = decoded.entry
        entry.cached.body = BodyBytes.body(Array(plaintext[(4 + length)...]))
        return entry
    }
}
