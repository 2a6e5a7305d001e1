import CacheChain
import CacheChainCurl
import CacheChainLoopback
import CacheChainTesting
import Foundation
import HTTPTypes
import Testing

/// Cache Groups (RFC 9875, issue 45.9) through libcurl and the loopback origin, in a private and a shared cache,
/// over memory, disk and tiered storage: a `POST` answered with `Cache-Group-Invalidation: "a"` invalidates every
/// stored response of group `a` on its origin and nothing else; the field is ignored on a `GET`'s answer and
/// when malformed.
@Suite("Cache Groups (RFC 9875)", .tags(.integration))
struct CacheGroupsEndToEndTests {
    enum Backend: String, CaseIterable, Sendable { case memory, disk, tiered }

    static let cases: [(CacheMode, Backend)] = [CacheMode.privateCache, .sharedCache].flatMap { mode in Backend.allCases.map { (mode, $0) } }

    /// Two origins (two ports of the loopback host: two origins), each with `/a1` and `/a2` in group `a`, `/b` in
    /// group `b`, `/update` (a `POST` invalidates the group its `group` query names, in the field as given), and
    /// `/peek` (a `GET` whose answer carries `Cache-Group-Invalidation: "b"`).
    func withClient(_ mode: CacheMode, _ backend: Backend, _ body: (HTTPCacheClient, LoopbackOrigin, LoopbackOrigin) async throws -> Void) async throws {
        let origins = [try await LoopbackOrigin.start(), try await LoopbackOrigin.start()]
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("groups-\(UUID().uuidString)")
        let storage: any CacheStorage
        switch backend {
        case .memory: storage = MemoryStorage(capacity: 8 << 20)
        case .disk: storage = try DiskStorage(directory: directory.path, capacity: 8 << 20)
        case .tiered: storage = TieredStorage(memory: MemoryStorage(capacity: 8 << 20), disk: try DiskStorage(directory: directory.path, capacity: 8 << 20))
        }
        let client = HTTPCacheClient(
            transport: CurlTransport(),
            configuration: .init(storage: storage, policy: CachePolicyConfiguration(mode: mode), clock: ManualClock())
        )
        for origin in origins {
            for (path, groups) in [("/a1", "\"a\""), ("/a2", "\"b\", \"a\";note=1"), ("/b", "\"b\"")] {
                origin.route(path, handler: { _ in
                    LoopbackRoute(headers: [("Cache-Control", "public, max-age=600"), ("Cache-Groups", groups)], body: .bytes(Array(path.utf8)))
                })
            }
            origin.route("/update", handler: { request in
                let field = request.path.contains("malformed") ? "a" : "\"a\""
                return LoopbackRoute(headers: [("Cache-Group-Invalidation", field)], body: "updated")
            })
            origin.route("/peek", handler: { _ in
                LoopbackRoute(headers: [("Cache-Control", "no-store"), ("Cache-Group-Invalidation", "\"b\"")], body: "peek")
            })
        }
        do {
            try await body(client, origins[0], origins[1])
        } catch {
            try? await client.shutdown()
            for origin in origins { try? await origin.shutdown() }
            try? FileManager.default.removeItem(at: directory)
            throw error
        }
        try await client.shutdown()
        for origin in origins { try await origin.shutdown() }
        try? FileManager.default.removeItem(at: directory)
    }

    func send(_ client: HTTPCacheClient, _ origin: LoopbackOrigin, _ method: HTTPRequest.Method, _ path: String) async throws -> PipelineResponse {
        var request = try HTTPRequest(url: origin.url(path))
        request.method = method
        return try await client.data(for: request, body: method == .post ? PipelineBody(string: "x") : nil)
    }

    func statuses(_ client: HTTPCacheClient, _ origin: LoopbackOrigin, _ paths: [String]) async throws -> [String: CacheStatus] {
        var found: [String: CacheStatus] = [:]
        for path in paths { found[path] = try await send(client, origin, .get, path).cacheStatus }
        return found
    }

    @Test("a POST answered with Cache-Group-Invalidation \"a\" invalidates group a on its origin only", arguments: Self.cases)
    func invalidatesGroupOnOrigin(_ mode: CacheMode, _ backend: Backend) async throws {
        try await withClient(mode, backend) { client, origin, other in
            let paths = ["/a1", "/a2", "/b"]
            #expect(try await statuses(client, origin, paths).values.allSatisfy { $0 == .miss })
            #expect(try await statuses(client, other, ["/a1"]) == ["/a1": .miss])
            #expect(try await statuses(client, origin, paths) == ["/a1": .hit, "/a2": .hit, "/b": .hit])
            let update = try await send(client, origin, .post, "/update")
            #expect(update.body.string == "updated")
            #expect(update.trace.contains { $0.code == .invalidated && $0.detail.contains("cache group \"a\"") }, "\(update.trace)")
            #expect(try await statuses(client, origin, paths) == ["/a1": .miss, "/a2": .miss, "/b": .hit])
            #expect(try await statuses(client, other, ["/a1"]) == ["/a1": .hit], "another origin's group a is untouched")
        }
    }

    @Test("origins are normalised: scheme and host lowercased, default port dropped, path ignored")
    func originOfURL() {
        #expect(CacheKey.origin(ofURL: "HTTPS://News.Example:443/articles?x#y") == "https://news.example")
        #expect(CacheKey.origin(ofURL: "http://127.0.0.1:8080") == "http://127.0.0.1:8080")
        #expect(CacheKey.origin(ofURL: "news.example") == nil)
    }

    @Test("Cache-Group-Invalidation is ignored on a GET's answer and when malformed, and never fails the request", arguments: Self.cases)
    func ignoredWhenSafeOrMalformed(_ mode: CacheMode, _ backend: Backend) async throws {
        try await withClient(mode, backend) { client, origin, _ in
            _ = try await statuses(client, origin, ["/a1", "/b"])
            let peek = try await send(client, origin, .get, "/peek")
            #expect(peek.body.string == "peek")
            let malformed = try await send(client, origin, .post, "/update?malformed")
            #expect(malformed.head.status.code == 200 && malformed.body.string == "updated")
            #expect(try await statuses(client, origin, ["/a1", "/b"]) == ["/a1": .hit, "/b": .hit])
            // A well-formed one on a POST still counts afterwards.
            _ = try await send(client, origin, .post, "/update")
            #expect(try await statuses(client, origin, ["/a1", "/b"]) == ["/a1": .miss, "/b": .hit])
        }
    }
}
