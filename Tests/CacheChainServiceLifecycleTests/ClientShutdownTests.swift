import CacheChain
@testable import CacheChainCurl
import CacheChainLoopback
import CacheChainTesting
import Dispatch
import Foundation
import Synchronization
import Testing

/// Storage that counts its flushes, over a memory backend (a double for the one rule: shutdown flushes once).
struct FlushCountingStorage: CacheStorage {
    let inner = MemoryStorage(capacity: 1 << 20)
    let flushes = Counter()

    final class Counter: Sendable {
        private let value = Atomic<Int>(0)
        func increment() { value.add(1, ordering: .relaxed) }
        var count: Int { value.load(ordering: .relaxed) }
    }

    func entries(for key: CacheKey) async throws -> [CacheEntry] { await inner.entries(for: key) }
    func store(_ entry: CacheEntry) async throws { await inner.store(entry) }
    func remove(_ key: CacheKey) async throws { await inner.remove(key) }
    func removeAll() async throws { await inner.removeAll() }
    func keys() async throws -> [CacheKey] { await inner.keys() }
    func usage() async -> StorageUsage { await inner.usage() }
    func flushPendingWrites() async throws { flushes.increment() }
}

/// Blocks the thread that calls ``block()`` until ``release()``: here, the libcurl thread, to hold a shutdown open.
final class ThreadBlocker: Sendable {
    private let semaphore = DispatchSemaphore(value: 0)
    private let blocking = Atomic<Bool>(false)
    var isBlocking: Bool { blocking.load(ordering: .acquiring) }
    func block() {
        blocking.store(true, ordering: .releasing)
        semaphore.wait()
    }
    func release() { semaphore.signal() }
}

/// A flag set from one task and polled from another.
final class Flag: Sendable {
    private let value = Atomic<Bool>(false)
    func set() { value.store(true, ordering: .releasing) }
    var isSet: Bool { value.load(ordering: .acquiring) }
}

@Suite("HTTPCacheClient.shutdown() and CurlTransport.shutdown()", .tags(.lifecycle))
struct ClientShutdownTests {
    @Test("shutdown returns only once the libcurl thread has ended, not when it was asked to end")
    func waitsForTheLibcurlThread() async throws {
        let storage = FlushCountingStorage()
        let transport = CurlTransport()
        let client = HTTPCacheClient(transport: transport, configuration: .init(storage: storage))
        let blocker = ThreadBlocker()
        let blocking = Task(executorPreference: transport.taskExecutor) { blocker.block() }
        try await waitUntil("the libcurl thread is held") { blocker.isBlocking }
        let returned = Flag()
        let shutdown = Task {
            try await client.shutdown()
            returned.set()
        }
        try await waitUntil("the shutdown reaches the transport (after the storage's flush)") { storage.flushes.count == 1 }
        // The thread is held, so it cannot have ended: a shutdown that returned now would not have waited for it.
        let returnedEarly = (try? await waitUntil("shutdown returns", timeout: .seconds(1)) { returned.isSet }) != nil
        #expect(!returnedEarly, "shutdown returned while the libcurl thread was still running")
        blocker.release()
        try await shutdown.value
        #expect(transport.hasShutDown)
        await blocking.value
    }

    @Test("shutdown is idempotent: concurrent and repeated calls flush the storage once and stop the libcurl thread")
    func idempotent() async throws {
        let storage = FlushCountingStorage()
        let transport = CurlTransport()
        let client = HTTPCacheClient(transport: transport, configuration: .init(storage: storage))
        #expect(!transport.hasShutDown)
        try await client.shutdown()
        #expect(transport.hasShutDown)
        await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<8 { group.addTask { try await client.shutdown() } }
        }
        try await client.shutdown()
        #expect(storage.flushes.count == 1)
    }

    @Test("a transfer in flight when the transport shuts down fails with cancelled; later requests too")
    func inFlightTransferIsCancelled() async throws {
        let origin = try await LoopbackOrigin.start()
        let gate = LoopbackGate()
        var held = LoopbackRoute(body: "late")
        held.gate = gate
        origin.route("/held", held)
        let transport = CurlTransport()
        let client = HTTPCacheClient(transport: transport)
        let request = try HTTPRequest(url: origin.url("/held"))
        let inFlight = Task { try await client.data(for: request) }
        try await waitUntil("the request reaches the origin") { gate.waitingCount == 1 }
        await transport.shutdown()
        let failure = await #expect(throws: CacheChainError.self) { try await inFlight.value }
        #expect(failure?.code == .cancelled)
        let later = await #expect(throws: CacheChainError.self) { try await client.data(for: request) }
        #expect(later?.code == .cancelled)
        #expect(later?.message.contains("shut down") == true, "\(later?.message ?? "")")
        gate.open()
        try await origin.shutdown()
    }
}
