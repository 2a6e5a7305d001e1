import CacheChain
import CacheChainFoundation
import CacheChainLoopback
import CacheChainTesting
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing

/// Stored parts (issue 45.3) through a real `URLSession` configured with `usingCacheChain`, over libcurl to the
/// loopback origin.
@Suite("URLSession through CacheChain: stored 206 parts")
struct URLSessionPartialContentTests {
    @Test("a stored 206 answers a covered range from the cache", arguments: Scheme.allCases)
    func storedPartServed(_ scheme: Scheme) async throws {
        try await withLoopbackSession(scheme) { net in
            var route = LoopbackRoute(headers: [("Cache-Control", "max-age=600")], body: .bytes((0..<100).map { UInt8($0) }), etag: "\"v1\"")
            route.servesRanges = true
            net.origin.route("/r", route)
            func fetch(_ range: String) async throws -> (Data, HTTPURLResponse?) {
                var request = net.request("/r")
                request.setValue(range, forHTTPHeaderField: "Range")
                let (data, response) = try await net.session.data(for: request)
                return (data, response as? HTTPURLResponse)
            }
            let (first, firstResponse) = try await fetch("bytes=10-59")
            #expect(firstResponse?.statusCode == 206)
            #expect(first.count == 50)
            let (part, response) = try await fetch("bytes=20-29")
            #expect(response?.statusCode == 206)
            #expect(response?.value(forHTTPHeaderField: "Content-Range") == "bytes 20-29/100")
            #expect(Array(part) == (20..<30).map { UInt8($0) })
            #expect(net.origin.requestCount(for: "/r") == 1)
            #expect(net.probe.decisions.last == .hit)
        }
    }
}
