import CacheChain
import CacheChainCurl
import CacheChainLoopback
import CacheChainTesting
import Foundation
import HTTPTypes
import Testing

/// A stored head never contradicts its body: an origin that frames its messages wrongly (RFC 9112 §6.3) or
/// sends trailer fields, seen through the libcurl transport, and what the cache then serves.
@Suite("Misbehaving origin: framing and trailers", .tags(.integration))
struct MisbehavingOriginTests {
    /// Over plain HTTP and HTTPS/1.1 (raw answers are HTTP/1.1 byte streams).
    static let modes: [ProtocolMode] = [.http, .https1_1]

    @Test("chunked with Content-Length: 15 and a 5-byte body: the head says 5, and the conflicting framing is not stored", arguments: modes)
    func chunkedWithContentLength(_ mode: ProtocolMode) async throws {
        try await withNetwork(mode) { network in
            network.origin.route("/te-cl", LoopbackRoute(rawResponse: """
                HTTP/1.1 200 OK\r\nCache-Control: max-age=600\r\nTransfer-Encoding: chunked\r\nContent-Length: 15\r\n\r\n\
                5\r\nhello\r\n0\r\n\r\n
                """))
            let first = try await network.get("/te-cl")
            #expect(first.body.string == "hello")
            #expect(first.head.headerFields[values: .contentLength] == ["5"])
            #expect(first.head.headerFields[.transferEncoding] == nil)
            #expect(first.trace.contains { $0.code.rawValue == "framing" }, "\(first.trace)")
            let second = try await network.get("/te-cl")
            #expect(second.cacheStatus == .miss, "not stored: \(second.trace)")
            #expect(network.origin.requestCount(for: "/te-cl") == 2)
        }
    }

    @Test("two different Content-Length values: nothing is stored, and no head says two lengths", arguments: modes)
    func conflictingContentLengths(_ mode: ProtocolMode) async throws {
        try await withNetwork(mode) { network in
            network.origin.route("/cl-cl", LoopbackRoute(rawResponse: """
                HTTP/1.1 200 OK\r\nCache-Control: max-age=600\r\nContent-Length: 5\r\nContent-Length: 15\r\nConnection: close\r\n\r\nhello
                """))
            do {
                let first = try await network.get("/cl-cl")
                #expect(first.head.headerFields[values: .contentLength] == [String(first.body.count)])
                #expect(first.trace.contains { $0.code.rawValue == "framing" }, "\(first.trace)")
            } catch let error as CacheChainError {
                #expect(error.message.contains("Content-Length"), "\(error)")
            }
            #expect(try await network.client.cachedResponse(for: HTTPRequest(url: network.origin.url("/cl-cl"))) == nil)
        }
    }

    @Test("the same Content-Length twice is one length: stored with one Content-Length field", arguments: modes)
    func repeatedContentLength(_ mode: ProtocolMode) async throws {
        try await withNetwork(mode) { network in
            network.origin.route("/cl2", LoopbackRoute(rawResponse: """
                HTTP/1.1 200 OK\r\nCache-Control: max-age=600\r\nContent-Length: 5\r\nContent-Length: 5\r\nConnection: close\r\n\r\nhello
                """))
            _ = try await network.get("/cl2")
            let second = try await network.get("/cl2")
            #expect(second.cacheStatus == .hit)
            #expect(second.body.string == "hello")
            #expect(second.head.headerFields[values: .contentLength] == ["5"])
        }
    }

    @Test("a 204 with Content-Length is stored and served without it", arguments: modes)
    func noContentWithLength(_ mode: ProtocolMode) async throws {
        try await withNetwork(mode) { network in
            network.origin.route("/204", LoopbackRoute(rawResponse: """
                HTTP/1.1 204 No Content\r\nCache-Control: max-age=600\r\nContent-Length: 5\r\nConnection: close\r\n\r\n
                """))
            let first = try await network.get("/204")
            #expect(first.head.status == .noContent)
            #expect(first.head.headerFields[.contentLength] == nil)
            let second = try await network.get("/204")
            #expect(second.cacheStatus == .hit)
            #expect(second.head.headerFields[.contentLength] == nil)
            #expect(second.body.count == 0)
        }
    }

    @Test("a 304 with Content-Length freshens the stored response but never its length", arguments: modes)
    func notModifiedWithLength(_ mode: ProtocolMode) async throws {
        try await withNetwork(mode) { network in
            network.origin.route("/304", LoopbackRoute(rawResponse: """
                HTTP/1.1 200 OK\r\nCache-Control: max-age=0\r\nETag: "v1"\r\nContent-Length: 5\r\nConnection: close\r\n\r\nhello
                """))
            _ = try await network.get("/304")
            network.origin.route("/304", LoopbackRoute(rawResponse: """
                HTTP/1.1 304 Not Modified\r\nCache-Control: max-age=600\r\nETag: "v1"\r\nContent-Length: 42\r\nConnection: close\r\n\r\n
                """))
            let revalidated = try await network.get("/304")
            #expect(revalidated.head.status == .ok)
            #expect(revalidated.body.string == "hello")
            #expect(revalidated.head.headerFields[values: .contentLength] == ["5"])
            let third = try await network.get("/304")
            #expect(third.cacheStatus == .hit, "freshened by the 304: \(third.trace)")
            #expect(third.head.headerFields[values: .contentLength] == ["5"])
            #expect(third.body.string == "hello")
            #expect(network.origin.requestCount(for: "/304") == 2)
        }
    }

    @Test("trailer fields never change caching: a trailer Cache-Control: max-age=99999 does not make the response fresh", arguments: modes)
    func trailersIgnored(_ mode: ProtocolMode) async throws {
        try await withNetwork(mode) { network in
            network.origin.route("/trailer", LoopbackRoute(rawResponse: """
                HTTP/1.1 200 OK\r\nCache-Control: max-age=0\r\nTrailer: Cache-Control, X-Checksum\r\nTransfer-Encoding: chunked\r\n\r\n\
                5\r\nhello\r\n0\r\nCache-Control: max-age=99999\r\nX-Checksum: abc\r\n\r\n
                """))
            let first = try await network.get("/trailer")
            #expect(first.body.string == "hello")
            #expect(first.head.headerFields[values: .cacheControl] == ["max-age=0"])
            #expect(first.head.headerFields[HTTPField.Name("X-Checksum")!] == nil)
            #expect(first.head.headerFields[values: .contentLength] == ["5"])
            let second = try await network.get("/trailer")
            #expect(second.cacheStatus != .hit, "\(second.trace)")
            #expect(network.origin.requestCount(for: "/trailer") == 2)
        }
    }
}
