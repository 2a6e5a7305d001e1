import CacheChain
import CacheChainCurl
import CacheChainLoopback
import CacheChainTesting
import Foundation
import HTTPTypes
import Testing

/// RFC 9110 §6.6.1 (issue 46.7): a response stored without `Date` is given one, the time it was received.
@Suite("A response stored without Date is given one", .tags(.integration))
struct StoredDateEndToEndTests {
    @Test("an origin that sends no Date: the stored response (and its hit) carries Date = the time it was received")
    func dateAddedWhenStoring() async throws {
        let origin = try await LoopbackOrigin.start()
        let clock = ManualClock()
        let storage = MemoryStorage(capacity: 1 << 20)
        let client = HTTPCacheClient(transport: CurlTransport(), configuration: .init(storage: storage, clock: clock))
        origin.route("/no-date", LoopbackRoute(rawResponse: "HTTP/1.1 200 OK\r\nCache-Control: max-age=600\r\nContent-Length: 4\r\n\r\nbody"))
        let received = HTTPDate.format(clock.now())
        let miss = try await client.data(for: HTTPRequest(url: origin.url("/no-date")))
        #expect(miss.cacheStatus == .miss)
        let stored = try #require(try await storage.entries(for: CacheKey(HTTPRequest(url: origin.url("/no-date")))).first)
        #expect(stored.cached.response.headerFields[.date] == received, "\(stored.cached.response.headerFields)")
        clock.advance(by: 30)
        let hit = try await client.data(for: HTTPRequest(url: origin.url("/no-date")))
        #expect(hit.cacheStatus == .hit)
        #expect(hit.head.headerFields[.date] == received)
        #expect(hit.head.headerFields[.age] == "30")
        try await client.shutdown()
        try await origin.shutdown()
    }
}
