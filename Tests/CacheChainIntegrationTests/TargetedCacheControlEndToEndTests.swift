import CacheChain
import CacheChainCurl
import CacheChainLoopback
import CacheChainTesting
import Foundation
import HTTPTypes
import Testing

/// Targeted cache control (RFC 9213, issue 45.7) through libcurl and the loopback origin: in a shared cache
/// `CDN-Cache-Control` (and a field of the operator's own) takes the place of `Cache-Control` and `Expires`; a
/// private cache ignores it; a field that does not parse as a Structured Field Dictionary is ignored.
@Suite("targeted cache control (RFC 9213)", .tags(.integration))
struct TargetedCacheControlEndToEndTests {
    static let ownField = HTTPField.Name("CacheChain-Cache-Control")!

    func withClient(
        _ mode: CacheMode,
        targeted: [HTTPField.Name] = [.cdnCacheControl],
        _ body: (HTTPCacheClient, LoopbackOrigin, ManualClock) async throws -> Void
    ) async throws {
        let origin = try await LoopbackOrigin.start()
        let clock = ManualClock()
        let policy = CachePolicyConfiguration(mode: mode, targetedCacheControlFields: targeted)
        let client = HTTPCacheClient(
            transport: CurlTransport(),
            configuration: .init(storage: MemoryStorage(capacity: 8 << 20), policy: policy, clock: clock)
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

    func get(_ client: HTTPCacheClient, _ origin: LoopbackOrigin, _ path: String) async throws -> PipelineResponse {
        try await client.data(for: HTTPRequest(url: origin.url(path)))
    }

    /// Two requests for `path` answered with `fields`: the second one's cache status.
    func secondStatus(_ client: HTTPCacheClient, _ origin: LoopbackOrigin, _ path: String, _ fields: [(String, String)]) async throws -> CacheStatus {
        origin.route(path, LoopbackRoute(headers: fields, body: "body of \(path)", etag: "\"\(path)\""))
        _ = try await get(client, origin, path)
        return try await get(client, origin, path).cacheStatus
    }

    @Test("a fresh CDN-Cache-Control wins over Cache-Control: no-store, and is stored and forwarded")
    func freshTargetedWinsOverNoStore() async throws {
        try await withClient(.sharedCache) { client, origin, _ async throws in
            origin.route("/a", LoopbackRoute(headers: [("Cache-Control", "no-store"), ("CDN-Cache-Control", "max-age=600")], body: "a"))
            let first = try await get(client, origin, "/a")
            #expect(first.trace.map(\.code).contains(.targeted), "\(first.trace)")
            #expect(first.head.headerFields[.cdnCacheControl] == "max-age=600", "forwarded to the caller")
            let second = try await get(client, origin, "/a")
            #expect(second.cacheStatus == .hit, "\(second.trace)")
            #expect(second.head.headerFields[.cdnCacheControl] == "max-age=600", "stored with the response")
            #expect(second.head.headerFields[.cacheControl] == "no-store", "Cache-Control is passed on for the caches after this one")
            #expect(origin.requestCount(for: "/a") == 1)
        }
    }

    @Test("private, no-store and no-cache in CDN-Cache-Control win over a fresh Cache-Control")
    func restrictiveTargetedWins() async throws {
        try await withClient(.sharedCache) { client, origin, _ async throws in
            let fresh = ("Cache-Control", "public, max-age=600")
            #expect(try await secondStatus(client, origin, "/private", [fresh, ("CDN-Cache-Control", "private")]) == .miss)
            #expect(try await secondStatus(client, origin, "/nostore", [fresh, ("CDN-Cache-Control", "no-store")]) == .miss)
            #expect(try await secondStatus(client, origin, "/nocache", [fresh, ("CDN-Cache-Control", "no-cache, max-age=600")]) == .revalidated)
            #expect(origin.receivedRequests.last?.header("If-None-Match") == "\"/nocache\"")
            #expect(try await secondStatus(client, origin, "/plain", [fresh]) == .hit, "without a targeted field Cache-Control decides")
        }
    }

    @Test("the targeted field's lifetime, s-maxage, must-revalidate and stale-while-revalidate apply; Expires is ignored")
    func targetedDirectives() async throws {
        try await withClient(.sharedCache) { client, origin, clock async throws in
            let later = "Mon, 07 Dec 2099 10:00:00 GMT"
            origin.route("/short", LoopbackRoute(headers: [("Expires", later), ("CDN-Cache-Control", "max-age=10")], body: "s", etag: "\"s\""))
            origin.route("/smax", LoopbackRoute(headers: [("Cache-Control", "max-age=600"), ("CDN-Cache-Control", "max-age=600, s-maxage=10")], body: "m", etag: "\"m\""))
            origin.route("/swr", LoopbackRoute(headers: [("Cache-Control", "max-age=10"), ("CDN-Cache-Control", "max-age=10, stale-while-revalidate=600")], body: "w", etag: "\"w\""))
            for path in ["/short", "/smax", "/swr"] { _ = try await get(client, origin, path) }
            clock.advance(by: 20)
            #expect(try await get(client, origin, "/short").cacheStatus == .revalidated, "Expires is ignored: max-age=10 has passed")
            #expect(try await get(client, origin, "/smax").cacheStatus == .revalidated, "s-maxage=10 has passed")
            let swr = try await get(client, origin, "/swr")
            #expect(swr.cacheStatus == .stale, "\(swr.trace)")
            #expect(swr.trace.map(\.code).contains(.staleWhileRevalidate))
        }
    }

    @Test("a CDN-Cache-Control that is not a valid Structured Field Dictionary, or is empty, is ignored")
    func invalidIsIgnored() async throws {
        try await withClient(.sharedCache) { client, origin, _ async throws in
            let invalid = ["max-age=600,", "max-age=\"600", "Max-Age=600", "max-age=600 no-store", ""]
            for (number, value) in invalid.enumerated() {
                let path = "/invalid\(number)"
                let status = try await secondStatus(client, origin, path, [("Cache-Control", "no-store"), ("CDN-Cache-Control", value)])
                #expect(status == .miss, "'\(value)' is ignored, so Cache-Control: no-store decides")
            }
            let quoted = try await secondStatus(client, origin, "/quoted", [("Cache-Control", "no-store"), ("CDN-Cache-Control", "max-age=600, no-cache=\"set-cookie\"")])
            #expect(quoted == .revalidated, "a String value (no-cache=\"field\") is valid")
        }
    }

    @Test("a private cache ignores CDN-Cache-Control")
    func privateIgnores() async throws {
        try await withClient(.privateCache) { client, origin, _ async throws in
            #expect(try await secondStatus(client, origin, "/a", [("Cache-Control", "no-store"), ("CDN-Cache-Control", "max-age=600")]) == .miss)
            #expect(try await secondStatus(client, origin, "/b", [("Cache-Control", "max-age=600"), ("CDN-Cache-Control", "no-store")]) == .hit)
        }
    }

    @Test("a field of the operator's own, first in the target list, takes precedence over CDN-Cache-Control; an empty list turns targeting off")
    func ownFieldFirst() async throws {
        try await withClient(.sharedCache, targeted: [Self.ownField, .cdnCacheControl]) { client, origin, _ async throws in
            let both = [("Cache-Control", "no-store"), ("CDN-Cache-Control", "no-store"), ("CacheChain-Cache-Control", "max-age=600")]
            #expect(try await secondStatus(client, origin, "/own", both) == .hit)
            let onlyCDN = [("Cache-Control", "no-store"), ("CDN-Cache-Control", "max-age=600")]
            #expect(try await secondStatus(client, origin, "/cdn", onlyCDN) == .hit, "the next field in the list applies when the first is absent")
        }
        try await withClient(.sharedCache, targeted: []) { client, origin, _ async throws in
            #expect(try await secondStatus(client, origin, "/off", [("Cache-Control", "no-store"), ("CDN-Cache-Control", "max-age=600")]) == .miss)
        }
    }
}
