import CacheChainCore

/// The binary form of an entry's metadata on disk (everything but the body), version 1: the version byte,
/// then the shared ``CacheEntryMetadataCoding`` layout with little-endian integers.
///
/// Binary rather than JSON because it is decoded on every hit: `Codable` + `JSONDecoder` costs tens of
/// microseconds per entry, this a few.
enum DiskEntryCodec {
    static let version: UInt8 = 1

    /// What damaged metadata is called in errors.
    static let subject = "a disk cache entry's metadata"

    static func encodeMeta(_ entry: CacheEntry) -> [UInt8] {
        var writer = BinaryWriter(byteOrder: .littleEndian)
        writer.u8(version)
        CacheEntryMetadataCoding.encode(entry, into: &writer)
        return writer.bytes
    }

    /// Decodes metadata held in an array.
    static func decodeMeta(_ bytes: [UInt8], body: HTTPBody) throws(CacheChainError) -> (entry: CacheEntry, bodyLength: Int) {
        let result = bytes.withUnsafeBytes { raw in
            Result { () throws(CacheChainError) in try decodeMeta(raw, body: body) }
        }
        return try result.get()
    }

    /// Decodes metadata into an entry whose body is `body`; returns the stored body length too.
    static func decodeMeta(
        _ bytes: UnsafeRawBufferPointer,
        body: HTTPBody
    ) throws(CacheChainError) -> (entry: CacheEntry, bodyLength: Int) {
        var reader = BinaryReader(bytes, byteOrder: .littleEndian, subject: subject)
        guard try reader.u8() == version else {
            throw CacheChainError(.integrityCheckFailed, "a disk cache entry has an unknown metadata version")
        }
        return try CacheEntryMetadataCoding.decode(&reader, body: body)
    }
}
