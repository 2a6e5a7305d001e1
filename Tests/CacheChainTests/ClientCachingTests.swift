import CacheChain
import CacheChainTesting
import Foundation
import HTTPTypes
import Testing

@Suite("Client: RFC 9111 through the default chain")
struct ClientCachingTests {
    @Test("first request is a MISS that reaches the origin, the second a HIT that does not")
    func missThenHit() async throws {
        let h = Harness()
        h.origin.route("/a", fields: [("Cache-Control", "max-age=60"), ("Date", h.dateField)], body: "hello")
        let first = try await h.get("/a")
        #expect(first.cacheStatus == .miss)
        #expect(first.trace.contains { $0.code == .storable })
        h.clock.advance(by: 10)
        let second = try await h.get("/a")
        #expect(second.cacheStatus == .hit)
        #expect(second.body.string == "hello")
        #expect(second.head.headerFields[.age] == "10")
        #expect(h.origin.requestCount(for: "/a") == 1)
        #expect(h.events.kinds.contains(.hit))
    }

    @Test("a stale entry is revalidated with a conditional GET; 304 merges fields and serves the stored body")
    func revalidation() async throws {
        let h = Harness()
        h.origin.route("/r", fields: [("Cache-Control", "max-age=5"), ("X-Version", "1"), ("Date", h.dateField)], body: "body-1", etag: "\"v1\"")
        _ = try await h.get("/r")
        h.clock.advance(by: 30)
        h.origin.route("/r", fields: [("Cache-Control", "max-age=100"), ("X-Version", "2"), ("Date", h.dateField)], body: "ignored", etag: "\"v1\"")
        let revalidated = try await h.get("/r")
        #expect(revalidated.cacheStatus == .revalidated)
        #expect(revalidated.body.string == "body-1")
        #expect(revalidated.head.headerFields[HTTPField.Name("X-Version")!] == "2")
        #expect(revalidated.head.headerFields[.contentLength] == "6")
        let conditional = try #require(h.origin.receivedRequests.map(\.head).last)
        #expect(conditional.method == .get)
        #expect(conditional.headerFields[.ifNoneMatch] == "\"v1\"")
        h.clock.advance(by: 50)
        let hit = try await h.get("/r")
        #expect(hit.cacheStatus == .hit, "the 304's max-age=100 freshened the entry")
        #expect(h.origin.requestCount(for: "/r") == 2)
    }

    @Test("a changed ETag answers the conditional GET with 200, which replaces the entry")
    func changedEntity() async throws {
        let h = Harness()
        h.origin.route("/c", fields: [("Cache-Control", "max-age=1"), ("Date", h.dateField)], body: "old", etag: "\"1\"")
        _ = try await h.get("/c")
        h.clock.advance(by: 5)
        h.origin.route("/c", fields: [("Cache-Control", "max-age=60"), ("Date", h.dateField)], body: "new", etag: "\"2\"")
        let changed = try await h.get("/c")
        #expect(changed.cacheStatus == .miss)
        #expect(changed.body.string == "new")
        let hit = try await h.get("/c")
        #expect(hit.cacheStatus == .hit)
        #expect(hit.body.string == "new")
    }

    @Test("no-store responses are never stored")
    func noStore() async throws {
        let h = Harness()
        h.origin.route("/n", fields: [("Cache-Control", "no-store")], body: "x")
        let first = try await h.get("/n")
        #expect(first.trace.contains { $0.code == .noStore })
        _ = try await h.get("/n")
        #expect(h.origin.requestCount(for: "/n") == 2)
        #expect(try await h.client.cachedResponse(for: HTTPRequest(url: "http://origin.test/n")) == nil)
    }

    @Test("a successful POST invalidates the stored GET of the same URI")
    func unsafeInvalidates() async throws {
        let h = Harness()
        h.origin.route("/doc", fields: [("Cache-Control", "max-age=600")], body: "v1")
        _ = try await h.get("/doc")
        let post = try await h.send(.post, "/doc")
        #expect(post.cacheStatus == .bypass)
        #expect(post.trace.contains { $0.code == .invalidated })
        let after = try await h.get("/doc")
        #expect(after.cacheStatus == .miss)
        #expect(h.origin.requestCount(for: "/doc") == 3)
    }

    @Test("Vary keeps one variant per selecting header value")
    func varyVariants() async throws {
        let h = Harness()
        h.origin.route("/v", fields: [("Cache-Control", "max-age=60"), ("Vary", "Accept-Language")], body: "any")
        let fr = try await h.get("/v", [(.acceptLanguage, "fr")])
        let en = try await h.get("/v", [(.acceptLanguage, "en")])
        let frAgain = try await h.get("/v", [(.acceptLanguage, "fr")])
        let enAgain = try await h.get("/v", [(.acceptLanguage, "en")])
        #expect([fr.cacheStatus, en.cacheStatus] == [.miss, .miss])
        #expect([frAgain.cacheStatus, enAgain.cacheStatus] == [.hit, .hit])
        #expect(h.origin.requestCount(for: "/v") == 2)
    }

    @Test("the application's own If-None-Match is answered with 304 from the cache when it matches")
    func applicationConditional() async throws {
        let h = Harness()
        h.origin.route("/e", fields: [("Cache-Control", "max-age=60")], body: "entity", etag: "\"abc\"")
        _ = try await h.get("/e")
        let conditional = try await h.get("/e", [(.ifNoneMatch, "\"abc\"")])
        #expect(conditional.head.status.code == 304)
        #expect(conditional.body.isEmpty)
        #expect(conditional.cacheStatus == .hit)
        let mismatch = try await h.get("/e", [(.ifNoneMatch, "\"zzz\"")])
        #expect(mismatch.head.status.code == 200)
        #expect(mismatch.body.string == "entity")
        #expect(h.origin.requestCount(for: "/e") == 1)
    }

    @Test("HEAD after GET is answered from the stored GET response without a body")
    func headAfterGet() async throws {
        let h = Harness()
        h.origin.route("/h", fields: [("Cache-Control", "max-age=60")], body: "full body")
        _ = try await h.get("/h")
        let head = try await h.send(.head, "/h")
        #expect(head.cacheStatus == .hit)
        #expect(head.body.isEmpty)
        #expect(head.head.headerFields[.contentLength] == "9")
        #expect(h.origin.requestCount(for: "/h") == 1)
    }

    @Test("only-if-cached with nothing stored answers 504 without touching the origin")
    func onlyIfCached() async throws {
        let h = Harness()
        h.origin.route("/o", fields: [("Cache-Control", "max-age=60")], body: "x")
        let response = try await h.get("/o", [(.cacheControl, "only-if-cached")])
        #expect(response.head.status.code == 504)
        #expect(response.cacheStatus == .unsatisfiable)
        #expect(h.origin.requestCount(for: "/o") == 0)
    }

    @Test("stale-if-error serves the stale entry when the origin answers 500 or is down")
    func staleIfError() async throws {
        let h = Harness()
        h.origin.route("/s", fields: [("Cache-Control", "max-age=1, stale-if-error=600"), ("Date", h.dateField)], body: "saved")
        _ = try await h.get("/s")
        h.clock.advance(by: 10)
        h.origin.route("/s", status: 500, fields: [], body: "boom")
        let on500 = try await h.get("/s")
        #expect(on500.cacheStatus == .stale)
        #expect(on500.body.string == "saved")
        #expect(on500.trace.contains { $0.code == .staleIfError })
        h.origin.setDown(true)
        let onDown = try await h.get("/s")
        #expect(onDown.cacheStatus == .offline)
        #expect(onDown.body.string == "saved")
    }

    @Test("without stale-if-error a transport failure propagates")
    func errorPropagates() async throws {
        let h = Harness()
        h.origin.route("/f", fields: [("Cache-Control", "max-age=1"), ("Date", h.dateField)], body: "x")
        _ = try await h.get("/f")
        h.clock.advance(by: 10)
        h.origin.setDown(true)
        await #expect(throws: ScriptedTransport.OriginDown.self) { try await h.get("/f") }
    }

    @Test("stale-while-revalidate serves stale at once and refreshes in the background exactly once")
    func staleWhileRevalidate() async throws {
        let h = Harness()
        h.origin.route("/w", fields: [("Cache-Control", "max-age=1, stale-while-revalidate=600"), ("Date", h.dateField)], body: "v1", etag: "\"1\"")
        _ = try await h.get("/w")
        h.clock.advance(by: 5)
        h.origin.route("/w", fields: [("Cache-Control", "max-age=300"), ("Date", h.dateField)], body: "v2", etag: "\"2\"")
        let a = try await h.get("/w")
        #expect(a.cacheStatus == .stale)
        #expect(a.body.string == "v1")
        await h.client.waitForBackgroundRevalidations()
        #expect(h.origin.requestCount(for: "/w") == 2)
        let b = try await h.get("/w")
        #expect(b.cacheStatus == .hit)
        #expect(b.body.string == "v2")
        #expect(h.origin.requestCount(for: "/w") == 2)
    }

    @Test("a response larger than 5% of the capacity is not stored, with a too-large reason")
    func tooLarge() async throws {
        let h = Harness(storage: MemoryStorage(capacity: 10_000))
        h.origin.route("/big", fields: [("Cache-Control", "max-age=60")], body: String(repeating: "x", count: 600))
        let first = try await h.get("/big")
        #expect(first.trace.contains { $0.code == .tooLarge })
        _ = try await h.get("/big")
        #expect(h.origin.requestCount(for: "/big") == 2)
    }

    @Test("Authorization requests are stored by a private cache but not by a shared one")
    func authorization() async throws {
        for mode in [CacheMode.privateCache, .sharedCache] {
            let h = Harness(mode: mode)
            h.origin.route("/me", fields: [("Cache-Control", "max-age=60")], body: "mine")
            _ = try await h.get("/me", [(.authorization, "Bearer t")])
            let again = try await h.get("/me", [(.authorization, "Bearer t")])
            #expect(again.cacheStatus == (mode == .privateCache ? .hit : .miss), "mode \(mode)")
        }
    }
}
