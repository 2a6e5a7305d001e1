import CacheChain
import CacheChainCurl
import CacheChainLoopback
import CacheChainTesting
import Foundation
import HTTPTypes
import Testing

/// RFC defects that show end to end, through the libcurl transport and the loopback origin.
@Suite("RFC defects end to end", .tags(.integration))
struct RFCDefectsEndToEndTests {
    @Test("a URL with ../ is stored under the target libcurl fetches, so a purge by that prefix finds it", arguments: ProtocolMode.allCases)
    func dotSegmentsKeyedAsFetched(_ mode: ProtocolMode) async throws {
        try await withNetwork(mode) { network in
            network.origin.route("/y/page", LoopbackRoute(headers: [("Cache-Control", "max-age=600")], body: "page"))
            let first = try await network.get("/x/../y/page")
            #expect(first.cacheStatus == .miss)
            #expect(first.body.string == "page")
            #expect(network.origin.receivedRequests.last?.path == "/y/page", "libcurl sends the normalized target")
            #expect(try await network.get("/y/page").cacheStatus == .hit, "one entry for both spellings")
            try await network.client.removeCachedResponses(urlPrefix: network.origin.url("/y/"))
            #expect(try await network.get("/x/../y/page").cacheStatus == .miss, "the purge removed it")
            #expect(network.origin.requestCount(for: "/y/page") == 2)
        }
    }

    @Test("an unknown Content-Encoding does not fail the request: the body is passed through and stored as received", arguments: ProtocolMode.allCases)
    func unknownContentEncoding(_ mode: ProtocolMode) async throws {
        try await withNetwork(mode) { network in
            let encoded: [UInt8] = [0x78, 0x2D, 0x66, 0x6F, 0x6F, 0x00, 0xFF, 0x10]
            network.origin.route(
                "/odd",
                LoopbackRoute(headers: [("Cache-Control", "max-age=600"), ("Content-Encoding", "x-foo")], body: .bytes(encoded))
            )
            let first = try await network.get("/odd")
            #expect(first.head.status == .ok)
            #expect(try first.body.collect() == encoded)
            #expect(first.head.headerFields[.contentEncoding] == "x-foo", "the body is still encoded: the head says so")
            #expect(first.head.headerFields[.contentLength] == String(encoded.count))
            let second = try await network.get("/odd")
            #expect(second.cacheStatus == .hit)
            #expect(try second.body.collect() == encoded)
            #expect(second.head.headerFields[.contentEncoding] == "x-foo")
            #expect(network.origin.requestCount(for: "/odd") == 1)
        }
    }
}
