import CacheChain
import CacheChainCore
import CacheChainCurl
import CacheChainLoopback
import CacheChainTesting
import Foundation
import HTTPTypes
import Testing

/// The default chain computes a request's cache key once and selects its stored variant once: the
/// cache-policy interceptor hands one `CacheLookup` inward instead of the inner interceptors recomputing it.
@Suite("One decision per request", .tags(.integration))
struct OneDecisionPerRequestTests {
    /// Counts key computations (through the key strategy) and variant selections (through the engine's
    /// observer, installed by an outermost interceptor) for a default client over a loopback origin.
    private struct Setup {
        let origin: LoopbackOrigin
        let keys = LockedValue(0)
        let selections = LockedValue(0)
        let client: HTTPCacheClient

        init() async throws {
            origin = try await LoopbackOrigin.start()
            let keys = self.keys
            let selections = self.selections
            let observe = AnyInterceptor { request, context, next in
                var context = context
                context.policyEngine.variantSelectionObserver = { selections.withLock { $0 += 1 } }
                return try await next(request, context)
            }
            client = HTTPCacheClient(
                transport: CurlTransport(),
                configuration: .init(
                    cacheKeyStrategy: CacheKeyStrategy { request in
                        keys.withLock { $0 += 1 }
                        return CacheKey(request)
                    },
                    timeout: .seconds(20),
                    outerInterceptors: [observe]
                )
            )
        }

        /// Sends one `GET` and returns the response with the number of keys computed and variants selected.
        func get(_ path: String, language: String) async throws -> (PipelineResponse, keys: Int, selections: Int) {
            keys.withLock { $0 = 0 }
            selections.withLock { $0 = 0 }
            var request = try HTTPRequest(url: origin.url(path))
            request.headerFields[.acceptLanguage] = language
            let response = try await client.send(PipelineRequest(head: request))
            return (response, keys.withLock { $0 }, selections.withLock { $0 })
        }
    }

    @Test("a miss beside a stored variant that does not match: one key, one variant selection")
    func miss() async throws {
        let setup = try await Setup()
        setup.origin.route("/varies", LoopbackRoute(
            headers: [("Cache-Control", "max-age=60"), ("Vary", "Accept-Language")], body: "hello"
        ))
        let (first, _, _) = try await setup.get("/varies", language: "en")
        #expect(first.cacheStatus == .miss)
        let (second, keys, selections) = try await setup.get("/varies", language: "fr")
        #expect(second.cacheStatus == .miss)
        #expect(second.trace.contains { $0.code == .varyMismatch })
        #expect(keys == 1)
        #expect(selections == 1)
        #expect(setup.origin.requestCount(for: "/varies") == 2)
    }

    @Test("a revalidation answered 304: one key, one variant selection, the decision's conditional sent")
    func revalidation() async throws {
        let setup = try await Setup()
        setup.origin.route("/validated", LoopbackRoute(
            headers: [("Cache-Control", "no-cache")], body: "hello", etag: "\"v1\""
        ))
        _ = try await setup.get("/validated", language: "en")
        let (response, keys, selections) = try await setup.get("/validated", language: "en")
        #expect(response.cacheStatus == .revalidated)
        #expect(response.body.string == "hello")
        #expect(keys == 1)
        #expect(selections == 1)
        #expect(setup.origin.receivedRequests.last?.header("If-None-Match") == "\"v1\"")
    }

    @Test("a revalidation answered with a new 200: one key, stored under it")
    func revalidationReplaced() async throws {
        let setup = try await Setup()
        let version = LockedValue(1)
        setup.origin.route("/changing") { _ in
            let current = version.withLock { $0 }
            return LoopbackRoute(headers: [("Cache-Control", "no-cache")], body: "v\(current)", etag: "\"v\(current)\"")
        }
        _ = try await setup.get("/changing", language: "en")
        version.withLock { $0 = 2 }
        let (response, keys, selections) = try await setup.get("/changing", language: "en")
        #expect(response.cacheStatus == .miss)
        #expect(response.body.string == "v2")
        #expect(keys == 1)
        #expect(selections == 1)
        let (again, _, _) = try await setup.get("/changing", language: "en")
        #expect(again.cacheStatus == .revalidated)
        #expect(again.body.string == "v2")
    }
}
