import CacheChain
import CacheChainCurl
import CacheChainLoopback
import CacheChainTesting
import Foundation
import HTTPTypes
import Testing

/// The `QUERY` method (RFC 10008, issue 45.10) through libcurl and the loopback origin, in a private and a shared
/// cache, with no configuration: cached by its content (normalised for JSON and forms), served only to a `QUERY`
/// with equivalent content, never to a `GET` or `POST` nor they to it, and invalidated by an unsafe request to its
/// URI, over memory, disk and tiered storage.
@Suite("The QUERY method", .tags(.integration))
struct QueryMethodEndToEndTests {
    static let modes: [CacheMode] = [.privateCache, .sharedCache]
    static let query = HTTPRequest.Method("QUERY")!

    enum Backend: String, CaseIterable, Sendable { case memory, disk, tiered }

    func withClient(
        _ mode: CacheMode,
        backend: Backend = .memory,
        _ body: (HTTPCacheClient, LoopbackOrigin) async throws -> Void
    ) async throws {
        let origin = try await LoopbackOrigin.start()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("query-\(UUID().uuidString)")
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
        // Every method answers with what it got: the method, the content type and the body.
        for path in ["/search", "/other"] {
            origin.route(path) { request in
                let type = request.headers.first { $0.name.lowercased() == "content-type" }?.value ?? "-"
                return LoopbackRoute(
                    headers: [("Cache-Control", "public, max-age=600")],
                    body: "\(request.method) \(type) \(String(decoding: request.body, as: UTF8.self))"
                )
            }
        }
        do {
            try await body(client, origin)
        } catch {
            try? await client.shutdown()
            try? await origin.shutdown()
            try? FileManager.default.removeItem(at: directory)
            throw error
        }
        try await client.shutdown()
        try await origin.shutdown()
        try? FileManager.default.removeItem(at: directory)
    }

    func send(
        _ client: HTTPCacheClient, _ origin: LoopbackOrigin, _ method: HTTPRequest.Method, _ path: String = "/search",
        _ body: String? = nil, type: String? = "application/json"
    ) async throws -> PipelineResponse {
        var request = try HTTPRequest(url: origin.url(path))
        request.method = method
        if body != nil { request.headerFields[.contentType] = type }
        return try await client.data(for: request, body: body.map { PipelineBody(string: $0) })
    }

    @Test("the same content is a hit, JSON whitespace and member order do not matter, other content is a miss", arguments: Self.modes)
    func jsonContent(_ mode: CacheMode) async throws {
        try await withClient(mode) { client, origin in
            let first = try await send(client, origin, Self.query, "/search", #"{"q":"cats","page":{"n":1,"size":20}}"#)
            #expect(first.cacheStatus == .miss, "\(first.trace)")
            #expect(first.body.string == #"QUERY application/json {"q":"cats","page":{"n":1,"size":20}}"#, "the origin got the QUERY and its content")
            #expect(first.trace.map(\.code).contains(.query), "\(first.trace)")
            let reordered = try await send(client, origin, Self.query, "/search", "{ \"page\" : {\"size\":20, \"n\":1},\n \"q\": \"cats\" }")
            #expect(reordered.cacheStatus == .hit, "\(reordered.trace)")
            #expect(reordered.body.string == first.body.string)
            let typed = try await send(client, origin, Self.query, "/search", #"{"q":"cats"}"#, type: "application/vnd.api+json")
            let typedAgain = try await send(client, origin, Self.query, "/search", #"{ "q" : "cats" }"#, type: "application/vnd.api+json")
            #expect(typed.cacheStatus == .miss && typedAgain.cacheStatus == .hit, "+json is JSON: \(typedAgain.trace)")
            for other in [#"{"q":"dogs","page":{"n":1,"size":20}}"#, #"{"q":"cats","page":{"n":1.0,"size":20}}"#] {
                let response = try await send(client, origin, Self.query, "/search", other)
                #expect(response.cacheStatus == .miss, "\(other) is another query")
                #expect(response.body.string == "QUERY application/json " + other)
            }
            #expect(origin.receivedRequests.map(\.method) == ["QUERY", "QUERY", "QUERY", "QUERY"])
        }
    }

    @Test("form fields in another order are a hit; a repeated name's values in another order, another type or other bytes a miss", arguments: Self.modes)
    func formAndOtherContent(_ mode: CacheMode) async throws {
        try await withClient(mode) { client, origin in
            let form = "application/x-www-form-urlencoded"
            #expect(try await send(client, origin, Self.query, "/search", "q=cats&tag=a&tag=b&page=2", type: form).cacheStatus == .miss)
            let reordered = try await send(client, origin, Self.query, "/search", "page=2&tag=a&q=cats&tag=b", type: form)
            #expect(reordered.cacheStatus == .hit, "\(reordered.trace)")
            #expect(reordered.body.string == "QUERY \(form) q=cats&tag=a&tag=b&page=2")
            #expect(try await send(client, origin, Self.query, "/search", "q=cats&tag=b&tag=a&page=2", type: form).cacheStatus == .miss)
            // The same bytes as another media type are another query; text is keyed by its exact bytes.
            #expect(try await send(client, origin, Self.query, "/search", "q=cats&tag=a&tag=b&page=2", type: "text/plain").cacheStatus == .miss)
            #expect(try await send(client, origin, Self.query, "/search", "page=2&tag=a&q=cats&tag=b", type: "text/plain").cacheStatus == .miss)
            #expect(try await send(client, origin, Self.query, "/search", "page=2&tag=a&q=cats&tag=b", type: "text/plain").cacheStatus == .hit)
        }
    }

    @Test("a QUERY entry never answers a GET or a POST, nor does theirs a QUERY", arguments: Self.modes)
    func keptApartFromGetAndPost(_ mode: CacheMode) async throws {
        try await withClient(mode) { client, origin in
            _ = try await send(client, origin, Self.query, "/other", "{}")
            let get = try await send(client, origin, .get, "/other")
            #expect(get.cacheStatus == .miss)
            #expect(get.body.string == "GET - ")
            #expect(try await send(client, origin, .get, "/other").cacheStatus == .hit)
            let query = try await send(client, origin, Self.query, "/other", "{}")
            #expect(query.cacheStatus == .hit, "the GET did not replace the QUERY's entry")
            #expect(query.body.string == "QUERY application/json {}")
            let post = try await send(client, origin, .post, "/other", "{}")
            #expect(post.cacheStatus == .bypass)
            #expect(post.body.string == "POST application/json {}")
            #expect(origin.receivedRequests.map(\.method) == ["QUERY", "GET", "POST"])
        }
    }

    @Test("an unsafe request to the URI invalidates every QUERY stored for it; a QUERY invalidates nothing", arguments: Backend.allCases)
    func invalidation(_ backend: Backend) async throws {
        try await withClient(.privateCache, backend: backend) { client, origin in
            for method in [HTTPRequest.Method.post, .put, .delete] {
                for content in [#"{"q":1}"#, #"{"q":2}"#] { _ = try await send(client, origin, Self.query, "/search", content) }
                _ = try await send(client, origin, Self.query, "/other", #"{"q":1}"#)
                #expect(try await send(client, origin, Self.query, "/search", #"{"q":1}"#).cacheStatus == .hit, "\(backend)")
                _ = try await send(client, origin, method, "/search", "x")
                for content in [#"{"q":1}"#, #"{"q":2}"#] {
                    let again = try await send(client, origin, Self.query, "/search", content)
                    #expect(again.cacheStatus == .miss, "\(backend): \(method) invalidated \(content): \(again.trace)")
                }
                #expect(try await send(client, origin, Self.query, "/other", #"{"q":1}"#).cacheStatus == .hit, "another URI's QUERY stays")
            }
            _ = try await send(client, origin, .get, "/other")
            _ = try await send(client, origin, Self.query, "/other", #"{"q":3}"#)
            #expect(try await send(client, origin, .get, "/other").cacheStatus == .hit, "QUERY is safe (RFC 10008 §2)")
        }
    }

    @Test("stored on disk, a QUERY entry is found again by a client opened later on the same directory")
    func persistsOnDisk() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("query-reopen-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let origin = try await LoopbackOrigin.start()
        origin.route("/search", LoopbackRoute(headers: [("Cache-Control", "max-age=600")], body: "results"))
        for expected in [CacheStatus.miss, .hit] {
            let client = HTTPCacheClient(transport: CurlTransport(), configuration: .init(storage: try DiskStorage(directory: directory.path, capacity: 8 << 20)))
            let response = try await send(client, origin, Self.query, "/search", expected == .miss ? #"{"a":1,"b":2}"# : #"{"b":2,"a":1}"#)
            #expect(response.cacheStatus == expected, "\(response.trace)")
            try await client.shutdown()
        }
        try await origin.shutdown()
    }
}
