import CacheChain
import CacheChainCurl
import CacheChainLoopback
import CacheChainTesting
import Foundation
import HTTPTypes
import Testing

/// `Cache-Status` (RFC 9211, issue 31.4) through libcurl and a loopback origin: the values for a miss, a hit,
/// a stale response, a revalidation, a variant miss, a stale replacement and a stale-if-error answer.
@Suite("Cache-Status end to end", .tags(.integration))
struct CacheStatusEndToEndTests {
    func cacheStatus(_ response: PipelineResponse) -> String? {
        response.head.headerFields[CacheStatusField.name]
    }

    @Test("miss, hit with its ttl, stale within stale-while-revalidate, revalidated with a 304")
    func hitMissStaleRevalidated() async throws {
        try await withNetwork(outer: [CacheStatusInterceptor()]) { net in
            net.origin.route("/a", LoopbackRoute(headers: [("Cache-Control", "max-age=60")], body: "a"))
            #expect(cacheStatus(try await net.get("/a")) == "CacheChain; fwd=uri-miss; fwd-status=200; stored")
            #expect(cacheStatus(try await net.get("/a")) == "CacheChain; hit; ttl=60")
            net.clock.advance(by: 10)
            #expect(cacheStatus(try await net.get("/a")) == "CacheChain; hit; ttl=50")

            net.origin.route("/s", LoopbackRoute(headers: [("Cache-Control", "max-age=1, stale-while-revalidate=100")], body: "s", etag: "\"s\""))
            _ = try await net.get("/s")
            net.clock.advance(by: 11)
            let stale = try await net.get("/s")
            #expect(stale.cacheStatus == .stale)
            #expect(cacheStatus(stale) == "CacheChain; hit; ttl=-10; detail=stale-while-revalidate")
            await net.client.waitForBackgroundRevalidations()

            net.origin.route("/r", LoopbackRoute(headers: [("Cache-Control", "max-age=5")], body: "r", etag: "\"r1\""))
            _ = try await net.get("/r")
            net.clock.advance(by: 30)
            let revalidated = try await net.get("/r")
            #expect(revalidated.cacheStatus == .revalidated)
            #expect(cacheStatus(revalidated) == "CacheChain; fwd=stale; fwd-status=304; ttl=5; stored")
        }
    }

    @Test("vary-miss, stale replaced (no validator), a request no-cache, an unsafe method, stale-if-error")
    func forwardReasons() async throws {
        try await withNetwork(outer: [CacheStatusInterceptor()]) { net in
            net.origin.route("/v", LoopbackRoute(headers: [("Cache-Control", "max-age=60"), ("Vary", "Accept-Language")], body: "v"))
            _ = try await net.get("/v", [(.acceptLanguage, "fr")])
            #expect(cacheStatus(try await net.get("/v", [(.acceptLanguage, "en")])) == "CacheChain; fwd=vary-miss; fwd-status=200; stored")

            net.origin.route("/n", LoopbackRoute(headers: [("Cache-Control", "max-age=1")], body: "n"))
            _ = try await net.get("/n")
            net.clock.advance(by: 5)
            #expect(cacheStatus(try await net.get("/n")) == "CacheChain; fwd=stale; fwd-status=200; stored; detail=no-validator")
            #expect(cacheStatus(try await net.get("/n", [(.cacheControl, "no-cache")]))?.hasPrefix("CacheChain; fwd=request; fwd-status=200") == true)

            net.origin.route("/e", LoopbackRoute(headers: [("Cache-Control", "max-age=1, stale-if-error=600")], body: "e"))
            _ = try await net.get("/e")
            net.clock.advance(by: 11)
            net.origin.route("/e", LoopbackRoute(status: 503, headers: [("Cache-Control", "no-store")], body: "down"))
            let offline = try await net.get("/e")
            #expect(offline.cacheStatus == .stale)  // served stale because the origin answered 503
            #expect(cacheStatus(offline) == "CacheChain; fwd=stale; ttl=-10; detail=stale-if-error")

            var post = try HTTPRequest(url: net.origin.url("/a"))
            post.method = .post
            net.origin.route("/a", LoopbackRoute(status: 201, headers: [], body: "created"))
            let created = try await net.client.data(for: post)
            #expect(cacheStatus(created) == "CacheChain; fwd=method; fwd-status=201; detail=unsafe-method")
        }
    }

    @Test("a Cache-Status from upstream is kept, this cache's member added last")
    func upstreamMember() async throws {
        try await withNetwork(outer: [CacheStatusInterceptor(cacheName: "app-cache")]) { net in
            net.origin.route("/u", LoopbackRoute(headers: [("Cache-Control", "max-age=60"), ("Cache-Status", "ExampleCDN; hit")], body: "u"))
            _ = try await net.get("/u")
            #expect(cacheStatus(try await net.get("/u")) == "ExampleCDN; hit, app-cache; hit; ttl=60")
        }
    }
}
