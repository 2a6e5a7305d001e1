import AsyncHTTPClient
import CacheChain
import CacheChainCurl
import CacheChainLoopback
import CacheChainTesting
import CacheChainVapor
import NIOCore
import NIOHTTP1
import Testing
import Vapor

/// A real Vapor application on 127.0.0.1 (its HTTP server on port 0) with `app.clients.use(.cacheChain(...))`,
/// whose routes call the loopback origin through `req.client`, over the real libcurl transport.
@Suite("Vapor: req.client and app.client through the cache")
struct VaporClientTests {
    @Test("a route's req.client: MISS, HIT, then a 304 revalidation once stale; app.client outside a request")
    func requestClientCaches() async throws {
        try await withVaporApp { app, origin, clock in
            origin.route("/weather", LoopbackRoute(headers: [("Cache-Control", "max-age=60")], body: "sunny", etag: "\"w1\""))
            let upstream = origin.url("/weather")
            app.get("weather") { req async throws -> Response in
                let client = try #require(req.client as? CacheChainVaporClient)
                #expect(client.eventLoop === req.eventLoop)  // delegating(to:): the request's event loop
                #expect(client.logger?[metadataKey: "request-id"] != nil)  // logging(to:): the request's logger
                let response = try await req.client.get(URI(string: upstream))
                var headers = HTTPHeaders()
                headers.add(name: "Upstream-Cache-Status", value: response.headers.first(name: "Cache-Status") ?? "none")
                headers.add(name: "Upstream-ETag", value: response.headers.first(name: .eTag) ?? "none")
                return Response(status: response.status, headers: headers, body: .init(buffer: response.body ?? ByteBuffer()))
            }
            try await start(app)

            let miss = try await get(app, "/weather")
            #expect(miss.status == 200 && miss.body == "sunny" && miss.etag == "\"w1\"")
            #expect(miss.cacheStatus == "CacheChain; fwd=uri-miss; fwd-status=200; stored")
            #expect(origin.requestCount(for: "/weather") == 1)

            let hit = try await get(app, "/weather")
            #expect(hit.body == "sunny")
            #expect(hit.cacheStatus.hasPrefix("CacheChain; hit; ttl="))
            #expect(origin.requestCount(for: "/weather") == 1)

            clock.advance(by: 120)  // the entry is stale: the cache asks with If-None-Match, the origin answers 304
            let revalidated = try await get(app, "/weather")
            #expect(revalidated.body == "sunny")
            #expect(revalidated.cacheStatus.hasPrefix("CacheChain; fwd=stale; fwd-status=304"))
            #expect(origin.requestCount(for: "/weather") == 2)
            #expect(origin.receivedRequests.last?.header("If-None-Match") == "\"w1\"")

            // app.client, outside any request: the same cache, fresh again after the revalidation.
            let direct = try await app.client.get(URI(string: upstream))
            #expect(direct.status == .ok)
            #expect(direct.body.map { String(buffer: $0) } == "sunny")
            #expect(direct.headers.first(name: "Cache-Status")?.hasPrefix("CacheChain; hit; ttl=") == true)
            #expect(origin.requestCount(for: "/weather") == 2)
        }
    }

    @Test("method, URL, header fields, body, status with reason phrase and response fields cross faithfully")
    func requestAndResponseMapping() async throws {
        try await withVaporApp { app, origin, _ in
            origin.route("/orders", handler: { request in
                LoopbackRoute(
                    status: 201,
                    headers: [("X-Seen-Method", request.method), ("X-Seen-Token", request.header("X-Token") ?? "-"), ("X-Multi", "a"), ("X-Multi", "b")],
                    body: "stored \(String(decoding: request.body, as: UTF8.self))"
                )
            })
            let response = try await app.client.post(URI(string: origin.url("/orders?expand=1"))) { request in
                request.headers.add(name: "X-Token", value: "t-42")
                request.body = ByteBuffer(string: "{\"item\":7}")
            }
            #expect(response.status.code == 201)
            #expect(response.status.reasonPhrase == "Created")
            #expect(response.headers["X-Seen-Method"] == ["POST"])
            #expect(response.headers["X-Seen-Token"] == ["t-42"])
            #expect(response.headers["X-Multi"] == ["a", "b"])
            #expect(response.body.map { String(buffer: $0) } == "stored {\"item\":7}")
            #expect(response.headers.first(name: "Cache-Status") == "CacheChain; fwd=method; fwd-status=201; detail=unsafe-method")
            let seen = try #require(origin.receivedRequests.last)
            #expect(seen.path == "/orders?expand=1")
            #expect(seen.body == Array("{\"item\":7}".utf8))
        }
    }

    @Test("the request's timeout and a relative URL fail the future with CacheChainError")
    func errors() async throws {
        try await withVaporApp { app, origin, _ in
            origin.route("/slow", LoopbackRoute(body: "late", delay: .seconds(5)))
            let started = ContinuousClock.now
            await #expect {
                _ = try await app.client.send(ClientRequest(method: .GET, url: URI(string: origin.url("/slow")), timeout: .milliseconds(300))).get()
            } throws: { error in
                (error as? CacheChainError)?.code == .timedOut
            }
            #expect(ContinuousClock.now - started < .seconds(4))
            await #expect {
                _ = try await app.client.get("/relative/path")
            } throws: { error in
                (error as? CacheChainError)?.code == .invalidRequest
            }
        }
    }
}

/// The status, body and upstream fields a test route returned.
struct RouteReply {
    var status: UInt
    var body: String
    var cacheStatus: String
    var etag: String
}

/// Runs `body` with a Vapor application whose clients go through a cache client over libcurl (with a manual clock)
/// and a loopback origin; shuts all three down.
func withVaporApp(_ body: (Application, LoopbackOrigin, ManualClock) async throws -> Void) async throws {
    let origin = try await LoopbackOrigin.start()
    let clock = ManualClock()
    let cache = HTTPCacheClient(transport: CurlTransport(), configuration: .init(clock: clock))
    let app = try await Application.make(.testing)
    app.clients.use(.cacheChain(cache))
    do {
        try await body(app, origin, clock)
    } catch {
        await app.server.shutdown()
        try await app.asyncShutdown()
        try await cache.shutdown()
        try await origin.shutdown()
        throw error
    }
    await app.server.shutdown()  // a server started by the test (a no-op otherwise): Vapor asserts it was stopped
    try await app.asyncShutdown()
    try await cache.shutdown()
    try await origin.shutdown()
}

/// Starts the application's HTTP server on 127.0.0.1, on a port the system picks.
func start(_ app: Application) async throws {
    try await app.server.start(address: .hostname("127.0.0.1", port: 0))
}

/// Calls one of the application's routes over HTTP (AsyncHTTPClient, not through the cache).
func get(_ app: Application, _ path: String) async throws -> RouteReply {
    let port = try #require(app.http.server.shared.localAddress?.port)
    let response = try await app.http.client.shared.execute(HTTPClientRequest(url: "http://127.0.0.1:\(port)\(path)"), timeout: .seconds(20))
    let bytes = try await response.body.collect(upTo: 1 << 20)
    return RouteReply(
        status: response.status.code,
        body: String(buffer: bytes),
        cacheStatus: response.headers.first(name: "Upstream-Cache-Status") ?? "none",
        etag: response.headers.first(name: "Upstream-ETag") ?? "none"
    )
}
