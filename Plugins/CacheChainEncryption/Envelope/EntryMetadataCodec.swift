import CacheChainCore

/// The binary form of an entry's metadata, sealed at the start of every envelope's plaintext: the shared
/// ``CacheEntryMetadataCoding`` layout with big-endian integers (envelope format 1).
enum EntryMetadataCodec {
    /// What damaged metadata is called in errors.
    static let subject = "an encrypted entry's metadata"

    static func encode(_ entry: CacheEntry) -> [UInt8] {
        var writer = BinaryWriter(byteOrder: .bigEndian)
        CacheEntryMetadataCoding.encode(entry, into: &writer)
        return writer.bytes
    }

    /// Decodes metadata into an entry with an empty body; returns the stored body length too.
    static func decode(_ bytes: [UInt8]) throws(CacheChainError) -> (entry: CacheEntry, bodyLength: Int) {
        try bytes.withBytes { (raw) throws(CacheChainError) in try decode(raw) }
    }

    /// Decodes metadata into an entry with an empty body; returns the stored body length too.
    static func decode(_ bytes: UnsafeRawBufferPointer) throws(CacheChainError) -> (entry: CacheEntry, bodyLength: Int) {
        var reader = BinaryReader(bytes, byteOrder: .bigEndian, subject: subject)
        return try CacheEntryMetadataCoding.decode(&reader, body: .empty)
    }
}
