import CacheChain
import CacheChainTesting
import CacheChainUserInfo
import Foundation
import HTTPTypes
import Synchronization
import Testing

/// A backend whose every operation fails: the cache must keep serving from the network.
private struct BrokenStorage: CacheStorage {
    struct Broken: Error {}
    func entries(for key: CacheKey) async throws -> [CacheEntry] { throw Broken() }
    func store(_ entry: CacheEntry) async throws { throw Broken() }
    func remove(_ key: CacheKey) async throws { throw Broken() }
    func removeAll() async throws { throw Broken() }
    func keys() async throws -> [CacheKey] { throw Broken() }
    func usage() async -> StorageUsage { StorageUsage(memoryCapacity: 1 << 20) }
}

private enum TenantKey: CacheUserInfoKey {
    typealias Value = String
    static let name = "tenant"
}

/// A team-style interceptor recording the order in which it sees requests and responses.
private final class Recorder: HTTPInterceptor {
    let log = Mutex<[String]>([])
    func intercept(_ request: PipelineRequest, context: InterceptorContext, next: Next) async throws -> PipelineResponse {
        log.withLock { $0.append("request") }
        let response = try await next(request, context)
        log.withLock { $0.append("response:\(response.cacheStatus)") }
        return response
    }
}

@Suite("Client: hooks, stamping, failures, management")
struct ClientHookTests {
    @Test("a broken backend never breaks a request: storage errors become events and a miss")
    func brokenStorage() async throws {
        let h = Harness(storage: BrokenStorage())
        h.origin.route("/b", fields: [("Cache-Control", "max-age=60")], body: "still works")
        let response = try await h.get("/b")
        #expect(response.cacheStatus == .miss)
        #expect(response.body.string == "still works")
        #expect(response.trace.filter { $0.code == .storageError }.count == 2, "lookup and store both failed")
        #expect(h.events.kinds.filter { $0 == .storageError }.count == 2)
    }

    @Test("willCacheResponse can veto, keep HTTPS in memory only, and rewrite userInfo (Apple's Listing 1)")
    func willCacheResponse() async throws {
        let h = Harness(willCacheResponse: { proposed, request, _ in
            if request.head.path == "/veto" { return nil }
            var decided = proposed
            decided.userInfo[TenantKey.self] = "acme"
            if request.head.path == "/secure" { decided.storagePolicy = .allowedInMemoryOnly }
            return decided
        })
        h.origin.route("/veto", fields: [("Cache-Control", "max-age=60")], body: "v")
        h.origin.route("/secure", fields: [("Cache-Control", "max-age=60")], body: "s")
        let vetoed = try await h.get("/veto")
        #expect(vetoed.trace.contains { $0.code == .vetoed })
        #expect(try await h.get("/veto").cacheStatus == .miss)
        _ = try await h.get("/secure")
        let cached = try #require(try await h.client.cachedResponse(for: HTTPRequest(url: "http://origin.test/secure")))
        #expect(cached.storagePolicy == .allowedInMemoryOnly)
        #expect(cached.userInfo[TenantKey.self] == "acme")
        let hit = try await h.get("/secure")
        #expect(hit.userInfo[TenantKey.self] == "acme")
    }

    @Test("a request's own willCacheResponse hook runs after the configured one, for that request alone")
    func requestHook() async throws {
        let h = Harness(willCacheResponse: { proposed, _, _ in
            var decided = proposed
            decided.userInfo[TenantKey.self] = "configured"
            return decided
        })
        for path in ["/mine", "/veto", "/other"] {
            h.origin.route(path, fields: [("Cache-Control", "max-age=60")], body: "x")
        }
        func send(_ path: String, hook: StorageDecisionInterceptor.WillCacheResponse?) async throws -> PipelineResponse {
            var values = ContextValues()
            values[StorageDecisionInterceptor.WillCacheResponseKey.self] = hook
            let head = HTTPRequest(method: .get, scheme: "http", authority: "origin.test", path: path)
            return try await h.client.send(PipelineRequest(head: head), values: values)
        }
        _ = try await send("/mine") { proposed, _, _ in
            var decided = proposed
            decided.storagePolicy = .allowedInMemoryOnly
            decided.userInfo[TenantKey.self] = (proposed.userInfo[TenantKey.self] ?? "none") + "+request"
            return decided
        }
        let vetoed = try await send("/veto") { _, _, _ in nil }
        _ = try await send("/other", hook: nil)
        let mine = try #require(try await h.client.cachedResponse(for: HTTPRequest(url: "http://origin.test/mine")))
        #expect(mine.storagePolicy == .allowedInMemoryOnly)
        #expect(mine.userInfo[TenantKey.self] == "configured+request")
        #expect(vetoed.trace.contains { $0.code == .vetoed })
        #expect(try await h.client.cachedResponse(for: HTTPRequest(url: "http://origin.test/veto")) == nil)
        let other = try #require(try await h.client.cachedResponse(for: HTTPRequest(url: "http://origin.test/other")))
        #expect(other.storagePolicy == .allowed)
        #expect(other.userInfo[TenantKey.self] == "configured")
    }

    @Test("a storage-policy limit set by an outer interceptor wins over a laxer willCacheResponse decision")
    func storagePolicyLimit() async throws {
        /// Caps every request under /memory at memory only and every request under /never at not stored.
        struct Limiter: HTTPInterceptor {
            func intercept(_ request: PipelineRequest, context: InterceptorContext, next: Next) async throws -> PipelineResponse {
                var request = request
                if request.head.path?.hasPrefix("/memory") == true { request.storageLimit = .capped(.allowedInMemoryOnly) }
                if request.head.path?.hasPrefix("/never") == true { request.storageLimit = .capped(.notAllowed) }
                return try await next(request, context)
            }
        }
        let h = Harness(willCacheResponse: { proposed, _, _ in
            var decided = proposed
            decided.storagePolicy = .allowed   // the hook allows everything; the limit must still apply
            return decided
        }, outer: [Limiter()])
        for path in ["/memory", "/never", "/free"] {
            h.origin.route(path, fields: [("Cache-Control", "max-age=60")], body: path)
            _ = try await h.get(path)
        }
        let memory = try await h.client.cachedResponse(for: HTTPRequest(url: "http://origin.test/memory"))
        #expect(memory?.storagePolicy == .allowedInMemoryOnly)
        #expect(try await h.client.cachedResponse(for: HTTPRequest(url: "http://origin.test/never")) == nil)
        #expect(try await h.client.cachedResponse(for: HTTPRequest(url: "http://origin.test/free"))?.storagePolicy == .allowed)
        #expect(StoragePolicy.allowed.capped(at: nil) == .allowed)
        #expect(StoragePolicy.notAllowed.capped(at: .allowedInMemoryOnly) == .notAllowed)
    }

    @Test("userInfo stamping persists the cached date and request id with the entry")
    func stamping() async throws {
        let h = Harness(outer: [UserInfoStampingInterceptor.cachedDate(), UserInfoStampingInterceptor.requestID()])
        h.origin.route("/u", fields: [("Cache-Control", "max-age=60")], body: "x")
        _ = try await h.get("/u", [(HTTPField.Name("X-Request-ID")!, "req-1")])
        h.clock.advance(by: 5)
        let hit = try await h.get("/u")
        #expect(hit.cacheStatus == .hit)
        #expect(hit.userInfo[CachedDateKey.self] == h.clock.now().addingTimeInterval(-5))
        #expect(hit.userInfo[RequestIDKey.self] == "req-1")
    }

    @Test("a custom interceptor between the built-ins sees the request first and the response last (relative to the inner ones)")
    func customBetweenBuiltIns() async throws {
        let origin = ScriptedTransport()
        origin.route("/x", fields: [("Cache-Control", "max-age=60")], body: "x")
        let outer = Recorder()
        let inner = Recorder()
        let pipeline = Pipeline(transport: origin) {
            outer
            CachePolicyInterceptor()
            inner
            RevalidationInterceptor()
            StorageDecisionInterceptor()
        }
        let client = HTTPCacheClient(pipeline: pipeline)
        _ = try await client.data(for: HTTPRequest(url: "http://origin.test/x"))
        _ = try await client.data(for: HTTPRequest(url: "http://origin.test/x"))
        #expect(outer.log.withLock { $0 } == ["request", "response:miss", "request", "response:hit"])
        #expect(inner.log.withLock { $0 } == ["request", "response:miss"], "the hit short-circuits before the inner recorder")
    }

    @Test("URLCache's management API: cachedResponse, store, remove, since, prefix, tag, all, usage")
    func management() async throws {
        let h = Harness()
        let client = h.client
        for path in ["/users/1/a", "/users/1/b", "/users/2/a"] {
            h.origin.route(path, fields: [("Cache-Control", "max-age=600")], body: path)
            _ = try await h.get(path)
        }
        #expect(await client.currentMemoryUsage > 0)
        #expect(await client.memoryCapacity == 1 << 20)
        #expect(await client.currentDiskUsage == 0)
        try await client.removeCachedResponses(urlPrefix: "http://origin.test/users/1/")
        #expect(try await client.cachedResponse(for: HTTPRequest(url: "http://origin.test/users/1/a")) == nil)
        #expect(try await client.cachedResponse(for: HTTPRequest(url: "http://origin.test/users/2/a")) != nil)

        var info = CacheUserInfo()
        info[TenantKey.self] = "t1"
        let manual = CachedResponse(
            response: HTTPResponse(status: .ok, headerFields: [.cacheControl: "max-age=600"]),
            body: "manual",
            userInfo: info,
            requestTime: h.clock.now()
        )
        let manualRequest = try HTTPRequest(url: "http://origin.test/manual")
        try await client.storeCachedResponse(manual, for: manualRequest)
        #expect(try await client.cachedResponse(for: manualRequest)?.body.string == "manual")
        #expect(try await h.get("/manual").cacheStatus == .hit)
        try await client.removeCachedResponses(taggedWith: TenantKey.self, equalTo: "t1")
        #expect(try await client.cachedResponse(for: manualRequest) == nil)

        h.clock.advance(by: 100)
        h.origin.route("/late", fields: [("Cache-Control", "max-age=600")], body: "late")
        _ = try await h.get("/late")
        try await client.removeCachedResponses(since: h.clock.now())
        #expect(try await client.cachedResponse(for: HTTPRequest(url: "http://origin.test/late")) == nil)
        #expect(try await client.cachedResponse(for: HTTPRequest(url: "http://origin.test/users/2/a")) != nil)

        try await client.removeCachedResponse(for: HTTPRequest(url: "http://origin.test/users/2/a"))
        #expect(try await client.cachedResponse(for: HTTPRequest(url: "http://origin.test/users/2/a")) == nil)
        h.origin.route("/z", fields: [("Cache-Control", "max-age=600")], body: "z")
        _ = try await h.get("/z")
        try await client.removeAllCachedResponses()
        #expect(await client.currentMemoryUsage == 0)
    }

    @Test("withClient waits for background revalidations before returning")
    func scopedClient() async throws {
        let origin = ScriptedTransport()
        let clock = ManualClock()
        origin.route("/w", fields: [("Cache-Control", "max-age=1, stale-while-revalidate=60"), ("Date", HTTPDate.format(clock.now()))], body: "x")
        try await HTTPCacheClient.withClient(transport: origin, configuration: .init(clock: clock)) { client in
            _ = try await client.data(for: HTTPRequest(url: "http://origin.test/w"))
            clock.advance(by: 5)
            let stale = try await client.data(for: HTTPRequest(url: "http://origin.test/w"))
            #expect(stale.cacheStatus == .stale)
        }
        #expect(origin.requestCount(for: "/w") == 2)
    }
}
