import CacheChain
import CacheChainCurl
import CacheChainLoopback
import CacheChainTesting
import Foundation
import HTTPTypes
import Testing

/// Cached first, then fresh (issue 31.8) through libcurl and a loopback origin: one element when the origin
/// confirms or repeats the stored response, two when it changed, one when nothing is stored, a thrown network
/// error after the cached element, and a cancelled consumer cancelling the refresh.
@Suite("Cached then fresh: the stored response at once, the origin's when it differs", .tags(.integration))
struct CachedThenFreshEndToEndTests {
    struct Setup {
        let origin: LoopbackOrigin
        let client: HTTPCacheClient

        static func start() async throws -> Setup {
            let origin = try await LoopbackOrigin.start()
            let client = HTTPCacheClient(transport: CurlTransport(), configuration: .init(clock: ManualClock()))
            return Setup(origin: origin, client: client)
        }

        func get(_ path: String) async throws -> PipelineResponse {
            try await client.data(for: try HTTPRequest(url: origin.url(path)))
        }

        func all(_ path: String) async throws -> [PipelineResponse] {
            var responses: [PipelineResponse] = []
            for try await response in client.responses(for: try HTTPRequest(url: origin.url(path))) {
                responses.append(response)
            }
            return responses
        }

        func finish() async throws {
            try await client.shutdown()
            try await origin.shutdown()
        }
    }

    @Test("unchanged (304): one element, the stored response, and the origin saw a conditional request")
    func unchangedNotModified() async throws {
        let setup = try await Setup.start()
        setup.origin.route("/a", LoopbackRoute(headers: [("Cache-Control", "max-age=60")], body: "one", etag: "\"v1\""))
        _ = try await setup.get("/a")

        let responses = try await setup.all("/a")
        #expect(responses.map(\.cacheStatus) == [.hit])
        #expect(responses.first?.body.string == "one")
        #expect(setup.origin.requestCount(for: "/a") == 2, "the stored response was revalidated")
        #expect(setup.origin.receivedRequests.last?.header("If-None-Match") == "\"v1\"")
        try await setup.finish()
    }

    @Test("unchanged (the same 200 without validators): one element")
    func unchangedSameBody() async throws {
        let setup = try await Setup.start()
        setup.origin.route("/plain", LoopbackRoute(headers: [("Cache-Control", "max-age=60")], body: "same"))
        _ = try await setup.get("/plain")

        let responses = try await setup.all("/plain")
        #expect(responses.map(\.cacheStatus) == [.hit])
        #expect(setup.origin.requestCount(for: "/plain") == 2, "the origin was asked again")
        try await setup.finish()
    }

    @Test("changed: the stored response, then the new one, which is stored")
    func changed() async throws {
        let setup = try await Setup.start()
        setup.origin.route("/c", LoopbackRoute(headers: [("Cache-Control", "max-age=60")], body: "one", etag: "\"v1\""))
        _ = try await setup.get("/c")
        setup.origin.route("/c", LoopbackRoute(headers: [("Cache-Control", "max-age=60")], body: "two", etag: "\"v2\""))

        let responses = try await setup.all("/c")
        #expect(responses.map(\.cacheStatus) == [.hit, .miss])
        #expect(responses.map { $0.body.string } == ["one", "two"])
        #expect(responses.last?.head.headerFields[.eTag] == "\"v2\"")
        #expect(responses.last?.trace.isEmpty == false, "the fresh response carries its trace")
        let next = try await setup.get("/c")
        #expect(next.cacheStatus == .hit)
        #expect(next.body.string == "two", "the fresh response was stored")
        try await setup.finish()
    }

    @Test("changed body under the same validators-free route: two elements")
    func changedBodyWithoutValidators() async throws {
        let setup = try await Setup.start()
        setup.origin.route("/b", LoopbackRoute(headers: [("Cache-Control", "max-age=60")], body: "one"))
        _ = try await setup.get("/b")
        setup.origin.route("/b", LoopbackRoute(headers: [("Cache-Control", "max-age=60")], body: "owt"))

        let responses = try await setup.all("/b")
        #expect(responses.map { $0.body.string } == ["one", "owt"])
        try await setup.finish()
    }

    @Test("nothing stored: one element, the origin's response")
    func nothingStored() async throws {
        let setup = try await Setup.start()
        setup.origin.route("/n", LoopbackRoute(headers: [("Cache-Control", "max-age=60")], body: "new"))

        let responses = try await setup.all("/n")
        #expect(responses.map(\.cacheStatus) == [.miss])
        #expect(responses.first?.body.string == "new")
        #expect(setup.origin.requestCount(for: "/n") == 1)
        #expect(try await setup.get("/n").cacheStatus == .hit)
        try await setup.finish()
    }

    @Test("a stale stored response comes first with status stale")
    func staleFirst() async throws {
        let setup = try await Setup.start()
        setup.origin.route("/s", LoopbackRoute(headers: [("Cache-Control", "max-age=0")], body: "old", etag: "\"s1\""))
        _ = try await setup.get("/s")

        let responses = try await setup.all("/s")
        #expect(responses.map(\.cacheStatus) == [.stale])
        #expect(responses.first?.body.string == "old")
        try await setup.finish()
    }

    @Test("network error after the cached element: the cached one is delivered, then next() throws")
    func networkErrorAfterCached() async throws {
        let setup = try await Setup.start()
        setup.origin.route("/e", LoopbackRoute(headers: [("Cache-Control", "max-age=60")], body: "kept", etag: "\"e\""))
        _ = try await setup.get("/e")
        let request = try HTTPRequest(url: setup.origin.url("/e"))
        try await setup.origin.shutdown()

        var iterator = setup.client.responses(for: request).makeAsyncIterator()
        let cached = try await iterator.next()
        #expect(cached?.body.string == "kept")
        await #expect(throws: CacheChainError.self) { try await iterator.next() }
        #expect(try await iterator.next() == nil, "the sequence is over after the error")
        try await setup.client.shutdown()
    }

    @Test("cancelling the consumer cancels the refresh under way")
    func cancellation() async throws {
        let setup = try await Setup.start()
        setup.origin.route("/g", LoopbackRoute(headers: [("Cache-Control", "max-age=60")], body: "one", etag: "\"g1\""))
        _ = try await setup.get("/g")
        let gate = LoopbackGate()
        var held = LoopbackRoute(headers: [("Cache-Control", "max-age=60")], body: "two", etag: "\"g2\"")
        held.gate = gate
        setup.origin.route("/g", held)
        let request = try HTTPRequest(url: setup.origin.url("/g"))
        let gotCached = LockedValue(false)

        let consumer = Task { [client = setup.client] in
            var iterator = client.responses(for: request).makeAsyncIterator()
            _ = try await iterator.next()
            gotCached.withLock { $0 = true }
            return try await iterator.next()
        }
        try await waitUntil("the refresh reached the origin") { setup.origin.requestCount(for: "/g") == 2 }
        #expect(gotCached.withLock { $0 })
        consumer.cancel()
        await #expect(throws: (any Error).self) { try await consumer.value }
        #expect(!gate.isOpen, "the refresh ended by cancellation, not because the origin answered")
        gate.open()
        #expect(try await setup.get("/g").body.string == "one", "the cancelled refresh stored nothing")
        try await setup.finish()
    }
}
