import CacheChainCore
import CacheChainTesting
import Foundation
import HTTPTypes
import Testing

/// The one entry codec of every backend: its metadata layout byte for byte, its record header, and how it
/// refuses bytes of another format version or whose lengths do not add up.
@Suite("EntryCodec: the stored form of an entry")
struct EntryCodecTests {
    @Test("the metadata of a fixed entry encodes to the recorded bytes (format 5) and decodes back")
    func golden() throws {
        let entry = MetadataGoldenEntry.entry
        let bytes = EntryCodec.encodeMetadata(entry)
        #expect(MetadataGoldenEntry.hex(bytes) == Self.recorded)
        let decoded = try EntryCodec.decodeMetadata(bytes, body: entry.cached.body, subject: "test metadata")
        #expect(decoded == entry)
    }

    @Test("every storage policy and every field indexing strategy has its recorded one-byte code, and decodes back")
    func oneByteCodes() throws {
        // The policy is the byte before the three trailing times (3 × 8 bytes).
        for (policy, code) in [(StoragePolicy.allowed, UInt8(0)), (.allowedInMemoryOnly, 1), (.notAllowed, 2)] {
            var entry = MetadataGoldenEntry.entry
            entry.cached.storagePolicy = policy
            let bytes = EntryCodec.encodeMetadata(entry)
            #expect(bytes[bytes.count - 25] == code, "\(policy)")
            #expect(try EntryCodec.decodeMetadata(bytes, body: entry.cached.body, subject: "test").cached.storagePolicy == policy)
        }
        // The strategy of the entry's last response field (`Set-Cookie`), found where two encodings differ.
        func encoded(_ strategy: HTTPField.DynamicTableIndexingStrategy) -> (entry: CacheEntry, bytes: [UInt8]) {
            let golden = MetadataGoldenEntry.entry
            var cached = golden.cached
            var fields = Array(cached.response.headerFields)
            fields[fields.count - 1].indexingStrategy = strategy
            cached.response.headerFields = HTTPFields(fields)
            // Built anew: `HTTPFields` equality ignores indexing strategies, so the `cached` setter would keep the old head.
            let entry = CacheEntry(
                restoringKey: golden.key, variantKey: golden.variantKey, request: golden.request, cached: cached, storedAt: golden.storedAt
            )
            return (entry, EntryCodec.encodeMetadata(entry))
        }
        let position = try #require(zip(encoded(.prefer).bytes, encoded(.avoid).bytes).enumerated().first { $1.0 != $1.1 }?.offset)
        for (strategy, code) in [(HTTPField.DynamicTableIndexingStrategy.automatic, UInt8(0)), (.prefer, 1), (.avoid, 2), (.disallow, 3)] {
            let (entry, bytes) = encoded(strategy)
            #expect(bytes[position] == code, "\(strategy)")
            let decoded = try EntryCodec.decodeMetadata(bytes, body: entry.cached.body, subject: "test")
            #expect(decoded.cached.response.headerFields.last?.indexingStrategy == strategy)
        }
    }

    @Test("a record splits back into header, reference, metadata and body; the key decodes alone")
    func record() throws {
        let entry = MetadataGoldenEntry.entry
        let metadata = EntryCodec.encodeMetadata(entry)
        let inline = EntryCodec.record(metadata: metadata, body: Array("hello".utf8), bodyLength: 5, checksum: 42)
        #expect(MetadataGoldenEntry.hex(inline.prefix(EntryCodec.headerSize))
            == "43434445" + "05" + "00" + "4b010000" + "0500000000000000" + "2a00000000000000")
        try inline.withUnsafeBytes { raw in
            let parts = try EntryCodec.Parts(raw, subject: "test record")
            #expect(parts.header == EntryCodec.Header(metadataLength: metadata.count, bodyLength: 5, checksum: 42))
            #expect(parts.reference.isEmpty)
            #expect(Array(parts.metadata) == metadata)
            #expect(Array(parts.body) == Array("hello".utf8))
        }
        let referenced = EntryCodec.record(metadata: metadata, bodyLength: 1 << 40, reference: Array("elsewhere".utf8), checksum: 7)
        try referenced.withUnsafeBytes { raw in
            let parts = try EntryCodec.Parts(raw, subject: "test record")
            #expect(parts.header.referenceLength == 9)
            #expect(parts.header.bodyLength == 1 << 40)
            #expect(String(decoding: parts.reference, as: UTF8.self) == "elsewhere")
            #expect(Array(parts.metadata) == metadata)
            #expect(parts.body.isEmpty)
        }
        #expect(EntryCodec.decodeKey(EntryCodec.encodeKey(entry.key)) == entry.key)
        #expect(EntryCodec.decodeKey(EntryCodec.encodeKey(entry.key) + [0]) == nil)
        #expect(EntryCodec.decodeKey(Array("{\"method\":\"GET\"}".utf8)) == nil)
    }

    @Test(
        "a record of another format version is refused with an error naming both versions",
        arguments: [UInt8(1), 4, 6, 255]
    )
    func otherVersion(found: UInt8) throws {
        var record = EntryCodec.record(metadata: EntryCodec.encodeMetadata(MetadataGoldenEntry.entry), body: [], bodyLength: 0, checksum: 0)
        record[4] = found
        let error = #expect(throws: CacheChainError.self) {
            try record.withUnsafeBytes { raw in _ = try EntryCodec.Parts(raw, subject: "a test record") }
        }
        #expect(error?.code == .integrityCheckFailed)
        #expect(error?.message.contains("unknown format version \(found)") == true, "\(String(describing: error))")
        #expect(error?.message.contains("reads format \(EntryCodec.version)") == true)
        #expect(error?.message.contains(found < EntryCodec.version ? "older" : "newer") == true)
    }

    @Test("truncated, extended, foreign or impossible records and metadata are typed errors, never a trap")
    func damaged() throws {
        let metadata = EntryCodec.encodeMetadata(MetadataGoldenEntry.entry)
        let record = EntryCodec.record(metadata: metadata, body: [1, 2, 3], bodyLength: 3, checksum: 0)
        var huge = record
        for offset in 10..<18 { huge[offset] = 0xFF }  // body length 2^64 - 1
        var overflowing = record
        for offset in 6..<10 { overflowing[offset] = 0xFF }  // metadata length 2^32 - 1
        let cases: [[UInt8]] = [
            [], Array(record.prefix(EntryCodec.headerSize - 1)), Array(record.dropLast()), record + [0],
            Array("CCEN".utf8) + Array(record.dropFirst(4)), huge, overflowing,
        ]
        for bytes in cases {
            #expect(throws: CacheChainError.self) {
                try bytes.withUnsafeBytes { raw in _ = try EntryCodec.Parts(raw, subject: "a test record") }
            }
        }
        for cut in [0, 1, metadata.count / 2, metadata.count - 1] {
            #expect(throws: CacheChainError.self) {
                try EntryCodec.decodeMetadata(Array(metadata.prefix(cut)), body: .empty, subject: "test metadata")
            }
        }
        #expect(throws: CacheChainError.self) { try EntryCodec.decodeMetadata(metadata + [0], body: .empty, subject: "test metadata") }
    }

    /// The metadata of format 4's disk codec without its leading version byte and trailing body length
    /// (which moved to the record header): the fields themselves did not change.
    static let recorded =
        "030000004745540500000068747470730b0000006578616d706c652e636f6d060000002f613f623d310800000074656e"
        + "616e743d31110000006163636570743d746578742f706c61696e0300000047455401050000006874747073010b000000"
        + "6578616d706c652e636f6d01060000002f613f623d310200000006000000416363657074000a000000746578742f706c"
        + "61696e0f0000004163636570742d4c616e67756167650002000000656ec8000000020000004f4b040000000d00000043"
        + "616368652d436f6e74726f6c000a0000006d61782d6167653d3630040000004554616700040000002276312204000000"
        + "5661727900060000004163636570740a0000005365742d436f6f6b69650303000000613d620200000002000000696401"
        + "000000370300000074616703000000227422010000000000428f4000000000004c8f400000000000568f40"
}
