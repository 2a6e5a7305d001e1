import CacheChain
import CacheChainCurl
import CacheChainLoopback
import CacheChainTesting
import Foundation
import HTTPTypes
import Testing

/// Housekeeping (issue 31.5) through libcurl and a loopback origin, over memory + disk: purging expired
/// responses by how long they have been stale, and the optional cap on how long a stale entry is kept.
@Suite("Housekeeping: expired purges and stale retention, end to end", .tags(.integration))
struct HousekeepingEndToEndTests {
    /// An origin, libcurl, and a client over memory + disk sharing one manual clock and an event log.
    struct Setup {
        let origin: LoopbackOrigin
        let clock = ManualClock()
        let directory = NSTemporaryDirectory() + "cachechain-housekeeping-\(UUID().uuidString)"
        let events = LockedEvents()
        let storage: TieredStorage
        let client: HTTPCacheClient

        init(staleRetention: Duration?) async throws {
            origin = try await LoopbackOrigin.start()
            let sink = CacheEventSink { [events] in events.append($0) }
            storage = TieredStorage(
                memory: MemoryStorage(capacity: 1 << 20, staleRetention: staleRetention, clock: clock, events: sink),
                disk: try DiskStorage(configuration: .init(
                    directory: directory, capacity: 8 << 20, staleRetention: staleRetention, clock: clock, events: sink
                ))
            )
            client = HTTPCacheClient(transport: CurlTransport(), configuration: .init(storage: storage, clock: clock))
        }

        func get(_ path: String) async throws -> PipelineResponse {
            try await client.data(for: try HTTPRequest(url: origin.url(path)))
        }

        func finish() async throws {
            try await client.shutdown()
            try await origin.shutdown()
            try? FileManager.default.removeItem(atPath: directory)
        }
    }

    /// The events storage emitted, in order.
    final class LockedEvents: Sendable {
        private let events = LockedValue<[CacheEvent]>([])
        func append(_ event: CacheEvent) { events.withLock { $0.append(event) } }
        var all: [CacheEvent] { events.withLock { $0 } }
    }

    @Test("removeExpiredResponses counts: olderThan keeps the recently stale, then every stale one goes; fresh stays")
    func purgeCounts() async throws {
        let setup = try await Setup(staleRetention: nil)
        setup.origin.route("/old", LoopbackRoute(headers: [("Cache-Control", "max-age=60")], body: "old", etag: "\"o\""))
        setup.origin.route("/recent", LoopbackRoute(headers: [("Cache-Control", "max-age=60")], body: "recent", etag: "\"r\""))
        setup.origin.route("/fresh", LoopbackRoute(headers: [("Cache-Control", "max-age=6000")], body: "fresh"))
        _ = try await setup.get("/old")
        setup.clock.advance(by: 3_600)
        _ = try await setup.get("/recent")
        _ = try await setup.get("/fresh")
        setup.clock.advance(by: 120)  // /old stale for 3,660 s, /recent for 60 s, /fresh fresh

        #expect(try await setup.client.removeExpiredResponses(olderThan: .seconds(3_600)) == 1)
        #expect(try await setup.client.removeExpiredResponses(olderThan: .seconds(3_600)) == 0)
        #expect(await setup.storage.usage().entryCount == 2)
        #expect(try await setup.client.removeExpiredResponses() == 1)
        #expect(await setup.storage.usage().entryCount == 1)
        #expect(try await setup.get("/fresh").cacheStatus == .hit)
        let refetched = try await setup.get("/recent")
        #expect(refetched.cacheStatus == .miss)
        #expect(setup.origin.receivedRequests.last?.header("If-None-Match") == nil, "the removed entry's validator was not used")
        #expect(setup.origin.requestCount(for: "/fresh") == 1)
        try await setup.finish()
    }

    @Test("stale retention: kept for max-age + stale-if-error + the cap (revalidated), dropped one second later (a plain miss)")
    func staleRetention() async throws {
        let setup = try await Setup(staleRetention: .seconds(300))
        setup.origin.route("/r", LoopbackRoute(headers: [("Cache-Control", "max-age=60, stale-if-error=100")], body: "r", etag: "\"r1\""))
        _ = try await setup.get("/r")
        setup.clock.advance(by: 60 + 100 + 299)
        let kept = try await setup.get("/r")  // stale for 399 s of the 400 s allowed: revalidated with its ETag
        #expect(kept.cacheStatus == .revalidated)
        #expect(setup.origin.receivedRequests.last?.header("If-None-Match") == "\"r1\"")
        setup.clock.advance(by: 60 + 100 + 301)
        #expect(try await setup.client.cachedResponse(for: try HTTPRequest(url: setup.origin.url("/r"))) == nil)
        #expect(await setup.storage.disk.usage().entryCount == 0, "the disk row was removed, not only hidden")
        #expect(await setup.storage.memory.usage().entryCount == 0)
        let dropped = setup.events.all.filter { $0.kind == .evicted && $0.reasons == ["stale-retention"] }
        #expect(dropped.count == 2, "one eviction per tier: \(dropped)")
        let refetched = try await setup.get("/r")
        #expect(refetched.cacheStatus == .miss)
        #expect(setup.origin.receivedRequests.last?.header("If-None-Match") == nil)
        try await setup.finish()
    }
}
