// GraphQLCaching: a GraphQL endpoint that sends no caching headers, cached without writing an interceptor.
//
// Two opt-in rule lists do it: a BodyKeyedCachingRule caches POSTed queries under a digest of their body (not
// mutations), and a PolicyOverrideRule gives the answers the lifetime the origin does not. Starts a loopback
// origin on 127.0.0.1 (no network needed) and prints each request's cache status and trace.
//
// Users never share an answer: a request's Authorization, Proxy-Authorization and Cookie are part of its body key
// (as a keyed digest, never in clear), in a private cache and in a shared one alike, so the same query with another
// session cookie is a miss and the same cookie a hit. A shared cache (CachePolicyConfiguration(mode: .sharedCache))
// also stores an answer to a request with Authorization only when the origin allows it (public, s-maxage or
// must-revalidate, RFC 9111 §3.5).
import CacheChain
import CacheChainCurl
import CacheChainLoopback
import Foundation

let origin = try await LoopbackOrigin.start()
origin.route("/graphql") { request in
    // The origin answers every operation without Cache-Control, as most GraphQL servers do.
    LoopbackRoute(headers: [("Content-Type", "application/json")], body: "{\"data\":\"answer to \(request.body.count) bytes\"}")
}

let configuration = HTTPCacheClient.Configuration(
    outerInterceptors: [CacheStatusInterceptor()],
    policyOverrides: [PolicyOverrideRule("graphql", pathPrefix: "/graphql", freshness: .whenAbsent(.seconds(60)))],
    bodyKeyedCaching: [
        BodyKeyedCachingRule("graphql", pathPrefix: "/graphql", where: { _, body in
            !String(decoding: body, as: UTF8.self).contains("\"mutation")
        }),
    ]
)
let client = HTTPCacheClient(transport: CurlTransport(), configuration: configuration)

func post(_ label: String, _ json: String, cookie: String = "session=alice") async throws {
    var request = try HTTPRequest(url: origin.url("/graphql"))
    request.method = .post
    request.headerFields[.contentType] = "application/json"
    request.headerFields[.cookie] = cookie
    let response = try await client.data(for: request, body: PipelineBody(string: json))
    print("\(label): \(response.cacheStatus.rawValue.uppercased()) \(response.head.status.code)")
    for reason in response.trace { print("    · \(reason)") }
    print("    Cache-Status: \(response.head.headerFields[CacheStatusField.name] ?? "-")")
}

try await post("query { user(id: 1) }", #"{"query":"{ user(id: 1) { name } }"}"#)
try await post("query { user(id: 1) } again", #"{"query":"{ user(id: 1) { name } }"}"#)
try await post("query { user(id: 2) }", #"{"query":"{ user(id: 2) { name } }"}"#)
try await post("query { user(id: 1) } by another user", #"{"query":"{ user(id: 1) { name } }"}"#, cookie: "session=bob")
try await post("mutation", #"{"query":"mutation { rename(id: 1) }"}"#)
print("\norigin saw \(origin.requestCount(for: "/graphql")) POSTs")
try await client.shutdown()
try await origin.shutdown()
