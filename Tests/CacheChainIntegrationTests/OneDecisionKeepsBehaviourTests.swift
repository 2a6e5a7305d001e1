import CacheChain
import CacheChainCore
import CacheChainCurl
import CacheChainLoopback
import CacheChainTesting
import Foundation
import HTTPTypes
import Testing

/// What the one-decision redesign (issue 28) must not change, pinned over a default client, libcurl and a
/// loopback origin: the order of the storage decisions, the application's validators in the cache's
/// conditional request, redirects through the whole pipeline, background revalidations through the inner
/// chain only (a documented change of issue 28) that still refresh the stored entry, and the
/// `stale-if-error` fallback of a failed background revalidation.
@Suite("One decision per request keeps the chain's behaviour", .tags(.integration))
struct OneDecisionKeepsBehaviourTests {
    /// A client whose outermost interceptor records every request it sees (path, cache policy and
    /// `If-None-Match`), with a counting `willCacheResponse` hook and a recording event sink.
    private struct Setup {
        let origin: LoopbackOrigin
        let seen = LockedValue<[(path: String, policy: RequestCachePolicy, ifNoneMatch: String?)]>([])
        let hookCalls = LockedValue(0)
        let events = LockedValue<[CacheEvent]>([])
        let client: HTTPCacheClient

        init(inner: [any HTTPInterceptor] = [], isStaleWhileRevalidateEnabled: Bool = true) async throws {
            origin = try await LoopbackOrigin.start()
            let seen = self.seen
            let hookCalls = self.hookCalls
            let events = self.events
            let record = AnyInterceptor { request, context, next in
                seen.withLock {
                    $0.append((request.head.path ?? "", request.effectiveCachePolicy, request.head.headerFields[.ifNoneMatch]))
                }
                return try await next(request, context)
            }
            client = HTTPCacheClient(
                transport: CurlTransport(),
                configuration: .init(
                    events: CacheEventSink { event in events.withLock { $0.append(event) } },
                    timeout: .seconds(20),
                    willCacheResponse: { proposal, _, _ in
                        hookCalls.withLock { $0 += 1 }
                        return proposal
                    },
                    outerInterceptors: [record] + inner,
                    isStaleWhileRevalidateEnabled: isStaleWhileRevalidateEnabled
                )
            )
        }

        func get(_ path: String, fields: [(HTTPField.Name, String)] = [], isStoringAllowed: Bool = true) async throws -> PipelineResponse {
            var request = try HTTPRequest(url: origin.url(path))
            for (name, value) in fields { request.headerFields[name] = value }
            return try await client.send(PipelineRequest(head: request, storageLimit: isStoringAllowed ? nil : .refused))
        }
    }

    /// An outer interceptor that caps storage at `.notAllowed`, as the HTTPS plugin does without a key.
    private static let notAllowed = AnyInterceptor { request, context, next in
        var request = request
        request.storageLimit = .capped(.notAllowed)
        return try await next(request, context)
    }

    @Test("a storage cap of notAllowed applies after storability and the hooks; a no-store request before them")
    func storageOrder() async throws {
        let capped = try await Setup(inner: [Self.notAllowed])
        capped.origin.route("/capped", LoopbackRoute(headers: [("Cache-Control", "max-age=60")], body: "capped"))
        let response = try await capped.get("/capped")
        #expect(capped.hookCalls.withLock { $0 } == 1)
        #expect(response.trace.contains { $0.code == .policy && $0.detail == "storage policy notAllowed" })
        capped.origin.route("/capped-no-store", LoopbackRoute(headers: [("Cache-Control", "no-store")], body: "x"))
        let unstorable = try await capped.get("/capped-no-store")
        #expect(unstorable.trace.contains { $0.code == .noStore })
        #expect(!unstorable.trace.contains { $0.code == .policy })

        let plain = try await Setup()
        plain.origin.route("/no-store-mode", LoopbackRoute(headers: [("Cache-Control", "max-age=60")], body: "mode"))
        let refused = try await plain.get("/no-store-mode", isStoringAllowed: false)
        #expect(plain.hookCalls.withLock { $0 } == 0)
        #expect(refused.trace.contains { $0.code == .policy && $0.detail == "this request does not store responses" })
        #expect(try await plain.get("/no-store-mode").cacheStatus == .miss)
    }

    @Test("validating a stale-while-revalidate response in line keeps the application's own validators")
    func inlineRevalidationKeepsApplicationValidators() async throws {
        let setup = try await Setup(isStaleWhileRevalidateEnabled: false)
        setup.origin.route("/swr", LoopbackRoute(
            headers: [("Cache-Control", "max-age=0, stale-while-revalidate=600")], body: "v1", etag: "\"v1\""
        ))
        _ = try await setup.get("/swr")
        _ = try await setup.get("/swr", fields: [(.ifNoneMatch, "\"app\"")])
        let sent = setup.origin.receivedRequests.last?.header("If-None-Match") ?? ""
        #expect(sent.contains("\"app\""))
        #expect(sent.contains("\"v1\""))
    }

    @Test("each redirect hop goes through the interceptors outside the redirect follower again")
    func redirectHopsPassOuterInterceptors() async throws {
        let setup = try await Setup(inner: [RedirectInterceptor()])
        setup.origin.route("/old", LoopbackRoute(status: 301, headers: [("Location", "/new")], body: "moved"))
        setup.origin.route("/new", LoopbackRoute(headers: [("Cache-Control", "max-age=60")], body: "here"))
        let response = try await setup.get("/old")
        #expect(response.body.string == "here")
        #expect(setup.seen.withLock { $0.map(\.path) } == ["/old", "/new"])
    }

    @Test("a background revalidation goes through the inner chain only, without the application's validators")
    func backgroundRevalidationStaysInside() async throws {
        let setup = try await Setup()
        setup.origin.route("/bg", LoopbackRoute(
            headers: [("Cache-Control", "max-age=0, stale-while-revalidate=600")], body: "v1", etag: "\"v1\""
        ))
        _ = try await setup.get("/bg")
        let stale = try await setup.get("/bg", fields: [(.ifNoneMatch, "\"app\"")])
        #expect(stale.cacheStatus == .stale)
        await setup.client.waitForBackgroundRevalidations()
        #expect(setup.seen.withLock { $0.count } == 2, "the outer interceptor does not see the background request")
        #expect(setup.origin.receivedRequests.count == 2)
        #expect(setup.origin.receivedRequests.last?.header("If-None-Match") == "\"v1\"")
    }

    @Test("a background revalidation's 304 freshens the stored entry: the next request is a hit")
    func backgroundNotModifiedFreshens() async throws {
        let setup = try await Setup()
        setup.origin.route("/fresh", LoopbackRoute(
            headers: [("Cache-Control", "max-age=0, stale-while-revalidate=600")], body: "v1", etag: "\"v1\""
        ))
        _ = try await setup.get("/fresh")
        setup.origin.route("/fresh", LoopbackRoute(headers: [("Cache-Control", "max-age=600")], body: "v1", etag: "\"v1\""))
        #expect(try await setup.get("/fresh").cacheStatus == .stale)
        await setup.client.waitForBackgroundRevalidations()
        let hit = try await setup.get("/fresh")
        #expect(hit.cacheStatus == .hit)
        #expect(hit.body.string == "v1")
        #expect(setup.origin.receivedRequests.count == 2)
    }

    @Test("a background revalidation's 200 replaces the stored entry: the next request is a hit on the new body")
    func backgroundOKReplaces() async throws {
        let setup = try await Setup()
        setup.origin.route("/new", LoopbackRoute(
            headers: [("Cache-Control", "max-age=0, stale-while-revalidate=600")], body: "v1", etag: "\"v1\""
        ))
        _ = try await setup.get("/new")
        setup.origin.route("/new", LoopbackRoute(headers: [("Cache-Control", "max-age=600")], body: "v2", etag: "\"v2\""))
        #expect(try await setup.get("/new").body.string == "v1")
        await setup.client.waitForBackgroundRevalidations()
        let hit = try await setup.get("/new")
        #expect(hit.cacheStatus == .hit)
        #expect(hit.body.string == "v2")
        #expect(setup.origin.receivedRequests.count == 2)
    }

    @Test("a background revalidation the origin fails keeps and serves the stale response under stale-if-error")
    func failedBackgroundRevalidationFallsBack() async throws {
        let setup = try await Setup()
        setup.origin.route("/down", LoopbackRoute(
            headers: [("Cache-Control", "max-age=0, stale-while-revalidate=600, stale-if-error=600")],
            body: "kept", etag: "\"v1\""
        ))
        _ = try await setup.get("/down")
        setup.origin.route("/down", LoopbackRoute(status: 503, body: "down"))
        let stale = try await setup.get("/down")
        #expect(stale.body.string == "kept")
        await setup.client.waitForBackgroundRevalidations()
        let afterBackground = setup.events.withLock { events in
            events.drop(while: { $0.kind != .backgroundRevalidation }).map(\.kind)
        }
        #expect(afterBackground == [.backgroundRevalidation, .notStored, .staleServed])
        let again = try await setup.get("/down")
        #expect(again.body.string == "kept")
        #expect(again.cacheStatus == .stale)
    }
}
