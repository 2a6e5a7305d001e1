import CacheChainPolicy
import Foundation
import HTTPTypes
import Testing

@Suite("RFC 9111 §4.1 Vary: selecting among stored variants")
struct VaryTests {
    static func variant(_ language: String?, vary: String = "Accept-Language", at offset: TimeInterval = 0) -> StoredExchange {
        stored(
            [("Cache-Control", "max-age=60"), ("Vary", vary)],
            request: language.map { [("Accept-Language", $0)] } ?? [],
            at: t0.addingTimeInterval(offset)
        )
    }

    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        let stored: [StoredExchange]
        let requestFields: [(String, String)]
        let expected: Int?
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(name: "matching value", stored: [variant("fr"), variant("en")], requestFields: [("Accept-Language", "en")], expected: 1),
        Case(name: "no matching value", stored: [variant("fr"), variant("en")], requestFields: [("Accept-Language", "de")], expected: nil),
        Case(name: "absent in both matches", stored: [variant(nil)], requestFields: [], expected: 0),
        Case(name: "absent in the request only", stored: [variant("fr")], requestFields: [], expected: nil),
        Case(name: "whitespace around commas is normalized", stored: [variant("fr,  en")], requestFields: [("Accept-Language", "fr , en")], expected: 0),
        Case(name: "field lines combine", stored: [variant("fr, en")], requestFields: [("Accept-Language", "fr"), ("Accept-Language", "en")], expected: 0),
        Case(name: "field names are case-insensitive", stored: [variant("fr", vary: "ACCEPT-language")], requestFields: [("accept-language", "fr")], expected: 0),
        Case(name: "Vary: * never matches", stored: [variant("fr", vary: "*")], requestFields: [("Accept-Language", "fr")], expected: nil),
        Case(name: "most recent of several matches", stored: [variant("fr", at: -100), variant("fr", at: -10), variant("fr", at: -50)], requestFields: [("Accept-Language", "fr")], expected: 1),
        Case(name: "equally recent matches: the first stored", stored: [variant("en", at: -10), variant("fr", at: -10), variant("fr", at: -10)], requestFields: [("Accept-Language", "fr")], expected: 1),
        Case(name: "no Vary: any request matches", stored: [stored([("Cache-Control", "max-age=60")])], requestFields: [("Accept-Language", "xx")], expected: 0),
        Case(name: "several Vary fields must all match", stored: [variant("fr", vary: "Accept-Language, Accept")], requestFields: [("Accept-Language", "fr"), ("Accept", "text/html")], expected: nil),
    ]

    @Test("variant selection table", arguments: cases)
    func select(_ example: Case) {
        #expect(CachePolicyEngine().selectVariant(for: request("/", example.requestFields), among: example.stored) == example.expected)
    }

    @Test("a request that matches no variant is fetched with a vary-mismatch reason")
    func mismatchDecision() {
        let decision = CachePolicyEngine().decide(
            request: request("/", [("Accept-Language", "de")]),
            policy: .useProtocolCachePolicy,
            stored: [Self.variant("fr")],
            now: t0
        )
        #expect(kind(decision) == "fetch")
        #expect(decision.reasons.first?.code == .varyMismatch)
    }
}
