import CacheChainCore
internal import COpenSSL

extension EnvelopeCodec {
    /// The fast path of ``open(_:keys:likelyKey:metadataOnly:spool:)`` for the common small entry: an in-memory
    /// envelope of exactly one segment is opened with one AES-GCM call on the envelope's own bytes and the
    /// kept context of its subkey, without the streaming buffers and without copying the header's fields:
    /// the header is checked in place (``EnvelopeHeader/Layout``), the nonce is read where it lies, and the
    /// associated data is written once into a scratch buffer from the sealed entry's names.
    ///
    /// The same checks as the streaming path — the segment is opened as segment 0 and final, with the same
    /// nonce and associated data, and the same errors; the plaintext must be exactly one `EntryCodec` record
    /// with an inline body (refused as the streaming path refuses it, with the record's own wording for
    /// lengths that do not add up). Nothing is returned before the tag is verified, and the decrypted buffer
    /// is wiped once the body is copied out of it.
    /// - Parameters:
    ///   - envelope: The sealed bytes.
    ///   - sealed: The inner entry they were stored as (its names are bound as associated data).
    ///   - keys: Where the key named in the header is looked up.
    ///   - likelyKey: The key whose names found the entry: used without asking `keys` when the header names it.
    ///   - metadataOnly: Stops after the metadata; the entry's body is then empty.
    /// - Returns: The entry, or `nil` when the envelope is not one whole segment (the streaming path then
    ///   opens it, or says what is wrong with it).
    static func openSingleSegment(
        _ envelope: [UInt8],
        sealed: CacheEntry,
        keys: any KeyProvider,
        likelyKey: EncryptionKey?,
        metadataOnly: Bool
    ) throws(CacheChainError) -> CacheEntry? {
        try envelope.withBytes { (bytes) throws(CacheChainError) -> CacheEntry? in
            guard let layout = try EnvelopeHeader.Layout(bytes) else { return nil }
            let sealedCount = bytes.count - layout.count
            guard sealedCount >= AES256GCM.tagByteCount, sealedCount <= layout.segmentSize + AES256GCM.tagByteCount else { return nil }
            let key = try namedKey(UnsafeRawBufferPointer(rebasing: bytes[layout.keyID]), layout: layout, in: bytes, likely: likelyKey, keys: keys)
            let salt = EnvelopeSalt(in: bytes, at: layout.salt)
            let contexts = try key.derived.subkey(salt: salt) { () throws(CacheChainError) in
                try HKDFSHA256.deriveKey(
                    from: key.material, salt: UnsafeRawBufferPointer(rebasing: bytes[layout.salt..<layout.salt + EnvelopeHeader.saltByteCount]),
                    info: subkeyInfo, byteCount: AES256GCM.keyByteCount
                )
            }
            let count = sealedCount - AES256GCM.tagByteCount
            let plaintext = UnsafeMutableRawBufferPointer.allocate(byteCount: max(count, 1), alignment: 16)
            defer {
                cachechain_cleanse(plaintext.baseAddress, plaintext.count)
                plaintext.deallocate()
            }
            let sealedBytes = UnsafeRawBufferPointer(rebasing: bytes[layout.count...])
            let aad = segmentZeroAAD(header: UnsafeRawBufferPointer(rebasing: bytes[0..<layout.count]), sealed: sealed)
            defer { aad.deallocate() }
            try contexts.withOpeningContext { (context) throws(CacheChainError) in
                do throws(CacheChainError) {
                    try context.open(
                        nonce: UnsafeRawBufferPointer(rebasing: bytes[layout.nonce..<layout.nonce + AES256GCM.nonceByteCount]),
                        aad: UnsafeRawBufferPointer(aad),
                        ciphertext: UnsafeRawBufferPointer(rebasing: sealedBytes[0..<count]),
                        tag: UnsafeRawBufferPointer(rebasing: sealedBytes[count...]),
                        plaintext: UnsafeMutableRawBufferPointer(rebasing: plaintext[0..<count])
                    )
                } catch {
                    throw SegmentOpener.failedAuthentication(segment: 0)
                }
            }
            return try entry(from: UnsafeRawBufferPointer(rebasing: plaintext[0..<count]), key: key, salt: salt, metadataOnly: metadataOnly)
        }
    }

    /// The key a header names: `likely` when its ID is the header's (no provider call), else the provided
    /// key with that ID.
    /// - Throws: ``CacheChainError/Code/integrityCheckFailed`` for a malformed ID,
    ///   ``CacheChainError/Code/keyUnavailable`` when no provided key has it.
    private static func namedKey(
        _ id: UnsafeRawBufferPointer,
        layout: EnvelopeHeader.Layout,
        in header: UnsafeRawBufferPointer,
        likely: EncryptionKey?,
        keys: any KeyProvider
    ) throws(CacheChainError) -> EncryptionKey {
        if let likely {
            var likelyID = likely.id
            if likelyID.withUTF8({ sameBytes(UnsafeRawBufferPointer($0), id) }) { return likely }
        }
        return try providedKey(id: try layout.validKeyID(in: header), keys)
    }

    /// The associated data of segment 0 (final) of an envelope stored as `sealed`: the layout of
    /// ``aadPrefix(_:_:)`` followed by the segment index and final flag, written into one fresh buffer
    /// straight from the header bytes and the inner entry's names. The caller deallocates it.
    static func segmentZeroAAD(header: UnsafeRawBufferPointer, sealed: CacheEntry) -> UnsafeMutableRawBufferPointer {
        var path = sealed.key.path
        var variant = sealed.variantKey
        return path.withUTF8 { pathBytes in
            // The entry name is the inner path without its leading "/" (``EntryNames/init(sealed:)``).
            let entry = UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(pathBytes).dropFirst())
            return variant.withUTF8 { variantBytes in
                let variant = UnsafeRawBufferPointer(variantBytes)
                let count = header.count + 4 + entry.count + 4 + variant.count + 5
                let aad = UnsafeMutableRawBufferPointer.allocate(byteCount: count, alignment: 8)
                // header · length · entry · length · variant · index 0 (four bytes) · final flag 1
                var cursor = aad
                cursor.copyMemory(from: header)
                cursor = UnsafeMutableRawBufferPointer(rebasing: cursor[header.count...])
                putLengthPrefixed(entry, into: &cursor)
                putLengthPrefixed(variant, into: &cursor)
                cursor.storeBytes(of: 0, toByteOffset: 0, as: UInt32.self)
                cursor[4] = 1
                return aad
            }
        }
    }

    /// Writes a 32-bit big-endian length and `part` at the start of `cursor`, and moves `cursor` past them.
    private static func putLengthPrefixed(_ part: UnsafeRawBufferPointer, into cursor: inout UnsafeMutableRawBufferPointer) {
        cursor.storeBytes(of: UInt32(truncatingIfNeeded: part.count).bigEndian, toByteOffset: 0, as: UInt32.self)
        UnsafeMutableRawBufferPointer(rebasing: cursor[4...]).copyMemory(from: part)
        cursor = UnsafeMutableRawBufferPointer(rebasing: cursor[(4 + part.count)...])
    }

    /// The entry in an authenticated plaintext: one `EntryCodec` record with an inline body.
    private static func entry(
        from plaintext: UnsafeRawBufferPointer,
        key: EncryptionKey,
        salt: EnvelopeSalt,
        metadataOnly: Bool
    ) throws(CacheChainError) -> CacheEntry {
        let parts = try EntryCodec.Parts(plaintext, subject: PlaintextAssembler.subject)
        guard parts.reference.isEmpty else { throw PlaintextAssembler.malformed("body reference") }
        var entry = try key.derived.metadata(salt: salt, plaintext: parts.metadata)
        if !metadataOnly { entry.replaceBody(with: BodyBytes.body(Array(parts.body))) }
        return entry
    }
}
