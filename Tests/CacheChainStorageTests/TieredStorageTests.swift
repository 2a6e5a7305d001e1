import CacheChainCore
import CacheChainDiskStorage
import CacheChainStorage
import CacheChainTesting
import Foundation
import Testing

private func tiered(_ path: String, memory: Int = 16 << 20, maximumEntryCost: Int? = nil, disk: Int = 64 << 20) throws -> TieredStorage {
    TieredStorage(
        memory: MemoryStorage(capacity: memory, maximumEntryCost: maximumEntryCost),
        disk: try DiskStorage(directory: path, capacity: disk)
    )
}

@Suite("TieredStorage")
struct TieredStorageTests {
    @Test("passes the storage conformance suite", arguments: StorageConformanceSuite.checks.map(\.name))
    func conformance(check: String) async throws {
        let directory = TemporaryDirectory("tiered")
        let suite = StorageConformanceSuite(
            makeStorage: { try tiered(directory.path + "/\(UUID().uuidString)") },
            reopen: { storage in
                let tiers = try #require(storage as? TieredStorage)
                let disk = try #require(tiers.disk as? DiskStorage)
                return TieredStorage(memory: MemoryStorage(capacity: 16 << 20), disk: try DiskStorage(configuration: disk.configuration))
            }
        )
        try await suite.run(try #require(StorageConformanceSuite.checks.first { $0.name == check }))
    }

    @Test("allowedInMemoryOnly stays in memory and removes an older disk copy of the same variant")
    func memoryOnly() async throws {
        let directory = TemporaryDirectory("tiered")
        let storage = try tiered(directory.path)
        let onDisk = StorageConformanceSuite.makeEntry(path: "/m", body: "old")
        try await storage.store(onDisk)
        let memoryOnly = StorageConformanceSuite.makeEntry(path: "/m", body: "new", policy: .allowedInMemoryOnly)
        try await storage.store(memoryOnly)
        #expect(try await storage.entries(for: memoryOnly.key).map(\.cached.body) == ["new"])
        #expect(try await storage.disk.entries(for: memoryOnly.key).isEmpty, "the memory-only entry reached the disk tier")
        #expect(await storage.usage().diskBytes == 0)
    }

    @Test("a disk hit is promoted into memory")
    func promotion() async throws {
        let directory = TemporaryDirectory("tiered")
        let entry = StorageConformanceSuite.makeEntry(path: "/p", body: "persisted")
        try await tiered(directory.path).store(entry)
        let restarted = try tiered(directory.path)  // a new process: empty memory, same disk
        #expect(try await restarted.memory.entries(for: entry.key).isEmpty)
        #expect(try await restarted.entries(for: entry.key) == [entry])
        #expect(try await restarted.memory.entries(for: entry.key) == [entry], "the disk hit was not promoted")
    }

    @Test("capacities are per tier: an entry too large for memory is on disk only; usage reports both tiers")
    func perTierCapacity() async throws {
        let directory = TemporaryDirectory("tiered")
        let storage = try tiered(directory.path, memory: 1 << 20, maximumEntryCost: 64 << 10)
        let small = StorageConformanceSuite.makeEntry(path: "/small", body: "small")
        let large = StorageConformanceSuite.makeEntry(path: "/large", body: PipelineBody([UInt8](repeating: 1, count: 200_000)))
        try await storage.store(small)
        try await storage.store(large)
        #expect(try await storage.memory.entries(for: large.key).isEmpty)
        #expect(try await storage.entries(for: large.key).count == 1)
        let usage = await storage.usage()
        #expect(usage.memoryBytes == small.cost && usage.memoryCapacity == 1 << 20)
        #expect(usage.diskBytes > 200_000 && usage.diskCapacity == 64 << 20 && usage.entryCount == 2)
    }

    @Test("a variant evicted from memory is still found on disk")
    func variantsConsultDisk() async throws {
        let directory = TemporaryDirectory("tiered")
        let storage = try tiered(directory.path)
        let fr = StorageConformanceSuite.makeEntry(path: "/v", body: "fr", language: "fr", storedAt: 1)
        let en = StorageConformanceSuite.makeEntry(path: "/v", body: "en", language: "en", storedAt: 2)
        try await storage.store(fr)
        try await storage.store(en)
        try await storage.memory.remove(fr.key, variantKey: fr.variantKey)
        #expect(Set(try await storage.entries(for: fr.key).map(\.cached.body)) == ["fr", "en"])
    }
}
