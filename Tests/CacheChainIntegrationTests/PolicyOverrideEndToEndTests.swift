import CacheChain
import CacheChainCurl
import CacheChainLoopback
import CacheChainTesting
import Foundation
import HTTPTypes
import Testing

/// Policy overrides by rules (issue 31.3) through libcurl and a loopback origin: a lifetime when the origin
/// gives none or always, never cache, stale on error up to a bound, a per-request rule; each in the trace.
@Suite("Policy overrides end to end", .tags(.integration))
struct PolicyOverrideEndToEndTests {
    let rules = [
        PolicyOverrideRule("images", pathGlob: "/img/*.png", freshness: .whenAbsent(.seconds(300))),
        PolicyOverrideRule("pinned", pathPrefix: "/pinned/", freshness: .always(.seconds(120))),
        PolicyOverrideRule("live", pathPrefix: "/live/", neverCache: true),
        PolicyOverrideRule("offline", host: "127.0.0.1", pathPrefix: "/news", staleOnError: .seconds(600)),
    ]

    func withClient(_ body: (HTTPCacheClient, LoopbackOrigin, ManualClock) async throws -> Void) async throws {
        let origin = try await LoopbackOrigin.start()
        let clock = ManualClock()
        let client = HTTPCacheClient(
            transport: CurlTransport(),
            configuration: .init(storage: MemoryStorage(capacity: 8 << 20), clock: clock, policyOverrides: rules)
        )
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

    func get(_ client: HTTPCacheClient, _ origin: LoopbackOrigin, _ path: String, values: ContextValues = ContextValues()) async throws -> PipelineResponse {
        try await client.send(PipelineRequest(head: try HTTPRequest(url: origin.url(path))), values: values)
    }

    func overrides(_ response: PipelineResponse) -> [String] {
        response.trace.filter { $0.code == .policyOverride }.map(\.detail)
    }

    @Test("a lifetime when the origin gives none: HIT until it runs out, the rule in the trace; an explicit one wins")
    func lifetimeWhenAbsent() async throws {
        try await withClient { client, origin, clock in
            origin.route("/img/a.png", LoopbackRoute(headers: [], body: "png"))
            let miss = try await get(client, origin, "/img/a.png")
            #expect(miss.cacheStatus == .miss)
            #expect(overrides(miss) == ["rule 'images': max-age=300 (the origin gave no lifetime)"])
            #expect(miss.head.headerFields[HTTPField.Name("CacheChain-Override")!] == nil, "the marker never reaches the caller")
            clock.advance(by: 299)
            let hit = try await get(client, origin, "/img/a.png")
            #expect(hit.cacheStatus == .hit)
            #expect(overrides(hit) == ["rule 'images': max-age=300 (the origin gave no lifetime)"])
            clock.advance(by: 2)
            #expect(try await get(client, origin, "/img/a.png").cacheStatus == .miss)
            #expect(origin.requestCount(for: "/img/a.png") == 2)

            origin.route("/img/b.png", LoopbackRoute(headers: [("Cache-Control", "max-age=10")], body: "png"))
            _ = try await get(client, origin, "/img/b.png")
            clock.advance(by: 11)
            let own = try await get(client, origin, "/img/b.png")
            #expect(own.cacheStatus == .miss, "the origin's max-age=10 is kept")
            #expect(overrides(own).isEmpty)
            origin.route("/img/c.png", LoopbackRoute(status: 500, headers: [], body: "error"))
            _ = try await get(client, origin, "/img/c.png")
            #expect(try await get(client, origin, "/img/c.png").cacheStatus == .miss, "an error page gets no lifetime")
        }
    }

    @Test("always: replaces the origin's max-age=0; never cache: no lookup, not stored")
    func alwaysAndNeverCache() async throws {
        try await withClient { client, origin, clock in
            origin.route("/pinned/x", LoopbackRoute(headers: [("Cache-Control", "max-age=0")], body: "x"))
            _ = try await get(client, origin, "/pinned/x")
            clock.advance(by: 100)
            let hit = try await get(client, origin, "/pinned/x")
            #expect(hit.cacheStatus == .hit)
            #expect(overrides(hit) == ["rule 'pinned': max-age=120 (replacing the origin's lifetime)"])

            origin.route("/live/score", LoopbackRoute(headers: [("Cache-Control", "max-age=600")], body: "1-0"))
            let first = try await get(client, origin, "/live/score")
            let second = try await get(client, origin, "/live/score")
            #expect([first.cacheStatus, second.cacheStatus] == [.miss, .miss])
            #expect(overrides(second) == ["rule 'live': never cache (no lookup, not stored)"])
            #expect(try await client.cachedResponse(for: try HTTPRequest(url: origin.url("/live/score"))) == nil)
            #expect(origin.requestCount(for: "/live/score") == 2)
        }
    }

    @Test("stale on error up to the bound (a 503 and an unreachable origin), then the error; a per-request rule")
    func staleOnError() async throws {
        try await withClient { client, origin, clock in
            origin.route("/news", LoopbackRoute(headers: [("Cache-Control", "max-age=60")], body: "news"))
            _ = try await get(client, origin, "/news")
            clock.advance(by: 60 + 500)
            origin.route("/news", LoopbackRoute(status: 503, headers: [], body: "down"))
            let served = try await get(client, origin, "/news")
            #expect(served.cacheStatus == .stale)
            #expect(served.body.string == "news")
            #expect(overrides(served) == ["rule 'offline': stale-if-error=600 on the request"])
            #expect(served.trace.contains { $0.code == .staleIfError })
            clock.advance(by: 200)  // stale for 700 s: past the bound
            let failed = try await get(client, origin, "/news")
            #expect(failed.head.status.code == 503)

            origin.route("/other", LoopbackRoute(headers: [("Cache-Control", "max-age=60")], body: "other"))
            _ = try await get(client, origin, "/other")
            clock.advance(by: 100)
            origin.route("/other", LoopbackRoute(status: 502, headers: [], body: "bad gateway"))
            #expect(try await get(client, origin, "/other").head.status.code == 502, "no rule matches /other")
            var values = ContextValues()
            values[PolicyOverrideInterceptor.RuleKey.self] = PolicyOverrideRule("this request", staleOnError: .seconds(3_600))
            let own = try await get(client, origin, "/other", values: values)
            #expect(own.body.string == "other")
            #expect(overrides(own) == ["rule 'this request': stale-if-error=3600 on the request"])
        }
    }
}
