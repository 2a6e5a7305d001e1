import CacheChainPolicy
import HTTPTypes
import Testing

/// `Accept`, `Accept-Encoding` and `Accept-Language` as preferences (issue 45.4): the normalisation `Vary` compares,
/// and the negotiation that selects a stored variant.
@Suite("Vary: content-negotiation fields")
struct NegotiationFieldsTests {
    @Test("normalised: case, whitespace, weight spelling and the order of equal-weight members", arguments: [
        ("accept-language", "fr-CH, fr;q=0.9, EN;Q=0.8", "fr-ch, fr;q=0.9, en;q=0.8"),
        ("accept-language", "fr-ch,en;q=0.80 ,\tfr;q=0.900", "fr-ch, fr;q=0.9, en;q=0.8"),
        ("accept-language", "de, en", "de, en"),
        ("accept-language", "en, de", "de, en"),
        ("accept-language", "en;q=1.000, de;q=1", "de, en"),
        ("accept-language", "en;q=0, de;q=0.000", "de;q=0, en;q=0"),
        ("accept-language", "en;q=2, de", "de, en;q=2"),
        ("accept", "Text/HTML ; Level=1 ; q=0.5, application/json", "application/json, text/html;level=1;q=0.5"),
        ("accept", "text/plain; charset=\"UTF-8\"", "text/plain;charset=\"UTF-8\""),
        ("accept-encoding", "GZIP, br;q=1.0, identity;q=0.5", "br, gzip, identity;q=0.5"),
        ("accept-charset", "UTF-8, ascii", "UTF-8, ascii"),
    ])
    func normalised(_ field: String, _ value: String, _ expected: String) {
        #expect(NegotiationFields.normalized(value, field: field) == expected)
    }

    @Test("VaryFields compares the normalised values")
    func varyFields() {
        let request = HTTPRequest(method: .get, scheme: "https", authority: "example.com", path: "/", headerFields: [.acceptLanguage: "EN, de"])
        #expect(VaryFields.comparableValue(of: "accept-language", in: request, key: .perProcess) == "de, en")
        #expect(VaryFields.normalized(["EN", "de"], field: "accept-language") == "de, en")
        #expect(VaryFields.normalized(["EN", "de"], field: "x-custom") == "EN, de")
    }

    static func response(_ fields: HTTPFields) -> HTTPResponse { HTTPResponse(status: .ok, headerFields: fields) }

    @Test("a representation among the request's highest-weighted choices is negotiated to", arguments: [
        ("accept-language", "fr;q=1.0, en;q=0.3", [HTTPField(name: .contentLanguage, value: "fr")], true),
        ("accept-language", "en;q=0.2, FR", [HTTPField(name: .contentLanguage, value: "fr")], true),
        ("accept-language", "de, fr", [HTTPField(name: .contentLanguage, value: "fr")], true),
        ("accept-language", "en, fr;q=0.9", [HTTPField(name: .contentLanguage, value: "fr")], false),
        ("accept-language", "*", [HTTPField(name: .contentLanguage, value: "fr")], false),
        ("accept-language", "fr", [HTTPField(name: .contentLanguage, value: "fr, de")], false),
        ("accept-language", "fr", [], false),
        ("accept-language", "fr;q=0", [HTTPField(name: .contentLanguage, value: "fr")], false),
        ("accept", "text/html;q=0.9, */*;q=0.1", [HTTPField(name: .contentType, value: "text/html; charset=utf-8")], true),
        ("accept", "*/*", [HTTPField(name: .contentType, value: "text/html")], false),
        ("accept", "text/*", [HTTPField(name: .contentType, value: "text/html")], false),
        ("accept", "text/html;level=1", [HTTPField(name: .contentType, value: "text/html")], false),
        ("accept-encoding", "gzip, br", [HTTPField(name: .contentEncoding, value: "br")], true),
        ("accept-encoding", "identity, gzip;q=0.5", [], true),
        ("accept-encoding", "gzip", [], false),
    ])
    func topChoice(_ field: String, _ request: String, _ fields: [HTTPField], _ expected: Bool) {
        #expect(NegotiationFields.isTopChoice(request, field: field, for: Self.response(HTTPFields(fields))) == expected)
    }

    @Test("variant selection: an exact match first, else a negotiated one, else none")
    func selection() {
        func exchange(_ language: String, sent: String) -> StoredExchange {
            StoredExchange(
                request: HTTPRequest(method: .get, scheme: "https", authority: "example.com", path: "/", headerFields: [.acceptLanguage: sent]),
                response: Self.response([.vary: "Accept-Language", .contentLanguage: language, .cacheControl: "max-age=60"]),
                requestTime: t0, responseTime: t0
            )
        }
        let stored = [exchange("fr", sent: "fr, de;q=0.5"), exchange("de", sent: "de")]
        let engine = CachePolicyEngine()
        func select(_ value: String) -> Int? {
            engine.selectVariant(for: HTTPRequest(method: .get, scheme: "https", authority: "example.com", path: "/", headerFields: [.acceptLanguage: value]), among: stored)
        }
        #expect(select("DE") == 1)
        #expect(select("de;q=0.50, FR") == 0)
        #expect(select("en;q=0.1, de") == 1)
        #expect(select("en, de;q=0.9") == nil)
    }
}
