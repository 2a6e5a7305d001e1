import CacheChainCore
import CacheChainPolicy
@testable import CacheChainDiskStorage
@testable import CacheChainStorage
import CacheChainTesting
import Foundation
import HTTPTypes
import Synchronization
import Testing

/// Issue 25.7: `Vary` cannot explode a key.
@Suite("Variants per key: capped, and looked up without reading the others")
struct VariantLimitTests {
    static func variant(_ index: Int, bytes: Int = 10) -> CacheEntry {
        StorageConformanceSuite.makeEntry(
            path: "/negotiated", body: PipelineBody([UInt8](repeating: 1, count: bytes)), language: "l\(index)"
        )
    }

    static func request(_ index: Int) -> HTTPRequest {
        var request = HTTPRequest(method: .get, scheme: "https", authority: "conformance.test", path: "/negotiated")
        request.headerFields[.acceptLanguage] = "l\(index)"
        return request
    }

    /// Collects the reasons of eviction and storage-error events.
    final class Events: Sendable {
        let log = Mutex<[(CacheEvent.Kind, [String])]>([])
        var sink: CacheEventSink { CacheEventSink { event in self.log.withLock { $0.append((event.kind, event.reasons)) } } }
        func count(_ kind: CacheEvent.Kind, reason: String? = nil) -> Int {
            log.withLock { $0.filter { $0.0 == kind && (reason == nil || $0.1.contains(reason ?? "")) }.count }
        }
    }

    @Test("4,200 variants of one URL on disk (in a child process): every store succeeds and the key keeps the newest 32", .tags(.integration))
    func diskFloodKeepsStoring() async throws {
        let directory = TemporaryDirectory("variants")
        let (lines, status) = try await Probe.run(["variant-flood", directory.path, "4200"])
        #expect(status == 0, "\(lines)")
        let words = try #require(lines.last).split(separator: " ").map(String.init)
        #expect(words.prefix(4) == ["stored", "4200", "kept", "32"], "\(lines)")
        #expect(Set(words.dropFirst(4)) == Set((4_168..<4_200).map { "accept-language=l\($0)" }), "the newest 32 are kept")
        #expect(await (try DiskStorage(directory: directory.path)).usage().entryCount == 32)
    }

    @Test("a lookup for a request reads only its own variant: the others' damaged files go unnoticed until they are read")
    func lookupReadsOnlyTheCandidate() async throws {
        let directory = TemporaryDirectory("variants")
        let events = Events()
        let storage = try DiskStorage(configuration: .init(directory: directory.path, inlineBodyLimit: 0, events: events.sink))
        for index in 0..<20 { try await storage.store(Self.variant(index, bytes: 100)) }
        // Damage every entry file but variant 7's (entry files are named by the SHA-256 of key and variant).
        let seven = Self.variant(7)
        let keep = SHA256.hexDigest(Array("\(seven.key.stringValue)\n\(seven.variantKey)".utf8))
        let entryFiles = permissionModes(under: directory.path).map(\.path).filter { $0.split(separator: "/").last?.count == 81 }
        #expect(entryFiles.count == 20)
        #expect(entryFiles.filter { $0.contains(keep) }.count == 1)
        for path in entryFiles where !path.contains(keep) { try Data("damaged".utf8).write(to: URL(fileURLWithPath: path)) }

        for _ in 0..<3 {
            let found = try await storage.entries(for: Self.variant(7).key, matching: Self.request(7))
            #expect(found.map(\.variantKey) == [Self.variant(7).variantKey])
        }
        #expect(events.count(.storageError) == 0, "no other variant was read")
        let all = try await storage.entries(for: Self.variant(7).key)
        #expect(all.count == 1 && events.count(.storageError) == 19, "reading every variant finds the damage")
        #expect(try await storage.entries(for: Self.variant(7).key, matching: Self.request(99)).map(\.variantKey) == [Self.variant(7).variantKey],
                "one variant left: it is returned and the engine decides")
    }

    @Test("the limit evicts the key's least recently used variant, reported as variant-limit; other keys are untouched")
    func diskLimitEvictsLeastRecentlyUsed() async throws {
        let directory = TemporaryDirectory("variants")
        let events = Events()
        let storage = try DiskStorage(configuration: .init(directory: directory.path, maximumVariantsPerKey: 4, events: events.sink))
        try await storage.store(StorageConformanceSuite.makeEntry(path: "/other", language: "l0"))
        for index in 0..<4 { try await storage.store(Self.variant(index)) }
        #expect(try await storage.entries(for: Self.variant(0).key, matching: Self.request(0)).count == 1)  // l0 is now the most recent
        try await storage.store(Self.variant(4))
        let kept = Set(try await storage.entries(for: Self.variant(0).key).map(\.variantKey))
        #expect(kept == Set([0, 2, 3, 4].map { Self.variant($0).variantKey }))
        #expect(events.count(.evicted, reason: "variant-limit") == 1)
        try await storage.store(Self.variant(4))  // replacing a variant evicts nothing
        #expect(events.count(.evicted, reason: "variant-limit") == 1)
        #expect(try await storage.entries(for: StorageConformanceSuite.makeEntry(path: "/other").key).count == 1)
    }

    @Test("memory keeps at most 32 variants per key by default, evicting the least recently used")
    func memoryLimit() async throws {
        let events = Events()
        let storage = MemoryStorage(capacity: 1 << 24, events: events.sink)
        for index in 0..<32 { await storage.store(Self.variant(index)) }
        _ = await storage.entries(for: Self.variant(0).key)  // every variant used; then make l0 the most recent
        await storage.store(Self.variant(0))
        for index in 32..<40 { await storage.store(Self.variant(index)) }
        let kept = Set(await storage.entries(for: Self.variant(0).key).map(\.variantKey))
        #expect(kept.count == 32)
        #expect(kept.contains(Self.variant(0).variantKey))
        #expect(events.count(.evicted, reason: "variant-limit") == 8)
    }

    @Test("an index of the older schema (no variant columns) is replaced by an empty one when opened")
    func olderIndexSchemaReset() async throws {
        let directory = TemporaryDirectory("variants")
        do { try await DiskStorage(directory: directory.path).store(Self.variant(0)) }
        let path = directory.path + "/v\(DiskStorage.formatVersion)/index.sqlite"
        do {
            let database = try SQLiteDatabase(path: path)
            try database.execute("DROP TABLE entries; CREATE TABLE entries (id INTEGER PRIMARY KEY, key TEXT); PRAGMA user_version = 1")
        }
        let reopened = try DiskStorage(directory: directory.path)
        #expect(try await reopened.entries(for: Self.variant(0).key).isEmpty)
        try await reopened.store(Self.variant(1))
        #expect(try await reopened.entries(for: Self.variant(1).key, matching: Self.request(1)).count == 1)
    }
}
