import CacheChain
import CacheChainCurl
import CacheChainLoopback
import CacheChainTesting
import Foundation
import HTTPTypes
import Testing

extension Tag {
    /// Tests that go through a real transport (libcurl, AsyncHTTPClient) to a loopback origin.
    @Tag static var integration: Self
}

/// The shared end-to-end transport suite: every scenario runs through each transport (``TransportKind``:
/// `CurlTransport` and `CacheChainAHCTransport`) over plain HTTP, HTTPS/1.1 and HTTPS/2 with the loopback test
/// CA (``ProtocolMode``); `withNetwork` also checks that the origin saw only the mode's HTTP version.
@Suite("End to end: RFC 9111 through each transport and a loopback origin", .tags(.integration))
struct EndToEndCachingTests {
    @Test("MISS reaches the origin once, HIT does not", arguments: TransportKind.allCases, ProtocolMode.allCases)
    func missThenHit(_ kind: TransportKind, _ mode: ProtocolMode) async throws {
        try await withNetwork(mode, through: kind) { net in
            net.origin.route("/a", LoopbackRoute(headers: [("Cache-Control", "max-age=60")], body: "hello"))
            let first = try await net.get("/a")
            #expect(first.cacheStatus == .miss)
            #expect(first.body.string == "hello")
            let second = try await net.get("/a")
            #expect(second.cacheStatus == .hit)
            #expect(second.body.string == "hello")
            #expect(net.origin.requestCount(for: "/a") == 1)
        }
    }

    @Test(
        "stale → conditional GET → 304 → REVALIDATED with merged headers; a changed ETag replaces the entry",
        arguments: TransportKind.allCases, ProtocolMode.allCases
    )
    func revalidation(_ kind: TransportKind, _ mode: ProtocolMode) async throws {
        try await withNetwork(mode, through: kind) { net in
            net.origin.route("/r", LoopbackRoute(headers: [("Cache-Control", "max-age=5"), ("X-Version", "1")], body: "body-1", etag: "\"v1\""))
            _ = try await net.get("/r")
            net.clock.advance(by: 30)
            net.origin.route("/r", LoopbackRoute(headers: [("Cache-Control", "max-age=100"), ("X-Version", "2")], body: "body-1", etag: "\"v1\""))
            let revalidated = try await net.get("/r")
            #expect(revalidated.cacheStatus == .revalidated)
            #expect(revalidated.body.string == "body-1")
            #expect(revalidated.head.headerFields[HTTPField.Name("X-Version")!] == "2")
            let conditional = try #require(net.origin.receivedRequests.last)
            #expect(conditional.method == "GET")
            #expect(conditional.header("If-None-Match") == "\"v1\"")

            net.clock.advance(by: 200)
            net.origin.route("/r", LoopbackRoute(headers: [("Cache-Control", "max-age=100")], body: "body-2", etag: "\"v2\""))
            let replaced = try await net.get("/r")
            #expect(replaced.cacheStatus == .miss)
            #expect(replaced.body.string == "body-2")
            let hit = try await net.get("/r")
            #expect(hit.cacheStatus == .hit)
            #expect(hit.body.string == "body-2")
            #expect(net.origin.requestCount(for: "/r") == 3)
        }
    }

    @Test("Vary variants, no-store, and POST invalidation", arguments: TransportKind.allCases, ProtocolMode.allCases)
    func varyNoStoreInvalidation(_ kind: TransportKind, _ mode: ProtocolMode) async throws {
        try await withNetwork(mode, through: kind) { net in
            net.origin.route("/v", handler: { request in
                LoopbackRoute(headers: [("Cache-Control", "max-age=60"), ("Vary", "Accept-Language")], body: "lang=\(request.header("Accept-Language") ?? "-")")
            })
            let fr = try await net.get("/v", [(.acceptLanguage, "fr")])
            let en = try await net.get("/v", [(.acceptLanguage, "en")])
            let frAgain = try await net.get("/v", [(.acceptLanguage, "fr")])
            #expect([fr.cacheStatus, en.cacheStatus, frAgain.cacheStatus] == [.miss, .miss, .hit])
            #expect(frAgain.body.string == "lang=fr")
            #expect(net.origin.requestCount(for: "/v") == 2)

            net.origin.route("/n", LoopbackRoute(headers: [("Cache-Control", "no-store")], body: "secret"))
            _ = try await net.get("/n")
            let again = try await net.get("/n")
            #expect(again.cacheStatus == .miss)
            #expect(net.origin.requestCount(for: "/n") == 2)

            net.origin.route("/doc", LoopbackRoute(headers: [("Cache-Control", "max-age=600")], body: "v1"))
            _ = try await net.get("/doc")
            let post = try await net.client.data(
                for: HTTPRequest(method: .post, url: net.origin.url("/doc")),
                body: PipelineBody(string: "update")
            )
            #expect(post.cacheStatus == .bypass)
            #expect(net.origin.receivedRequests.last?.body == Array("update".utf8))
            let after = try await net.get("/doc")
            #expect(after.cacheStatus == .miss)
            #expect(net.origin.requestCount(for: "/doc") == 3)
        }
    }

    @Test(
        "returnCacheDataDontLoad never touches the origin; returnCacheDataElseLoad serves stale when the origin is down",
        arguments: TransportKind.allCases, ProtocolMode.allCases
    )
    func offlinePolicies(_ kind: TransportKind, _ mode: ProtocolMode) async throws {
        let net = try await Network.start(kind, mode)
        net.origin.route("/p", LoopbackRoute(headers: [("Cache-Control", "max-age=1")], body: "stored"))
        _ = try await net.get("/p")
        net.clock.advance(by: 3600)
        let dontLoad = try await net.get("/p", policy: .returnCacheDataDontLoad)
        #expect(dontLoad.body.string == "stored")
        await #expect(throws: CacheChainError.self) { try await net.get("/cold", policy: .returnCacheDataDontLoad) }
        #expect(net.origin.requestCount(for: "/p") == 1)
        #expect(net.origin.requestCount(for: "/cold") == 0)
        net.expectOriginSawModeVersion()
        try await net.stop()
        let elseLoad = try await net.get("/p", policy: .returnCacheDataElseLoad)
        #expect(elseLoad.body.string == "stored")
        // A request that asks for the origin's answer gets the transport's error (without `no-cache`, a private
        // cache now serves the stale copy: StaleWhenUnreachableEndToEndTests).
        let failure = await #expect(throws: CacheChainError.self) { try await net.get("/p", [(.cacheControl, "no-cache")]) }
        #expect(failure?.code == .transportFailed)
        #expect(failure?.message.contains("onnect") == true, "the transport's error text names the connection failure: \(failure?.message ?? "")")
        try await net.client.shutdown()
    }

    @Test("stale-if-error serves the stale entry on 500 and when the origin is down", arguments: TransportKind.allCases, ProtocolMode.allCases)
    func staleIfError(_ kind: TransportKind, _ mode: ProtocolMode) async throws {
        let net = try await Network.start(kind, mode)
        net.origin.route("/s", LoopbackRoute(headers: [("Cache-Control", "max-age=1, stale-if-error=600")], body: "saved"))
        _ = try await net.get("/s")
        net.clock.advance(by: 10)
        net.origin.route("/s", LoopbackRoute(status: 500, body: "boom"))
        let on500 = try await net.get("/s")
        #expect(on500.cacheStatus == .stale)
        #expect(on500.body.string == "saved")
        #expect(net.origin.requestCount(for: "/s") == 2)
        net.expectOriginSawModeVersion()
        try await net.stop()
        let onDown = try await net.get("/s")
        #expect(onDown.cacheStatus == .offline)
        #expect(onDown.body.string == "saved")
        try await net.client.shutdown()
    }

    @Test(
        "stale-while-revalidate serves stale at once and refreshes in the background exactly once",
        arguments: TransportKind.allCases, ProtocolMode.allCases
    )
    func staleWhileRevalidate(_ kind: TransportKind, _ mode: ProtocolMode) async throws {
        try await withNetwork(mode, through: kind) { net in
            net.origin.route("/w", LoopbackRoute(headers: [("Cache-Control", "max-age=1, stale-while-revalidate=600")], body: "v1", etag: "\"1\""))
            _ = try await net.get("/w")
            net.clock.advance(by: 5)
            net.origin.route("/w", LoopbackRoute(headers: [("Cache-Control", "max-age=300")], body: "v2", etag: "\"2\""))
            async let a = net.get("/w")
            async let b = net.get("/w")
            let (first, second) = try await (a, b)
            #expect(first.cacheStatus == .stale && second.cacheStatus == .stale)
            #expect(first.body.string == "v1")
            await net.client.waitForBackgroundRevalidations()
            #expect(net.origin.requestCount(for: "/w") == 2)
            let refreshed = try await net.get("/w")
            #expect(refreshed.cacheStatus == .hit)
            #expect(refreshed.body.string == "v2")
        }
    }

    @Test("redirects are followed above the cache, and every hop is cached", arguments: TransportKind.allCases, ProtocolMode.allCases)
    func redirects(_ kind: TransportKind, _ mode: ProtocolMode) async throws {
        try await withNetwork(mode, through: kind, outer: [RedirectInterceptor()]) { net in
            net.origin.route("/old", LoopbackRoute(status: 301, headers: [("Location", "/new"), ("Cache-Control", "max-age=600")], body: "moved"))
            net.origin.route("/new", LoopbackRoute(headers: [("Cache-Control", "max-age=600")], body: "here"))
            let first = try await net.get("/old")
            #expect(first.head.status.code == 200)
            #expect(first.body.string == "here")
            #expect(first.trace.first?.code == .redirected)
            let second = try await net.get("/old")
            #expect(second.body.string == "here")
            #expect(second.cacheStatus == .hit)
            #expect(net.origin.requestCount(for: "/old") == 1)
            #expect(net.origin.requestCount(for: "/new") == 1)
        }
    }
}
