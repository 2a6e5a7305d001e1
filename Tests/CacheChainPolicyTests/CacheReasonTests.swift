import CacheChainPolicy
import Foundation
import HTTPTypes
import Testing

@Suite("CacheReason: a freshness detail written out when read reads, compares and encodes like text")
struct CacheReasonTests {
    /// The freshness reason of a decision on a response 12 s into a 60 s `max-age`.
    private func freshnessReason() throws -> CacheReason {
        let engine = CachePolicyEngine()
        let decision = engine.decide(
            request: request(),
            policy: .useProtocolCachePolicy,
            stored: [stored([("Cache-Control", "max-age=60")])],
            now: t0.addingTimeInterval(12)
        )
        return try #require(decision.reasons.first { $0.code == .fresh })
    }

    @Test("the detail is the report's description, and equals the same text given directly")
    func detailIsTheReport() throws {
        let reason = try freshnessReason()
        #expect(reason.detail == "age 12s of 60s (maxAge)")
        #expect(reason.description == "fresh: age 12s of 60s (maxAge)")
        let written = CacheReason(.fresh, "age 12s of 60s (maxAge)")
        #expect(reason == written)
        #expect(Set([reason, written]).count == 1)
        #expect(reason != CacheReason(.fresh, "age 13s of 60s (maxAge)"))
    }

    @Test("setting the detail replaces the report")
    func settingDetail() throws {
        var reason = try freshnessReason()
        reason.detail = "overridden"
        #expect(reason.detail == "overridden")
        #expect(reason == CacheReason(.fresh, "overridden"))
    }

    @Test("JSON keeps the shape {code, detail} and decodes back to an equal reason")
    func coding() throws {
        let reason = try freshnessReason()
        let data = try JSONEncoder().encode(reason)
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: String])
        #expect(object == ["code": "fresh", "detail": "age 12s of 60s (maxAge)"])
        #expect(try JSONDecoder().decode(CacheReason.self, from: data) == reason)
    }
}
