import CacheChainCore
@testable import CacheChainDiskStorage
@testable import CacheChainStorage
import CacheChainTesting
import Foundation
import HTTPTypes
import Testing

@Suite("Decoded metadata remembered by index row")
struct DecodedMetadataMemoTests {
    @Test("the same row and bytes decode once; the result equals a fresh decoding and carries the body given now")
    func reusedForTheSameBytes() throws {
        var memo = DecodedMetadataMemo()
        let entry = MetadataGoldenEntry.entry
        let meta = EntryCodec.encodeMetadata(entry)
        let first = try memo.decode(rowID: 7, meta: meta, body: PipelineBody([1, 2, 3]))
        let second = try memo.decode(rowID: 7, meta: meta, body: PipelineBody([9]))
        #expect(memo.count == 1)
        let fresh = try EntryCodec.decodeMetadata(meta, body: PipelineBody([9]), subject: "test metadata")
        #expect(second == fresh)
        #expect(try first.cached.body.collect() == [1, 2, 3])
        #expect(try second.cached.body.collect() == [9])
    }

    @Test("other bytes under a remembered row (a reused row ID) are decoded afresh, never answered from the memo")
    func otherBytesDecodedAgain() throws {
        var memo = DecodedMetadataMemo()
        var entry = MetadataGoldenEntry.entry
        _ = try memo.decode(rowID: 1, meta: EntryCodec.encodeMetadata(entry), body: .empty)
        entry.cached.response.headerFields[.eTag] = "\"v2\""
        let changed = try memo.decode(rowID: 1, meta: EntryCodec.encodeMetadata(entry), body: .empty)
        #expect(changed.cached.response.headerFields[.eTag] == "\"v2\"")
        var damaged = EntryCodec.encodeMetadata(entry)
        damaged.removeLast()
        #expect(throws: CacheChainError.self) { try memo.decode(rowID: 1, meta: damaged, body: .empty) }
    }

    @Test("the memo never holds more than its capacity")
    func bounded() throws {
        var memo = DecodedMetadataMemo()
        let meta = EntryCodec.encodeMetadata(MetadataGoldenEntry.entry)
        for row in 0..<Int64(DecodedMetadataMemo.capacity + 10) { _ = try memo.decode(rowID: row, meta: meta, body: .empty) }
        #expect(memo.count == DecodedMetadataMemo.capacity)
    }

    @Test("a disk entry replaced by another process-visible store is read with its new metadata")
    func replacedEntryReadAfresh() async throws {
        let directory = TemporaryDirectory()
        let storage = try DiskStorage(directory: directory.path)
        var entry = MetadataGoldenEntry.entry
        entry.cached.storagePolicy = .allowed
        try await storage.store(entry)
        #expect(try await storage.entries(for: entry.key).first?.cached.response.headerFields[.eTag] == entry.cached.response.headerFields[.eTag])
        entry.cached.response.headerFields[.eTag] = "\"replaced\""
        try await storage.store(entry)
        #expect(try await storage.entries(for: entry.key).first?.cached.response.headerFields[.eTag] == "\"replaced\"")
    }
}
