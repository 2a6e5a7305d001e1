import CacheChainCore
@testable import CacheChainDiskStorage
@testable import CacheChainStorage
import CacheChainTesting
import Testing

@Suite("Disk LRU: uses of the most recent rows are not rewritten")
struct RecentUseWindowTests {
    @Test("the window is 1/16 of the entries, none below 16, at most 4,096")
    func windowSize() {
        #expect(RecentUseWindow.window(forEntryCount: 0) == 0)
        #expect(RecentUseWindow.window(forEntryCount: 15) == 0)
        #expect(RecentUseWindow.window(forEntryCount: 320) == 20)
        #expect(RecentUseWindow.window(forEntryCount: 1_000_000) == 4096)
    }

    @Test("before the first refresh every use is recorded; the boundary is read again after 256 hits, 64 stores or an invalidation")
    func refreshSchedule() {
        var window = RecentUseWindow()
        #expect(window.isDue)
        var recorded = window.shouldRecord(lastUsed: .max - 1)
        #expect(recorded)
        window.refreshed(threshold: 1_000)
        #expect(!window.isDue)
        recorded = window.shouldRecord(lastUsed: 1_000)
        #expect(!recorded)
        recorded = window.shouldRecord(lastUsed: 999)
        #expect(recorded)
        for _ in 0..<(RecentUseWindow.hitsPerRefresh - 2) { _ = window.shouldRecord(lastUsed: 0) }
        #expect(window.isDue)
        window.refreshed(threshold: nil)
        recorded = window.shouldRecord(lastUsed: .max - 1)
        #expect(recorded)
        for _ in 0..<RecentUseWindow.storesPerRefresh { window.noteStore() }
        #expect(window.isDue)
        window.refreshed(threshold: 5)
        window.invalidate()
        recorded = window.shouldRecord(lastUsed: 10)
        #expect(window.isDue && recorded)
    }

    @Test("hits of the 20 most recent of 320 entries write nothing; an old entry's hit is recorded and moves it out of eviction's way; rows pushed out of the window are recorded again")
    func recordsOnlyOutsideTheWindow() async throws {
        let directory = TemporaryDirectory()
        let storage = try DiskStorage(directory: directory.path)
        let entries = (0..<320).map { StorageConformanceSuite.makeEntry(path: "/r/\($0)", body: PipelineBody([UInt8](repeating: 1, count: 100))) }
        for entry in entries { try await storage.store(entry) }

        for entry in entries[310...] { #expect(try await storage.entries(for: entry.key).count == 1) }
        #expect(await storage.pendingUseCount == 0)
        #expect(try await storage.leastRecentlyUsedPath() == "/r/0")

        _ = try await storage.entries(for: entries[0].key)
        #expect(await storage.pendingUseCount == 1)
        try await storage.flush()
        #expect(try await storage.leastRecentlyUsedPath() == "/r/1")

        // 30 more old entries are used: the newest stored ones now rank 31st and later, outside the window.
        for entry in entries[1...30] { _ = try await storage.entries(for: entry.key) }
        try await storage.flush()
        _ = try await storage.entries(for: entries[319].key)
        #expect(await storage.pendingUseCount == 1)
        #expect(try await storage.leastRecentlyUsedPath() == "/r/31")
    }
}

extension DiskStorage {
    /// How many hits recorded a use not yet written.
    fileprivate var pendingUseCount: Int { index.pendingUses.count + readers.pendingUseCount }

    /// The URL path of the entry eviction would remove first.
    fileprivate func leastRecentlyUsedPath() throws -> String? {
        guard let victim = try index.victims(excluding: -1).first else { return nil }
        return try EntryCodec.decodeMetadata(victim.meta, body: .empty, subject: "test metadata").key.path
    }
}
