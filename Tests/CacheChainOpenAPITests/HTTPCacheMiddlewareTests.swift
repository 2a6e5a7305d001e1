import CacheChain
import CacheChainLoopback
import CacheChainOpenAPI
import CacheChainTesting
import Foundation
import HTTPTypes
import OpenAPIRuntime
import Testing

@Suite("HTTPCacheMiddleware in front of a generated client's transport", .tags(.openAPI))
struct HTTPCacheMiddlewareTests {
    static func itemRoute(_ name: String, maxAge: Int = 60, etag: String? = nil) -> LoopbackRoute {
        LoopbackRoute(
            headers: [("Cache-Control", "max-age=\(maxAge)"), ("Content-Type", "application/json")],
            body: #"{"name":"\#(name)"}"#,
            etag: etag
        )
    }

    @Test("MISS reaches the origin, HIT does not", arguments: DownstreamKind.allCases)
    func missThenHit(_ kind: DownstreamKind) async throws {
        let catalog = try await Catalog.start(kind)
        catalog.origin.route("/api/items/7", Self.itemRoute("lamp"))
        let first = try await catalog.item("7")
        let second = try await catalog.item("7")
        #expect(first.name == "lamp" && second.name == "lamp")
        #expect([first.outcome.cacheStatus, second.outcome.cacheStatus] == [.miss, .hit])
        #expect(first.outcome.operationID == "getItem")
        #expect(first.outcome.request.authority == "127.0.0.1:\(catalog.origin.port)")
        #expect(first.outcome.request.path == "/api/items/7", "the server URL's path prefix is part of the cache key")
        #expect(second.outcome.trace.map(\.code).contains(.fresh))
        #expect(catalog.origin.requestCount(for: "/api/items/7") == 1)
        try await catalog.stop()
    }

    @Test("query parameters are part of the key: two languages, two entries", arguments: DownstreamKind.allCases)
    func queryIsPartOfTheKey(_ kind: DownstreamKind) async throws {
        let catalog = try await Catalog.start(kind)
        catalog.origin.route("/api/items/7", handler: { request in
            Self.itemRoute(request.path.hasSuffix("lang=fr") ? "lampe" : "lamp")
        })
        #expect(try await catalog.item("7", lang: "fr").name == "lampe")
        #expect(try await catalog.item("7", lang: "en").name == "lamp")
        let again = try await catalog.item("7", lang: "fr")
        #expect(again.name == "lampe" && again.outcome.cacheStatus == .hit)
        #expect(catalog.origin.requestCount(for: "/api/items/7") == 2)
        try await catalog.stop()
    }

    @Test("a stale entry is revalidated through the transport: If-None-Match, 304, REVALIDATED", arguments: DownstreamKind.allCases)
    func revalidation(_ kind: DownstreamKind) async throws {
        let catalog = try await Catalog.start(kind)
        catalog.origin.route("/api/items/7", Self.itemRoute("lamp", maxAge: 5, etag: "\"v1\""))
        _ = try await catalog.item("7")
        catalog.clock.advance(by: 30)
        let revalidated = try await catalog.item("7")
        #expect(revalidated.outcome.cacheStatus == .revalidated)
        #expect(revalidated.name == "lamp")
        let conditional = try #require(catalog.origin.receivedRequests.last)
        #expect(conditional.header("If-None-Match") == "\"v1\"")
        #expect(catalog.origin.requestCount(for: "/api/items/7") == 2)
        try await catalog.stop()
    }

    @Test("stale-while-revalidate is revalidated before the answer (next cannot outlive intercept)", arguments: DownstreamKind.allCases)
    func staleWhileRevalidateRevalidatesInLine(_ kind: DownstreamKind) async throws {
        let catalog = try await Catalog.start(kind)
        catalog.origin.route(
            "/api/items/7",
            LoopbackRoute(headers: [("Cache-Control", "max-age=1, stale-while-revalidate=600"), ("Content-Type", "application/json")], body: #"{"name":"lamp"}"#, etag: "\"v1\"")
        )
        _ = try await catalog.item("7")
        catalog.clock.advance(by: 10)
        catalog.origin.route("/api/items/7", Self.itemRoute("new lamp", etag: "\"v2\""))
        let answer = try await catalog.item("7")
        #expect(answer.outcome.cacheStatus == .miss, "the changed resource arrives in the validation's response")
        #expect(answer.name == "new lamp")
        #expect(await catalog.middleware.client.revalidationQueue.completedCount == 0, "nothing ran in the background")
        try await catalog.stop()
    }

    @Test("PUT goes to the origin with its body and invalidates the cached GET", arguments: DownstreamKind.allCases)
    func unsafeMethodInvalidates(_ kind: DownstreamKind) async throws {
        let catalog = try await Catalog.start(kind)
        catalog.origin.route("/api/items/7", handler: { request in
            request.method == "PUT" ? LoopbackRoute(status: 204) : Self.itemRoute("lamp")
        })
        _ = try await catalog.item("7")
        let (output, outcomes) = try await HTTPCacheMiddleware.collectingOutcomes {
            try await catalog.client.putItem(path: .init(id: "7"), body: .json(.init(name: "desk")))
        }
        _ = try output.noContent
        #expect(outcomes.map(\.cacheStatus) == [.bypass])
        let put = try #require(catalog.origin.receivedRequests.last)
        #expect(put.method == "PUT")
        let sent = try JSONDecoder().decode([String: String].self, from: Data(put.body))
        #expect(sent == ["name": "desk"])
        let after = try await catalog.item("7")
        #expect(after.outcome.cacheStatus == .miss)
        #expect(catalog.origin.requestCount(for: "/api/items/7") == 3)
        try await catalog.stop()
    }

    @Test("a 12 MiB body is spooled past the memory limit, streamed back byte for byte, and cached", arguments: DownstreamKind.allCases)
    func largeBody(_ kind: DownstreamKind) async throws {
        let spool = NSTemporaryDirectory() + "cachechain-openapi-spool-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: spool) }
        let size = 12 << 20
        let catalog = try await Catalog.start(kind, bodyLimits: .init(inMemoryBodyLimit: 1 << 20, spoolDirectory: spool)) {
            $0.maximumEntryFraction = 0.5
        }
        catalog.origin.route("/api/blobs/big", LoopbackRoute(headers: [("Cache-Control", "max-age=60"), ("Content-Type", "application/octet-stream")], body: .generated(count: size)))
        for expected in [CacheStatus.miss, .hit] {
            let (output, outcomes) = try await HTTPCacheMiddleware.collectingOutcomes {
                try await catalog.client.getBlob(path: .init(name: "big"))
            }
            #expect(outcomes.map(\.cacheStatus) == [expected])
            let body = try output.ok.body.binary
            #expect(body.length == .known(Int64(size)))
            var position = 0
            var matches = true
            for try await chunk in body {
                if expected == .miss {
                    #expect(chunk.count <= 4 << 20, "the spooled miss streams in chunks; the memory tier's hit is one buffer")
                }
                matches = matches && chunk.withUnsafeBytes { LoopbackRoute.Body.isGeneratedPattern($0, at: position) }
                position += chunk.count
            }
            #expect(matches && position == size)
        }
        #expect(catalog.origin.requestCount(for: "/api/blobs/big") == 1)
        try await waitUntil("the spool file is deleted once its body is released") {
            ((try? FileManager.default.contentsOfDirectory(atPath: spool)) ?? []).isEmpty
        }
        try await catalog.stop()
    }

    @Test("the transport's errors pass through unchanged; the cache's own are CacheChainError", arguments: DownstreamKind.allCases)
    func errors(_ kind: DownstreamKind) async throws {
        let offline = try await Catalog.start(kind) { $0.requestCachePolicy = .returnCacheDataDontLoad }
        let notCached = await #expect(throws: ClientError.self) { try await offline.client.getItem(path: .init(id: "1")) }
        #expect((notCached?.underlyingError as? CacheChainError)?.code == .notInCache)
        try await offline.stop()

        // HTTPClient.shared retries a refused connection until the request's deadline: keep it short.
        let down = try await Catalog.start(kind, timeout: .seconds(2))
        try await down.origin.shutdown()
        let refused = await #expect(throws: ClientError.self) { try await down.client.getItem(path: .init(id: "1")) }
        #expect(refused?.operationID == "getItem")
        #expect(refused.map { !($0.underlyingError is CacheChainError) } == true, "wrapped once, by the generated client: \(String(describing: refused))")
    }
}

extension Tag {
    /// Tests of the OpenAPI client middleware.
    @Tag static var openAPI: Self
}
