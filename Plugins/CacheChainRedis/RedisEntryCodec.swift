import CacheChainCore

/// A variant's value in its entry hash: the entry's `EntryCodec` record, with the body inline or, for a
/// body stored apart, the 36-character id of its key `<namespace>:b:<id>` as the record's reference. The
/// record's checksum is the XXH64 of metadata + body, checked on read.
enum RedisEntryCodec {
    /// What a damaged value is called in errors.
    static let subject = "a Redis entry"

    /// A decoded value: the entry (with its inline body, or an empty one) and where its body is.
    struct Decoded {
        var entry: CacheEntry
        var header: EntryCodec.Header
        /// The metadata's bytes: the start of a referenced body's checksum.
        var metadata: [UInt8]
        /// The id of the body key, or `nil` for an inline body.
        var bodyID: String?
    }

    /// The value of an entry whose body is inline.
    static func encode(_ entry: CacheEntry, inlineBody body: [UInt8]) -> [UInt8] {
        let metadata = EntryCodec.encodeMetadata(entry)
        var checksum = RedisChecksum()
        metadata.withUnsafeBytes { checksum.update($0) }
        body.withUnsafeBytes { checksum.update($0) }
        return EntryCodec.record(metadata: metadata, body: body, bodyLength: body.count, checksum: checksum.finalize())
    }

    /// The value of an entry whose body was written to the body key with id `bodyID`.
    /// - Parameters:
    ///   - metadata: The entry's `EntryCodec` metadata.
    ///   - checksum: The XXH64 of the metadata followed by the body.
    static func encode(metadata: [UInt8], bodyLength: Int, bodyID: String, checksum: UInt64) -> [UInt8] {
        EntryCodec.record(metadata: metadata, bodyLength: bodyLength, reference: Array(bodyID.utf8), checksum: checksum)
    }

    /// Decodes a value; an inline body is checked against the checksum here, a referenced one when it is read.
    /// - Throws: `integrity-check-failed` when the value is damaged, foreign or of another format version
    ///   (an older build's JSON values included).
    static func decode(_ bytes: [UInt8]) throws(CacheChainError) -> Decoded {
        let result = bytes.withUnsafeBytes { raw in
            Result { () throws(CacheChainError) -> Decoded in
                let parts = try EntryCodec.Parts(raw, subject: subject)
                var decoded = Decoded(
                    entry: try EntryCodec.decodeMetadata(parts.metadata, body: .empty, subject: subject),
                    header: parts.header, metadata: Array(parts.metadata),
                    bodyID: parts.reference.isEmpty ? nil : String(decoding: parts.reference, as: UTF8.self)
                )
                guard decoded.bodyID == nil else { return decoded }
                var checksum = RedisChecksum()
                checksum.update(parts.metadata)
                checksum.update(parts.body)
                guard checksum.finalize() == parts.header.checksum else {
                    throw CacheChainError(.integrityCheckFailed, "a Redis entry does not match its checksum", cacheKey: decoded.entry.key)
                }
                decoded.entry.replaceBody(with: PipelineBody(Array(parts.body)))
                return decoded
            }
        }
        return try result.get()
    }
}
