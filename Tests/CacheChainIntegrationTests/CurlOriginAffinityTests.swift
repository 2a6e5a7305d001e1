import CacheChain
import CacheChainCore
@testable import CacheChainCurl
import CacheChainLoopback
import CacheChainTesting
import HTTPTypes
import Testing

/// Several libcurl threads, one HTTP/2 connection per origin (`OriginAffinity`): an `https` origin that
/// speaks HTTP/2 keeps to one thread, an HTTP/1.x origin spreads over them.
@Suite("CurlTransport: one HTTP/2 connection per origin across libcurl threads", .tags(.integration))
struct CurlOriginAffinityTests {
    /// Sends `count` concurrent requests to a held route, releases them once all reached the origin, and
    /// returns the threads that carried the transfers.
    static func concurrentTransferThreads(_ net: Network, count: Int) async throws -> [UInt] {
        let gate = CurlMultiplexingTests.heldRoute(net, "/held")
        let threads = LockedValue<[UInt]>([])
        let values = recordingTransferThreads(in: threads)
        let bodies = try await withThrowingTaskGroup(of: String?.self) { group in
            for index in 0..<count {
                group.addTask {
                    let request = PipelineRequest(head: try HTTPRequest(url: net.origin.url("/held?i=\(index)")))
                    return try await net.client.send(request, values: values).body.string
                }
            }
            try await waitUntil("all \(count) requests reached the origin") { gate.waitingCount == count }
            gate.open()
            return try await group.reduce(into: [String?]()) { $0.append($1) }
        }
        #expect(bodies == Array(repeating: "released", count: count))
        return threads.withLock { $0 }
    }

    @Test("with 4 libcurl threads, 20 concurrent requests: HTTP/2 on one thread and one connection, HTTP/1.1 spread", arguments: ProtocolMode.allCases)
    func oneConnectionPerHTTP2Origin(_ mode: ProtocolMode) async throws {
        try await withNetwork(mode, loopCount: 4) { net in
            let threads = try await Self.concurrentTransferThreads(net, count: 20)
            #expect(threads.count == 20)
            if mode.multiplexes {
                #expect(Set(threads).count == 1, "every HTTP/2 transfer on the origin's thread")
                #expect(net.origin.connectionCount == 1)
            } else {
                #expect(Set(threads).count > 1, "HTTP/1.1 transfers spread over the threads")
                #expect(net.origin.connectionCount == 20)
            }
        }
    }

    @Test("an HTTPS origin that answers over HTTP/1.1 is released after its first answer and spreads")
    func http1OriginIsReleased() async throws {
        let net = try await Network.start(.https2, offersHTTP2: false, loopCount: 4)
        let transport = try #require(net.curlTransport)
        let origin = net.origin.baseURL  // https://127.0.0.1:port, as the transport names the origin
        net.origin.route("/first", LoopbackRoute(headers: [("Cache-Control", "no-store")], body: "first"))
        #expect(transport.affinity.placement(of: origin) == nil)
        _ = try await net.get("/first")
        #expect(transport.affinity.placement(of: origin) == .spread)
        let threads = try await Self.concurrentTransferThreads(net, count: 8)
        #expect(Set(threads).count > 1, "the HTTP/1.1 origin's transfers spread over the threads")
        try await net.client.shutdown()
        try await net.stop()
    }

    @Test("the table: a new origin is pinned to the least-loaded thread, HTTP/2 keeps it, HTTP/1.x spreads it, a full table starts afresh")
    func placements() {
        let affinity = OriginAffinity(capacity: 2)
        #expect(affinity.loop(for: "https://a", leastLoaded: { 3 }) == 3)
        #expect(affinity.loop(for: "https://a", leastLoaded: { 0 }) == 3)
        affinity.record(.http2, for: "https://a")
        affinity.record(nil, for: "https://a")  // a failed transfer: nothing learnt
        #expect(affinity.placement(of: "https://a") == .pinned(3))
        #expect(affinity.loop(for: "https://b", leastLoaded: { 1 }) == 1)
        affinity.record(.http1_1, for: "https://b")
        #expect(affinity.placement(of: "https://b") == .spread)
        #expect(affinity.loop(for: "https://b", leastLoaded: { 2 }) == 2)
        #expect(affinity.loop(for: "https://b", leastLoaded: { 0 }) == 0)
        // A third origin finds the table full: it starts afresh.
        #expect(affinity.loop(for: "https://c", leastLoaded: { 1 }) == 1)
        #expect(affinity.placement(of: "https://a") == nil)
        #expect(affinity.placement(of: "https://c") == .pinned(1))
    }
}
