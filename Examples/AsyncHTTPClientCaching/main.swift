// AsyncHTTPClientCaching: CacheChain's client over AsyncHTTPClient (SwiftNIO) instead of libcurl.
//
// Starts a loopback origin on 127.0.0.1 (no network needed), asks for the same URL twice (MISS, then HIT:
// the origin is not asked again), revalidates it with a conditional request (304 → REVALIDATED), then shuts
// the client down, which shuts down the HTTPClient the transport created.
import CacheChain
import CacheChainAsyncHTTPClient
import CacheChainLoopback

let origin = try await LoopbackOrigin.start()
origin.route("/catalog", LoopbackRoute(headers: [("Cache-Control", "max-age=60")], body: "3 items", etag: "\"c1\""))

let client = HTTPCacheClient(transport: CacheChainAHCTransport())
let request = try HTTPRequest(url: origin.url("/catalog"))
for label in ["1st GET", "2nd GET"] {
    let response = try await client.data(for: request)
    print("\(label): \(response.cacheStatus.rawValue.uppercased()) \(response.head.status.code) \"\(response.body.string ?? "")\"")
}
let revalidated = try await client.data(for: request, cachePolicy: .reloadRevalidatingCacheData)
print("reloadRevalidatingCacheData: \(revalidated.cacheStatus.rawValue.uppercased()) \(revalidated.head.status.code)")
print("origin saw \(origin.requestCount(for: "/catalog")) request(s): the MISS and the revalidation")

try await client.shutdown()
try await origin.shutdown()
