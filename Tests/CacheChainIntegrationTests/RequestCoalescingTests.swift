import CacheChain
import CacheChainCore
import CacheChainCurl
import CacheChainLoopback
import CacheChainTesting
import Foundation
import HTTPTypes
import Testing

/// Request coalescing in the default chain, over a real loopback origin and `CurlTransport`: what waiters
/// share, what they do not, errors and cancellation.
@Suite("Request coalescing end to end", .tags(.integration))
struct RequestCoalescingTests {
    /// An origin whose `/held` answers wait for the gate, and a default client counting `coalesced` events.
    private struct Setup {
        let origin: LoopbackOrigin
        let gate = LoopbackGate()
        let joined = LockedValue(0)
        let client: HTTPCacheClient

        init(coalescing: Bool = true, vary: Bool = false, varyField: String = "Accept-Language") async throws {
            origin = try await LoopbackOrigin.start()
            let gate = self.gate
            origin.route("/held") { request in
                var route = LoopbackRoute(
                    headers: [("Cache-Control", "max-age=60")] + (vary ? [("Vary", varyField)] : []),
                    body: "body for \(request.header(varyField) ?? "anyone")"
                )
                route.gate = gate
                return route
            }
            let joined = self.joined
            client = HTTPCacheClient(
                transport: CurlTransport(),
                configuration: .init(
                    events: CacheEventSink { event in if event.kind == .coalesced { joined.withLock { $0 += 1 } } },
                    timeout: .seconds(20),
                    isRequestCoalescingEnabled: coalescing
                )
            )
        }

        var url: String { origin.url("/held") }

        func get(language: String? = nil, cookie: String? = nil, timeout: Duration? = nil) async throws -> PipelineResponse {
            var request = try HTTPRequest(url: url)
            if let language { request.headerFields[.acceptLanguage] = language }
            if let cookie { request.headerFields[.cookie] = cookie }
            return try await client.send(PipelineRequest(head: request), timeout: timeout)
        }

        /// Starts the leader and waits until its request is held at the origin.
        func startLeader(language: String? = nil, cookie: String? = nil, timeout: Duration? = nil) async throws -> Task<PipelineResponse, any Error> {
            let leader = Task { try await get(language: language, cookie: cookie, timeout: timeout) }
            try await waitUntil("the leader's request reaches the origin") { gate.waitingCount == 1 }
            return leader
        }

        func waitForJoined(_ count: Int) async throws {
            try await waitUntil("\(count) requests join the flight") { joined.withLock { $0 } == count }
        }
    }

    @Test("waiters whose Vary fields match share the leader's response; one that differs goes to the origin itself")
    func varyIsRechecked() async throws {
        let setup = try await Setup(vary: true)
        let leader = try await setup.startLeader(language: "en")
        let english = (0..<3).map { _ in Task { try await setup.get(language: "en") } }
        let french = Task { try await setup.get(language: "fr") }
        try await setup.waitForJoined(4)
        setup.gate.open()
        #expect(try await leader.value.body.string == "body for en")
        for waiter in english {
            let response = try await waiter.value
            #expect(response.body.string == "body for en")
            #expect(response.trace.contains { $0.code == .coalesced && $0.detail.contains("shared") })
        }
        let separate = try await french.value
        #expect(separate.body.string == "body for fr")
        #expect(separate.trace.contains { $0.code == .coalesced && $0.detail.contains("fetched separately") })
        #expect(setup.origin.requestCount(for: "/held") == 2)
        try await setup.origin.shutdown()
    }

    @Test("with Vary: Cookie, waiters with the leader's cookie share its response (the cookie compared by its digest); another cookie fetches its own")
    func varyOnCookieIsRechecked() async throws {
        let setup = try await Setup(vary: true, varyField: "Cookie")
        let leader = try await setup.startLeader(cookie: "session=alice")
        let alice = (0..<2).map { _ in Task { try await setup.get(cookie: "session=alice") } }
        try await setup.waitForJoined(2)
        let mallory = Task { try await setup.get(cookie: "session=mallory") }  // another cookie: a flight of its own
        try await waitUntil("mallory's request reaches the origin") { setup.gate.waitingCount == 2 }
        setup.gate.open()
        #expect(try await leader.value.body.string == "body for session=alice")
        for waiter in alice {
            let response = try await waiter.value
            #expect(response.body.string == "body for session=alice")
            #expect(response.trace.contains { $0.code == .coalesced && $0.detail.contains("shared") })
        }
        #expect(try await mallory.value.body.string == "body for session=mallory")
        #expect(setup.origin.requestCount(for: "/held") == 2)
        try await setup.origin.shutdown()
    }

    @Test("the leader's error reaches every waiter")
    func errorReachesEveryWaiter() async throws {
        let setup = try await Setup()
        let leader = try await setup.startLeader()
        let waiters = (0..<5).map { _ in Task { try await setup.get() } }
        try await setup.waitForJoined(5)
        // The origin goes away while it holds the leader's request: the transfer fails, and so does every
        // request waiting on it, with the same error and no request of its own.
        try await setup.origin.shutdown()
        let leaderError = await #expect(throws: CacheChainError.self) { _ = try await leader.value }
        #expect(leaderError?.code == .transportFailed)
        for waiter in waiters {
            let error = await #expect(throws: CacheChainError.self) { _ = try await waiter.value }
            #expect(error?.code == leaderError?.code)
            #expect(error?.message == leaderError?.message)
        }
        #expect(setup.origin.requestCount(for: "/held") == 1)
    }

    @Test("cancelling one waiter ends its wait at once; the leader and the other waiters get the response")
    func cancellingAWaiter() async throws {
        let setup = try await Setup()
        let leader = try await setup.startLeader()
        let staying = (0..<3).map { _ in Task { try await setup.get() } }
        let leaving = Task { try await setup.get() }
        try await setup.waitForJoined(4)
        leaving.cancel()
        await #expect(throws: CancellationError.self) { _ = try await leaving.value }
        #expect(setup.gate.waitingCount == 1, "the shared request is still held at the origin")
        setup.gate.open()
        #expect(try await leader.value.body.string == "body for anyone")
        for waiter in staying { #expect(try await waiter.value.body.string == "body for anyone") }
        #expect(setup.origin.requestCount(for: "/held") == 1)
        try await setup.origin.shutdown()
    }

    @Test("cancelling the leader does not fail its waiters: one of them leads a new trip")
    func cancellingTheLeader() async throws {
        let setup = try await Setup()
        let leader = try await setup.startLeader()
        let waiters = (0..<3).map { _ in Task { try await setup.get() } }
        try await setup.waitForJoined(3)
        leader.cancel()
        await #expect(throws: (any Error).self) { _ = try await leader.value }
        try await waitUntil("a waiter sends the request again") { setup.origin.requestCount(for: "/held") == 2 }
        setup.gate.open()
        for waiter in waiters { #expect(try await waiter.value.body.string == "body for anyone") }
        #expect(setup.origin.requestCount(for: "/held") == 2)
        try await setup.origin.shutdown()
    }

    @Test("isRequestCoalescingEnabled = false: every concurrent request reaches the origin")
    func switchedOff() async throws {
        let setup = try await Setup(coalescing: false)
        let tasks = (0..<4).map { _ in Task { try await setup.get() } }
        try await waitUntil("all four requests reach the origin") { setup.gate.waitingCount == 4 }
        setup.gate.open()
        for task in tasks { #expect(try await task.value.body.string == "body for anyone") }
        #expect(setup.joined.withLock { $0 } == 0)
        #expect(setup.origin.requestCount(for: "/held") == 4)
        try await setup.origin.shutdown()
    }
}
