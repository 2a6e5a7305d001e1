// VaporCaching: a Vapor application whose req.client and app.client cache through CacheChain, in one line:
// `app.clients.use(.cacheChain(cache))`.
//
// Starts a loopback origin and the application's HTTP server on 127.0.0.1 (no network needed). Its /forecast route
// calls the origin through req.client and returns what the origin said with the Cache-Status member the cache
// added. The route is called three times: MISS, HIT (the origin is not asked), then, once the origin's two-second
// lifetime has passed, a conditional request the origin answers 304 (REVALIDATED); then app.client, outside any
// request, gets a HIT from the same cache.
import AsyncHTTPClient
import CacheChain
import CacheChainCurl
import CacheChainLoopback
import CacheChainVapor
import Vapor

/// The whole example, in an async function: at the top level of main.swift, Swift picks Vapor's synchronous
/// overloads (`start`, `shutdown`, `EventLoopFuture`-returning `get`).
func runExample() async throws {
    let origin = try await LoopbackOrigin.start()
    origin.route("/forecast", LoopbackRoute(headers: [("Cache-Control", "max-age=2")], body: "sunny", etag: "\"f1\""))

    let cache = HTTPCacheClient(transport: CurlTransport())
    let app = try await Application.make(.development)
    app.clients.use(.cacheChain(cache))  // the one line: req.client and app.client now go through the cache

    let forecastURL = URI(string: origin.url("/forecast"))
    app.get("forecast") { req async throws -> Response in
        let upstream = try await req.client.get(forecastURL)
        var headers = HTTPHeaders()
        headers.add(name: "Upstream-Cache-Status", value: upstream.headers.first(name: "Cache-Status") ?? "none")
        return Response(status: upstream.status, headers: headers, body: .init(buffer: upstream.body ?? ByteBuffer()))
    }
    try await app.server.start(address: .hostname("127.0.0.1", port: 0))
    let port = app.http.server.shared.localAddress?.port ?? 0

    // Calls the application's /forecast route over HTTP and prints what its req.client got.
    func callRoute(_ label: String) async throws {
        let response = try await app.http.client.shared.execute(HTTPClientRequest(url: "http://127.0.0.1:\(port)/forecast"), timeout: .seconds(20))
        let body = String(buffer: try await response.body.collect(upTo: 1 << 20))
        print("\(label): \(response.status.code) \"\(body)\" upstream Cache-Status: \(response.headers.first(name: "Upstream-Cache-Status") ?? "none")")
    }

    try await callRoute("GET /forecast #1 (req.client)")
    try await callRoute("GET /forecast #2 (req.client)")
    try await Task.sleep(for: .milliseconds(3_200))  // the origin's max-age=2 has passed: the entry is stale
    try await callRoute("GET /forecast #3, stale (req.client)")
    let direct = try await app.client.get(forecastURL)
    print("app.client GET: \(direct.status.code) Cache-Status: \(direct.headers.first(name: "Cache-Status") ?? "none")")
    print("origin saw \(origin.requestCount(for: "/forecast")) request(s): the MISS and the revalidation")

    await app.server.shutdown()
    try await app.asyncShutdown()
    try await cache.shutdown()
    try await origin.shutdown()
}

try await runExample()
