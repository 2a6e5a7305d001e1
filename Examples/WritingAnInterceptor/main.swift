// WritingAnInterceptor: two team-written interceptors plugged between the built-ins.
//
// - `MinimumFreshness` gives an API that sends no caching headers a minimum lifetime, so its answers
//   are reused for 30 s (an OkHttp-style "network interceptor": it sits next to the transport and rewrites
//   the response before the storage decision sees it).
// - `NoStoreForSetCookie` vetoes caching of any response that sets a cookie.
import CacheChain
import CacheChainCurl
import CacheChainLoopback
import HTTPTypes

/// Adds `Cache-Control: max-age=<seconds>` to successful responses under a path prefix that carry no
/// freshness information of their own.
struct MinimumFreshness: HTTPInterceptor {
    var pathPrefix: String
    var seconds: Int

    func intercept(_ request: PipelineRequest, context: InterceptorContext, next: Next) async throws -> PipelineResponse {
        var response = try await next(request, context)
        guard (request.head.path ?? "/").hasPrefix(pathPrefix), response.head.status == .ok,
            response.head.headerFields[.cacheControl] == nil, response.head.headerFields[.expires] == nil
        else { return response }
        response.head.headerFields[.cacheControl] = "max-age=\(seconds)"
        return response
    }
}

/// Marks responses that set a cookie `no-store`, so no cache along the chain keeps them.
struct NoStoreForSetCookie: HTTPInterceptor {
    func intercept(_ request: PipelineRequest, context: InterceptorContext, next: Next) async throws -> PipelineResponse {
        var response = try await next(request, context)
        if response.head.headerFields[.setCookie] != nil {
            response.head.headerFields.append(HTTPField(name: .cacheControl, value: "no-store"))
        }
        return response
    }
}

let origin = try await LoopbackOrigin.start()
origin.route("/api/items", LoopbackRoute(body: "[1,2,3]"))  // no Cache-Control at all
origin.route("/login", LoopbackRoute(headers: [("Cache-Control", "max-age=600"), ("Set-Cookie", "session=abc")], body: "welcome"))

// Team interceptors go inside StorageDecision (between it and the transport), so they shape what is stored.
let pipeline = Pipeline(transport: CurlTransport()) {
    CachePolicyInterceptor()
    RevalidationInterceptor()
    StorageDecisionInterceptor()
    MinimumFreshness(pathPrefix: "/api/", seconds: 30)
    NoStoreForSetCookie()
}
let client = HTTPCacheClient(pipeline: pipeline)

for path in ["/api/items", "/api/items", "/login", "/login"] {
    let response = try await client.data(for: HTTPRequest(url: origin.url(path)))
    let reasons = response.trace.map(\.code.rawValue).joined(separator: ", ")
    print("GET \(path): \(response.cacheStatus.rawValue.uppercased()) [\(reasons)]")
}
print("origin saw /api/items \(origin.requestCount(for: "/api/items"))×, /login \(origin.requestCount(for: "/login"))×")
try await origin.shutdown()
