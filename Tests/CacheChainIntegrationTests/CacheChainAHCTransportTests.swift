import AsyncHTTPClient
import CacheChain
@testable import CacheChainAsyncHTTPClient
import CacheChainLoopback
import CacheChainTesting
import Foundation
import HTTPTypes
import NIOCore
import NIOHTTP1
import Testing

/// CacheChainAHCTransport's own rules: whose `HTTPClient` it shuts down, redirects left to the cache's
/// `RedirectInterceptor`, streamed request bodies, the body size limit. What every transport does is in
/// `EndToEndCachingTests`, `TransportBehaviourTests` and `LargeBodyTests`.
@Suite("CacheChainAHCTransport against a loopback origin", .tags(.integration))
struct CacheChainAHCTransportTests {
    @Test("a client of your own that follows redirects is refused at construction, saying what to do")
    func redirectFollowingClientIsRefused() async throws {
        let origin = try await LoopbackOrigin.start()
        origin.route("/old", LoopbackRoute(status: 301, headers: [("Location", "/new")], body: "moved"))
        origin.route("/new", LoopbackRoute(headers: [("Cache-Control", "max-age=60")], body: "here"))
        let following = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: .init(redirectConfiguration: .follow(max: 5, allowCycles: false)))
        let error = #expect(throws: CacheChainError.self) { try CacheChainAHCTransport(client: following) }
        #expect(error?.code == .invalidConfiguration)
        #expect(error?.message.contains("redirectConfiguration: .disallow") == true, "\(error?.message ?? "")")
        #expect(CacheChainAHCTransport.followsRedirects(HTTPClient.shared) == true, "HTTPClient.shared follows, so it is refused too")

        let disallowing = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: .init(redirectConfiguration: .disallow))
        #expect(CacheChainAHCTransport.followsRedirects(disallowing) == false)
        let redirecting = HTTPCacheClient(transport: try CacheChainAHCTransport(client: disallowing))
        let followed = try await redirecting.data(for: HTTPRequest(url: origin.url("/old")))
        #expect(followed.body.string == "here")
        #expect(followed.trace.first?.code == .redirected, "the cache follows the redirect itself")
        try await redirecting.shutdown()
        try await following.shutdown()
        try await disallowing.shutdown()
        try await origin.shutdown()
    }

    @Test("shutdown() shuts down the HTTPClient the transport created, never one it was given")
    func ownership() async throws {
        let origin = try await LoopbackOrigin.start()
        origin.route("/a", LoopbackRoute(headers: [("Cache-Control", "no-store")], body: "a"))
        let request = try HTTPRequest(url: origin.url("/a"))

        let owning = CacheChainAHCTransport()
        let client = HTTPCacheClient(transport: owning)
        #expect(try await client.data(for: request).body.string == "a")
        try await client.shutdown()
        try await client.shutdown()
        let refused = await #expect(throws: CacheChainError.self) { try await client.data(for: request) }
        #expect(refused?.code == .cancelled)
        await #expect(throws: HTTPClientError.alreadyShutdown) { try await owning.client.shutdown() }

        let shared = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: .init(redirectConfiguration: .disallow))
        let borrowing = HTTPCacheClient(transport: try CacheChainAHCTransport(client: shared))
        #expect(try await borrowing.data(for: request).body.string == "a")
        try await borrowing.shutdown()
        let direct = try await shared.execute(HTTPClientRequest(url: origin.url("/a")), timeout: .seconds(10))
        #expect(direct.status.code == 200, "the borrowed client still works")
        _ = try await direct.body.collect(upTo: 1 << 10)
        try await shared.shutdown()
        try await origin.shutdown()
    }

    @Test("a file-backed request body is streamed to the origin byte for byte")
    func streamedRequestBody() async throws {
        let origin = try await LoopbackOrigin.start()
        origin.route("/upload", LoopbackRoute(status: 201, body: "stored"))
        let directory = NSTemporaryDirectory() + "cachechain-upload-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let bytes = (0..<(3 << 20)).map { UInt8($0 % 241) }
        let writer = try BodyFileWriter(directory: directory)
        try writer.append(bytes)
        let body = try writer.finish()
        #expect(body.file != nil)
        let client = HTTPCacheClient(transport: CacheChainAHCTransport())
        let response = try await client.data(for: HTTPRequest(method: .post, url: origin.url("/upload")), body: body)
        #expect(response.head.status.code == 201)
        let received = try #require(origin.receivedRequests.last)
        #expect(received.body == bytes)
        #expect(received.header("Content-Length") == String(bytes.count))
        try await client.shutdown()
        try await origin.shutdown()
    }

    @Test("a body over maximumBodySize fails with transport-failed naming the limit, and leaves no spool file")
    func maximumBodySize() async throws {
        let origin = try await LoopbackOrigin.start()
        origin.route("/big", LoopbackRoute(body: .generated(count: 3 << 20)))
        let spool = NSTemporaryDirectory() + "cachechain-spool-test-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: spool) }
        let transport = CacheChainAHCTransport(configuration: .init(maximumBodySize: 2 << 20, inMemoryBodyLimit: 1 << 20, spoolDirectory: spool))
        let client = HTTPCacheClient(transport: transport)
        let error = await #expect(throws: CacheChainError.self) { try await client.data(for: HTTPRequest(url: origin.url("/big"))) }
        #expect(error?.code == .transportFailed)
        #expect(error?.message.contains("maximumBodySize") == true, "\(error?.message ?? "")")
        #expect(((try? FileManager.default.contentsOfDirectory(atPath: spool)) ?? []).isEmpty)
        try await client.shutdown()
        try await origin.shutdown()
    }

    @Test("a connection NIO reports closed under the request is a transport failure that names the connection")
    func connectionClosedUnderTheRequest() throws {
        // AsyncHTTPClient hands out a pooled connection the origin has just closed as `ChannelError`, not as one of
        // its own errors; seen as "I/O on closed channel" after an origin went down.
        let request = try HTTPRequest(url: "http://127.0.0.1:1/p")
        for channelError in [ChannelError.ioOnClosedChannel, .eof, .alreadyClosed] {
            let error = CacheChainAHCTransport.wrap(
                channelError, url: "http://127.0.0.1:1/p", timeout: .seconds(1), request: request, isShutDown: false
            )
            #expect(error.code == .transportFailed)
            #expect(error.message.contains("connection to http://127.0.0.1:1/p closed"), "\(error.message)")
            #expect(error.request == request)
        }
    }
}
