import CacheChain
import CacheChainCurl
import CacheChainLoopback
import Foundation
import Testing

/// Issue 47.5: where an interceptor that changes what is stored goes. The *Composing a pipeline* article said
/// "between `RevalidationInterceptor` and `StorageDecisionInterceptor`"; measured, that is too late (the storage
/// decision has already run when such an interceptor sees the response on the way out). Inside the storage decision,
/// after `HTTPCacheClient.defaultInterceptors(for:)` as the README shows, it works.
@Suite("Where a storage-shaping interceptor goes", .tags(.integration))
struct StorageShapingPlacementTests {
    /// Gives a response without `Cache-Control` a minute of freshness (the README's example).
    static let minimumLifetime = AnyInterceptor(name: "minimumLifetime") { request, context, next in
        var response = try await next(request, context)
        if response.head.headerFields[.cacheControl] == nil { response.head.headerFields[.cacheControl] = "max-age=60" }
        return response
    }

    /// Two GETs of a response without any freshness information through `interceptors`, over libcurl against a
    /// loopback origin: the two cache statuses and how many requests the origin saw.
    static func twoRequests(_ interceptors: (HTTPCacheClient.Configuration) throws -> [any HTTPInterceptor]) async throws
        -> (first: CacheStatus, second: CacheStatus, originRequests: Int)
    {
        let origin = try await LoopbackOrigin.start()
        origin.route("/no-lifetime", LoopbackRoute(body: "hello"))
        let configuration = HTTPCacheClient.Configuration()
        let client = HTTPCacheClient(
            pipeline: Pipeline(interceptors: try interceptors(configuration), transport: CurlTransport()),
            configuration: configuration
        )
        let request = try HTTPRequest(url: origin.url("/no-lifetime"))
        let first = try await client.data(for: request)
        let second = try await client.data(for: request)
        let count = origin.requestCount(for: "/no-lifetime")
        try await client.shutdown()
        try await origin.shutdown()
        return (first.cacheStatus, second.cacheStatus, count)
    }

    @Test("after the defaults (inside StorageDecision) its lifetime is stored: the second request is a HIT")
    func insideTheStorageDecision() async throws {
        let result = try await Self.twoRequests { HTTPCacheClient.defaultInterceptors(for: $0) + [Self.minimumLifetime] }
        #expect(result.first == .miss)
        #expect(result.second == .hit)
        #expect(result.originRequests == 1)
    }

    @Test("between Revalidation and StorageDecision it comes after the decision: the second request is still a MISS")
    func outsideTheStorageDecision() async throws {
        let result = try await Self.twoRequests { configuration in
            var interceptors = HTTPCacheClient.defaultInterceptors(for: configuration)
            let decision = try #require(interceptors.firstIndex { $0 is StorageDecisionInterceptor })
            interceptors.insert(Self.minimumLifetime, at: decision)
            return interceptors
        }
        #expect(result.first == .miss)
        #expect(result.second == .miss)
        #expect(result.originRequests == 2)
    }
}
