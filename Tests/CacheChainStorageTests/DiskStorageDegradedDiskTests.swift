import CacheChainCore
@testable import CacheChainDiskStorage
import CacheChainStorage
import CacheChainTesting
import Foundation
import Synchronization
import Testing

private func entry(_ path: String, bytes: Int) -> CacheEntry {
    StorageConformanceSuite.makeEntry(path: path, body: PipelineBody([UInt8](repeating: 7, count: bytes)))
}

/// Issue 25.8: a full or read-only disk degrades the cache, it does not wedge it. The disk is a real `tmpfs`
/// of a few MiB (``ScratchFileSystem``, mounted only as root; elsewhere the tests print why and skip).
@Suite("DiskStorage on a full or read-only disk", .serialized)
struct DiskStorageDegradedDiskTests {
    @Test("a full disk: stores evict least recently used entries (reason disk-full) instead of failing; the newest entries hit")
    func fullDiskEvicts() async throws {
        guard let scratch = ScratchFileSystem.mount(bytes: 16 << 20) else { return }
        defer { scratch.unmount() }
        let reasons = Mutex<[String]>([])
        let storage = try DiskStorage(configuration: .init(
            directory: scratch.path + "/cache", capacity: 1 << 30,  // far more than the 16 MiB the disk has
            events: CacheEventSink { event in if event.kind == .evicted { reasons.withLock { $0 += event.reasons } } }
        ))
        for index in 0..<100 { try await storage.store(entry("/e\(index)", bytes: 256 << 10)) }
        #expect(reasons.withLock { $0 }.contains("disk-full"))
        #expect(reasons.withLock { $0 }.allSatisfy { $0 == "disk-full" })
        for index in 98..<100 { #expect(try await storage.entries(for: entry("/e\(index)", bytes: 0).key).count == 1, "/e\(index)") }
        #expect(try await storage.entries(for: entry("/e0", bytes: 0).key).isEmpty, "the oldest was evicted")
        let usage = await storage.usage()
        #expect(usage.diskBytes < 16 << 20 && usage.entryCount < 64)
    }

    @Test("purge works on a disk filled to the last byte; the cache then stores again once there is room")
    func purgeOnFullDisk() async throws {
        guard let scratch = ScratchFileSystem.mount(bytes: 16 << 20) else { return }
        defer { scratch.unmount() }
        let storage = try DiskStorage(directory: scratch.path + "/cache", capacity: 1 << 30)
        for index in 0..<24 { try await storage.store(entry("/big\(index)", bytes: 256 << 10)) }
        for index in 0..<200 { try await storage.store(entry("/small\(index)", bytes: 2000)) }  // inline rows
        let filler = scratch.fill()
        try await storage.removeAll()
        #expect(await storage.usage().entryCount == 0)
        #expect(try await storage.entries(for: entry("/big0", bytes: 0).key).isEmpty)
        #expect(try await storage.entries(for: entry("/small0", bytes: 0).key).isEmpty)
        try FileManager.default.removeItem(atPath: filler)
        try await storage.store(entry("/after", bytes: 100_000))
        #expect(try await storage.entries(for: entry("/after", bytes: 0).key).count == 1)
    }

    @Test("read-only mode on a read-only file system: hits are served, writes fail with a clear error, nothing changes")
    func readOnlyFileSystem() async throws {
        guard let scratch = ScratchFileSystem.mount(bytes: 8 << 20) else { return }
        defer { scratch.unmount() }
        let directory = scratch.path + "/cache"
        do {
            let writer = try DiskStorage(directory: directory)
            try await writer.store(entry("/inline", bytes: 1000))
            try await writer.store(entry("/file", bytes: 1 << 20))
        }
        try scratch.remountReadOnly()
        let storage = try DiskStorage(configuration: .init(directory: directory, accessMode: .readOnly))
        #expect(try await storage.entries(for: entry("/inline", bytes: 0).key).first?.cached.body.count == 1000)
        #expect(try await storage.entries(for: entry("/file", bytes: 0).key).first?.cached.body.count == 1 << 20)
        #expect(await storage.usage().entryCount == 2)
        let refused = await #expect(throws: CacheChainError.self) { try await storage.store(entry("/new", bytes: 10)) }
        #expect(refused?.code == .storageFailed && refused?.message.contains("read-only") == true, "\(String(describing: refused))")
        await #expect(throws: CacheChainError.self) { try await storage.removeAll() }
        try await storage.flush()
        #expect(try await storage.entries(for: entry("/file", bytes: 0).key).count == 1)
    }

    @Test("read-only mode: a missing directory is an error and nothing is created; another format is refused")
    func readOnlyMissingCache() throws {
        let directory = TemporaryDirectory()
        let missing = directory.path + "/none"
        let error = #expect(throws: CacheChainError.self) {
            try DiskStorage(configuration: .init(directory: missing, accessMode: .readOnly))
        }
        #expect(error?.message.contains("no disk cache") == true)
        #expect(!FileManager.default.fileExists(atPath: missing))
        try FileManager.default.createDirectory(atPath: missing, withIntermediateDirectories: true)
        try Data("9\n".utf8).write(to: URL(fileURLWithPath: missing + "/cachechain-format"))
        #expect(throws: CacheChainError.self) { try DiskStorage(configuration: .init(directory: missing, accessMode: .readOnly)) }
        #expect(try FileManager.default.contentsOfDirectory(atPath: missing) == ["cachechain-format"])
    }
}
