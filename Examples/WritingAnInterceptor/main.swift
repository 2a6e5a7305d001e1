// WritingAnInterceptor: team-written interceptors of both kinds, in HTTPCacheClient.Configuration's two slots.
//
// - `ClientTagging`, an outer (application) interceptor, names the service in `User-Agent` on every request
//   and counts what the cache did, hits included.
// - `MinimumFreshness` gives an API that sends no caching headers a minimum lifetime, so its answers
//   are reused for 30 s (an OkHttp-style "network interceptor": it sits next to the transport and rewrites
//   the response before the storage decision sees it).
// - `NoStoreForSetCookie`, also a network interceptor, vetoes caching of any response that sets a cookie.
import CacheChain
import CacheChainCurl
import CacheChainLoopback
import HTTPTypes
import Synchronization

/// Sets `User-Agent` on every request and counts the hits the caller got.
struct ClientTagging: HTTPInterceptor {
    let hits = HitCount()

    /// How many responses came from the cache.
    final class HitCount: Sendable {
        private let count = Mutex(0)
        var value: Int { count.withLock { $0 } }
        func add() { count.withLock { $0 += 1 } }
    }

    func intercept(_ request: PipelineRequest, context: InterceptorContext, next: Next) async throws -> PipelineResponse {
        var request = request
        request.head.headerFields[.userAgent] = "inventory-service/2.1"
        let response = try await next(request, context)
        if response.cacheStatus == .hit { hits.add() }
        return response
    }
}

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

// Outer interceptors see every request and what the caller gets; network interceptors sit inside the storage
// decision (between it and the transport), so they shape what is stored.
let tagging = ClientTagging()
let client = HTTPCacheClient(
    transport: CurlTransport(),
    configuration: .init(
        outerInterceptors: [tagging],
        networkInterceptors: [MinimumFreshness(pathPrefix: "/api/", seconds: 30), NoStoreForSetCookie()]
    )
)

for path in ["/api/items", "/api/items", "/login", "/login"] {
    let response = try await client.data(for: HTTPRequest(url: origin.url(path)))
    let reasons = response.trace.map(\.code.rawValue).joined(separator: ", ")
    print("GET \(path): \(response.cacheStatus.rawValue.uppercased()) [\(reasons)]")
}
print("hits seen by the outer interceptor: \(tagging.hits.value)")
print("origin saw /api/items \(origin.requestCount(for: "/api/items"))×, /login \(origin.requestCount(for: "/login"))×")
try await origin.shutdown()
