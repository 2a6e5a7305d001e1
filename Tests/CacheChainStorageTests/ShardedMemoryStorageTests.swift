import CacheChainCore
import CacheChainStorage
import CacheChainTesting
import Foundation
import HTTPTypes
import Testing

private func entry(_ path: String) -> CacheEntry {
    StorageConformanceSuite.makeEntry(path: path, body: PipelineBody([UInt8](repeating: 7, count: 100)))
}

/// What one task did to the keys of its shard: every key it stored, most recently used first.
private struct RecencyModel {
    var order: [String] = []

    mutating func use(_ path: String) {
        order.removeAll { $0 == path }
        order.insert(path, at: 0)
    }
}

@Suite("MemoryStorage shards")
struct ShardedMemoryStorageTests {
    @Test("hits and stores from many tasks stay exact LRU per shard and within capacity")
    func manyTasksExactLRUPerShard() async throws {
        let shards = 8
        let perEntry = entry("/probe").cost
        let storage = MemoryStorage(capacity: perEntry * 40 * shards, shards: shards)
        #expect(storage.shardCount == shards)
        // 60 keys per shard, more than the 40 a shard holds on average: every shard evicts.
        var keysByShard = [[String]](repeating: [], count: shards)
        var candidate = 0
        while keysByShard.contains(where: { $0.count < 60 }) {
            let path = "/k/\(candidate)"
            candidate += 1
            let shard = storage.shardIndex(for: entry(path).key)
            if keysByShard[shard].count < 60 { keysByShard[shard].append(path) }
        }

        // One task per shard, all at once: each stores and reads its shard's keys in a random order and keeps the
        // recency order it caused. Evictions a task's store triggers may fall on another shard, but always on
        // that shard's least recently used variant.
        let models = try await withThrowingTaskGroup(of: (Int, RecencyModel).self) { group in
            for (shard, keys) in keysByShard.enumerated() {
                group.addTask {
                    var model = RecencyModel()
                    var generator = SystemRandomNumberGenerator()
                    for _ in 0..<1_500 {
                        let path = keys[Int.random(in: 0..<keys.count, using: &generator)]
                        if Bool.random(using: &generator) {
                            await storage.store(entry(path))
                            model.use(path)
                        } else if await !storage.entries(for: entry(path).key).isEmpty {
                            model.use(path)
                        }
                    }
                    return (shard, model)
                }
            }
            return try await group.reduce(into: [Int: RecencyModel]()) { $0[$1.0] = $1.1 }
        }

        let usage = await storage.usage()
        #expect(usage.memoryBytes <= usage.memoryCapacity, "within capacity")
        var survivorCount = 0
        var survivorCost = 0
        for (shard, keys) in keysByShard.enumerated() {
            let model = try #require(models[shard])
            var survivors: Set<String> = []
            for path in keys where await !storage.entries(for: entry(path).key).isEmpty { survivors.insert(path) }
            // Exact LRU in the shard: what survives is exactly its most recently used keys.
            #expect(Set(model.order.prefix(survivors.count)) == survivors, "shard \(shard) kept its most recently used keys")
            survivorCount += survivors.count
            survivorCost += survivors.reduce(0) { $0 + entry($1).cost }
        }
        #expect(usage.entryCount == survivorCount)
        #expect(usage.memoryBytes == survivorCost, "usage is exact")
        #expect(usage.memoryBytes > usage.memoryCapacity - 2 * perEntry * shards, "evictions freed no more than needed")
    }

    @Test("a store evicts its own shard's least recently used variant first")
    func evictsOwnShardFirst() async throws {
        let perEntry = entry("/probe").cost
        let storage = MemoryStorage(capacity: perEntry * 4, shards: 2)
        var byShard: [[String]] = [[], []]
        var candidate = 0
        while byShard[0].count < 3 || byShard[1].count < 2 {
            let path = "/s/\(candidate)"
            candidate += 1
            byShard[storage.shardIndex(for: entry(path).key)].append(path)
        }
        // Shard 1's two keys are the oldest of all; shard 0's first key is read after its second.
        for path in byShard[1].prefix(2) { await storage.store(entry(path)) }
        await storage.store(entry(byShard[0][0]))
        await storage.store(entry(byShard[0][1]))
        _ = await storage.entries(for: entry(byShard[0][0]).key)
        await storage.store(entry(byShard[0][2]))
        #expect(await storage.entries(for: entry(byShard[0][1]).key).isEmpty, "its own shard's least recently used went")
        #expect(await storage.entries(for: entry(byShard[0][0]).key).count == 1)
        #expect(await storage.entries(for: entry(byShard[1][0]).key).count == 1, "the other shard was not touched")
        #expect(await storage.usage().entryCount == 4)
    }

    @Test("small caches keep one LRU order; an entry of the whole capacity still fits a sharded store")
    func defaultsAndLargeEntries() async throws {
        #expect(MemoryStorage(capacity: 1 << 20).shardCount == 1)
        #expect(MemoryStorage(capacity: 64 << 20).shardCount == 8)
        #expect(MemoryStorage(capacity: 64 << 20, countLimit: 100).shardCount == 1)
        let small = entry("/small")
        let storage = MemoryStorage(capacity: small.cost * 10, shards: 8)
        for index in 0..<9 { await storage.store(entry("/\(index)")) }
        let large = StorageConformanceSuite.makeEntry(path: "/large", body: PipelineBody([UInt8](repeating: 1, count: small.cost * 9)))
        await storage.store(large)
        #expect(await storage.entries(for: large.key).count == 1, "other shards made room")
        let usage = await storage.usage()
        #expect(usage.memoryBytes <= usage.memoryCapacity)
    }
}
