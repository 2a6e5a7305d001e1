import CacheChainPolicy
import HTTPTypes
import Testing

@Suite("RFC 9111 §4.4 invalidation after unsafe methods")
struct InvalidationTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        let method: HTTPRequest.Method
        let status: Int
        let fields: [(String, String)]
        let expected: [String]
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(name: "POST 200 invalidates the target", method: .post, status: 200, fields: [], expected: ["http://example.com/doc"]),
        Case(name: "DELETE 204 invalidates the target", method: .delete, status: 204, fields: [], expected: ["http://example.com/doc"]),
        Case(name: "PUT 303 invalidates the target", method: .put, status: 303, fields: [], expected: ["http://example.com/doc"]),
        Case(name: "POST 500 invalidates nothing", method: .post, status: 500, fields: [], expected: []),
        Case(name: "POST 404 invalidates nothing", method: .post, status: 404, fields: [], expected: []),
        Case(name: "GET invalidates nothing", method: .get, status: 200, fields: [], expected: []),
        Case(name: "OPTIONS is safe", method: .options, status: 200, fields: [], expected: []),
        Case(name: "QUERY is safe (RFC 10008)", method: HTTPRequest.Method("QUERY")!, status: 200, fields: [], expected: []),
        Case(name: "same-origin Location and Content-Location", method: .post, status: 201, fields: [("Location", "/doc/7"), ("Content-Location", "http://EXAMPLE.com:80/doc/7?v=1")], expected: ["http://example.com/doc", "http://example.com/doc/7", "http://example.com/doc/7?v=1"]),
        Case(name: "relative Location resolves against the target", method: .post, status: 201, fields: [("Location", "items/3")], expected: ["http://example.com/doc", "http://example.com/items/3"]),
        Case(name: "cross-origin Location is ignored", method: .post, status: 201, fields: [("Location", "http://evil.example/doc")], expected: ["http://example.com/doc"]),
        Case(name: "other scheme is another origin", method: .post, status: 201, fields: [("Location", "https://example.com/doc/2")], expected: ["http://example.com/doc"]),
        Case(name: "other port is another origin", method: .post, status: 201, fields: [("Location", "http://example.com:8080/doc/2")], expected: ["http://example.com/doc"]),
        Case(name: "a malformed Location is ignored", method: .post, status: 201, fields: [("Location", "http://[::1")], expected: ["http://example.com/doc"]),
    ]

    @Test("invalidation table", arguments: cases)
    func invalidation(_ example: Case) {
        let targets = CachePolicyEngine().invalidationTargets(
            request: request("/doc", method: example.method),
            response: response(example.status, example.fields)
        )
        #expect(targets.map { "\($0.scheme)://\($0.authority)\($0.path)" } == example.expected)
    }
}
