import CacheChainCore
import CacheChainPolicy
import Foundation
import HTTPTypes
import Testing

@Suite("CacheEntry keeps only what answering needs of its request")
struct CacheEntryMinimizationTests {
    static let secrets = ["SECRET-AUTH", "SECRET-COOKIE", "SECRET-PROXY"]

    static func exchange(vary: String?) -> (HTTPRequest, CachedResponse) {
        var request = HTTPRequest(method: .get, scheme: "https", authority: "a.test", path: "/account")
        request.headerFields[.authorization] = "Bearer SECRET-AUTH"
        request.headerFields[.cookie] = "session=SECRET-COOKIE"
        request.headerFields[.proxyAuthorization] = "Basic SECRET-PROXY"
        request.headerFields[.accept] = "text/html"
        request.headerFields[.userAgent] = "tester"
        var response = HTTPResponse(status: .ok)
        response.headerFields[.cacheControl] = "max-age=60"
        if let vary { response.headerFields[.vary] = vary }
        let cached = CachedResponse(response: response, body: "body", requestTime: Date(), responseTime: Date())
        return (request, cached)
    }

    @Test(
        "no secret survives in the entry, its variant key or its encoding, whatever Vary names",
        arguments: [nil, "Accept", "Cookie", "Authorization, Cookie, Proxy-Authorization", "accept, COOKIE"]
    )
    func noSecret(vary: String?) throws {
        let (request, cached) = Self.exchange(vary: vary)
        let entry = CacheEntry(request: request, cached: cached, varyDigestKey: .random())
        let named = Set(VaryFields.names(in: cached.response))
        #expect(Set(entry.request.headerFields.map(\.name.canonicalName)) == named)
        let encoded = String(decoding: try JSONEncoder().encode(entry), as: UTF8.self)
        for secret in Self.secrets {
            #expect(!encoded.contains(secret), "\(secret) in the JSON encoding")
            #expect(!entry.variantKey.contains(secret))
        }
        #expect(!encoded.contains("tester"), "fields Vary does not name are dropped")
        // Setting a new request later keeps the same discipline.
        var edited = entry
        edited.request = request
        #expect(Set(edited.request.headerFields.map(\.name.canonicalName)) == named)
        #expect(!String(decoding: try JSONEncoder().encode(edited), as: UTF8.self).contains("SECRET"))
        var moved = entry
        moved.request.path = "/elsewhere"
        #expect(moved.request.path == "/elsewhere")
        #expect(moved.request.headerFields == entry.request.headerFields, "stored digests are kept, not digested again")
    }

    @Test("the entry's variant matches the request it was made from, and the engine selects it under the same key")
    func matchesItsOwnRequest() {
        let key = VaryDigestKey.random()
        let (request, cached) = Self.exchange(vary: "Accept, Cookie")
        let entry = CacheEntry(request: request, cached: cached, varyDigestKey: key)
        #expect(entry.variantKey == CacheEntry.variantKey(request: request, response: cached.response, varyDigestKey: key))
        #expect(CachePolicyEngine(varyDigestKey: key).selectVariant(for: request, among: [entry.exchange]) == 0)
        var other = request
        other.headerFields[.cookie] = "session=other"
        #expect(CachePolicyEngine(varyDigestKey: key).selectVariant(for: other, among: [entry.exchange]) == nil)
    }
}
