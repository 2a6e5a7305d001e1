import CacheChain
import CacheChainCurl
import CacheChainLoopback
import CacheChainServiceLifecycle
import CacheChainTesting
import Foundation
import Logging
import ServiceLifecycle
import Testing

/// A disk cache behind a real `CurlTransport` and loopback origin, run as a service of a real `ServiceGroup`.
struct ServedCache {
    let origin: LoopbackOrigin
    let directory: String
    let clock = ManualClock()
    let client: HTTPCacheClient
    /// Holds the origin's answer to the background revalidation of `/news` until the test opens it.
    let revalidationGate = LoopbackGate()

    static func start() async throws -> ServedCache {
        let origin = try await LoopbackOrigin.start()
        let directory = NSTemporaryDirectory() + "cachechain-lifecycle-\(UUID().uuidString)"
        return try ServedCache(origin: origin, directory: directory)
    }

    private init(origin: LoopbackOrigin, directory: String) throws {
        self.origin = origin
        self.directory = directory
        client = HTTPCacheClient(
            transport: CurlTransport(),
            configuration: .init(storage: try DiskStorage(directory: directory), clock: clock, timeout: .seconds(600))
        )
    }

    /// Stores `/news` (v1, stale after 1 s, may be served stale while it is revalidated) and `/weather`; then
    /// makes `/news` stale, so the next GET serves v1 and revalidates in the background against a held v2.
    func primeStaleEntry() async throws {
        origin.route("/news", LoopbackRoute(headers: [("Cache-Control", "max-age=1, stale-while-revalidate=600")], body: "news v1", etag: "\"1\""))
        origin.route("/weather", LoopbackRoute(headers: [("Cache-Control", "max-age=600")], body: "sunny"))
        #expect(try await client.data(for: HTTPRequest(url: origin.url("/news"))).cacheStatus == .miss)
        #expect(try await client.data(for: HTTPRequest(url: origin.url("/weather"))).cacheStatus == .miss)
        clock.advance(by: 5)
        var v2 = LoopbackRoute(headers: [("Cache-Control", "max-age=600")], body: "news v2", etag: "\"2\"")
        v2.gate = revalidationGate
        origin.route("/news", v2)
    }

    /// Serves `/news` stale and waits until its background revalidation is held at the origin.
    func startRevalidation() async throws {
        let stale = try await client.data(for: HTTPRequest(url: origin.url("/news")))
        #expect(stale.cacheStatus == .stale)
        #expect(stale.body.string == "news v1")
        try await waitUntil("the background revalidation reaches the origin") { revalidationGate.waitingCount == 1 }
    }

    /// The bodies a new `DiskStorage` on the same directory finds for each path.
    func reopenedBodies() async throws -> [String: String] {
        let reopened = HTTPCacheClient(transport: CurlTransport(), configuration: .init(storage: try DiskStorage(directory: directory)))
        var bodies: [String: String] = [:]
        for path in ["/news", "/weather"] {
            bodies[path] = try await reopened.cachedResponse(for: HTTPRequest(url: origin.url(path)))?.body.string
        }
        return bodies
    }

    /// Waits until the client's revalidation queue refuses new work.
    func waitUntilRevalidationQueueCloses() async throws {
        try await waitUntil("the revalidation queue closes") { await !client.revalidationQueue.isAcceptingWork }
    }

    func stop() async throws {
        revalidationGate.open()
        try await origin.shutdown()
        try? FileManager.default.removeItem(atPath: directory)
    }
}

@Suite("HTTPCacheService under a ServiceGroup", .tags(.lifecycle))
struct GracefulShutdownTests {
    static let logger = Logger(label: "cachechain-lifecycle-test")

    @Test("graceful shutdown mid-revalidation: the revalidation finishes and the reopened disk cache has every entry, refreshed")
    func gracefulShutdownFinishesRevalidation() async throws {
        let cache = try await ServedCache.start()
        try await cache.primeStaleEntry()
        let group = ServiceGroup(services: [HTTPCacheService(client: cache.client)], logger: Self.logger)
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            try await cache.startRevalidation()
            await group.triggerGracefulShutdown()
            // The shutdown waits for the revalidation: the queue is closed to new work, the old one still runs.
            try await cache.waitUntilRevalidationQueueCloses()
            #expect(await cache.client.revalidationQueue.pendingCount == 1)
            cache.revalidationGate.open()
            try await tasks.waitForAll()
        }
        #expect(await cache.client.revalidationQueue.completedCount == 1)
        let failure = await #expect(throws: CacheChainError.self) {
            try await cache.client.data(for: HTTPRequest(url: cache.origin.url("/fresh")))
        }
        #expect(failure?.code == .cancelled, "after shutdown the transport refuses requests")
        #expect(try await cache.reopenedBodies() == ["/news": "news v2", "/weather": "sunny"])
        try await cache.stop()
    }

    /// The client's timeout is 10 minutes: only cancelling the held revalidation ends the shutdown within the limit.
    @Test("cancellation after the graceful shutdown began abandons the revalidation; every completed entry survives", .timeLimit(.minutes(2)))
    func cancellationAbandonsRevalidation() async throws {
        let cache = try await ServedCache.start()
        try await cache.primeStaleEntry()
        let group = ServiceGroup(services: [HTTPCacheService(client: cache.client)], logger: Self.logger)
        let running = Task { try await group.run() }
        try await cache.startRevalidation()
        await group.triggerGracefulShutdown()
        try await cache.waitUntilRevalidationQueueCloses()
        running.cancel()   // what the group does when its graceful period is over, or a second signal arrives
        _ = await running.result
        #expect(await cache.client.revalidationQueue.pendingCount == 0)
        #expect(cache.revalidationGate.waitingCount <= 1, "the origin never answered: the gate is still closed")
        #expect(try await cache.reopenedBodies() == ["/news": "news v1", "/weather": "sunny"])
        try await cache.stop()
    }
}

extension Tag {
    /// Tests of shutting the cache down with an application.
    @Tag static var lifecycle: Self
}
