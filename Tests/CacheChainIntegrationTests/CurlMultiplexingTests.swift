import CacheChain
import CacheChainCurl
import CacheChainLoopback
import HTTPTypes
import Testing

/// Waits (yielding, no timer) until `condition` holds or 30 s have passed; returns whether it held.
func eventually(_ condition: () -> Bool) async -> Bool {
    let clock = ContinuousClock()
    let deadline = clock.now.advanced(by: .seconds(30))
    while !condition() {
        guard clock.now < deadline else { return false }
        await Task.yield()
    }
    return true
}

/// HTTP/2 through libcurl: multiplexing, stream cancellation and the negotiated version, next to HTTP/1.1.
@Suite("CurlTransport: HTTP versions and multiplexing", .tags(.integration))
struct CurlMultiplexingTests {
    /// A `no-store` route whose answers wait for the returned gate.
    static func heldRoute(_ net: Network, _ path: String) -> LoopbackGate {
        let gate = LoopbackGate()
        var route = LoopbackRoute(headers: [("Cache-Control", "no-store")], body: "released")
        route.gate = gate
        net.origin.route(path, route)
        return gate
    }

    @Test("50 requests in flight at once: one HTTP/2 connection, or one HTTP/1.1 connection each", arguments: ProtocolMode.allCases)
    func multiplexing(_ mode: ProtocolMode) async throws {
        // With the default threads (one per core): an HTTP/2 origin keeps to one of them (`CurlOriginAffinityTests`).
        try await withNetwork(mode) { net in
            let gate = Self.heldRoute(net, "/held")
            let count = 50
            let bodies = try await withThrowingTaskGroup(of: String?.self) { group in
                for index in 0..<count {
                    group.addTask { try await net.get("/held?i=\(index)").body.string }
                }
                let allHeld = await eventually { gate.waitingCount == count }
                #expect(allHeld, "only \(gate.waitingCount) of \(count) requests reached the origin")
                #expect(net.origin.connectionCount == (mode.multiplexes ? 1 : count))
                gate.open()
                return try await group.reduce(into: [String?]()) { $0.append($1) }
            }
            #expect(bodies == Array(repeating: "released", count: count))
            #expect(net.origin.requestCount(for: "/held") == count)
        }
    }

    @Test("cancelling one of ten concurrent transfers leaves the others and the connection working", arguments: ProtocolMode.allCases)
    func cancelOneStream(_ mode: ProtocolMode) async throws {
        // One libcurl thread: with HTTP/1.1 the last request must find the nine others' connections in its pool.
        try await withNetwork(mode, loopCount: 1) { net in
            let gate = Self.heldRoute(net, "/held")
            net.origin.route("/after", LoopbackRoute(headers: [("Cache-Control", "no-store")], body: "after"))
            let cancelled = Task { try await net.get("/held?cancelled") }
            #expect(await eventually { gate.waitingCount == 1 })
            let others = (0..<9).map { index in Task { try await net.get("/held?i=\(index)").body.string } }
            #expect(await eventually { gate.waitingCount == 10 })
            cancelled.cancel()
            let failure = await #expect(throws: CacheChainError.self) { try await cancelled.value }
            #expect(failure?.code == .cancelled)
            gate.open()
            for other in others {
                let body = try await other.value
                #expect(body == "released")
            }
            let after = try await net.get("/after")
            #expect(after.body.string == "after")
            // HTTP/2: the cancelled stream was reset, its connection kept. HTTP/1.1: the cancelled transfer's
            // connection was closed, and the last request reused one of the nine others.
            #expect(net.origin.connectionCount == (mode.multiplexes ? 1 : 10))
        }
    }

    @Test("recordsHTTPVersion puts the negotiated version in userInfo, for the MISS and the HIT", arguments: ProtocolMode.allCases)
    func recordsVersion(_ mode: ProtocolMode) async throws {
        let net = try await Network.start(mode, recordsHTTPVersion: true)
        net.origin.route("/v", LoopbackRoute(headers: [("Cache-Control", "max-age=60")], body: "v"))
        let miss = try await net.get("/v")
        #expect(miss.cacheStatus == .miss)
        #expect(miss.userInfo[CurlTransport.NegotiatedHTTPVersionKey.self] == mode.negotiatedVersion)
        let hit = try await net.get("/v")
        #expect(hit.cacheStatus == .hit)
        #expect(hit.userInfo[CurlTransport.NegotiatedHTTPVersionKey.self] == mode.negotiatedVersion)
        net.expectOriginSawModeVersion()
        try await net.stop()
    }

    @Test("HTTP/2 preferred but an HTTPS origin without h2: HTTP/1.1 on both sides")
    func fallbackToHTTP1() async throws {
        let net = try await Network.start(.https2, offersHTTP2: false, recordsHTTPVersion: true)
        net.origin.route("/f", LoopbackRoute(headers: [("Cache-Control", "no-store")], body: "fallback"))
        let response = try await net.get("/f")
        #expect(response.body.string == "fallback")
        #expect(response.userInfo[CurlTransport.NegotiatedHTTPVersionKey.self] == .http1_1)
        #expect(net.origin.receivedRequests.map(\.version) == [.http1_1])
        try await net.stop()
    }

    @Test("without recordsHTTPVersion the response carries no version")
    func notRecordedByDefault() async throws {
        let net = try await Network.start(.https2)
        net.origin.route("/n", LoopbackRoute(headers: [("Cache-Control", "max-age=60")], body: "n"))
        let response = try await net.get("/n")
        #expect(response.userInfo[CurlTransport.NegotiatedHTTPVersionKey.self] == nil)
        #expect(response.userInfo.isEmpty)
        net.expectOriginSawModeVersion()
        try await net.stop()
    }
}
