import CacheChain
import CacheChainCurl
import CacheChainLoopback
import CacheChainTesting
import Foundation
import HTTPTypes
import Synchronization
import Testing

/// `HTTPCacheClient.Configuration.networkInterceptors` run inside the storage decision, just before the transport:
/// on every network exchange and never on a hit, and what they return is what is stored (issue 44.4). Over libcurl
/// against a loopback origin.
@Suite("Network interceptors shape what is stored", .tags(.integration))
struct NetworkInterceptorTests {
    /// Gives a `200` or `304` without `Cache-Control` a minimum lifetime, and counts the exchanges it sees.
    struct MinimumLifetime: HTTPInterceptor {
        let seconds: Int
        let calls = Calls()

        final class Calls: Sendable {
            private let count = Mutex(0)
            var value: Int { count.withLock { $0 } }
            func increment() { count.withLock { $0 += 1 } }
        }

        func intercept(_ request: PipelineRequest, context: InterceptorContext, next: Next) async throws -> PipelineResponse {
            calls.increment()
            var response = try await next(request, context)
            if [200, 304].contains(response.head.status.code), response.head.headerFields[.cacheControl] == nil {
                response.head.headerFields[.cacheControl] = "max-age=\(seconds)"
            }
            return response
        }
    }

    private static func client(_ configure: (inout HTTPCacheClient.Configuration) -> Void, clock: ManualClock) -> HTTPCacheClient {
        var configuration = HTTPCacheClient.Configuration(storage: MemoryStorage(capacity: 1 << 20), clock: clock, timeout: .seconds(20))
        configure(&configuration)
        return HTTPCacheClient(transport: CurlTransport(), configuration: configuration)
    }

    @Test("a minimum-lifetime network interceptor makes the second request a HIT; it runs on the revalidation, not on hits")
    func minimumLifetimeIsStored() async throws {
        let origin = try await LoopbackOrigin.start()
        let clock = ManualClock(now: Date())
        // No Cache-Control at all; a Date on the test's clock, so that ages follow it.
        origin.route("/items", handler: { _ in LoopbackRoute(headers: [("Date", HTTPDate.format(clock.now()))], body: "[1,2,3]", etag: "\"v1\"") })
        let interceptor = MinimumLifetime(seconds: 30)
        let client = Self.client({ $0.networkInterceptors = [interceptor] }, clock: clock)
        let request = try HTTPRequest(url: origin.url("/items"))

        let first = try await client.data(for: request)
        #expect(first.cacheStatus == .miss)
        #expect(first.trace.contains { "\($0)".hasPrefix("storable: stored") }, "\(first.trace)")
        let second = try await client.data(for: request)
        #expect(second.cacheStatus == .hit && second.body.string == "[1,2,3]")
        #expect(second.head.headerFields[.cacheControl] == "max-age=30", "the stored head is the one the interceptor returned")
        #expect(origin.requestCount(for: "/items") == 1)
        #expect(interceptor.calls.value == 1, "a hit does not reach the network interceptors")

        clock.advance(by: 31)
        let revalidated = try await client.data(for: request)
        #expect(revalidated.cacheStatus == .revalidated)
        #expect(interceptor.calls.value == 2, "the conditional request passes the network interceptors")
        let third = try await client.data(for: request)
        #expect(third.cacheStatus == .hit, "the 304's lifetime, set by the interceptor, was merged into the entry")
        #expect(origin.requestCount(for: "/items") == 2)
        try await client.shutdown()
        try await origin.shutdown()
    }

    @Test("the same interceptor among the outer interceptors changes what the caller sees, not what is stored")
    func outerInterceptorDoesNotShapeStorage() async throws {
        let origin = try await LoopbackOrigin.start()
        origin.route("/items", LoopbackRoute(body: "[1,2,3]"))
        let interceptor = MinimumLifetime(seconds: 30)
        let client = Self.client({ $0.outerInterceptors = [interceptor] }, clock: ManualClock(now: Date()))
        let request = try HTTPRequest(url: origin.url("/items"))
        let first = try await client.data(for: request)
        #expect(first.head.headerFields[.cacheControl] == "max-age=30")
        let second = try await client.data(for: request)
        #expect(second.cacheStatus != .hit)
        #expect(origin.requestCount(for: "/items") == 2)
        #expect(interceptor.calls.value == 2)
        try await client.shutdown()
        try await origin.shutdown()
    }

    @Test("network interceptors come last in the default chain, after the storage decision")
    func position() {
        let interceptor = MinimumLifetime(seconds: 30)
        let chain = HTTPCacheClient.defaultInterceptors(for: .init(networkInterceptors: [interceptor]))
        #expect(chain.last is MinimumLifetime)
        #expect(chain.dropLast().last is StorageDecisionInterceptor)
    }
}
