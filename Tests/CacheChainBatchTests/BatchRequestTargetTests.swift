import CacheChainBatch
import CacheChainLoopback
import Foundation
import Testing

/// Issue 46.1's poisoning through `cachechain batch --shared`: a request for
/// `/upload/mallory/%2e%2e/%2e%2e/app/victim.js` is fetched as `/app/victim.js`, the target it is keyed
/// under, so the origin's answer for the literal encoded path is never stored for everyone asking for
/// `/app/victim.js`.
@Suite("cachechain batch --shared: one request target", .tags(.integration))
struct BatchRequestTargetTests: BatchSubprocessSuite {
    @Test(
        "an encoded dot-dot path cannot store an attacker's body under /app/victim.js",
        arguments: ["%2e%2e/%2e%2e", "%2E%2E/%2E%2E", ".%2e/%2E."]
    )
    func encodedDotSegmentsDoNotPoison(_ dots: String) async throws {
        try await withBatch(["--shared"]) { batch, origin, _ in
            let attacker = "/upload/mallory/\(dots)/app/victim.js"
            let cacheable = [("Cache-Control", "public, max-age=600")]
            origin.route(attacker, LoopbackRoute(headers: cacheable, body: "alert('pwned')"))
            origin.route("/app/victim.js", LoopbackRoute(headers: cacheable, body: "genuine"))
            let planted = try await roundTrip(batch, 1, origin.url(attacker))
            #expect(planted["body"] == .string("genuine"), "fetched as the target it is keyed under")
            let victim = try await roundTrip(batch, 2, origin.url("/app/victim.js"))
            #expect(victim["body"] == .string("genuine"))
            #expect(victim["cache_status"] == .string("hit"))
            #expect(origin.requestCount(for: attacker) == 0)
            #expect(origin.receivedRequests.map(\.path) == ["/app/victim.js"])
        }
    }

    @Test("a double-encoded dot-dot (%252e) is a literal path: its answer stays under it")
    func doubleEncodedStaysLiteral() async throws {
        try await withBatch(["--shared"]) { batch, origin, _ in
            let literal = "/upload/mallory/%252e%252e/%252e%252e/app/victim.js"
            let cacheable = [("Cache-Control", "public, max-age=600")]
            origin.route(literal, LoopbackRoute(headers: cacheable, body: "upload"))
            origin.route("/app/victim.js", LoopbackRoute(headers: cacheable, body: "genuine"))
            #expect(try await roundTrip(batch, 1, origin.url(literal))["body"] == .string("upload"))
            let victim = try await roundTrip(batch, 2, origin.url("/app/victim.js"))
            #expect(victim["body"] == .string("genuine"))
            #expect(victim["cache_status"] == .string("miss"))
            #expect(origin.receivedRequests.map(\.path) == [literal, "/app/victim.js"])
        }
    }
}
