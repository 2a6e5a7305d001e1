import CacheChain
import CacheChainCurl
import CacheChainLoopback
import CacheChainTesting
import Foundation
import HTTPTypes
import Synchronization
import Testing

/// Interim responses (issue 45.8) through libcurl and the loopback origin, in a private and a shared cache: a
/// `103 Early Hints` (and other 1xx) sent before the final response reaches the caller, as it arrives
/// (`InterimResponseKey`) and on the response (`PipelineResponse.interimResponses`), and is never stored.
@Suite("interim responses", .tags(.integration))
struct InterimResponsesEndToEndTests {
    static let modes: [CacheMode] = [.privateCache, .sharedCache]
    static let hints: [(status: Int, headers: [(String, String)])] = [
        (103, [("Link", "</style.css>; rel=preload; as=style")]),
        (103, [("Link", "</app.js>; rel=preload; as=script"), ("X-Hint", "second")]),
    ]

    @Test("103 Early Hints reach the caller before the final response and on it; a hit carries none", arguments: Self.modes)
    func earlyHints(_ mode: CacheMode) async throws {
        let origin = try await LoopbackOrigin.start()
        let client = HTTPCacheClient(
            transport: CurlTransport(),
            configuration: .init(storage: MemoryStorage(capacity: 8 << 20), policy: CachePolicyConfiguration(mode: mode), clock: ManualClock())
        )
        do {
            var route = LoopbackRoute(headers: [("Cache-Control", "public, max-age=600")], body: "page")
            route.interimResponses = Self.hints
            origin.route("/page", route)
            let seen = Mutex<[HTTPResponse]>([])
            var values = ContextValues()
            values[InterimResponseKey.self] = { interim in seen.withLock { $0.append(interim) } }
            let request = try HTTPRequest(url: origin.url("/page"))
            let first = try await client.send(PipelineRequest(head: request), values: values)
            #expect(first.cacheStatus == .miss)
            #expect(first.body.string == "page")
            #expect(first.interimResponses.map(\.status.code) == [103, 103])
            #expect(first.interimResponses.first?.headerFields[HTTPField.Name("Link")!] == "</style.css>; rel=preload; as=style")
            #expect(first.interimResponses.last?.headerFields[HTTPField.Name("X-Hint")!] == "second")
            #expect(seen.withLock { $0 } == first.interimResponses, "the handler saw each as it arrived")
            #expect(first.head.headerFields[HTTPField.Name("Link")!] == nil, "a hint's fields are not the final response's")

            let second = try await client.send(PipelineRequest(head: request), values: values)
            #expect(second.cacheStatus == .hit, "\(second.trace)")
            #expect(second.interimResponses.isEmpty, "interim responses are never stored")
            #expect(second.head.headerFields[HTTPField.Name("Link")!] == nil)
            #expect(seen.withLock { $0.count } == 2, "a hit calls the handler not at all")
        } catch {
            try? await client.shutdown()
            try? await origin.shutdown()
            throw error
        }
        try await client.shutdown()
        try await origin.shutdown()
    }

    @Test("other 1xx (100 Continue, 102 Processing) are reported too, in order, and the final response is stored as it came")
    func otherInterim() async throws {
        let origin = try await LoopbackOrigin.start()
        let client = HTTPCacheClient(transport: CurlTransport(), configuration: .init(storage: MemoryStorage(capacity: 8 << 20), clock: ManualClock()))
        do {
            var route = LoopbackRoute(headers: [("Cache-Control", "max-age=600")], body: "done", etag: "\"d\"")
            route.interimResponses = [(102, []), (100, []), (103, [("Link", "</a.css>; rel=preload")])]
            origin.route("/slow", route)
            let first = try await client.data(for: HTTPRequest(url: origin.url("/slow")))
            #expect(first.interimResponses.map(\.status.code) == [102, 100, 103])
            #expect(first.head.status.code == 200)
            #expect(first.head.headerFields[.eTag] == "\"d\"")
            let revalidated = try await client.data(for: HTTPRequest(url: origin.url("/slow")), cachePolicy: .reloadRevalidatingCacheData)
            #expect(revalidated.cacheStatus == .revalidated)
            #expect(revalidated.body.string == "done")
        } catch {
            try? await client.shutdown()
            try? await origin.shutdown()
            throw error
        }
        try await client.shutdown()
        try await origin.shutdown()
    }
}
