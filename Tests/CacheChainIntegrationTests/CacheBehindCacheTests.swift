import CacheChain
import CacheChainCore
import CacheChainCurl
import CacheChainLoopback
import CacheChainTesting
import Foundation
import HTTPTypes
import Testing

/// A private cache in front of another cache (a shared one): the storage decision keeps what the next hop
/// answered whatever cache status it carries, instead of recognising "from the network" by a `miss` status.
@Suite("A cache behind a cache", .tags(.integration))
struct CacheBehindCacheTests {
    /// A transport that sends through another client: the shared cache between the private one and the origin.
    private struct SharedCacheHop: HTTPTransport {
        let shared: HTTPCacheClient

        func send(_ request: PipelineRequest, context: InterceptorContext) async throws -> PipelineResponse {
            try await shared.send(PipelineRequest(head: request.head, body: request.body))
        }
    }

    @Test("a hit of the shared cache behind is stored by the private cache in front")
    func sharedHitIsStored() async throws {
        let origin = try await LoopbackOrigin.start()
        origin.route("/shared", LoopbackRoute(headers: [("Cache-Control", "max-age=600")], body: "from the origin"))
        let shared = HTTPCacheClient(transport: CurlTransport(), configuration: .init(timeout: .seconds(20)))
        let request = try HTTPRequest(url: origin.url("/shared"))
        #expect(try await shared.data(for: request).cacheStatus == .miss)

        let front = HTTPCacheClient(transport: SharedCacheHop(shared: shared))
        let first = try await front.data(for: request)
        #expect(first.body.string == "from the origin")
        #expect(first.trace.contains { $0.code == .storable })
        let kept = try await front.cachedResponse(for: request)
        #expect(kept?.body.string == "from the origin")
        #expect(origin.receivedRequests.count == 1)
    }
}
