import CacheChain
import CacheChainCurl
import CacheChainLoopback
import CacheChainTesting
import Foundation
import HTTPTypes
import Testing

/// Body keys never cross users (issue 46.3): the README's GraphQL recipe, in a private and a shared cache,
/// through libcurl and a loopback origin whose answer depends on the caller's `Cookie` or `Authorization`.
@Suite("Body-keyed entries are never served to other credentials", .tags(.integration))
struct BodyKeyCredentialsEndToEndTests {
    /// The README's recipe ("Caching POST and QUERY by body").
    static func recipe(_ mode: CacheMode) -> HTTPCacheClient.Configuration {
        HTTPCacheClient.Configuration(
            storage: MemoryStorage(capacity: 8 << 20),
            policy: CachePolicyConfiguration(mode: mode),
            clock: ManualClock(),
            policyOverrides: [PolicyOverrideRule("graphql", pathPrefix: "/gql", freshness: .whenAbsent(.seconds(60)))],
            bodyKeyedCaching: [
                BodyKeyedCachingRule("graphql", pathPrefix: "/gql", where: { _, body in
                    !String(decoding: body, as: UTF8.self).contains("\"mutation")
                })
            ]
        )
    }

    @Test(
        "user two (other credentials) is not served user one's answer; user one again is a hit; no credentials is a third key",
        arguments: [HTTPField.Name.cookie, .authorization], [CacheMode.privateCache, .sharedCache]
    )
    func credentialsSeparateBodyKeys(_ field: HTTPField.Name, _ mode: CacheMode) async throws {
        let origin = try await LoopbackOrigin.start()
        let client = HTTPCacheClient(transport: CurlTransport(), configuration: Self.recipe(mode))
        do {
            // `public` so that a shared cache may store an answer to a request with `Authorization` (RFC 9111 §3.5).
            origin.route("/gql") { request in
                LoopbackRoute(headers: [("Cache-Control", "public")], body: "me = \(request.header(field.canonicalName) ?? "anonymous")")
            }
            func post(_ credential: String?) async throws -> PipelineResponse {
                var request = try HTTPRequest(method: .post, url: origin.url("/gql"))
                request.headerFields[.contentType] = "application/json"
                request.headerFields[field] = credential
                return try await client.data(for: request, body: PipelineBody(string: #"{"q":"me"}"#))
            }
            let one = try await post("session=user-one")
            #expect(one.body.string == "me = session=user-one")
            let two = try await post("session=user-two")
            #expect(!two.cacheStatus.isFromCache, "\(field) differs: \(two.trace)")
            #expect(two.body.string == "me = session=user-two")
            let oneAgain = try await post("session=user-one")
            #expect(oneAgain.cacheStatus == .hit)
            #expect(oneAgain.body.string == "me = session=user-one")
            let anonymous = try await post(nil)
            #expect(!anonymous.cacheStatus.isFromCache)
            #expect(anonymous.body.string == "me = anonymous")
            #expect(origin.requestCount(for: "/gql") == 3)
        } catch {
            try? await client.shutdown()
            try? await origin.shutdown()
            throw error
        }
        try await client.shutdown()
        try await origin.shutdown()
    }

    @Test("the discriminator holds no credential in clear: a keyed digest that depends on the storage's secret")
    func discriminatorHidesCredentials() throws {
        var request = try HTTPRequest(method: .post, url: "https://api.example.com/gql")
        request.headerFields[.cookie] = "session=s3cr3t"
        let body = Array(#"{"q":"me"}"#.utf8)
        let first = BodyKeyDigest.discriminator(method: .post, body: body, request: request, secret: VaryDigestKey(bytes: Array(repeating: 1, count: 32)))
        let other = BodyKeyDigest.discriminator(method: .post, body: body, request: request, secret: VaryDigestKey(bytes: Array(repeating: 2, count: 32)))
        #expect(!first.contains("s3cr3t"))
        #expect(first.hasPrefix("body-sha256="))
        #expect(first.contains(" credentials="))
        #expect(first != other, "another storage secret, another digest")
        request.headerFields[.cookie] = nil
        #expect(!BodyKeyDigest.discriminator(method: .post, body: body, request: request, secret: .perProcess).contains("credentials"))
    }
}
