import CacheChain
import CacheChainCurl
import CacheChainLoopback
import CacheChainTesting
import Foundation
import HTTPTypes
import Testing

/// RFC 9111 §4.2.4 (issue 45.1): a stored response is served stale when the origin cannot be reached — the
/// connection is refused, or closed without a response — through libcurl and the loopback origin, in a private and
/// a shared cache; never when a directive forbids it.
@Suite("Stale when the origin is unreachable", .tags(.integration))
struct StaleWhenUnreachableEndToEndTests {
    /// How the origin fails.
    enum Failure: String, CaseIterable, Sendable, CustomTestStringConvertible {
        /// The connection is accepted and closed without a byte (curl code 52).
        case dropped
        /// Nothing listens any more (curl code 7).
        case refused
        var testDescription: String { rawValue }
    }

    /// A client over libcurl with Cache-Status, a manual clock and the given policy configuration.
    struct Setup {
        let origin: LoopbackOrigin
        let clock = ManualClock()
        let client: HTTPCacheClient
        var isStopped = false

        init(policy: CachePolicyConfiguration, transport: TransportKind = .curl) async throws {
            origin = try await LoopbackOrigin.start()
            client = HTTPCacheClient(
                transport: try transport.makeTransport(),
                configuration: .init(
                    storage: MemoryStorage(capacity: 8 << 20), policy: policy, clock: clock,
                    outerInterceptors: [CacheStatusInterceptor(policy: policy)]
                )
            )
        }

        func get(_ path: String, _ fields: [(HTTPField.Name, String)] = [], policy: RequestCachePolicy? = nil) async throws -> PipelineResponse {
            var request = try HTTPRequest(url: origin.url(path))
            for (name, value) in fields { request.headerFields.append(HTTPField(name: name, value: value)) }
            return try await client.data(for: request, cachePolicy: policy)
        }

        /// Stores `path` with `cacheControl`, ages it an hour, then makes the origin fail for it.
        mutating func storeThenFail(_ path: String, cacheControl: String, _ failure: Failure) async throws {
            origin.route(path, LoopbackRoute(headers: [("Cache-Control", cacheControl)], body: "saved"))
            _ = try await get(path)
            clock.advance(by: 3600)
            try await fail(failure, path)
        }

        mutating func fail(_ failure: Failure, _ path: String) async throws {
            switch failure {
            case .dropped: origin.route(path, LoopbackRoute(rawResponse: ""))
            case .refused:
                if !isStopped { try await origin.shutdown() }
                isStopped = true
            }
        }

        func stop() async throws {
            try await client.shutdown()
            if !isStopped { try await origin.shutdown() }
        }
    }

    static let modes: [CacheMode] = [.privateCache, .sharedCache]

    func expectServedStale(_ response: PipelineResponse, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(response.body.string == "saved", sourceLocation: sourceLocation)
        #expect(response.cacheStatus == .offline, sourceLocation: sourceLocation)
        #expect(response.trace.map(\.code).contains(.stale), "\(response.trace)", sourceLocation: sourceLocation)
        #expect(response.trace.map(\.code).contains(.originUnreachable), "\(response.trace)", sourceLocation: sourceLocation)
        #expect(
            response.head.headerFields[CacheStatusField.name] == "CacheChain; fwd=stale; ttl=-3540; detail=origin-unreachable",
            sourceLocation: sourceLocation
        )
    }

    @Test("a stale response is served when the origin drops the connection or refuses it (switch on)", arguments: Failure.allCases, Self.modes)
    func servedStale(_ failure: Failure, _ mode: CacheMode) async throws {
        var net = try await Setup(policy: CachePolicyConfiguration(mode: mode, servesStaleWhenOriginUnreachable: true))
        do {
            try await net.storeThenFail("/s", cacheControl: "max-age=60", failure)
            expectServedStale(try await net.get("/s"))
            if failure == .dropped { #expect(net.origin.requestCount(for: "/s") >= 2, "the origin was asked") }
        } catch {
            try? await net.stop()
            throw error
        }
        try await net.stop()
    }

    @Test("over AsyncHTTPClient too: a refused or dropped connection is unreachable, so the stale response is served", arguments: Failure.allCases, Self.modes)
    func overAsyncHTTPClient(_ failure: Failure, _ mode: CacheMode) async throws {
        var net = try await Setup(policy: CachePolicyConfiguration(mode: mode, servesStaleWhenOriginUnreachable: true), transport: .asyncHTTPClient)
        try await net.storeThenFail("/ahc", cacheControl: "max-age=60", failure)
        expectServedStale(try await net.get("/ahc"))
        try await net.stop()
    }

    @Test("the default: on in a private cache, off in a shared one", arguments: Self.modes)
    func defaultByMode(_ mode: CacheMode) async throws {
        #expect(CachePolicyConfiguration(mode: mode).servesStaleWhenOriginUnreachable == (mode == .privateCache))
        var net = try await Setup(policy: CachePolicyConfiguration(mode: mode))
        try await net.storeThenFail("/d", cacheControl: "max-age=60", .dropped)
        if mode == .privateCache {
            expectServedStale(try await net.get("/d"))
        } else {
            let error = await #expect(throws: CacheChainError.self) { try await net.get("/d") }
            #expect(error?.isOriginUnreachable == true, "\(String(describing: error))")
        }
        try await net.stop()
    }

    /// Response directives that forbid serving stale, per mode (RFC 9111 §4.2.4, §5.2.2.2, §5.2.2.4, §5.2.2.8, §5.2.2.10).
    static let forbidding: [(CacheMode, String)] = [
        (.privateCache, "max-age=60, must-revalidate"), (.privateCache, "max-age=60, no-cache"),
        (.sharedCache, "max-age=60, must-revalidate"), (.sharedCache, "max-age=60, no-cache"),
        (.sharedCache, "max-age=60, proxy-revalidate"), (.sharedCache, "s-maxage=60"),
    ]

    @Test("never for a response that forbids it: the transport's error reaches the caller", arguments: Failure.allCases, Self.forbidding)
    func forbidden(_ failure: Failure, _ modeAndField: (CacheMode, String)) async throws {
        let (mode, field) = modeAndField
        var net = try await Setup(policy: CachePolicyConfiguration(mode: mode, servesStaleWhenOriginUnreachable: true))
        try await net.storeThenFail("/f", cacheControl: field, failure)
        let error = await #expect(throws: CacheChainError.self) { try await net.get("/f") }
        #expect(error?.code == .transportFailed)
        #expect(error?.isOriginUnreachable == true)
        try await net.stop()
    }

    @Test("a private cache serves proxy-revalidate and s-maxage responses stale (they bind shared caches only)")
    func privateIgnoresSharedDirectives() async throws {
        var net = try await Setup(policy: CachePolicyConfiguration(mode: .privateCache))
        try await net.storeThenFail("/p", cacheControl: "max-age=60, proxy-revalidate", .dropped)
        expectServedStale(try await net.get("/p"))
        try await net.stop()
    }

    @Test("never for a request that says no-cache or needs the origin's confirmation, nor with the switch off")
    func requestNoCacheAndSwitchOff() async throws {
        var net = try await Setup(policy: CachePolicyConfiguration(mode: .privateCache))
        try await net.storeThenFail("/n", cacheControl: "max-age=60", .dropped)
        await #expect(throws: CacheChainError.self) { try await net.get("/n", [(.cacheControl, "no-cache")]) }
        await #expect(throws: CacheChainError.self) { try await net.get("/n", [(.pragma, "no-cache")]) }
        for policy in [RequestCachePolicy.reloadRevalidatingCacheData, .reloadIgnoringLocalCacheData, .reloadIgnoringLocalAndRemoteCacheData] {
            await #expect(throws: CacheChainError.self, "\(policy)") { try await net.get("/n", policy: policy) }
        }
        try await net.stop()

        var off = try await Setup(policy: CachePolicyConfiguration(mode: .privateCache, servesStaleWhenOriginUnreachable: false))
        try await off.storeThenFail("/o", cacheControl: "max-age=60", .dropped)
        await #expect(throws: CacheChainError.self) { try await off.get("/o") }
        try await off.stop()
    }

    @Test("an origin that answers 503 is not unreachable: its answer is passed on")
    func answeredIsNotUnreachable() async throws {
        let net = try await Setup(policy: CachePolicyConfiguration(mode: .privateCache))
        net.origin.route("/e", LoopbackRoute(headers: [("Cache-Control", "max-age=60")], body: "saved"))
        _ = try await net.get("/e")
        net.clock.advance(by: 3600)
        net.origin.route("/e", LoopbackRoute(status: 503, body: "down"))
        let answer = try await net.get("/e")
        #expect(answer.head.status.code == 503)
        #expect(answer.body.string == "down")
        try await net.stop()
    }
}
