import CacheChain
import CacheChainCurl
import CacheChainLoopback
import CacheChainTesting
import Foundation
import HTTPTypes
import Testing

/// A transfer coding libcurl does not know (issue 45.2) through libcurl and the loopback origin, in a private and
/// a shared cache: the body is read until the connection closes when `chunked` is not the final coding (RFC 9112
/// §6.3), de-chunked when it is, delivered as received, and stored without `Transfer-Encoding`.
@Suite("unknown transfer codings", .tags(.integration))
struct UnknownTransferCodingEndToEndTests {
    static let modes: [CacheMode] = [.privateCache, .sharedCache]

    /// `(Transfer-Encoding, raw body on the wire, body delivered)`.
    static let cases: [(String, String, String)] = [
        ("foo", "read until the close", "read until the close"),
        ("gzip, foo", "not gzip at all", "not gzip at all"),
        ("x-custom;p=1", "with a parameter", "with a parameter"),
        ("foo, chunked", "5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n", "hello world"),
    ]

    @Test("delivered, stored without Transfer-Encoding, then served from the cache", arguments: Self.modes)
    func deliveredAndStored(_ mode: CacheMode) async throws {
        let origin = try await LoopbackOrigin.start()
        let client = HTTPCacheClient(
            transport: CurlTransport(),
            configuration: .init(storage: MemoryStorage(capacity: 8 << 20), policy: CachePolicyConfiguration(mode: mode), clock: ManualClock())
        )
        do {
            for (index, (coding, wire, delivered)) in Self.cases.enumerated() {
                let path = "/coded\(index)"
                origin.route(path, LoopbackRoute(rawResponse: "HTTP/1.1 200 OK\r\nCache-Control: public, max-age=600\r\n"
                    + "Transfer-Encoding: \(coding)\r\nConnection: close\r\n\r\n\(wire)"))
                let first = try await client.data(for: HTTPRequest(url: origin.url(path)))
                #expect(first.head.status == .ok, "\(coding)")
                #expect(first.body.string == delivered, "\(coding)")
                #expect(first.head.headerFields[.transferEncoding] == nil, "\(coding): hop-by-hop, never passed on")
                #expect(first.head.headerFields[.contentLength] == String(delivered.utf8.count))
                let second = try await client.data(for: HTTPRequest(url: origin.url(path)))
                #expect(second.cacheStatus == .hit, "\(coding): \(second.trace)")
                #expect(second.body.string == delivered)
                #expect(second.head.headerFields[.transferEncoding] == nil, "stored without it")
                #expect(origin.requestCount(for: path) == 1)
            }
        } catch {
            try? await client.shutdown()
            try? await origin.shutdown()
            throw error
        }
        try await client.shutdown()
        try await origin.shutdown()
    }

    @Test("plain chunked keeps libcurl's decoding")
    func knownCodingsUnchanged() async throws {
        let origin = try await LoopbackOrigin.start()
        let client = HTTPCacheClient(transport: CurlTransport(), configuration: .init(storage: MemoryStorage(capacity: 8 << 20), clock: ManualClock()))
        do {
            origin.route("/chunked", LoopbackRoute(rawResponse: "HTTP/1.1 200 OK\r\nCache-Control: max-age=600\r\n"
                + "Transfer-Encoding: chunked\r\nContent-Encoding: identity\r\n\r\n3\r\nabc\r\n0\r\n\r\n"))
            let chunked = try await client.data(for: HTTPRequest(url: origin.url("/chunked")))
            #expect(chunked.body.string == "abc")
            #expect(chunked.head.headerFields[.transferEncoding] == nil)
        } catch {
            try? await client.shutdown()
            try? await origin.shutdown()
            throw error
        }
        try await client.shutdown()
        try await origin.shutdown()
    }
}
