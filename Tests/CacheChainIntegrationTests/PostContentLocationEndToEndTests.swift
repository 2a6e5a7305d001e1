import CacheChain
import CacheChainCurl
import CacheChainLoopback
import CacheChainTesting
import Foundation
import HTTPTypes
import Testing

/// RFC 9110 §9.3.3 (issue 45.5): a `POST` response with explicit freshness and a `Content-Location` equal to the
/// request's target URI is stored and reused for a later `GET` of that URI, never for another `POST` — through
/// libcurl and the loopback origin, in a private and a shared cache.
@Suite("POST responses that say where they live", .tags(.integration))
struct PostContentLocationEndToEndTests {
    static let modes: [CacheMode] = [.privateCache, .sharedCache]

    func withClient(_ mode: CacheMode, _ body: (HTTPCacheClient, LoopbackOrigin) async throws -> Void) async throws {
        let origin = try await LoopbackOrigin.start()
        let client = HTTPCacheClient(
            transport: CurlTransport(),
            configuration: .init(storage: MemoryStorage(capacity: 8 << 20), policy: CachePolicyConfiguration(mode: mode), clock: ManualClock())
        )
        do {
            try await body(client, origin)
        } catch {
            try? await client.shutdown()
            try? await origin.shutdown()
            throw error
        }
        try await client.shutdown()
        try await origin.shutdown()
    }

    func post(_ client: HTTPCacheClient, _ origin: LoopbackOrigin, _ path: String) async throws -> PipelineResponse {
        var request = try HTTPRequest(url: origin.url(path))
        request.method = .post
        request.headerFields[.contentType] = "text/plain"
        return try await client.data(for: request, body: PipelineBody(Array("new".utf8)))
    }

    func get(_ client: HTTPCacheClient, _ origin: LoopbackOrigin, _ path: String) async throws -> PipelineResponse {
        try await client.data(for: HTTPRequest(url: origin.url(path)))
    }

    func methods(_ origin: LoopbackOrigin) -> [String] { origin.receivedRequests.map(\.method) }

    /// Freshness each mode reads as explicit.
    static func freshness(_ mode: CacheMode) -> [String] {
        mode == .sharedCache ? ["max-age=600", "s-maxage=600", "public, max-age=600"] : ["max-age=600", "private, max-age=600"]
    }

    @Test(
        "stored for a later GET of its URI (relative and absolute Content-Location); another POST still goes to the origin",
        arguments: Self.modes.flatMap { mode in freshness(mode).map { (mode, $0) } }
    )
    func reusedForGet(_ modeAndField: (CacheMode, String)) async throws {
        let (mode, field) = modeAndField
        try await withClient(mode) { client, origin in
            for (path, location) in [("/doc", "/doc"), ("/abs", origin.url("/abs")), ("/rel/item", "item")] {
                origin.route(path, LoopbackRoute(headers: [("Cache-Control", field), ("Content-Location", location)], body: "posted"))
                let posted = try await post(client, origin, path)
                #expect(posted.body.string == "posted")
                #expect(posted.trace.map(\.code).contains(.contentLocation), "\(posted.trace)")
                let got = try await get(client, origin, path)
                #expect(got.cacheStatus == .hit, "\(path): \(got.trace)")
                #expect(got.body.string == "posted")
                let again = try await post(client, origin, path)
                #expect(again.cacheStatus == .bypass, "a POST is never answered from the cache")
            }
            #expect(methods(origin) == ["POST", "POST", "POST", "POST", "POST", "POST"], "no GET reached the origin")
        }
    }

    @Test("not stored without explicit freshness, with another Content-Location, with no-store, or for another status", arguments: Self.modes)
    func notStored(_ mode: CacheMode) async throws {
        try await withClient(mode) { client, origin in
            let cases: [(String, Int, [(String, String)])] = [
                ("/none", 200, [("Content-Location", "/none"), ("Last-Modified", "Mon, 07 Dec 2026 10:00:00 GMT")]),
                ("/other", 200, [("Cache-Control", "max-age=600"), ("Content-Location", "/elsewhere")]),
                ("/nostore", 200, [("Cache-Control", "max-age=600, no-store"), ("Content-Location", "/nostore")]),
                ("/created", 201, [("Cache-Control", "max-age=600"), ("Content-Location", "/created")]),
                ("/foreign", 200, [("Cache-Control", "max-age=600"), ("Content-Location", "http://example.com/foreign")]),
            ]
            for (path, status, fields) in cases {
                origin.route(path, LoopbackRoute(status: status, headers: fields, body: "posted"))
                _ = try await post(client, origin, path)
                origin.route(path, LoopbackRoute(headers: [("Cache-Control", "max-age=600")], body: "got"))
                let got = try await get(client, origin, path)
                #expect(got.cacheStatus == .miss, "\(path): \(got.trace)")
                #expect(got.body.string == "got")
            }
            let elsewhere = try await get(client, origin, "/elsewhere")
            #expect(elsewhere.cacheStatus == .miss, "a Content-Location other than the target is not stored for its URI either")
        }
    }

    @Test("a later POST's answer replaces the stored one (invalidated, then stored again)")
    func replacedByLaterPost() async throws {
        try await withClient(.privateCache) { client, origin in
            origin.route("/v", LoopbackRoute(headers: [("Cache-Control", "max-age=600"), ("Content-Location", "/v")], body: "one"))
            _ = try await post(client, origin, "/v")
            origin.route("/v", LoopbackRoute(headers: [("Cache-Control", "max-age=600"), ("Content-Location", "/v")], body: "two"))
            _ = try await post(client, origin, "/v")
            let got = try await get(client, origin, "/v")
            #expect(got.cacheStatus == .hit)
            #expect(got.body.string == "two")
        }
    }
}
