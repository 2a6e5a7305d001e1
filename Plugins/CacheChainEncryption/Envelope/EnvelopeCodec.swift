import CacheChainCore

/// Seals an entry into an envelope and opens envelopes back into entries.
///
/// Each entry gets its own AES-256-GCM subkey, `HKDF-SHA256(master key, salt, "CacheChain entry v1")`
/// with the header's random 32-byte salt, so no two entries share a key and nonces never repeat under one
/// key. The associated data of every segment is `header · entry name · variant name · index · final flag`:
/// the names are the inner entry's key and variant (HMACs of the real cache key and variant under the
/// master key's naming key), so an envelope moved under another entry fails to open.
enum EnvelopeCodec {
    static let subkeyInfo = Array("CacheChain entry v1".utf8)

    /// Seals `entry` under `key`, segment by segment.
    /// - Returns: The envelope: in memory, or in a temporary file of `spool` when larger than its limit.
    static func seal(
        _ entry: CacheEntry,
        key: EncryptionKey,
        names: EntryNames,
        segmentSize: Int = EnvelopeHeader.defaultSegmentSize,
        spool: SpoolPolicy
    ) throws(CacheChainError) -> PipelineBody {
        let header = try EnvelopeHeader(keyID: key.id, segmentSize: segmentSize)
        var metadata = EntryCodec.encodeMetadata(entry)
        defer { wipe(&metadata) }
        let bodyCount = BodyBytes.count(of: entry.cached.body)
        // The envelope authenticates the record: no checksum of its own.
        let record = EntryCodec.Header(metadataLength: metadata.count, bodyLength: bodyCount).bytes
        let plaintextCount = record.count + metadata.count + bodyCount
        let sealer = try SegmentSealer(
            subkey: try subkey(key, header).subkey, header: header, aadPrefix: aadPrefix(header, names), expectedCount: plaintextCount
        )
        let sealedCount = header.encoded.count + SegmentSealer.sealedByteCount(plaintextCount: plaintextCount, segmentSize: segmentSize)
        let envelope = try ByteSink(expectedCount: sealedCount, policy: spool)
        try header.encoded.withBytes { (bytes) throws(CacheChainError) in try envelope.append(bytes) }
        let emit = { (sealed: UnsafeRawBufferPointer) throws(CacheChainError) in try envelope.append(sealed) }
        try record.withBytes { (bytes) throws(CacheChainError) in try sealer.append(bytes, emit: emit) }
        try metadata.withBytes { (bytes) throws(CacheChainError) in try sealer.append(bytes, emit: emit) }
        try BodyBytes.forEachChunk(of: entry.cached.body) { (chunk) throws(CacheChainError) in
            try sealer.append(chunk, emit: emit)
            return true
        }
        try sealer.finish(emit: emit)
        return try envelope.finish()
    }

    /// Reads the clear-text header of an envelope.
    /// - Throws: ``CacheChainError/Code/integrityCheckFailed`` when it is not a valid header.
    static func header(of envelope: PipelineBody) throws(CacheChainError) -> EnvelopeHeader {
        var prefix: [UInt8] = []
        var header: EnvelopeHeader?
        try BodyBytes.forEachChunk(of: envelope, chunkSize: EnvelopeHeader.maximumByteCount) { (chunk) throws(CacheChainError) in
            appendBytes(UnsafeRawBufferPointer(rebasing: chunk.prefix(EnvelopeHeader.maximumByteCount - prefix.count)), to: &prefix)
            header = try prefix.withBytes { (bytes) throws(CacheChainError) in try EnvelopeHeader.parse(bytes) }
            return header == nil
        }
        guard let header else { throw CacheChainError(.integrityCheckFailed, "an encrypted entry is truncated inside its header") }
        return header
    }

    /// Opens an envelope stored as the inner entry `sealed`.
    /// - Parameters:
    ///   - sealed: The inner entry: its body is the envelope, its names are bound as associated data.
    ///   - keys: Where the key named in the header is looked up.
    ///   - likelyKey: The key whose names found the entry, if known: used without asking `keys` when the
    ///     header names it.
    ///   - metadataOnly: Stops after the metadata; the entry's body is then empty.
    ///   - spool: Where a body larger than its in-memory limit is decrypted to (a temporary file).
    /// - Returns: The entry.
    /// - Throws: ``CacheChainError/Code/keyUnavailable`` when the header's key is not provided;
    ///   ``CacheChainError/Code/integrityCheckFailed`` when anything was altered, truncated or moved.
    static func open(
        _ sealed: CacheEntry,
        keys: any KeyProvider,
        likelyKey: EncryptionKey?,
        metadataOnly: Bool,
        spool: SpoolPolicy
    ) throws(CacheChainError) -> CacheEntry {
        if let bytes = sealed.cached.body.inMemoryBytes,
           let entry = try openSingleSegment(bytes, sealed: sealed, keys: keys, likelyKey: likelyKey, metadataOnly: metadataOnly) {
            return entry
        }
        return try open(sealed.cached.body, names: EntryNames(sealed: sealed), keys: keys, metadataOnly: metadataOnly, spool: spool)
    }

    /// Opens an envelope stored under `names`, finding its key in `keys`, segment by segment (the general
    /// path of ``open(_:keys:likelyKey:metadataOnly:spool:)``).
    /// - Parameters:
    ///   - envelope: The sealed bytes.
    ///   - names: The inner entry's names (bound as associated data).
    ///   - keys: Where the key named in the header is looked up.
    ///   - metadataOnly: Stops after the metadata; the entry's body is then empty.
    ///   - spool: Where a body larger than its in-memory limit is decrypted to (a temporary file).
    /// - Returns: The entry.
    /// - Throws: ``CacheChainError/Code/keyUnavailable`` when the header's key is not provided;
    ///   ``CacheChainError/Code/integrityCheckFailed`` when anything was altered, truncated or moved.
    static func open(
        _ envelope: PipelineBody,
        names: EntryNames,
        keys: any KeyProvider,
        metadataOnly: Bool,
        spool: SpoolPolicy
    ) throws(CacheChainError) -> CacheEntry {
        var prefix: [UInt8] = []
        var opener: SegmentOpener?
        var assembler = PlaintextAssembler(metadataOnly: metadataOnly, spool: spool)
        let emit = { (plaintext: UnsafeRawBufferPointer) throws(CacheChainError) in try assembler.consume(plaintext) }
        try BodyBytes.forEachChunk(of: envelope) { (chunk) throws(CacheChainError) in
            var sealed = chunk
            if opener == nil {
                let before = prefix.count
                appendBytes(UnsafeRawBufferPointer(rebasing: chunk.prefix(EnvelopeHeader.maximumByteCount)), to: &prefix)
                guard let header = try prefix.withBytes({ (bytes) throws(CacheChainError) in try EnvelopeHeader.parse(bytes) }) else {
                    guard chunk.count <= EnvelopeHeader.maximumByteCount else {
                        throw CacheChainError(.integrityCheckFailed, "an encrypted entry's header is malformed")
                    }
                    return true
                }
                let key = try providedKey(header, keys)
                assembler.remember(in: key.derived, salt: header.salt)
                opener = try SegmentOpener(
                    subkey: try subkey(key, header).subkey, header: header, aadPrefix: aadPrefix(header, names),
                    expectedCount: BodyBytes.count(of: envelope) - header.encoded.count
                )
                sealed = UnsafeRawBufferPointer(rebasing: chunk[(header.encoded.count - before)...])
            }
            guard let opener else { return true }
            // In metadata-only mode, feed one segment (and a byte, so it is known not to be the last) at a
            // time and stop once the metadata is in: bodies are never decrypted for management calls.
            let step = metadataOnly ? opener.segmentSize + AES256GCM.tagByteCount + 1 : Int.max
            var offset = 0
            while offset < sealed.count, !assembler.isComplete {
                let end = offset + min(step, sealed.count - offset)
                try opener.append(UnsafeRawBufferPointer(rebasing: sealed[offset..<end]), emit: emit)
                offset = end
            }
            return !assembler.isComplete
        }
        if !assembler.isComplete {
            guard let opener else { throw CacheChainError(.integrityCheckFailed, "an encrypted entry is truncated inside its header") }
            try opener.finish(emit: emit)
        }
        return try assembler.finish()
    }

    /// The key named in the header.
    /// - Throws: ``CacheChainError/Code/keyUnavailable`` when `keys` does not provide it (any more).
    static func providedKey(_ header: EnvelopeHeader, _ keys: any KeyProvider) throws(CacheChainError) -> EncryptionKey {
        try providedKey(id: header.keyID, keys)
    }

    /// The provided key with ID `id`.
    /// - Throws: ``CacheChainError/Code/keyUnavailable`` when `keys` does not provide it (any more).
    static func providedKey(id: String, _ keys: any KeyProvider) throws(CacheChainError) -> EncryptionKey {
        guard let key = keys.key(withID: id) else {
            throw CacheChainError(
                .keyUnavailable,
                "an encrypted entry was sealed with key \(id), which is no longer provided (rotated out or destroyed)"
            )
        }
        return key
    }

    /// The envelope's subkey, remembered by the key (``DerivedKeyCache``) under the header's random salt
    /// with a decryption context keyed with it.
    static func subkey(_ key: EncryptionKey, _ header: EnvelopeHeader) throws(CacheChainError) -> SubkeyContexts {
        try key.derived.subkey(salt: header.salt) { () throws(CacheChainError) in
            try header.salt.withBytes { (salt) throws(CacheChainError) in
                try HKDFSHA256.deriveKey(from: key.material, salt: salt, info: subkeyInfo, byteCount: AES256GCM.keyByteCount)
            }
        }
    }

    static func aadPrefix(_ header: EnvelopeHeader, _ names: EntryNames) -> [UInt8] {
        var writer = BinaryWriter(byteOrder: .bigEndian, capacity: header.encoded.count + 160)
        writer.raw(header.encoded)
        writer.string(names.entry)
        writer.string(names.variant)
        return writer.bytes
    }
}
