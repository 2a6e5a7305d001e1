import CacheChain
import CacheChainCurl
import CacheChainLoopback
import CacheChainTesting
import Foundation
import HTTPTypes
import Testing

/// Body-keyed caching of POST and QUERY (issue 31.6) through libcurl and a loopback origin: a hit for the
/// same body, a miss for another, off by default, never for PUT or DELETE, GET entries kept apart and
/// invalidated by a POST the origin answers, and a stale entry refetched with the original method and body.
@Suite("Body-keyed caching end to end", .tags(.integration))
struct BodyKeyedCachingEndToEndTests {
    static let rules = [
        BodyKeyedCachingRule(
            "graphql", pathPrefix: "/graphql", where: { _, body in !String(decoding: body, as: UTF8.self).hasPrefix("mutation") }
        ),
        BodyKeyedCachingRule("everything", pathPrefix: "/any", methods: [.post, .put, .delete, .patch]),
        BodyKeyedCachingRule("search", pathPrefix: "/search", maximumBodySize: 16),
    ]

    func withClient(
        rules: [BodyKeyedCachingRule] = Self.rules,
        overrides: [PolicyOverrideRule] = [],
        outer: [any HTTPInterceptor] = [],
        _ body: (HTTPCacheClient, LoopbackOrigin, ManualClock) async throws -> Void
    ) async throws {
        let origin = try await LoopbackOrigin.start()
        let clock = ManualClock()
        let configuration = HTTPCacheClient.Configuration(
            clock: clock, outerInterceptors: outer, policyOverrides: overrides, bodyKeyedCaching: rules
        )
        let client = HTTPCacheClient(transport: CurlTransport(), configuration: configuration)
        for path in ["/graphql", "/any", "/search"] {
            origin.route(path) { request in
                LoopbackRoute(headers: [("Cache-Control", "max-age=60")], body: "\(request.method) \(String(decoding: request.body, as: UTF8.self))", etag: "\"e\"")
            }
        }
        do {
            try await body(client, origin, clock)
        } catch {
            try? await client.shutdown()
            try? await origin.shutdown()
            throw error
        }
        try await client.shutdown()
        try await origin.shutdown()
    }

    func send(
        _ client: HTTPCacheClient, _ origin: LoopbackOrigin, _ method: HTTPRequest.Method, _ path: String, _ body: String? = nil,
        language: String? = nil
    ) async throws -> PipelineResponse {
        var request = try HTTPRequest(url: origin.url(path))
        request.method = method
        request.headerFields[.acceptLanguage] = language
        if body != nil { request.headerFields[.contentType] = "application/json" }
        return try await client.data(for: request, body: body.map { PipelineBody(string: $0) })
    }

    @Test("the same POST body is a hit, another body a miss; the origin gets the POST and its body")
    func postHitAndMiss() async throws {
        try await withClient { client, origin, _ in
            let first = try await send(client, origin, .post, "/graphql", #"{"query":"{ a }"}"#)
            #expect(first.cacheStatus == .miss)
            #expect(first.body.string == #"POST {"query":"{ a }"}"#)
            #expect(origin.receivedRequests.last?.method == "POST")
            let again = try await send(client, origin, .post, "/graphql", #"{"query":"{ a }"}"#)
            #expect(again.cacheStatus == .hit)
            #expect(again.body.string == #"POST {"query":"{ a }"}"#)
            #expect(again.trace.first?.code == .bodyKeyed)
            let other = try await send(client, origin, .post, "/graphql", #"{"query":"{ b }"}"#)
            #expect(other.cacheStatus == .miss)
            #expect(other.body.string == #"POST {"query":"{ b }"}"#)
            let mutation = try await send(client, origin, .post, "/graphql", "mutation { c }")
            _ = try await send(client, origin, .post, "/graphql", "mutation { c }")
            #expect(mutation.cacheStatus == .bypass)
            #expect(origin.requestCount(for: "/graphql") == 4, "a, b and the mutation twice")
        }
    }

    @Test("QUERY is body-keyed too; a body over the rule's limit is not cached")
    func queryAndLimit() async throws {
        try await withClient { client, origin, _ in
            _ = try await send(client, origin, BodyKeyedCachingRule.query, "/search", "q=cats")
            let hit = try await send(client, origin, BodyKeyedCachingRule.query, "/search", "q=cats")
            #expect(hit.cacheStatus == .hit)
            #expect(hit.body.string == "QUERY q=cats")
            let long = String(repeating: "x", count: 17)
            _ = try await send(client, origin, .post, "/search", long)
            let again = try await send(client, origin, .post, "/search", long)
            #expect(again.cacheStatus == .bypass)
            #expect(again.trace.first?.detail.contains("over 16 bytes") == true)
            #expect(origin.requestCount(for: "/search") == 3)
        }
    }

    @Test("off by default: without a rule every POST reaches the origin")
    func offByDefault() async throws {
        try await withClient(rules: []) { client, origin, _ in
            _ = try await send(client, origin, .post, "/graphql", "{ a }")
            let again = try await send(client, origin, .post, "/graphql", "{ a }")
            #expect(again.cacheStatus == .bypass)
            #expect(origin.requestCount(for: "/graphql") == 2)
        }
    }

    @Test("PUT, DELETE and PATCH are never cached, even when a rule names them")
    func otherUnsafeMethodsNever() async throws {
        try await withClient { client, origin, _ in
            for method in [HTTPRequest.Method.put, .delete, .patch] {
                _ = try await send(client, origin, method, "/any", "x")
                let again = try await send(client, origin, method, "/any", "x")
                #expect(again.cacheStatus == .bypass, "\(method)")
            }
            #expect(origin.requestCount(for: "/any") == 6)
            _ = try await send(client, origin, .post, "/any", "x")
            #expect(try await send(client, origin, .post, "/any", "x").cacheStatus == .hit, "POST under the same rule is")
        }
    }

    @Test("GET entries stay apart; a POST the origin answers invalidates them, a POST hit does not")
    func invalidation() async throws {
        try await withClient { client, origin, _ in
            _ = try await send(client, origin, .get, "/search")
            #expect(try await send(client, origin, .get, "/search").cacheStatus == .hit)
            _ = try await send(client, origin, .post, "/search", "q=1")
            let get = try await send(client, origin, .get, "/search")
            #expect(get.cacheStatus == .miss, "the POST miss invalidated the GET entry (RFC 9111 §4.4)")
            #expect(get.body.string == "GET ", "a GET never sees a POST's entry")
            let hit = try await send(client, origin, .post, "/search", "q=1")
            #expect(hit.cacheStatus == .hit)
            #expect(try await send(client, origin, .get, "/search").cacheStatus == .hit, "a hit reaches no origin, invalidates nothing")
            _ = try await send(client, origin, BodyKeyedCachingRule.query, "/search", "q=2")
            #expect(try await send(client, origin, .get, "/search").cacheStatus == .hit, "QUERY is safe: nothing invalidated")
        }
    }

    @Test("a stale body-keyed entry is fetched again with the original method and body, without validators")
    func staleRefetch() async throws {
        try await withClient { client, origin, clock in
            _ = try await send(client, origin, .post, "/graphql", "{ a }")
            #expect(try await send(client, origin, .post, "/graphql", "{ a }").cacheStatus == .hit)
            clock.advance(by: 61)
            let refreshed = try await send(client, origin, .post, "/graphql", "{ a }")
            #expect(refreshed.body.string == "POST { a }")
            #expect(!refreshed.cacheStatus.isFromCache || refreshed.cacheStatus == .revalidated)
            let sent = try #require(origin.receivedRequests.last)
            #expect(sent.method == "POST")
            #expect(String(decoding: sent.body, as: UTF8.self) == "{ a }")
            #expect(sent.header("If-None-Match") == nil)
            #expect(origin.requestCount(for: "/graphql") == 2)
        }
    }

    @Test("with a policy override's lifetime, a GraphQL endpoint without Cache-Control is cached")
    func withPolicyOverride() async throws {
        let overrides = [PolicyOverrideRule("graphql", pathPrefix: "/plain", freshness: .whenAbsent(.seconds(30)))]
        try await withClient(rules: [BodyKeyedCachingRule("graphql", pathPrefix: "/plain")], overrides: overrides) { client, origin, _ in
            origin.route("/plain") { request in LoopbackRoute(body: String(decoding: request.body, as: UTF8.self)) }
            _ = try await send(client, origin, .post, "/plain", "{ a }")
            let hit = try await send(client, origin, .post, "/plain", "{ a }")
            #expect(hit.cacheStatus == .hit)
            #expect(hit.body.string == "{ a }")
            #expect(origin.requestCount(for: "/plain") == 1)
        }
    }

    @Test("a Vary response under a body key: the same body and language hit, another language or body miss")
    func varyUnderTheBodyKey() async throws {
        try await withClient(rules: Self.rules + [BodyKeyedCachingRule("vary", pathPrefix: "/vary")]) { client, origin, _ in
            origin.route("/vary") { request in
                let language = request.header("Accept-Language") ?? "-"
                return LoopbackRoute(
                    headers: [("Cache-Control", "max-age=60"), ("Vary", "Accept-Language")],
                    body: "\(request.method) \(String(decoding: request.body, as: UTF8.self)) \(language)"
                )
            }
            #expect(try await send(client, origin, .post, "/vary", "a", language: "fr").body.string == "POST a fr")
            let hit = try await send(client, origin, .post, "/vary", "a", language: "fr")
            #expect(hit.cacheStatus == .hit && hit.body.string == "POST a fr")
            let english = try await send(client, origin, .post, "/vary", "a", language: "en")
            #expect(english.cacheStatus == .miss && english.body.string == "POST a en")
            #expect(english.trace.contains { $0.code == .varyMismatch })
            let otherBody = try await send(client, origin, .post, "/vary", "b", language: "fr")
            #expect(otherBody.cacheStatus == .miss && otherBody.body.string == "POST b fr")
            #expect(try await send(client, origin, .post, "/vary", "a", language: "fr").body.string == "POST a fr")
            #expect(try await send(client, origin, .post, "/vary", "a", language: "en").cacheStatus == .hit)
            #expect(origin.requestCount(for: "/vary") == 3)
        }
    }

    @Test("redirects of a body-keyed POST: a 303 is followed with a GET (never re-POSTed), a 307 is keyed by its own URL")
    func redirectUnderTheBodyKey() async throws {
        let rules = Self.rules + [BodyKeyedCachingRule("form", pathPrefix: "/form")]
        try await withClient(rules: rules, outer: [RedirectInterceptor()]) { client, origin, _ in
            origin.route("/form") { request in
                request.method == "POST"
                    ? LoopbackRoute(status: 303, headers: [("Location", "/form"), ("Cache-Control", "max-age=60")])
                    : LoopbackRoute(headers: [("Cache-Control", "max-age=60")], body: "GET page")
            }
            origin.route("/moved", LoopbackRoute(status: 307, headers: [("Location", "/graphql")]))
            let first = try await send(client, origin, .post, "/form", "x")
            #expect(first.body.string == "GET page")
            #expect(first.trace.first?.code == .redirected)
            let again = try await send(client, origin, .post, "/form", "x")
            #expect(again.body.string == "GET page" && again.cacheStatus == .hit, "the 303 and the page, both from the cache")
            #expect(origin.receivedRequests.map { "\($0.method) \($0.path)" } == ["POST /form", "GET /form"])

            let moved = try await send(client, origin, .post, "/moved", "z")
            #expect(moved.body.string == "POST z", "307 keeps the method and body")
            let direct = try await send(client, origin, .post, "/graphql", "z")
            #expect(direct.cacheStatus == .hit && direct.body.string == "POST z", "the hop was stored under /graphql's body key")
            #expect(origin.receivedRequests.suffix(2).map { "\($0.method) \($0.path) \(String(decoding: $0.body, as: UTF8.self))" } == [
                "POST /moved z", "POST /graphql z",
            ])
        }
    }
}
