import CacheChain
import CacheChainCurl
import CacheChainLoopback
import CacheChainRedis
import CacheChainTesting
import Foundation
import HTTPTypes
import Testing

/// A client over a real libcurl transport and loopback origin, caching in a `RedisStorage` whose events are
/// collected.
private struct OutageHarness {
    let origin: LoopbackOrigin
    let storage: RedisStorage
    let client: HTTPCacheClient
    let events: LockedValue<[CacheEvent]>

    static func start(
        redisPort: Int,
        password: String? = nil,
        timeouts: Duration = .milliseconds(300),
        retryInterval: Duration = .seconds(3600)
    ) async throws -> OutageHarness {
        let origin = try await LoopbackOrigin.start()
        origin.route("/item", LoopbackRoute(headers: [("Cache-Control", "max-age=600")], body: "from the origin"))
        let events = LockedValue<[CacheEvent]>([])
        let storage = RedisStorage(
            configuration: .init(
                endpoint: .tcp(host: "127.0.0.1", port: redisPort),
                password: password,
                namespace: "outage-\(UUID().uuidString)",
                connectTimeout: timeouts,
                commandTimeout: timeouts,
                circuitBreaker: .init(failureThreshold: 1, retryInterval: retryInterval)
            ),
            events: CacheEventSink { event in events.withLock { $0.append(event) } }
        )
        let client = HTTPCacheClient(transport: CurlTransport(), configuration: .init(storage: storage))
        return OutageHarness(origin: origin, storage: storage, client: client, events: events)
    }

    func get(_ path: String = "/item") async throws -> PipelineResponse {
        try await client.data(for: HTTPRequest(url: origin.url(path)))
    }

    /// Sends `count` requests; each must be answered by the origin as a miss. Returns the storage errors
    /// their traces report.
    func missesWhileRedisFails(_ count: Int) async throws -> [String] {
        var failures: [String] = []
        for _ in 0..<count {
            let response = try await get()
            #expect(response.cacheStatus == .miss)
            #expect(response.head.status.code == 200)
            #expect(response.body.string == "from the origin")
            failures += response.trace.filter { $0.code == .storageError }.map(\.description)
        }
        return failures
    }

    func circuitOpenings() -> [CacheEvent] {
        events.withLock { $0.filter { $0.reasons.first == "redis-circuit-open" } }
    }
}

@Suite("Redis down, refusing AUTH or hung: misses, never a crash, one failure per circuit interval", .tags(.integration, .redis))
struct RedisOutageTests {
    @Test("Redis stopped: every request is a miss from the origin; only the first tries to connect")
    func redisStopped() async throws {
        let server = try await LocalRedisServer.start()
        let port = server.port
        server.stop()
        let harness = try await OutageHarness.start(redisPort: port)
        let failures = try await harness.missesWhileRedisFails(5)
        let attempts = failures.filter { !$0.contains("circuit breaker open") }
        #expect(attempts.count == 1, "expected one connection attempt, then the open circuit: \(failures)")
        #expect(attempts.first?.contains("unreachable") == true, "\(attempts)")
        #expect(harness.circuitOpenings().count == 1)
        guard case .open(_, let cause) = harness.storage.circuitState else {
            Issue.record("the circuit should be open, is \(harness.storage.circuitState)")
            return
        }
        #expect(cause.contains("unreachable"))
        try await harness.origin.shutdown()
    }

    @Test("Redis refusing AUTH: misses, the error names AUTH, and it is not retried on every request")
    func authRefused() async throws {
        let server = try await LocalRedisServer.start(password: "the-right-one")
        defer { server.stop() }
        let harness = try await OutageHarness.start(redisPort: server.port, password: "a-wrong-one")
        let failures = try await harness.missesWhileRedisFails(4)
        let attempts = failures.filter { !$0.contains("circuit breaker open") }
        #expect(attempts.count == 1, "\(failures)")
        #expect(attempts.first?.contains("refused AUTH") == true, "\(attempts)")
        #expect(harness.circuitOpenings().count == 1)

        // With the right password the same server caches.
        let right = try await OutageHarness.start(redisPort: server.port, password: "the-right-one")
        #expect(try await right.get().cacheStatus == .miss)
        #expect(try await right.get().cacheStatus == .hit)
        #expect(right.storage.circuitState == .closed)
        try await harness.origin.shutdown()
        try await right.origin.shutdown()
    }

    @Test("Redis hung (SIGSTOP): one command timeout opens the circuit; later requests do not wait for Redis")
    func redisHung() async throws {
        let server = try await LocalRedisServer.start()
        defer { server.stop() }
        let harness = try await OutageHarness.start(redisPort: server.port)
        #expect(try await harness.get().cacheStatus == .miss)
        #expect(try await harness.get().cacheStatus == .hit)

        server.pause()
        let failures = try await harness.missesWhileRedisFails(5)
        let timeouts = failures.filter { !$0.contains("circuit breaker open") }
        #expect(timeouts.count == 1, "expected one timed-out call, then the open circuit: \(failures)")
        #expect(harness.circuitOpenings().count == 1)
        server.resume()
        try await harness.origin.shutdown()
    }

    @Test("after the retry interval one request probes Redis; when it answers the cache works again")
    func recoversAfterInterval() async throws {
        let server = try await LocalRedisServer.start()
        defer { server.stop() }
        let harness = try await OutageHarness.start(redisPort: server.port, retryInterval: .milliseconds(50))
        #expect(try await harness.get().cacheStatus == .miss)
        server.pause()
        _ = try await harness.missesWhileRedisFails(1)
        #expect(harness.storage.circuitState != .closed)
        server.resume()
        // A probe follows the interval and every slot reconnects: keep asking until a request is a HIT again.
        let deadline = ContinuousClock.now.advanced(by: .seconds(60))
        var recovered = false
        while !recovered, ContinuousClock.now < deadline {
            recovered = try await harness.get().cacheStatus == .hit
            if !recovered { await Task.yield() }
        }
        #expect(recovered, "the cache did not recover after Redis came back")
        #expect(harness.storage.circuitState == .closed)
        try await harness.origin.shutdown()
    }
}
