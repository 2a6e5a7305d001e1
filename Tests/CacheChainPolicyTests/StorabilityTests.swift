import CacheChainPolicy
import Foundation
import HTTPTypes
import Testing

@Suite("RFC 9111 §3 storing responses")
struct StorabilityTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        var mode: CacheMode = .privateCache
        var method: HTTPRequest.Method = .get
        var requestFields: [(String, String)] = []
        var status = 200
        var responseFields: [(String, String)]
        let storable: Bool
        var reason: CacheReason.Code?
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(name: "200 with max-age", responseFields: [("Cache-Control", "max-age=60")], storable: true),
        Case(name: "200 without freshness (heuristically cacheable)", responseFields: [], storable: true),
        Case(name: "200 with Last-Modified notes the heuristic", responseFields: [("Last-Modified", date(-3600))], storable: true, reason: .heuristic),
        Case(name: "404 is cacheable by default", status: 404, responseFields: [], storable: true),
        Case(name: "301 is cacheable by default", status: 301, responseFields: [], storable: true),
        Case(name: "302 without freshness is not", status: 302, responseFields: [], storable: false, reason: .status),
        Case(name: "302 with max-age is", status: 302, responseFields: [("Cache-Control", "max-age=5")], storable: true),
        Case(name: "500 without freshness is not", status: 500, responseFields: [], storable: false, reason: .status),
        Case(name: "500 with Expires is", status: 500, responseFields: [("Expires", date(60))], storable: true),
        Case(name: "206 is never stored (no range support)", status: 206, responseFields: [("Cache-Control", "max-age=60")], storable: false, reason: .status),
        Case(name: "304 is not stored", status: 304, responseFields: [("Cache-Control", "max-age=60")], storable: false, reason: .status),
        Case(name: "1xx is not stored", status: 103, responseFields: [], storable: false, reason: .status),
        Case(name: "POST responses are not stored", method: .post, responseFields: [("Cache-Control", "max-age=60")], storable: false, reason: .method),
        Case(name: "response no-store", responseFields: [("Cache-Control", "max-age=60, no-store")], storable: false, reason: .noStore),
        Case(name: "response NO-STORE in a second line", responseFields: [("Cache-Control", "max-age=60"), ("Cache-Control", "NO-STORE")], storable: false, reason: .noStore),
        Case(name: "request no-store", requestFields: [("Cache-Control", "no-store")], responseFields: [("Cache-Control", "max-age=60")], storable: false, reason: .noStore),
        Case(name: "must-understand overrides no-store for a known status", responseFields: [("Cache-Control", "max-age=60, no-store, must-understand")], storable: true),
        // §5.2.2.3 and §3: must-understand limits storing to caches that implement the status code's semantics.
        Case(name: "must-understand + no-store, 404 (understood)", status: 404, responseFields: [("Cache-Control", "max-age=60, no-store, must-understand")], storable: true),
        Case(name: "must-understand + no-store, 299 (unknown)", status: 299, responseFields: [("Cache-Control", "max-age=60, no-store, must-understand")], storable: false, reason: .status),
        Case(name: "must-understand + no-store, 555 (unknown)", status: 555, responseFields: [("Cache-Control", "max-age=60, no-store, must-understand")], storable: false, reason: .status),
        Case(name: "must-understand + no-store, 418 (unused in RFC 9110)", status: 418, responseFields: [("Cache-Control", "max-age=60, no-store, must-understand")], storable: false, reason: .status),
        Case(name: "must-understand without no-store, 299 (unknown)", status: 299, responseFields: [("Cache-Control", "max-age=60, must-understand")], storable: false, reason: .status),
        Case(name: "299 with max-age and no must-understand is stored", status: 299, responseFields: [("Cache-Control", "max-age=60")], storable: true),
        Case(name: "private in a private cache", responseFields: [("Cache-Control", "private")], storable: true),
        Case(name: "private in a shared cache", mode: .sharedCache, responseFields: [("Cache-Control", "private, max-age=60")], storable: false, reason: .privateResponse),
        Case(name: "Authorization in a private cache", requestFields: [("Authorization", "Bearer x")], responseFields: [("Cache-Control", "max-age=60")], storable: true, reason: .authorization),
        Case(name: "Authorization in a shared cache", mode: .sharedCache, requestFields: [("Authorization", "Bearer x")], responseFields: [("Cache-Control", "max-age=60")], storable: false, reason: .authorization),
        Case(name: "Authorization + public in a shared cache", mode: .sharedCache, requestFields: [("Authorization", "Bearer x")], responseFields: [("Cache-Control", "public, max-age=60")], storable: true),
        Case(name: "Authorization + s-maxage in a shared cache", mode: .sharedCache, requestFields: [("Authorization", "Bearer x")], responseFields: [("Cache-Control", "s-maxage=60")], storable: true),
        Case(name: "Authorization + must-revalidate in a shared cache", mode: .sharedCache, requestFields: [("Authorization", "Bearer x")], responseFields: [("Cache-Control", "must-revalidate, max-age=60")], storable: true),
        Case(name: "Vary: *", responseFields: [("Cache-Control", "max-age=60"), ("Vary", "Accept, *")], storable: false, reason: .varyStar),
        Case(name: "Vary: Accept", responseFields: [("Cache-Control", "max-age=60"), ("Vary", "Accept")], storable: true),
        Case(name: "invalid max-age still storable (served stale)", responseFields: [("Cache-Control", "max-age=-1")], storable: true),
    ]

    @Test("storability table", arguments: cases)
    func storability(_ example: Case) {
        let engine = CachePolicyEngine(configuration: .init(mode: example.mode))
        let verdict = engine.storability(
            request: request("/", example.requestFields, method: example.method),
            response: response(example.status, example.responseFields)
        )
        #expect(verdict.isStorable == example.storable, "\(verdict.reasons)")
        if let reason = example.reason {
            #expect(verdict.reasons.contains { $0.code == reason }, "\(verdict.reasons)")
        }
    }

    @Test("headForStorage drops hop-by-hop fields and fields named in Connection (§3.1)")
    func hopByHop() {
        let head = response(200, [
            ("Connection", "X-Private-Hop"), ("Keep-Alive", "timeout=5"), ("X-Private-Hop", "1"),
            ("Transfer-Encoding", "chunked"), ("ETag", "\"a\""), ("Cache-Control", "max-age=1"),
        ])
        let kept = CachePolicyEngine().headForStorage(head).headerFields.map(\.name.canonicalName)
        #expect(kept == ["etag", "cache-control"])
    }

    @Test("headForStorage(_:receivedAt:) adds Date = the response time when it is missing, keeps the origin's (RFC 9110 §6.6.1)")
    func dateAddedWhenMissing() {
        let received = Date(timeIntervalSince1970: 1_700_000_000)
        let engine = CachePolicyEngine()
        let withoutDate = engine.headForStorage(response(200, [("Cache-Control", "max-age=1")]), receivedAt: received)
        #expect(withoutDate.headerFields[.date] == "Tue, 14 Nov 2023 22:13:20 GMT")
        let withDate = engine.headForStorage(response(200, [("Date", "Mon, 13 Nov 2023 00:00:00 GMT")]), receivedAt: received)
        #expect(withDate.headerFields[.date] == "Mon, 13 Nov 2023 00:00:00 GMT")
    }
}
