import CacheChainCore
import CacheChainDiskStorage
import CacheChainStorage
import CacheChainTesting
import Foundation
import Testing

/// DiskStorage's blocking SQLite and file work runs on an executor of its own, never on Swift's cooperative
/// pool: a store that waits on SQLite's busy timeout while another process holds the lock pins no pool thread.
@Suite("DiskStorage's executor", .tags(.integration))
struct DiskStorageExecutorTests {
    @Test("stores blocked by another process's SQLite lock leave the cooperative pool free for other tasks")
    func blockedStoresDoNotPinThePool() async throws {
        // One more blocked store than the pool has threads: on the pool, they would pin every one of them
        // for the 10 s busy timeout, and nothing else could run until the stores gave up.
        let count = min(ProcessInfo.processInfo.activeProcessorCount + 1, 16)
        let directories = (0..<count).map { _ in TemporaryDirectory("locked") }
        // Opened before the other process takes the lock: opening runs on the caller's thread.
        let storages = try directories.map { try DiskStorage(directory: $0.path) }
        var holders: [Probe] = []
        for directory in directories {
            var holder = try Probe(["hold-lock", directory.path])
            let line = await holder.nextLine()
            try #require(line == "locked", "the lock holder failed: \(line ?? "no output")")
            holders.append(holder)
        }
        let started = LockedValue(0)
        let finished = LockedValue(0)
        let stores = storages.enumerated().map { index, storage in
            Task {
                started.withLock { $0 += 1 }
                try? await storage.store(StorageConformanceSuite.makeEntry(path: "/blocked-\(index)", body: "waits"))
                finished.withLock { $0 += 1 }
            }
        }
        try await waitUntil("every store has started") { started.withLock { $0 } == count }
        // Twice as many short tasks as the pool has threads: they run while the stores still wait.
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<(2 * ProcessInfo.processInfo.activeProcessorCount) {
                group.addTask { await Task.yield() }
            }
        }
        #expect(finished.withLock { $0 } == 0, "the stores had already given up: they held pool threads")
        for holder in holders { await holder.kill() }
        for store in stores { await store.value }
        #expect(finished.withLock { $0 } == count)
    }
}

/// Opening a disk cache from async code: `DiskStorage.open(configuration:)` runs the blocking open on the
/// storage's queue. The format check's event (an older format removed) is emitted from inside the open, so
/// the task it sees tells where the open ran.
@Suite("Opening DiskStorage off the pool")
struct DiskStorageOpeningTests {
    @Test("open(configuration:) runs the open outside the caller's task; the initializer runs it inside")
    func openRunsOffThePool() async throws {
        for isAsync in [true, false] {
            let directory = TemporaryDirectory("opening")
            try Data("4\n".utf8).write(to: URL(fileURLWithPath: directory.path + "/cachechain-format"))
            let ranInATask = LockedValue<[Bool]>([])
            let events = CacheEventSink { _ in ranInATask.withLock { $0.append(withUnsafeCurrentTask { $0 != nil }) } }
            let configuration = DiskStorage.Configuration(directory: directory.path, events: events)
            let storage = isAsync
                ? try await DiskStorage.open(configuration: configuration) : try DiskStorage(configuration: configuration)
            #expect(ranInATask.withLock { $0 } == [!isAsync], "async open: \(isAsync)")
            let entry = StorageConformanceSuite.makeEntry(path: "/opened", body: "kept")
            try await storage.store(entry)
            #expect(try await storage.entries(for: entry.key).count == 1)
        }
    }
}
