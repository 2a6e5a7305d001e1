import CacheChainCore
@testable import CacheChainDiskStorage
@testable import CacheChainStorage
import CacheChainTesting
import Foundation
import Synchronization
import Testing

private func entry(_ path: String, bytes: Int = 1000) -> CacheEntry {
    StorageConformanceSuite.makeEntry(path: path, body: PipelineBody([UInt8](repeating: 7, count: bytes)))
}

@Suite("DiskStorage")
struct DiskStorageTests {
    @Test("evicts the least recently used entry by its own last-use record, reports it, and keeps usage within capacity")
    func lruEviction() async throws {
        let directory = TemporaryDirectory()
        let evicted = Mutex<[String]>([])
        let probe = try DiskStorage(directory: directory.path + "/probe")
        try await probe.store(entry("/a"))
        let size = await probe.usage().diskBytes
        let storage = try DiskStorage(
            directory: directory.path + "/cache", capacity: size * 3,
            events: CacheEventSink { event in if event.kind == .evicted { evicted.withLock { $0.append(event.key?.path ?? "?") } } }
        )
        for path in ["/a", "/b", "/c"] { try await storage.store(entry(path)) }
        _ = try await storage.entries(for: entry("/a").key)  // a is now more recent than b
        try await storage.store(entry("/d"))
        #expect(evicted.withLock { $0 } == ["/b"])
        #expect(try await storage.entries(for: entry("/b").key).isEmpty)
        for path in ["/a", "/c", "/d"] { #expect(try await storage.entries(for: entry(path).key).count == 1, "\(path)") }
        let usage = await storage.usage()
        #expect(usage.diskBytes == size * 3 && usage.diskCapacity == size * 3 && usage.entryCount == 3)
    }

    @Test("setCapacity: lowering it evicts least recently used entries at once; raising it lets more in")
    func setCapacity() async throws {
        let directory = TemporaryDirectory()
        let probe = try DiskStorage(directory: directory.path + "/probe")
        try await probe.store(entry("/a"))
        let size = await probe.usage().diskBytes
        let storage = try DiskStorage(directory: directory.path + "/cache", capacity: size * 4)
        for path in ["/a", "/b", "/c", "/d"] { try await storage.store(entry(path)) }
        _ = try await storage.entries(for: entry("/a").key)  // a is now the most recent
        try await storage.setCapacity(size * 2)
        var usage = await storage.usage()
        #expect(usage.diskCapacity == size * 2 && usage.diskBytes == size * 2 && usage.entryCount == 2)
        for path in ["/b", "/c"] { #expect(try await storage.entries(for: entry(path).key).isEmpty, "\(path)") }
        for path in ["/a", "/d"] { #expect(try await storage.entries(for: entry(path).key).count == 1, "\(path)") }
        try await storage.setCapacity(size * 3)
        try await storage.store(entry("/e"))
        usage = await storage.usage()
        #expect(usage.entryCount == 3 && usage.diskCapacity == size * 3)
    }

    @Test("the last-use order survives a reopen after flush()")
    func lruPersists() async throws {
        let directory = TemporaryDirectory()
        let size: Int
        do {
            let storage = try DiskStorage(directory: directory.path)
            for path in ["/a", "/b", "/c"] { try await storage.store(entry(path)) }
            _ = try await storage.entries(for: entry("/a").key)
            try await storage.flush()
            size = await storage.usage().diskBytes / 3
        }
        let reopened = try DiskStorage(directory: directory.path, capacity: size * 3)
        try await reopened.store(entry("/d"))
        #expect(try await reopened.entries(for: entry("/b").key).isEmpty, "b was least recently used")
        #expect(try await reopened.entries(for: entry("/a").key).count == 1)
    }

    @Test("usage stays exact under random operations (totals equal the rows; counts match a model)")
    func exactUsage() async throws {
        let directory = TemporaryDirectory()
        let storage = try DiskStorage(configuration: .init(directory: directory.path, capacity: 1 << 30, inlineBodyLimit: 2000))
        var model: Set<String> = []
        var random = SystemRandomNumberGenerator()
        for _ in 0..<400 {
            let path = "/k\(Int.random(in: 0..<40, using: &random))"
            switch Int.random(in: 0..<4, using: &random) {
            case 0, 1, 2:
                try await storage.store(entry(path, bytes: Int.random(in: 0..<5000, using: &random)))
                model.insert(path)
            default:
                try await storage.remove(entry(path).key)
                model.remove(path)
            }
        }
        #expect(await storage.usage().entryCount == model.count)
        #expect(Set(try await storage.keys().map(\.path)) == model)
        let report = try await storage.checkIntegrity()
        #expect(report.isSound, "\(report)")
    }

    @Test("allowedInMemoryOnly and notAllowed entries never reach the disk")
    func memoryOnly() async throws {
        let directory = TemporaryDirectory()
        let storage = try DiskStorage(directory: directory.path)
        var memoryOnly = entry("/m", bytes: 100_000)
        memoryOnly.cached.storagePolicy = .allowedInMemoryOnly
        try await storage.store(memoryOnly)
        #expect(try await storage.entries(for: memoryOnly.key).isEmpty)
        #expect(await storage.usage().entryCount == 0)
        #expect(try entryFiles(directory.path).isEmpty)
    }

    @Test("a body above the in-memory limit is served as a region of the entry file; a file-backed input is streamed")
    func fileRegion() async throws {
        let directory = TemporaryDirectory()
        let storage = try DiskStorage(configuration: .init(directory: directory.path + "/cache", inMemoryBodyLimit: 1 << 20))
        let bytes = (0..<(3 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 11) }
        let writer = try BodyFileWriter(directory: directory.path + "/spool")
        try writer.append(bytes)
        let stored = StorageConformanceSuite.makeEntry(path: "/big", body: try writer.finish())
        try await storage.store(stored)
        let body = try #require(try await storage.entries(for: stored.key).first?.cached.body)
        let file = try #require(body.file)
        #expect(file.path.hasPrefix(directory.path + "/cache/v\(DiskStorage.formatVersion)/"))
        #expect(try body.collect() == bytes)
    }

    @Test("a newer or unknown format version is refused with invalid-configuration and nothing is wiped")
    func unknownFormat() async throws {
        let directory = TemporaryDirectory()
        do {
            let storage = try DiskStorage(directory: directory.path)
            try await storage.store(entry("/kept"))
        }
        for foreign in ["\(DiskStorage.formatVersion + 1)", "banana"] {
            try Data("\(foreign)\n".utf8).write(to: URL(fileURLWithPath: directory.path + "/cachechain-format"))
            #expect { try DiskStorage(directory: directory.path) } throws: { ($0 as? CacheChainError)?.code == .invalidConfiguration }
            #expect(FileManager.default.fileExists(atPath: directory.path + "/v\(DiskStorage.formatVersion)/index.sqlite"))
        }
        try Data("\(DiskStorage.formatVersion)\n".utf8).write(to: URL(fileURLWithPath: directory.path + "/cachechain-format"))
        #expect(try await DiskStorage(directory: directory.path).entries(for: entry("/kept").key).count == 1)
    }

    @Test(
        "a directory of an older format (1: XXH64 checksums; 2: a separate key-hash index; 3: whole requests, secrets included; 4: the disk's own entry codec) is emptied and upgraded",
        arguments: [1, 2, 3, 4]
    )
    func olderFormatUpgraded(older: Int) async throws {
        let directory = TemporaryDirectory()
        let folder = directory.path + "/v\(older)"
        try FileManager.default.createDirectory(atPath: folder + "/ab", withIntermediateDirectories: true)
        try Data("old index".utf8).write(to: URL(fileURLWithPath: folder + "/index.sqlite"))
        try Data("old entry".utf8).write(to: URL(fileURLWithPath: folder + "/ab/" + String(repeating: "a", count: 64) + ".0"))
        try Data("\(older)\n".utf8).write(to: URL(fileURLWithPath: directory.path + "/cachechain-format"))

        let storage = try DiskStorage(directory: directory.path)
        #expect(!FileManager.default.fileExists(atPath: folder))
        let format = try String(contentsOfFile: directory.path + "/cachechain-format", encoding: .utf8)
        #expect(format == "\(DiskStorage.formatVersion)\n")
        #expect(DiskStorage.formatVersion == 5)
        try await storage.store(entry("/new"))
        #expect(try await storage.entries(for: entry("/new").key).count == 1)
        #expect(FileManager.default.fileExists(atPath: directory.path + "/v5/index.sqlite"))
    }

    @Test("a directory path under a regular file is a typed error")
    func pathUnderFile() throws {
        let directory = TemporaryDirectory()
        try Data("x".utf8).write(to: URL(fileURLWithPath: directory.path + "/file"))
        #expect { try DiskStorage(directory: directory.path + "/file/cache") } throws: { ($0 as? CacheChainError)?.code == .storageFailed }
    }

    @Test("the cache directory deleted while open: large stores fail with a typed error, lookups never crash")
    func directoryDeleted() async throws {
        let directory = TemporaryDirectory()
        let storage = try DiskStorage(directory: directory.path + "/cache")
        try await storage.store(entry("/before", bytes: 100_000))
        try FileManager.default.removeItem(atPath: directory.path + "/cache")
        await #expect(throws: CacheChainError.self) { try await storage.store(entry("/after", bytes: 100_000)) }
        _ = try? await storage.entries(for: entry("/before").key)
        let replacement = try DiskStorage(directory: directory.path + "/cache")
        #expect(await replacement.usage().entryCount == 0, "a new cache opens in its place")
    }

    @Test("the lazy sweep deletes files no row references once past the grace period, never referenced ones")
    func orphanSweep() async throws {
        let directory = TemporaryDirectory()
        let storage = try DiskStorage(configuration: .init(directory: directory.path, orphanGracePeriod: .zero))
        let kept = entry("/kept", bytes: 100_000)
        try await storage.store(kept)
        let stray = directory.path + "/v\(DiskStorage.formatVersion)/ab/" + String(repeating: "a", count: 64) + ".0000000000000000"
        try FileManager.default.createDirectory(atPath: directory.path + "/v\(DiskStorage.formatVersion)/ab", withIntermediateDirectories: true)
        try Data("orphan".utf8).write(to: URL(fileURLWithPath: stray))
        let temporary = directory.path + "/v\(DiskStorage.formatVersion)/tmp/0123456789abcdef.tmp"
        try Data("partial".utf8).write(to: URL(fileURLWithPath: temporary))
        await storage.sweepOrphans()
        #expect(!FileManager.default.fileExists(atPath: stray))
        #expect(!FileManager.default.fileExists(atPath: temporary))
        #expect(try await storage.entries(for: kept.key) == [kept])
    }

    @Test("durable mode passes the round-trip, bodies and persistence checks", arguments: ["round-trip", "bodies", "persistence"])
    func durable(check: String) async throws {
        let directory = TemporaryDirectory()
        let suite = StorageConformanceSuite(
            makeStorage: { try DiskStorage(directory: directory.path + "/\(UUID().uuidString)", durability: .durable) },
            reopen: reopenDisk
        )
        try await suite.run(try #require(StorageConformanceSuite.checks.first { $0.name == check }))
    }

    @Test("fast mode never has SQLite sync (synchronous = OFF, checkpoints included); durable mode syncs every commit (FULL)")
    func indexSyncMode() async throws {
        let directory = TemporaryDirectory()
        for (durability, expected) in [(DiskStorage.Durability.fast, Int64(0)), (.durable, Int64(2))] {
            let storage = try DiskStorage(directory: directory.path + "/\(durability.rawValue)", durability: durability)
            let mode = try await storage.indexSynchronousMode()
            #expect(mode == expected, "\(durability)")
        }
    }
}

extension DiskStorage {
    /// The index connection's `PRAGMA synchronous` (0 OFF, 1 NORMAL, 2 FULL).
    fileprivate func indexSynchronousMode() throws -> Int64 {
        let statement = try index.database.prepare("PRAGMA synchronous")
        defer { statement.finish() }
        return try statement.step() ? statement.integer(0) : -1
    }
}
