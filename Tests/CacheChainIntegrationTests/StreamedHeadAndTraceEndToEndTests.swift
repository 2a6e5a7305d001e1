import CacheChain
import CacheChainCurl
import CacheChainLoopback
import CacheChainTesting
import Foundation
import HTTPTypes
import Testing

/// What a streamed miss's head and trace carry (issue 31.2), through libcurl and a loopback origin: the
/// `Cache-Status` an outer `CacheStatusInterceptor` adds, a field an outer interceptor of one's own adds on the
/// way back, and the trace — the lookup's decisions as soon as the head is there, the whole trace once the body
/// has ended.
@Suite("Streaming a miss: the head and trace a buffered response gets", .tags(.integration))
struct StreamedHeadAndTraceEndToEndTests {
    /// An outer interceptor that names the edge on every response, and on a streamed head the same way.
    struct ServedBy: HTTPInterceptor {
        static let name = HTTPField.Name("X-Served-By")!  // a literal, valid token

        func intercept(_ request: PipelineRequest, context: InterceptorContext, next: Next) async throws -> PipelineResponse {
            context.responseBodyStream?.amendStreamedHead { head, decisions in
                head.headerFields[Self.name] = "edge-7; decisions=\(decisions.count)"
            }
            var response = try await next(request, context)
            response.head.headerFields[Self.name] = "edge-7; decisions=\(response.trace.count)"
            return response
        }
    }

    struct Streamed: Sendable {
        var cacheStatus: String?
        var servedBy: String?
        var traceAtHead: [CacheReason.Code]
        var traceAtEnd: [CacheReason.Code]
        var count: Int
        var wasStreamed: Bool
    }

    static func stream(_ client: HTTPCacheClient, _ url: String) async throws -> Streamed {
        try await client.stream(HTTPRequest(url: url)) { response in
            let atHead = response.trace.map(\.code)
            let read = try await StreamingMissEndToEndTests.readPattern(response.body)
            return Streamed(
                cacheStatus: response.head.headerFields[CacheStatusField.name],
                servedBy: response.head.headerFields[ServedBy.name],
                traceAtHead: atHead,
                traceAtEnd: response.trace.map(\.code),
                count: read.count,
                wasStreamed: response.cacheStatus == .miss && response.body.highWaterMark > 0
            )
        }
    }

    static func withClient(
        overrides: [PolicyOverrideRule] = [],
        _ body: (HTTPCacheClient, LoopbackOrigin) async throws -> Void
    ) async throws {
        let origin = try await LoopbackOrigin.start()
        let client = HTTPCacheClient(
            transport: CurlTransport(),
            configuration: .init(
                storage: MemoryStorage(capacity: 64 << 20), outerInterceptors: [CacheStatusInterceptor(), ServedBy()],
                policyOverrides: overrides
            )
        )
        do {
            try await body(client, origin)
        } catch {
            try await client.shutdown()
            try await origin.shutdown()
            throw error
        }
        try await client.shutdown()
        try await origin.shutdown()
    }

    @Test("a streamed miss: Cache-Status and an outer interceptor's field on the head, the lookup in the trace, then stored")
    func uriMiss() async throws {
        try await Self.withClient { client, origin in
            origin.route("/s", LoopbackRoute(headers: [("Cache-Control", "max-age=600")], body: .generated(count: 2 << 20)))
            let streamed = try await Self.stream(client, origin.url("/s"))
            #expect(streamed.wasStreamed)
            #expect(streamed.count == 2 << 20)
            #expect(streamed.cacheStatus == "CacheChain; fwd=uri-miss; fwd-status=200", "no `stored` yet: decided once the body is complete")
            #expect(streamed.servedBy == "edge-7; decisions=\(streamed.traceAtHead.count)")
            #expect(streamed.traceAtHead.contains(.noStoredResponse))
            #expect(!streamed.traceAtHead.contains(.storable))
            #expect(streamed.traceAtEnd.contains(.noStoredResponse) && streamed.traceAtEnd.contains(.storable))

            let hit = try await client.data(for: HTTPRequest(url: origin.url("/s")))
            #expect(hit.cacheStatus == .hit)
            #expect(hit.head.headerFields[CacheStatusField.name]?.hasPrefix("CacheChain; hit; ttl=") == true)
        }
    }

    @Test("a stale entry without a validator, replaced by a streamed response: fwd=stale with its detail")
    func staleReplaced() async throws {
        try await Self.withClient { client, origin in
            origin.route("/n", LoopbackRoute(headers: [("Cache-Control", "max-age=0")], body: .generated(count: 1 << 20)))
            _ = try await client.data(for: HTTPRequest(url: origin.url("/n")))
            let streamed = try await Self.stream(client, origin.url("/n"))
            #expect(streamed.wasStreamed)
            #expect(streamed.cacheStatus == "CacheChain; fwd=stale; fwd-status=200; detail=no-validator")
            #expect(streamed.traceAtHead.contains(.noValidator))
            #expect(streamed.traceAtEnd.contains(.storable))
            #expect(origin.requestCount(for: "/n") == 2)
        }
    }

    @Test("a policy override's lifetime is on the streamed head as on a whole response; the trace names the rule at the end")
    func overrideLifetime() async throws {
        let rule = PolicyOverrideRule("bulk", pathPrefix: "/bulk", freshness: .whenAbsent(.seconds(900)))
        try await Self.withClient(overrides: [rule]) { client, origin in
            origin.route("/bulk", LoopbackRoute(body: .generated(count: 1 << 20)))
            let (cacheControl, marker, atEnd) = try await client.stream(HTTPRequest(url: origin.url("/bulk"))) { response in
                _ = try await StreamingMissEndToEndTests.readPattern(response.body)
                return (
                    response.head.headerFields[.cacheControl], response.head.headerFields[HTTPField.Name("CacheChain-Override")!],
                    response.trace.map(\.code)
                )
            }
            #expect(cacheControl == "max-age=900")
            #expect(marker == nil, "the rule's marker is for the trace, not the caller")
            #expect(atEnd.contains(.policyOverride) && atEnd.contains(.storable))
            let hit = try await client.data(for: HTTPRequest(url: origin.url("/bulk")))
            #expect(hit.cacheStatus == .hit && hit.head.headerFields[.cacheControl] == "max-age=900")
        }
    }
}
