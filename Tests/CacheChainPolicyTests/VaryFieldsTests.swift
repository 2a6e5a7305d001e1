import CacheChainPolicy
import Foundation
import HTTPTypes
import Testing

@Suite("VaryFields: one normaliser, secret fields as keyed digests")
struct VaryFieldsTests {
    static let key = VaryDigestKey(bytes: [UInt8](repeating: 0x42, count: 32))

    @Test(
        "spellings of one list are one variant key and one engine match",
        arguments: [
            (["text/html,application/json"], ["text/html, application/json"]),
            (["text/html , application/json"], ["text/html", "application/json"]),
            (["text/html,,application/json "], ["\ttext/html, application/json"]),
        ]
    )
    func spellings(first: [String], second: [String]) {
        let vary = response(200, [("Vary", "Accept")])
        let a = request("/", first.map { ("Accept", $0) })
        let b = request("/", second.map { ("Accept", $0) })
        #expect(VaryFields.normalized(first) == VaryFields.normalized(second))
        let names = VaryFields.names(in: vary)
        #expect(VaryFields.variantKey(of: a, varyNames: names, key: Self.key) == VaryFields.variantKey(of: b, varyNames: names, key: Self.key))
        let storedA = StoredExchange(request: a, response: vary, requestTime: t0, responseTime: t0)
        #expect(CachePolicyEngine().selectVariant(for: b, among: [storedA]) == 0)
    }

    @Test("an absent field and an empty one are different variants; names are lowercased, sorted, without duplicates")
    func absentAndNames() {
        let names = VaryFields.names(in: response(200, [("Vary", "Accept-Language, accept"), ("Vary", "ACCEPT")]))
        #expect(names == ["accept", "accept-language"])
        #expect(VaryFields.names(in: response(200, [("Vary", "Accept, *")])) == ["*"])
        let absent = VaryFields.variantKey(of: request("/"), varyNames: ["accept"], key: Self.key)
        let empty = VaryFields.variantKey(of: request("/", [("Accept", "")]), varyNames: ["accept"], key: Self.key)
        #expect(absent == "accept" && empty == "accept=" && absent != empty)
    }

    @Test("minimising keeps method, URL and the Vary fields; secret fields only as digests, whatever Vary says")
    func minimized() {
        let full = request("/a?b=1", [
            ("Accept", "text/html"), ("Authorization", "Bearer SECRET-A"), ("Cookie", "session=SECRET-C"),
            ("Proxy-Authorization", "Basic SECRET-P"), ("X-Trace", "t1"),
        ])
        let plain = VaryFields.minimized(full, varyingOn: response(200, [("Vary", "Accept")]), key: Self.key)
        #expect(plain.method == .get && plain.scheme == "http" && plain.authority == "example.com" && plain.path == "/a?b=1")
        #expect(plain.headerFields.map(\.name.canonicalName) == ["accept"])
        let secret = VaryFields.minimized(full, varyingOn: response(200, [("Vary", "Cookie, Authorization, Proxy-Authorization")]), key: Self.key)
        #expect(secret.headerFields.count == 3)
        for field in secret.headerFields {
            #expect(VaryFields.isDigest(field.value), "\(field.name)")
            #expect(!field.value.contains("SECRET"))
        }
        let variant = VaryFields.variantKey(of: full, varyNames: ["authorization", "cookie"], key: Self.key)
        #expect(!variant.contains("SECRET") && variant.hasPrefix("authorization=hmac-sha256:"))
    }

    @Test("a digested variant matches the same secret under the same key only; a clear stored secret never matches")
    func digestMatching() {
        let vary = response(200, [("Vary", "Cookie"), ("Cache-Control", "max-age=60")])
        let alice = request("/", [("Cookie", "session=alice")])
        let stored = StoredExchange(
            request: VaryFields.minimized(alice, varyingOn: vary, key: Self.key), response: vary, requestTime: t0, responseTime: t0
        )
        let engine = CachePolicyEngine(varyDigestKey: Self.key)
        #expect(engine.selectVariant(for: request("/", [("Cookie", "session=alice")]), among: [stored]) == 0)
        #expect(engine.selectVariant(for: request("/", [("Cookie", "session=mallory")]), among: [stored]) == nil)
        #expect(engine.selectVariant(for: request("/"), among: [stored]) == nil, "no cookie never matches a cookie's variant")
        let otherKey = CachePolicyEngine(varyDigestKey: .random())
        #expect(otherKey.selectVariant(for: alice, among: [stored]) == nil, "digests under another key do not match")
        let digest = stored.request.headerFields[.cookie] ?? ""
        #expect(engine.selectVariant(for: request("/", [("Cookie", digest)]), among: [stored]) == nil, "sending the digest itself does not match")
        let clear = StoredExchange(request: alice, response: vary, requestTime: t0, responseTime: t0)
        #expect(engine.selectVariant(for: alice, among: [clear]) == nil)
    }

    @Test("keys: derived keys are stable, random keys differ, descriptions hide the bytes")
    func keys() {
        #expect(VaryDigestKey.derived(from: Array("pw".utf8)) == VaryDigestKey.derived(from: Array("pw".utf8)))
        #expect(VaryDigestKey.derived(from: Array("pw".utf8)) != VaryDigestKey.derived(from: Array("pw2".utf8)))
        #expect(VaryDigestKey.random() != VaryDigestKey.random())
        #expect(Self.key.description == "VaryDigestKey(32 bytes)")
        #expect(VaryFields.digest(of: "x", field: "cookie", key: Self.key) != VaryFields.digest(of: "x", field: "authorization", key: Self.key))
    }
}
