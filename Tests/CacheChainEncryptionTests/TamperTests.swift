import CacheChain
import CacheChainCore
@testable import CacheChainEncryption
import CacheChainStorage
import CacheChainTesting
import Foundation
import HTTPTypes
import Testing

/// Every alteration of a sealed entry must read as a miss: the lookup throws, returns no plaintext, the
/// entry is deleted and an event reports it.
@Suite("EncryptedStorage fails closed")
struct TamperTests {
    /// 1 KiB segments, so that a 3000-byte body spans several segments.
    func makeStorage(_ events: EventLog = EventLog()) throws -> EncryptedStorage {
        EncryptedStorage(wrapping: MemoryStorage(capacity: 64 << 20), keys: InMemoryKeyProvider(key: try .random()), events: events.sink, segmentSize: 1024)
    }

    /// Stores the entry, alters its envelope with `alter`, and checks the lookup fails closed.
    func expectRejected(
        _ storage: EncryptedStorage,
        _ entry: CacheEntry,
        events: EventLog,
        sourceLocation: SourceLocation = #_sourceLocation,
        alter: ([UInt8]) -> [UInt8]
    ) async throws {
        try await storage.store(entry)
        let sealed = try #require(try await sealedEntries(storage).first { _ in true })
        try await replaceEnvelope(of: sealed, with: alter(try sealed.cached.body.collect()), in: storage)
        let before = events.all.count
        var returned: [CacheEntry]?
        do {
            returned = try await storage.entries(for: entry.key)
        } catch let error as CacheChainError {
            #expect([.integrityCheckFailed, .keyUnavailable].contains(error.code), sourceLocation: sourceLocation)
        }
        #expect(returned == nil, "an altered entry was returned", sourceLocation: sourceLocation)
        #expect(try await storage.wrapped.keys().isEmpty, "the altered entry was not deleted", sourceLocation: sourceLocation)
        #expect(try await storage.entries(for: entry.key).isEmpty, sourceLocation: sourceLocation)
        let rejected = events.all.dropFirst(before).filter { $0.kind == .storageError && $0.reasons.first == "encrypted-entry-rejected" }
        #expect(rejected.count == 1, sourceLocation: sourceLocation)
    }

    @Test("flipping any single byte (sampled across header, salt, nonce, each segment's ciphertext and tag) is a miss")
    func singleByteFlips() async throws {
        let events = EventLog()
        let storage = try makeStorage(events)
        let entry = markedEntry(bodySize: 3000)
        try await storage.store(entry)
        let envelope = try await sealedEntries(storage)[0].cached.body.collect()
        let header = try EnvelopeCodec.header(of: PipelineBody(envelope))
        let headerCount = header.encoded.count
        let sealedSegment = 1024 + 16
        // Every header byte (magic, version, key ID, salt, nonce, segment size), every byte of the first and
        // last tags, and every 97th byte elsewhere.
        var offsets = Set(0..<headerCount)
        offsets.formUnion((headerCount + sealedSegment - 16)..<(headerCount + sealedSegment))
        offsets.formUnion((envelope.count - 16)..<envelope.count)
        offsets.formUnion(stride(from: headerCount, to: envelope.count, by: 97))
        #expect(envelope.count > headerCount + 3 * sealedSegment)
        try await storage.removeAll()
        for offset in offsets.sorted() {
            try await expectRejected(storage, entry, events: events) { bytes in
                var bytes = bytes
                bytes[offset] ^= 0x01
                return bytes
            }
        }
    }

    @Test("truncating the envelope anywhere, including at segment boundaries, is a miss")
    func truncation() async throws {
        let events = EventLog()
        let storage = try makeStorage(events)
        let entry = markedEntry(bodySize: 3000)
        try await storage.store(entry)
        let envelope = try await sealedEntries(storage)[0].cached.body.collect()
        let headerCount = try EnvelopeCodec.header(of: PipelineBody(envelope)).encoded.count
        let lengths = [0, 3, 10, headerCount, headerCount + 1, headerCount + 1040, headerCount + 2080, envelope.count - 16, envelope.count - 1]
        try await storage.removeAll()
        for length in lengths {
            try await expectRejected(storage, entry, events: events) { Array($0.prefix(length)) }
        }
    }

    @Test("appending bytes, reordering or dropping whole segments, or duplicating one is a miss")
    func segmentSurgery() async throws {
        let events = EventLog()
        let storage = try makeStorage(events)
        let entry = markedEntry(bodySize: 3000)
        try await storage.store(entry)
        let envelope = try await sealedEntries(storage)[0].cached.body.collect()
        let h = try EnvelopeCodec.header(of: PipelineBody(envelope)).encoded.count
        let s = 1040
        try await storage.removeAll()
        let segment = { (bytes: [UInt8], index: Int) in Array(bytes[(h + index * s)..<min(bytes.count, h + (index + 1) * s)]) }
        let alterations: [([UInt8]) -> [UInt8]] = [
            { $0 + [0] },
            { Array($0[0..<h]) + segment($0, 1) + segment($0, 0) + Array($0[(h + 2 * s)...]) },  // swap 0 and 1
            { Array($0[0..<h]) + segment($0, 1) + Array($0[(h + 2 * s)...]) },                   // drop 0
            { Array($0[0..<(h + 2 * s)]) + Array($0[(h + 3 * s)...]) },                          // drop 2
            { Array($0[0..<(h + s)]) + segment($0, 0) + Array($0[(h + s)...]) },                 // duplicate 0
        ]
        for alter in alterations {
            try await expectRejected(storage, entry, events: events, alter: alter)
        }
    }

    @Test("an unknown format version is a miss whose error names the version")
    func unknownVersion() async throws {
        let storage = try makeStorage()
        let entry = markedEntry()
        try await storage.store(entry)
        let sealed = try await sealedEntries(storage)[0]
        var bytes = try sealed.cached.body.collect()
        bytes[4] = 2
        try await replaceEnvelope(of: sealed, with: bytes, in: storage)
        let error = await #expect(throws: CacheChainError.self) { try await storage.entries(for: entry.key) }
        #expect(error?.code == .integrityCheckFailed)
        #expect(error?.message.contains("unknown format version 2") == true)
        #expect(try await storage.wrapped.keys().isEmpty)
    }

    @Test("swapping two entries' sealed bodies makes both lookups a miss")
    func swappedEntries() async throws {
        let storage = try makeStorage()
        let a = markedEntry(path: "/a")
        let b = markedEntry(path: "/b")
        try await storage.store(a)
        try await storage.store(b)
        let sealed = try await sealedEntries(storage)
        #expect(sealed.count == 2)
        let first = try sealed[0].cached.body.collect()
        let second = try sealed[1].cached.body.collect()
        try await replaceEnvelope(of: sealed[0], with: second, in: storage)
        try await replaceEnvelope(of: sealed[1], with: first, in: storage)
        for key in [a.key, b.key] {
            await #expect(throws: CacheChainError.self) { try await storage.entries(for: key) }
            #expect(try await storage.entries(for: key).isEmpty)
        }
    }

    @Test("a sealed entry moved under another variant of the same key is a miss")
    func movedVariant() async throws {
        let storage = try makeStorage()
        let fr = StorageConformanceSuite.makeEntry(path: "/v", body: "fr", language: "fr")
        let en = StorageConformanceSuite.makeEntry(path: "/v", body: "en", language: "en")
        try await storage.store(fr)
        try await storage.store(en)
        let sealed = try await sealedEntries(storage)
        try await replaceEnvelope(of: sealed[0], with: try sealed[1].cached.body.collect(), in: storage)
        await #expect(throws: CacheChainError.self) { try await storage.entries(for: fr.key) }
        // The untouched variant is still served afterwards.
        #expect(try await storage.entries(for: fr.key).count == 1)
    }

    @Test("a failing lookup through the client is a miss with a storage-error reason; the origin answers")
    func clientMiss() async throws {
        let origin = ScriptedTransport()
        origin.route("/doc", fields: [("Cache-Control", "max-age=600")], body: "fresh from origin")
        let storage = try makeStorage()
        let client = HTTPCacheClient(transport: origin, configuration: .init(storage: storage))
        let request = HTTPRequest(method: .get, scheme: "https", authority: "origin.test", path: "/doc")
        #expect(try await client.data(for: request).cacheStatus == .miss)
        #expect(try await client.data(for: request).cacheStatus == .hit)
        let sealed = try await sealedEntries(storage)[0]
        var bytes = try sealed.cached.body.collect()
        bytes[bytes.count - 20] ^= 0x80
        try await replaceEnvelope(of: sealed, with: bytes, in: storage)
        let third = try await client.data(for: request)
        #expect(third.cacheStatus == .miss)
        #expect(third.trace.contains { $0.code.rawValue == "storage-error" })
        #expect(third.body.string == "fresh from origin")
        #expect(origin.requestCount(for: "/doc") == 2)
    }
}

@Suite("EncryptedStorage management opens metadata only")
struct MetadataOnlyTests {
    @Test("keys() and URL-prefix purges decrypt only the first segment: a damaged later segment goes unnoticed there, not on lookup")
    func metadataOnly() async throws {
        let storage = EncryptedStorage(
            wrapping: MemoryStorage(capacity: 16 << 20), keys: InMemoryKeyProvider(key: try .random()), events: .none, segmentSize: 1024
        )
        let entry = markedEntry(path: "/keep/large", bodySize: 5000)
        try await storage.store(entry)
        let sealed = try await sealedEntries(storage)[0]
        var bytes = try sealed.cached.body.collect()
        let headerCount = try EnvelopeCodec.header(of: PipelineBody(bytes)).encoded.count
        bytes[headerCount + 2 * 1040 + 10] ^= 0x01  // inside segment 2 (the metadata fits in segment 0)
        try await replaceEnvelope(of: sealed, with: bytes, in: storage)
        #expect(try await storage.keys() == [entry.key])
        try await storage.removeEntries(urlPrefix: "https://\(Marker.host)/other/")
        #expect(await storage.usage().entryCount == 1)
        await #expect(throws: CacheChainError.self) { try await storage.entries(for: entry.key) }
        #expect(await storage.usage().entryCount == 0)
    }
}
