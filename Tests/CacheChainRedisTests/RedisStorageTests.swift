import CacheChain
import CacheChainRedis
import CacheChainTesting
import Foundation
import HTTPTypes
import Logging
import Synchronization
import Testing

extension Tag {
    @Tag static var redis: Self
    @Tag static var integration: Self
}

/// Runs `body` with a fresh redis-server and always stops it.
func withRedis<T>(_ body: (LocalRedisServer) async throws -> T) async throws -> T {
    let server = try await LocalRedisServer.start()
    do {
        let result = try await body(server)
        server.stop()
        return result
    } catch {
        server.stop()
        throw error
    }
}

func storage(_ server: LocalRedisServer, namespace: String = "test-\(UUID().uuidString)", events: CacheEventSink = .none) -> RedisStorage {
    RedisStorage(
        configuration: .init(endpoint: .tcp(host: "127.0.0.1", port: server.port), namespace: namespace, inlineBodyLimit: 64 << 10),
        events: events
    )
}

@Suite("RedisStorage against a real redis-server", .tags(.integration, .redis), .serialized)
struct RedisStorageTests {
    @Test("passes the storage conformance suite")
    func conformance() async throws {
        try await withRedis { server in
            for check in StorageConformanceSuite.checks {
                let suite = StorageConformanceSuite(makeStorage: { storage(server) })
                try await suite.run(check)
            }
        }
    }

    @Test("two instances share an entry: the second is a HIT without touching the origin")
    func sharedBetweenInstances() async throws {
        try await withRedis { server in
            let namespace = "shared-\(UUID().uuidString)"
            let origin = ScriptedTransport()
            origin.route("/shared", fields: [("Cache-Control", "max-age=600")], body: "fetched once")
            let policy = CachePolicyConfiguration(mode: .sharedCache)
            let first = HTTPCacheClient(transport: origin, configuration: .init(storage: storage(server, namespace: namespace), policy: policy))
            let second = HTTPCacheClient(transport: origin, configuration: .init(storage: storage(server, namespace: namespace), policy: policy))
            let request = HTTPRequest(method: .get, scheme: "https", authority: "api.test", path: "/shared")
            #expect(try await first.data(for: request).cacheStatus == .miss)
            let hit = try await second.data(for: request)
            #expect(hit.cacheStatus == .hit)
            #expect(hit.body.string == "fetched once")
            #expect(origin.receivedRequests.count == 1)
        }
    }

    @Test("Redis killed mid-run: requests succeed as misses, and the cache recovers when Redis is back")
    func redisDownAndBack() async throws {
        let server = try await LocalRedisServer.start()
        defer { server.stop() }
        let origin = ScriptedTransport()
        origin.route("/r", fields: [("Cache-Control", "max-age=600")], body: "resilient")
        // Errors only: every request while Redis is down logs two warnings, which used to fill CI's log tail.
        var logger = Logger(label: "cachechain.test.redis-down")
        logger.logLevel = .error
        let client = HTTPCacheClient(transport: origin, configuration: .init(storage: storage(server, namespace: "down"), logger: logger))
        let request = HTTPRequest(method: .get, scheme: "https", authority: "api.test", path: "/r")
        #expect(try await client.data(for: request).cacheStatus == .miss)
        #expect(try await client.data(for: request).cacheStatus == .hit)

        server.kill()
        let whileDown = try await client.data(for: request)
        #expect(whileDown.cacheStatus == .miss)
        #expect(whileDown.body.string == "resilient")
        #expect(origin.receivedRequests.count == 2)

        let restarted = try await LocalRedisServer.start(port: server.port)
        defer { restarted.stop() }
        // The pool reconnects after its backoff: keep asking until a response is stored and then hit.
        let deadline = ContinuousClock.now.advanced(by: .seconds(30))
        var recovered = false
        while !recovered, ContinuousClock.now < deadline {
            _ = try await client.data(for: request)
            recovered = try await client.data(for: request).cacheStatus == .hit
            if !recovered { await Task.yield() }
        }
        #expect(recovered, "the cache did not recover after Redis came back")
    }

    @Test("namespaces are isolated: removeAll in one leaves another intact")
    func namespaceIsolation() async throws {
        try await withRedis { server in
            let a = storage(server, namespace: "ns-a")
            let b = storage(server, namespace: "ns-a*")  // a glob character must not widen the match
            let c = storage(server, namespace: "ns-b")
            for backend in [a, b, c] {
                try await backend.store(StorageConformanceSuite.makeEntry(path: "/x"))
            }
            try await b.removeAll()
            #expect(try await a.keys().count == 1)
            #expect(try await b.keys().isEmpty)
            #expect(try await c.keys().count == 1)
            #expect(await a.usage().entryCount == 1)
        }
    }

    @Test("a large file-backed body is stored and read back in chunks, byte for byte")
    func largeBody() async throws {
        try await withRedis { server in
            let backend = storage(server)
            let directory = NSTemporaryDirectory() + "cachechain-redis-body-\(UUID().uuidString)"
            defer { try? FileManager.default.removeItem(atPath: directory) }
            let writer = try BodyFileWriter(directory: directory)
            var expected: [UInt8] = []
            for chunk in 0..<12 {
                let bytes = (0..<(1 << 20)).map { UInt8(truncatingIfNeeded: $0 &+ chunk &* 31) }
                expected += bytes
                try writer.append(bytes)
            }
            let entry = StorageConformanceSuite.makeEntry(path: "/large", body: try writer.finish())
            try await backend.store(entry)
            let read = try #require(try await backend.entries(for: entry.key).first)
            #expect(read.cached.body.file != nil, "bodies above 8 MiB are read back in chunks into a spool file")
            #expect(try read.cached.body.collect() == expected)
        }
    }

    @Test("a damaged variant is a miss, is removed and reported; other entries are untouched")
    func corruption() async throws {
        try await withRedis { server in
            let events = Mutex<[CacheEvent]>([])
            let namespace = "corrupt-\(UUID().uuidString)"
            let backend = storage(server, namespace: namespace, events: CacheEventSink { event in events.withLock { $0.append(event) } })
            let damaged = StorageConformanceSuite.makeEntry(path: "/damaged")
            let intact = StorageConformanceSuite.makeEntry(path: "/intact")
            try await backend.store(damaged)
            try await backend.store(intact)
            try RedisCLI.run(port: server.port, ["HSET", "\(namespace):e:\(damaged.key.stringValue)", "v", "CCR1Igarbage"])
            #expect(try await backend.entries(for: damaged.key).isEmpty)
            #expect(events.withLock { $0.map(\.kind) }.contains(.storageError))
            #expect(try RedisCLI.run(port: server.port, ["EXISTS", "\(namespace):e:\(damaged.key.stringValue)"]) == "0")
            #expect(try await backend.entries(for: intact.key).first == intact)
        }
    }

    @Test("expiry follows freshness plus stale allowances plus retention; memory-only entries never reach Redis")
    func expiryAndPolicies() async throws {
        try await withRedis { server in
            let namespace = "ttl-\(UUID().uuidString)"
            let backend = RedisStorage(configuration: .init(
                endpoint: .tcp(host: "127.0.0.1", port: server.port), namespace: namespace, staleRetention: .seconds(100)
            ))
            var request = HTTPRequest(method: .get, scheme: "https", authority: "api.test", path: "/ttl")
            var response = HTTPResponse(status: .ok)
            response.headerFields[.cacheControl] = "max-age=1000, stale-if-error=500"
            let entry = CacheEntry(request: request, cached: CachedResponse(response: response, body: "t", requestTime: Date()))
            try await backend.store(entry)
            let ttl = try #require(Int(try RedisCLI.run(port: server.port, ["PTTL", "\(namespace):e:\(entry.key.stringValue)"])))
            #expect(ttl > 1_590_000 && ttl <= 1_600_000, "expected about 1600 s, got \(ttl) ms")

            request.path = "/memory-only"
            let memoryOnly = CacheEntry(
                request: request,
                cached: CachedResponse(response: response, body: "m", storagePolicy: .allowedInMemoryOnly, requestTime: Date())
            )
            try await backend.store(memoryOnly)
            #expect(try await backend.entries(for: memoryOnly.key).isEmpty)
        }
    }
}

/// `redis-cli` for poking at the server from tests.
enum RedisCLI {
    @discardableResult
    static func run(port: Int, _ arguments: [String]) throws -> String {
        let process = try ChildProcess("/usr/bin/redis-cli", ["-p", String(port), "--raw"] + arguments, standardOutput: .pipe)
        let output = process.readOutput()
        process.waitUntilExit()
        return output.trimmingCharacters(in: .whitespacesAndNewlines)
    }
}

@Suite("Tiered memory → Redis", .tags(.integration, .redis))
struct TieredRedisTests {
    @Test("each instance keeps hot entries in memory and shares the rest through Redis")
    func tieredSharing() async throws {
        try await withRedis { server in
            let namespace = "tiered-\(UUID().uuidString)"
            let memoryA = MemoryStorage(capacity: 1 << 20)
            let memoryB = MemoryStorage(capacity: 1 << 20)
            let instanceA = TieredStorage(memory: memoryA, disk: storage(server, namespace: namespace))
            let instanceB = TieredStorage(memory: memoryB, disk: storage(server, namespace: namespace))
            let entry = StorageConformanceSuite.makeEntry(path: "/hot")
            try await instanceA.store(entry)
            #expect(await memoryA.usage().entryCount == 1)
            #expect(await memoryB.usage().entryCount == 0)
            // Instance B finds it in Redis and promotes it into its own memory tier.
            #expect(try await instanceB.entries(for: entry.key).first == entry)
            #expect(await memoryB.usage().entryCount == 1)
            // Redis gone: B still answers from memory.
            server.kill()
            #expect(try await instanceB.entries(for: entry.key).first == entry)
        }
    }
}
