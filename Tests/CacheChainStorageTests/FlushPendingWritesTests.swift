import CacheChainCore
@testable import CacheChainDiskStorage
@testable import CacheChainStorage
import CacheChainTesting
import Testing

@Suite("flushPendingWrites: what a client's shutdown asks of its storage")
struct FlushPendingWritesTests {
    @Test("through CacheStorage, a DiskStorage writes its batched uses, alone and as a TieredStorage's disk tier")
    func diskWritesBatchedUses() async throws {
        let directory = TemporaryDirectory()
        let disk = try DiskStorage(directory: directory.path)
        let entries = (0..<40).map { StorageConformanceSuite.makeEntry(path: "/f/\($0)", body: PipelineBody([UInt8](repeating: 2, count: 64))) }
        for entry in entries { try await disk.store(entry) }
        _ = try await disk.entries(for: entries[0].key)
        #expect(await disk.unwrittenUseCount == 1)
        let storage: any CacheStorage = disk
        try await storage.flushPendingWrites()
        #expect(await disk.unwrittenUseCount == 0)

        _ = try await disk.entries(for: entries[1].key)
        #expect(await disk.unwrittenUseCount == 1)
        let tiered: any CacheStorage = TieredStorage(memory: MemoryStorage(capacity: 1 << 20), disk: disk)
        try await tiered.flushPendingWrites()
        #expect(await disk.unwrittenUseCount == 0)
    }

    @Test("called on a DiskStorage itself, the disk's own implementation runs, not the protocol's default")
    func concreteCallSite() async throws {
        let directory = TemporaryDirectory()
        let disk = try DiskStorage(directory: directory.path)
        let entries = (0..<40).map { StorageConformanceSuite.makeEntry(path: "/c/\($0)", body: PipelineBody([UInt8](repeating: 3, count: 64))) }
        for entry in entries { try await disk.store(entry) }
        _ = try await disk.entries(for: entries[0].key)
        try await disk.flushPendingWrites()
        #expect(await disk.unwrittenUseCount == 0)
    }
}

extension DiskStorage {
    /// How many hits recorded a use not yet written to the index.
    fileprivate var unwrittenUseCount: Int { index.pendingUses.count + readers.pendingUseCount }
}
