import CacheChainCore
@testable import CacheChainDiskStorage
@testable import CacheChainStorage
import CacheChainTesting
import Foundation
import Testing

/// Every directory and file under `directory` with its permission bits (`st_mode & 0o7777`).
func permissionModes(under directory: String) -> [(path: String, isDirectory: Bool, mode: mode_t)] {
    var found: [(String, Bool, mode_t)] = []
    var pending = [directory]
    while let current = pending.popLast() {
        var status = stat()
        guard lstat(current, &status) == 0 else { continue }
        let isDirectory = status.st_mode & S_IFMT == S_IFDIR
        found.append((current, isDirectory, status.st_mode & 0o7777))
        if isDirectory {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: current)) ?? []
            pending += names.map { "\(current)/\($0)" }
        }
    }
    return found
}

@Suite("DiskStorage: owner-only permissions")
struct DiskPermissionTests {
    private func fill(_ storage: DiskStorage) async throws {
        try await storage.store(StorageConformanceSuite.makeEntry(path: "/small"))
        let large = PipelineBody([UInt8](repeating: 7, count: 100_000))
        try await storage.store(StorageConformanceSuite.makeEntry(path: "/large", body: large))
    }

    @Test("a new cache has only 0700 directories and 0600 files, WAL and SHM included")
    func newCacheIsPrivate() async throws {
        let scratch = TemporaryDirectory("perm")
        let directory = scratch.path + "/nested/cache"
        let storage = try DiskStorage(directory: directory)
        try await fill(storage)
        let modes = permissionModes(under: directory)
        let names = Set(modes.map { ($0.path as NSString).lastPathComponent })
        #expect(names.isSuperset(of: ["cachechain-format", "index.sqlite", "index.sqlite-wal", "index.sqlite-shm", "tmp"]))
        #expect(modes.contains { !$0.isDirectory && $0.path.contains("/v\(DiskStorage.formatVersion)/") && $0.path.contains(".") && !$0.path.hasSuffix("sqlite") }, "an entry file")
        for item in modes {
            #expect(item.mode == (item.isDirectory ? 0o700 : 0o600), "\(item.path): \(String(item.mode, radix: 8))")
        }
        #expect(permissionModes(under: scratch.path + "/nested").first?.mode == 0o700, "created parents are private too")
    }

    @Test("opening repairs a cache whose directories and index files were left readable by others; the sweep repairs entry files")
    func openRepairs() async throws {
        let scratch = TemporaryDirectory("perm")
        do { try await fill(try DiskStorage(directory: scratch.path)) }
        for item in permissionModes(under: scratch.path) {
            chmod(item.path, item.isDirectory ? 0o755 : 0o644)
        }
        let reopened = try DiskStorage(configuration: .init(directory: scratch.path, orphanGracePeriod: .seconds(3600)))
        for item in permissionModes(under: scratch.path) where item.isDirectory || !item.path.contains("/v\(DiskStorage.formatVersion)/") || item.path.contains("index.sqlite") {
            #expect(item.mode == (item.isDirectory ? 0o700 : 0o600), "after opening: \(item.path)")
        }
        await reopened.sweepOrphans()
        for item in permissionModes(under: scratch.path) {
            #expect(item.mode == (item.isDirectory ? 0o700 : 0o600), "after the sweep: \(item.path)")
        }
        #expect(try await reopened.entries(for: StorageConformanceSuite.makeEntry(path: "/large").key).count == 1)
    }
}
