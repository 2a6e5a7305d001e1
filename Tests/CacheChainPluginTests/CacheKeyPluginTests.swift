import CacheChain
import CacheChainCacheKey
import CacheChainTesting
import Foundation
import HTTPTypes
import Testing

@Suite("Custom cache keys")
struct CacheKeyPluginTests {
    static let normalization = CacheKeyNormalization(
        droppedParameterPrefixes: CacheKeyNormalization.trackingParameterPrefixes,
        droppedParameters: ["X-Amz-Signature"],
        includedFields: [.acceptLanguage]
    )

    @Test(
        "query normalization",
        arguments: [
            ("/item?id=7&utm_source=mail", "/item?id=7"),
            ("/item?utm_source=mail&utm_medium=x", "/item"),
            ("/item?b=2&a=1&b=1", "/item?a=1&b=2&b=1"),
            ("/item?id=7&x-amz-signature=abc&fbclid=zz", "/item?id=7"),
            ("/item", "/item"),
            ("/item?", "/item"),
            ("/item?flag&id=1", "/item?flag&id=1"),
        ]
    )
    func normalizedPath(input: String, expected: String) {
        #expect(Self.normalization.normalizedPath(input) == expected)
    }

    @Test("URLs differing only in tracking parameters share one entry; included fields split entries")
    func sharedEntries() async throws {
        let origin = ScriptedTransport()
        for path in ["/item?id=7&utm_source=mail", "/item?utm_source=ad&id=7"] {
            origin.route(path, fields: [("Cache-Control", "max-age=60")], body: "item 7")
        }
        let client = HTTPCacheClient(transport: origin, configuration: .init(cacheKeyStrategy: Self.normalization.strategy))
        func get(_ path: String, language: String = "en") async throws -> PipelineResponse {
            var request = HTTPRequest(method: .get, scheme: "https", authority: "shop.test", path: path)
            request.headerFields[.acceptLanguage] = language
            return try await client.data(for: request)
        }
        #expect(try await get("/item?id=7&utm_source=mail").cacheStatus == .miss)
        #expect(try await get("/item?utm_source=ad&id=7").cacheStatus == .hit)
        #expect(try await get("/item?utm_source=ad&id=7", language: "fr").cacheStatus == .miss)
        #expect(origin.receivedRequests.count == 2)
        let key = Self.normalization.key(for: HTTPRequest(method: .get, scheme: "https", authority: "shop.test", path: "/item?id=7"))
        #expect(key.discriminator == "accept-language=")
        #expect(key.stringValue == "GET https://shop.test/item?id=7 {accept-language=}")
    }

    @Test("a key without a discriminator keeps RFC 9111's form and decodes from the older encoding")
    func standardForm() throws {
        let key = CacheKey(method: "GET", scheme: "HTTPS", authority: "A.test:443", path: "/p")
        #expect(key.stringValue == "GET https://a.test/p")
        let old = #"{"method":"GET","scheme":"https","authority":"a.test","path":"/p"}"#
        #expect(try JSONDecoder().decode(CacheKey.self, from: Data(old.utf8)) == key)
    }
}
