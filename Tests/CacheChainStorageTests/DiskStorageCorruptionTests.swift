import CacheChainCore
@testable import CacheChainDiskStorage
@testable import CacheChainStorage
import CacheChainTesting
import Foundation
import Synchronization
import Testing

/// Entries with bodies of every kind: inline in the index, in a file returned in memory, in a file
/// returned as a file region (the storage is opened with a 64 KiB in-memory limit).
func mixedEntries(_ count: Int) -> [CacheEntry] {
    (0..<count).map { index in
        let size = [100, 40_000, 200_000][index % 3] + index
        let bytes = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ index) }
        return StorageConformanceSuite.makeEntry(path: "/mixed/\(index)", body: PipelineBody(bytes))
    }
}

func openDisk(_ path: String, events: CacheEventSink = .none) throws -> DiskStorage {
    try DiskStorage(configuration: .init(directory: path, capacity: 64 << 20, inMemoryBodyLimit: 64 << 10, orphanGracePeriod: .zero, events: events))
}

/// Every entry file under `v<format>/xx/`.
func entryFiles(_ path: String) throws -> [String] {
    try FileManager.default.subpathsOfDirectory(atPath: path + "/v\(DiskStorage.formatVersion)")
        .filter { $0.count > 3 && $0.dropFirst(2).hasPrefix("/") && !$0.hasPrefix("tmp") }
        .map { path + "/v\(DiskStorage.formatVersion)/" + $0 }
}

/// Either a miss (nothing, or an error) or the exact entry: never different bytes.
func readsExactOrMiss(_ storage: DiskStorage, _ entry: CacheEntry) async -> (exact: Bool, miss: Bool) {
    guard let found = try? await storage.entries(for: entry.key), let first = found.first else { return (false, true) }
    let exact = found.count == 1 && first == entry && (try? first.cached.body.collect()) == (try? entry.cached.body.collect())
    return (exact, false)
}

@Suite("DiskStorage corruption")
struct DiskStorageCorruptionTests {
    @Test("flipped, truncated, foreign and replaced entry files are misses with a reason; the others are served")
    func damagedEntryFiles() async throws {
        let directory = TemporaryDirectory("corrupt")
        let errors = Mutex<[String]>([])
        let storage = try openDisk(directory.path, events: CacheEventSink { event in
            if event.kind == .storageError { errors.withLock { $0.append(event.reasons.first ?? "") } }
        })
        let entries = mixedEntries(12)
        for entry in entries { try await storage.store(entry) }
        let files = try entryFiles(directory.path).sorted()
        try #require(files.count == 8, "8 of the 12 bodies live in files")
        let handle = { (path: String) throws -> FileHandle in try FileHandle(forUpdating: URL(fileURLWithPath: path)) }
        // 0: a body byte flipped; 1: a metadata byte flipped; 2: a header byte flipped; 3: truncated;
        // 4: replaced by a foreign file; 5: replaced by a directory. 6 and 7 stay intact.
        for (index, offset) in [(0, -1), (1, 40), (2, 3)] {
            let file = try handle(files[index])
            let end = try file.seekToEnd()
            try file.seek(toOffset: offset < 0 ? end - 1 : UInt64(offset))
            let byte = try #require(try file.read(upToCount: 1)?.first)
            try file.seek(toOffset: offset < 0 ? end - 1 : UInt64(offset))
            try file.write(contentsOf: [byte ^ 0x40])
            try file.close()
        }
        try handle(files[3]).truncate(atOffset: 1000)
        try Data("not a cache entry".utf8).write(to: URL(fileURLWithPath: files[4]))
        try FileManager.default.removeItem(atPath: files[5])
        try FileManager.default.createDirectory(atPath: files[5], withIntermediateDirectories: false)

        var exact = 0, misses = 0
        for entry in entries {
            let result = await readsExactOrMiss(storage, entry)
            if result.exact { exact += 1 }
            if result.miss { misses += 1 }
        }
        #expect(misses == 6, "each damaged file is a miss")
        #expect(exact == 6, "the 4 inline entries and the 2 intact files are served")
        #expect(errors.withLock { $0.count } == 6, "each damage is reported")
        #expect(await storage.usage().entryCount == 6, "damaged entries are removed")
        #expect(!FileManager.default.fileExists(atPath: files[0]), "a damaged file is deleted")
        let report = try await storage.checkIntegrity()
        #expect(report.isSound, "\(report)")
    }

    @Test("a damaged lookup throws integrity-check-failed (a miss with a reason); the next is a plain miss")
    func damagedLookupThrows() async throws {
        let directory = TemporaryDirectory("corrupt-throw")
        let storage = try openDisk(directory.path)
        let entry = mixedEntries(2)[1]
        try await storage.store(entry)
        let file = try #require(try entryFiles(directory.path).first)
        try Data(repeating: 0, count: 64).write(to: URL(fileURLWithPath: file))
        await #expect(throws: CacheChainError.self) { try await storage.entries(for: entry.key) }
        #expect(try await storage.entries(for: entry.key).isEmpty)
        try await storage.store(entry)
        #expect(try await storage.entries(for: entry.key) == [entry], "the key can be stored again")
    }

    @Test("flipped bytes and truncation in the index database: every entry reads exact or misses, and the cache works",
          arguments: 0..<8)
    func damagedIndex(round: Int) async throws {
        let directory = TemporaryDirectory("corrupt-index")
        let entries = mixedEntries(30)
        do {
            let storage = try openDisk(directory.path)
            for entry in entries { try await storage.store(entry) }
        }  // released: SQLite checkpoints the WAL into index.sqlite on close
        let index = directory.path + "/v\(DiskStorage.formatVersion)/index.sqlite"
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: index)))
        var random = SystemRandomNumberGenerator()
        if round == 7 {
            bytes.removeLast(bytes.count / 2)
        } else {
            for _ in 0..<(1 << round) {
                let position = Int.random(in: (round == 0 ? 0 : 100)..<bytes.count, using: &random)
                bytes[position] ^= UInt8.random(in: 1...255, using: &random)
            }
        }
        try Data(bytes).write(to: URL(fileURLWithPath: index))
        for suffix in ["-wal", "-shm"] { try? FileManager.default.removeItem(atPath: index + suffix) }

        let storage: DiskStorage
        do { storage = try openDisk(directory.path) } catch { Issue.record("a damaged index must open (rebuilt): \(error)"); return }
        for entry in entries { _ = await readsExactOrMiss(storage, entry) }  // exactness checked inside: never different bytes
        var wrong = 0
        for entry in entries {
            if let found = try? await storage.entries(for: entry.key), let first = found.first, first != entry { wrong += 1 }
        }
        #expect(wrong == 0, "a damaged index served different bytes")
        let fresh = StorageConformanceSuite.makeEntry(path: "/after-damage", body: "works")
        if (try? await storage.store(fresh)) == nil { try await storage.store(fresh) }  // the first may find the damage
        #expect(try await storage.entries(for: fresh.key).first?.cached.body == "works")
    }
}
