import CacheChainCore
import CacheChainStorage
import CacheChainTesting
import Foundation
import HTTPTypes
import Synchronization
import Testing

private func entry(_ path: String, bytes: Int = 100, storedAt: TimeInterval = 0) -> CacheEntry {
    StorageConformanceSuite.makeEntry(path: path, body: PipelineBody([UInt8](repeating: 7, count: bytes)), storedAt: storedAt)
}

@Suite("MemoryStorage")
struct MemoryStorageTests {
    @Test("passes the storage conformance suite", arguments: StorageConformanceSuite.checks.map(\.name))
    func conformance(check: String) async throws {
        let suite = StorageConformanceSuite(makeStorage: { MemoryStorage(capacity: 16 << 20) })
        let selected = try #require(StorageConformanceSuite.checks.first { $0.name == check })
        try await suite.run(selected)
    }

    @Test("evicts the least recently used variant, where a read counts as a use")
    func lruOrder() async throws {
        let a = entry("/a"), b = entry("/b"), c = entry("/c")
        let storage = MemoryStorage(capacity: a.cost * 2 + a.cost / 2)
        await storage.store(a)
        await storage.store(b)
        _ = await storage.entries(for: a.key)  // a is now more recent than b
        await storage.store(c)
        #expect(await storage.entries(for: b.key).isEmpty, "b was least recently used")
        #expect(await storage.entries(for: a.key).count == 1)
        #expect(await storage.entries(for: c.key).count == 1)
    }

    @Test("the count limit holds and each eviction is reported")
    func countLimit() async throws {
        let evicted = Mutex<[String]>([])
        let storage = MemoryStorage(
            capacity: 1 << 20,
            countLimit: 3,
            events: CacheEventSink { event in if event.kind == .evicted { evicted.withLock { $0.append(event.key?.path ?? "") } } }
        )
        for index in 0..<5 { await storage.store(entry("/\(index)")) }
        #expect(await storage.usage().entryCount == 3)
        #expect(evicted.withLock { $0 } == ["/0", "/1"])
    }

    @Test("an entry larger than the capacity is refused and evicts nothing")
    func oversized() async throws {
        let small = entry("/small")
        let storage = MemoryStorage(capacity: small.cost * 3)
        await storage.store(small)
        await storage.store(entry("/huge", bytes: small.cost * 4))
        #expect(await storage.entries(for: small.key).count == 1)
        #expect(await storage.usage().entryCount == 1)
    }

    @Test("usage stays exact under random operations, checked against a reference model")
    func exactUsage() async throws {
        let storage = MemoryStorage(capacity: 1 << 30)
        var model: [String: Int] = [:]
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<2000 {
            let path = "/k\(Int.random(in: 0..<50, using: &generator))"
            switch Int.random(in: 0..<3, using: &generator) {
            case 0, 1:
                let stored = entry(path, bytes: Int.random(in: 0..<500, using: &generator))
                await storage.store(stored)
                model[path] = stored.cost
            default:
                await storage.remove(entry(path).key)
                model[path] = nil
            }
        }
        let usage = await storage.usage()
        #expect(usage.memoryBytes == model.values.reduce(0, +))
        #expect(usage.entryCount == model.count)
        #expect(Set(await storage.keys().map(\.path)) == Set(model.keys))
    }

    @Test("shrinking the capacity evicts down to the new limit; memory-only entries are kept")
    func shrink() async throws {
        let storage = MemoryStorage(capacity: 1 << 20)
        var memoryOnly = entry("/m")
        memoryOnly.cached.storagePolicy = .allowedInMemoryOnly
        await storage.store(memoryOnly)
        for index in 0..<10 { await storage.store(entry("/\(index)")) }
        await storage.setCapacity(memoryOnly.cost * 2)
        let usage = await storage.usage()
        #expect(usage.memoryBytes <= memoryOnly.cost * 2)
        #expect(usage.memoryCapacity == memoryOnly.cost * 2)
        #expect(await storage.entries(for: entry("/9").key).count == 1, "the most recent entry survives")
    }
}

@Suite("Test doubles")
struct TestDoubleTests {
    @Test("ManualClock moves only when told")
    func manualClock() {
        let clock = ManualClock(now: Date(timeIntervalSince1970: 100))
        #expect(clock.now() == Date(timeIntervalSince1970: 100))
        clock.advance(by: 5)
        #expect(clock.now() == Date(timeIntervalSince1970: 105))
        clock.set(Date(timeIntervalSince1970: 1))
        #expect(clock.now() == Date(timeIntervalSince1970: 1))
    }

    @Test("ScriptedTransport answers routes, 404s, 304s on matching ETags, and fails while down")
    func scriptedTransport() async throws {
        let origin = ScriptedTransport()
        origin.route("/a", fields: [("Cache-Control", "max-age=1")], body: "a", etag: "\"1\"")
        let context = InterceptorContext(storage: MemoryStorage())
        func get(_ path: String, _ fields: HTTPFields = [:]) async throws -> PipelineResponse {
            try await origin.send(
                PipelineRequest(head: HTTPRequest(method: .get, scheme: "http", authority: "t", path: path, headerFields: fields)),
                context: context
            )
        }
        #expect(try await get("/a").body.string == "a")
        #expect(try await get("/missing").head.status == .notFound)
        #expect(try await get("/a", [.ifNoneMatch: "\"1\""]).head.status.code == 304)
        origin.setDown(true)
        await #expect(throws: ScriptedTransport.OriginDown.self) { try await get("/a") }
        #expect(origin.requestCount(for: "/a") == 3)
    }
}
