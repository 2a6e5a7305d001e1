import CacheChainPolicy
import Foundation
import HTTPTypes
import Testing

@Suite("RFC 9110 §7.2: a Host field naming another authority keeps a request out of the cache")
struct HostMismatchTests {
    static let host = HTTPField.Name("Host")!

    /// `http://example.com/` with these `Host` values.
    static let cases: [(hosts: [String], isMismatch: Bool)] = [
        ([], false),
        (["example.com"], false),
        (["EXAMPLE.com"], false),
        (["example.com:80"], false),
        (["example.com:"], false),
        (["example.com."], false),
        (["example.com:8080"], true),
        (["victim.example"], true),
        (["example.com.victim.example"], true),
        ([""], true),
        (["example.com", "example.com"], true),
    ]

    @Test("Host values against http://example.com/", arguments: cases)
    func table(_ example: (hosts: [String], isMismatch: Bool)) {
        var head = request("/")
        for value in example.hosts { head.headerFields.append(HTTPField(name: Self.host, value: value)) }
        let reason = CachePolicyEngine().hostMismatch(of: head)
        #expect((reason != nil) == example.isMismatch, "\(example.hosts): \(String(describing: reason))")
        #expect(reason.map { $0.code == .hostMismatch } ?? true)
    }

    @Test("https: port 443 is the default; 80 is not")
    func httpsDefaultPort() {
        var head = HTTPRequest(method: .get, scheme: "https", authority: "example.com", path: "/")
        head.headerFields[Self.host] = "example.com:443"
        #expect(CachePolicyEngine().hostMismatch(of: head) == nil)
        head.headerFields[Self.host] = "example.com:80"
        #expect(CachePolicyEngine().hostMismatch(of: head) != nil)
    }

    @Test("a mismatched request is not storable and not answered from a fresh stored response")
    func storabilityAndDecision() {
        var head = request("/")
        head.headerFields[Self.host] = "victim.example"
        let engine = CachePolicyEngine()
        let verdict = engine.storability(request: head, response: response(200, [("Cache-Control", "max-age=60")]))
        #expect(!verdict.isStorable)
        #expect(verdict.reasons.map(\.code) == [.hostMismatch])
        let decision = engine.decide(request: head, policy: .returnCacheDataElseLoad, stored: [], now: .now)
        guard case .fetch(let reasons) = decision else {
            Issue.record("expected a fetch, got \(decision)")
            return
        }
        #expect(reasons.map(\.code) == [.hostMismatch])
        let offline = engine.decide(request: head, policy: .returnCacheDataDontLoad, stored: [], now: .now)
        guard case .unsatisfiable = offline else {
            Issue.record("expected unsatisfiable, got \(offline)")
            return
        }
    }
}
