import CacheChainPolicy
import HTTPTypes
import Testing

/// The policy's answer to "which stored variants may answer this request", which a variant-indexing backend runs.
@Suite("VariantLookup")
struct VariantLookupTests {
    private func request(_ fields: HTTPFields = [:]) -> HTTPRequest {
        HTTPRequest(method: .get, scheme: "https", authority: "example.com", path: "/", headerFields: fields)
    }

    @Test("a key without Vary specs wants only the unvaried variant")
    func noVary() {
        let lookup = VariantLookup(for: request(), storedVarySpecs: [], key: .perProcess)
        #expect(lookup.variantKeys == [""])
        #expect(!lookup.everyVariantWhenNoneFound)
    }

    @Test("one secondary key per distinct spec, the request's values under it, each once")
    func perSpec() {
        let lookup = VariantLookup(
            for: request([.acceptEncoding: "gzip", HTTPField.Name("X-Tenant")!: "a"]),
            storedVarySpecs: ["x-tenant", "x-tenant", "accept-encoding,x-tenant"],
            key: .perProcess
        )
        #expect(lookup.variantKeys == ["", "x-tenant=a", "accept-encoding=gzip|x-tenant=a"])
        #expect(lookup.everyVariantWhenNoneFound)  // accept-encoding is negotiated
    }

    @Test("only specs naming a negotiated field ask for every variant when none is found")
    func negotiation() {
        #expect(!VariantLookup(for: request(), storedVarySpecs: ["x-tenant"], key: .perProcess).everyVariantWhenNoneFound)
        #expect(VariantLookup(for: request(), storedVarySpecs: ["accept-language"], key: .perProcess).everyVariantWhenNoneFound)
    }

    @Test("the documented example")
    func example() {
        let request = HTTPRequest(method: .get, scheme: "https", authority: "example.com", path: "/", headerFields: [.acceptLanguage: "fr"])
        let lookup = VariantLookup(for: request, storedVarySpecs: ["accept-language"], key: .perProcess)
        #expect(lookup.variantKeys == ["", "accept-language=fr"] && lookup.everyVariantWhenNoneFound)
    }
}
