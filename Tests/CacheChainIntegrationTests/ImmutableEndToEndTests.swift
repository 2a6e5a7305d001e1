import CacheChain
import CacheChainCurl
import CacheChainLoopback
import CacheChainTesting
import Foundation
import HTTPTypes
import Testing

/// `immutable` (RFC 8246, issue 45.6) through libcurl and the loopback origin, in a private and a shared cache: a
/// fresh immutable response is not revalidated when the request only asks for revalidation, but is on a forced
/// reload.
@Suite("immutable means immutable", .tags(.integration))
struct ImmutableEndToEndTests {
    static let modes: [CacheMode] = [.privateCache, .sharedCache]

    @Test("max-age=0 and reloadRevalidatingCacheData are answered from the cache; no-cache, Pragma and a reload reach the origin", arguments: Self.modes)
    func immutable(_ mode: CacheMode) async throws {
        let origin = try await LoopbackOrigin.start()
        let clock = ManualClock()
        let client = HTTPCacheClient(
            transport: CurlTransport(),
            configuration: .init(storage: MemoryStorage(capacity: 8 << 20), policy: CachePolicyConfiguration(mode: mode), clock: clock)
        )
        func get(_ fields: [(HTTPField.Name, String)] = [], policy: RequestCachePolicy? = nil) async throws -> PipelineResponse {
            var request = try HTTPRequest(url: origin.url("/app.js"))
            for (name, value) in fields { request.headerFields.append(HTTPField(name: name, value: value)) }
            return try await client.data(for: request, cachePolicy: policy)
        }
        do {
            origin.route("/app.js", LoopbackRoute(headers: [("Cache-Control", "public, max-age=600, immutable")], body: "v1", etag: "\"v1\""))
            #expect(try await get().cacheStatus == .miss)
            clock.advance(by: 10)  // older than the request's max-age=0, still fresh
            let maxAgeZero = try await get([(.cacheControl, "max-age=0")])
            #expect(maxAgeZero.cacheStatus == .hit)
            #expect(maxAgeZero.trace.map(\.code).contains(.immutable), "\(maxAgeZero.trace)")
            let reload = try await get(policy: .reloadRevalidatingCacheData)
            #expect(reload.cacheStatus == .hit, "\(reload.trace)")
            #expect(reload.trace.map(\.code).contains(.immutable))
            #expect(origin.requestCount(for: "/app.js") == 1, "neither asked the origin")

            #expect(try await get([(.cacheControl, "no-cache")]).cacheStatus == .revalidated)
            #expect(try await get([(.pragma, "no-cache")]).cacheStatus == .revalidated)
            #expect(try await get([(.cacheControl, "no-cache")], policy: .reloadRevalidatingCacheData).cacheStatus == .revalidated)
            #expect(try await get(policy: .reloadIgnoringLocalCacheData).cacheStatus == .miss)
            #expect(origin.requestCount(for: "/app.js") == 5)
            #expect(origin.receivedRequests.dropFirst().prefix(3).allSatisfy { $0.header("If-None-Match") == "\"v1\"" })
        } catch {
            try? await client.shutdown()
            try? await origin.shutdown()
            throw error
        }
        try await client.shutdown()
        try await origin.shutdown()
    }
}
