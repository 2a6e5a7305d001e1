import CacheChainPolicy
import Foundation
import HTTPTypes
import Testing

@Suite("RFC 9111 §4, §5.2.1, §5.4 and Apple's cache policies: the decision")
struct DecisionTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        var mode: CacheMode = .privateCache
        var policy: RequestCachePolicy = .useProtocolCachePolicy
        var requestFields: [(String, String)] = []
        var method: HTTPRequest.Method = .get
        let responseFields: [(String, String)]
        /// Seconds since the response was received.
        let elapsed: TimeInterval
        let expected: String
        var reason: CacheReason.Code?
        var testDescription: String { name }
    }

    static let validated: [(String, String)] = [("ETag", "\"v1\"")]

    static let cases: [Case] = [
        // §4.2 freshness
        Case(name: "fresh → use", responseFields: [("Cache-Control", "max-age=60")], elapsed: 10, expected: "use", reason: .fresh),
        Case(name: "stale with ETag → validate", responseFields: [("Cache-Control", "max-age=60")] + validated, elapsed: 61, expected: "validate", reason: .stale),
        Case(name: "stale with Last-Modified → validate", responseFields: [("Cache-Control", "max-age=60"), ("Last-Modified", date(-100))], elapsed: 61, expected: "validate"),
        Case(name: "stale without validator → fetch", responseFields: [("Cache-Control", "max-age=60")], elapsed: 61, expected: "fetch", reason: .noValidator),
        Case(name: "max-age=-1 → stale", responseFields: [("Cache-Control", "max-age=-1")] + validated, elapsed: 0, expected: "validate", reason: .invalidDirective),
        Case(name: "max-age=\"60\" → fresh", responseFields: [("Cache-Control", "max-age=\"60\"")], elapsed: 5, expected: "use"),
        Case(name: "two different max-ages → stale", responseFields: [("Cache-Control", "max-age=600"), ("Cache-Control", "max-age=60")] + validated, elapsed: 1, expected: "validate", reason: .invalidDirective),
        Case(name: "unparseable Expires → stale", responseFields: [("Expires", "Thursday")] + validated, elapsed: 0, expected: "validate"),
        Case(name: "heuristic freshness", responseFields: [("Last-Modified", date(-10_000))], elapsed: 500, expected: "use"),
        // §5.2.2 response directives
        Case(name: "response no-cache → validate even when fresh", responseFields: [("Cache-Control", "max-age=60, no-cache")] + validated, elapsed: 1, expected: "validate", reason: .responseNoCache),
        Case(name: "must-revalidate forbids max-stale", requestFields: [("Cache-Control", "max-stale=1000")], responseFields: [("Cache-Control", "max-age=1, must-revalidate")] + validated, elapsed: 10, expected: "validate", reason: .mustRevalidate),
        Case(name: "proxy-revalidate binds a shared cache", mode: .sharedCache, requestFields: [("Cache-Control", "max-stale")], responseFields: [("Cache-Control", "max-age=1, proxy-revalidate")] + validated, elapsed: 10, expected: "validate", reason: .mustRevalidate),
        Case(name: "proxy-revalidate does not bind a private cache", requestFields: [("Cache-Control", "max-stale")], responseFields: [("Cache-Control", "max-age=1, proxy-revalidate")] + validated, elapsed: 10, expected: "use-stale", reason: .maxStale),
        Case(name: "s-maxage implies proxy-revalidate in a shared cache", mode: .sharedCache, requestFields: [("Cache-Control", "max-stale")], responseFields: [("Cache-Control", "s-maxage=1")] + validated, elapsed: 10, expected: "validate"),
        Case(name: "stale-while-revalidate window → use and revalidate", responseFields: [("Cache-Control", "max-age=1, stale-while-revalidate=60")] + validated, elapsed: 30, expected: "use-and-revalidate", reason: .staleWhileRevalidate),
        Case(name: "beyond stale-while-revalidate → validate", responseFields: [("Cache-Control", "max-age=1, stale-while-revalidate=60")] + validated, elapsed: 100, expected: "validate"),
        Case(name: "must-revalidate beats stale-while-revalidate", responseFields: [("Cache-Control", "max-age=1, stale-while-revalidate=60, must-revalidate")] + validated, elapsed: 30, expected: "validate"),
        // §5.2.1 request directives
        Case(name: "request max-age=0 → validate", requestFields: [("Cache-Control", "max-age=0")], responseFields: [("Cache-Control", "max-age=60")] + validated, elapsed: 1, expected: "validate", reason: .requestMaxAge),
        Case(name: "request max-age within the age → use", requestFields: [("Cache-Control", "max-age=30")], responseFields: [("Cache-Control", "max-age=60")], elapsed: 10, expected: "use"),
        Case(name: "request max-age=abc is read as 0", requestFields: [("Cache-Control", "max-age=abc")], responseFields: [("Cache-Control", "max-age=60")] + validated, elapsed: 1, expected: "validate"),
        Case(name: "immutable ignores the request's max-age=0", requestFields: [("Cache-Control", "max-age=0")], responseFields: [("Cache-Control", "max-age=60, immutable")], elapsed: 1, expected: "use", reason: .immutable),
        Case(name: "immutable still validates once stale", responseFields: [("Cache-Control", "max-age=60, immutable")] + validated, elapsed: 61, expected: "validate"),
        Case(name: "min-fresh not met → validate", requestFields: [("Cache-Control", "min-fresh=30")], responseFields: [("Cache-Control", "max-age=60")] + validated, elapsed: 40, expected: "validate", reason: .minFresh),
        Case(name: "min-fresh met → use", requestFields: [("Cache-Control", "min-fresh=30")], responseFields: [("Cache-Control", "max-age=60")], elapsed: 20, expected: "use"),
        Case(name: "max-stale without value → use stale", requestFields: [("Cache-Control", "max-stale")], responseFields: [("Cache-Control", "max-age=1")], elapsed: 5000, expected: "use-stale", reason: .maxStale),
        Case(name: "max-stale=10 within → use stale", requestFields: [("Cache-Control", "max-stale=10")], responseFields: [("Cache-Control", "max-age=1")], elapsed: 5, expected: "use-stale"),
        Case(name: "max-stale=10 exceeded → validate", requestFields: [("Cache-Control", "max-stale=10")], responseFields: [("Cache-Control", "max-age=1")] + validated, elapsed: 50, expected: "validate"),
        Case(name: "max-stale=-1 is ignored", requestFields: [("Cache-Control", "max-stale=-1")], responseFields: [("Cache-Control", "max-age=1")] + validated, elapsed: 5, expected: "validate"),
        Case(name: "request no-cache → validate", requestFields: [("Cache-Control", "no-cache")], responseFields: [("Cache-Control", "max-age=60")] + validated, elapsed: 1, expected: "validate", reason: .requestNoCache),
        Case(name: "request no-store still reads the cache", requestFields: [("Cache-Control", "no-store")], responseFields: [("Cache-Control", "max-age=60")], elapsed: 1, expected: "use"),
        Case(name: "only-if-cached and fresh → use", requestFields: [("Cache-Control", "only-if-cached")], responseFields: [("Cache-Control", "max-age=60")], elapsed: 1, expected: "use"),
        Case(name: "only-if-cached and stale → 504", requestFields: [("Cache-Control", "only-if-cached")], responseFields: [("Cache-Control", "max-age=1")] + validated, elapsed: 5, expected: "unsatisfiable", reason: .onlyIfCached),
        Case(name: "only-if-cached, max-stale → use stale", requestFields: [("Cache-Control", "only-if-cached, max-stale")], responseFields: [("Cache-Control", "max-age=1")], elapsed: 5, expected: "use-stale"),
        Case(name: "only-if-cached + stale-while-revalidate → 504 (no background network)", requestFields: [("Cache-Control", "only-if-cached")], responseFields: [("Cache-Control", "max-age=1, stale-while-revalidate=60")], elapsed: 5, expected: "unsatisfiable"),
        // §5.4 Pragma
        Case(name: "Pragma: no-cache without Cache-Control → validate", requestFields: [("Pragma", "no-cache")], responseFields: [("Cache-Control", "max-age=60")] + validated, elapsed: 1, expected: "validate", reason: .requestNoCache),
        Case(name: "Pragma: no-cache is ignored when Cache-Control is present", requestFields: [("Pragma", "no-cache"), ("Cache-Control", "max-age=100")], responseFields: [("Cache-Control", "max-age=60")], elapsed: 1, expected: "use"),
        // Methods
        Case(name: "HEAD is answered from the stored GET", method: .head, responseFields: [("Cache-Control", "max-age=60")], elapsed: 1, expected: "use"),
        Case(name: "POST is never answered from the cache", method: .post, responseFields: [("Cache-Control", "max-age=60")], elapsed: 1, expected: "fetch", reason: .method),
        // Apple's policies
        Case(name: "reloadIgnoringLocalCacheData fetches a fresh entry", policy: .reloadIgnoringLocalCacheData, responseFields: [("Cache-Control", "max-age=60")], elapsed: 1, expected: "fetch", reason: .policy),
        Case(name: "reloadIgnoringLocalAndRemoteCacheData fetches", policy: .reloadIgnoringLocalAndRemoteCacheData, responseFields: [("Cache-Control", "max-age=60")], elapsed: 1, expected: "fetch", reason: .policy),
        Case(name: "returnCacheDataElseLoad uses a stale entry", policy: .returnCacheDataElseLoad, responseFields: [("Cache-Control", "max-age=1, must-revalidate, no-cache")], elapsed: 99_999, expected: "use-stale", reason: .policy),
        Case(name: "returnCacheDataDontLoad uses a stale entry", policy: .returnCacheDataDontLoad, responseFields: [("Cache-Control", "max-age=1")], elapsed: 99_999, expected: "use-stale", reason: .policy),
        Case(name: "reloadRevalidatingCacheData validates a fresh entry", policy: .reloadRevalidatingCacheData, responseFields: [("Cache-Control", "max-age=60")] + validated, elapsed: 1, expected: "validate", reason: .policy),
        Case(name: "reloadRevalidatingCacheData serves a fresh immutable entry (RFC 8246)", policy: .reloadRevalidatingCacheData, requestFields: [("Cache-Control", "max-age=0")], responseFields: [("Cache-Control", "max-age=60, immutable")] + validated, elapsed: 1, expected: "use", reason: .immutable),
        Case(name: "reloadRevalidatingCacheData with a request no-cache validates a fresh immutable entry", policy: .reloadRevalidatingCacheData, requestFields: [("Cache-Control", "no-cache")], responseFields: [("Cache-Control", "max-age=60, immutable")] + validated, elapsed: 1, expected: "validate", reason: .policy),
        Case(name: "reloadRevalidatingCacheData with Pragma: no-cache validates a fresh immutable entry", policy: .reloadRevalidatingCacheData, requestFields: [("Pragma", "no-cache")], responseFields: [("Cache-Control", "max-age=60, immutable")] + validated, elapsed: 1, expected: "validate", reason: .policy),
        Case(name: "reloadRevalidatingCacheData validates a stale immutable entry", policy: .reloadRevalidatingCacheData, responseFields: [("Cache-Control", "max-age=60, immutable")] + validated, elapsed: 61, expected: "validate", reason: .policy),
        Case(name: "request Pragma: no-cache validates a fresh immutable entry", requestFields: [("Pragma", "no-cache")], responseFields: [("Cache-Control", "max-age=60, immutable")] + validated, elapsed: 1, expected: "validate", reason: .requestNoCache),
        Case(name: "reloadRevalidatingCacheData without validator fetches", policy: .reloadRevalidatingCacheData, responseFields: [("Cache-Control", "max-age=60")], elapsed: 1, expected: "fetch", reason: .noValidator),
    ]

    @Test("decision table", arguments: cases)
    func decision(_ example: Case) {
        let engine = CachePolicyEngine(configuration: .init(mode: example.mode))
        let decision = engine.decide(
            request: request("/", example.requestFields, method: example.method),
            policy: example.policy,
            stored: [stored(example.responseFields)],
            now: t0.addingTimeInterval(example.elapsed)
        )
        #expect(kind(decision) == example.expected, "\(decision.reasons)")
        if let reason = example.reason {
            #expect(decision.reasons.contains { $0.code == reason }, "\(decision.reasons)")
        }
    }

    @Test("with nothing stored: fetch, or unsatisfiable when the network is forbidden", arguments: [
        (RequestCachePolicy.useProtocolCachePolicy, [("Cache-Control", "only-if-cached")], "unsatisfiable"),
        (.useProtocolCachePolicy, [], "fetch"),
        (.returnCacheDataDontLoad, [], "unsatisfiable"),
        (.returnCacheDataElseLoad, [], "fetch"),
        (.reloadRevalidatingCacheData, [], "fetch"),
    ])
    func empty(_ policy: RequestCachePolicy, _ requestFields: [(String, String)], _ expected: String) {
        let decision = CachePolicyEngine().decide(request: request("/", requestFields), policy: policy, stored: [], now: t0)
        #expect(kind(decision) == expected)
        #expect(decision.reasons.contains { $0.code == .noStoredResponse })
    }

    @Test("validation carries a conditional GET with the stored validators")
    func conditionalCarried() throws {
        let decision = CachePolicyEngine().decide(
            request: request(),
            policy: .useProtocolCachePolicy,
            stored: [stored([("Cache-Control", "max-age=1"), ("ETag", "W/\"x\""), ("Last-Modified", date(-60))])],
            now: t0.addingTimeInterval(5)
        )
        guard case .validate(let indices, let conditional, _) = decision else {
            Issue.record("expected validate, got \(decision)")
            return
        }
        #expect(indices == [0])
        #expect(conditional.method == .get)
        #expect(conditional.headerFields[.ifNoneMatch] == "W/\"x\"")
        #expect(conditional.headerFields[.ifModifiedSince] == date(-60))
    }
}
