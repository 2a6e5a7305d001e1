import CacheChain
import CacheChainCurl
import CacheChainLoopback
import Foundation
import HTTPTypes
import Testing

@Suite("CurlTransport against a loopback origin", .tags(.integration))
struct CurlTransportTests {
    @Test("connections are reused across sequential requests (keep-alive)", arguments: ProtocolMode.allCases)
    func keepAlive(_ mode: ProtocolMode) async throws {
        try await withNetwork(mode) { net in
            net.origin.route("/k", LoopbackRoute(headers: [("Cache-Control", "no-store")], body: "k"))
            for _ in 0..<10 { _ = try await net.get("/k") }
            #expect(net.origin.requestCount(for: "/k") == 10)
            #expect(net.origin.connectionCount == 1)
        }
    }

    @Test("gzip is decoded and the cached head describes the decoded body", arguments: ProtocolMode.allCases)
    func decompression(_ mode: ProtocolMode) async throws {
        let gzip: [UInt8] = [
            31, 139, 8, 0, 0, 0, 0, 0, 2, 3, 203, 72, 205, 201, 201, 87, 72, 206, 207, 45, 40, 74, 45, 46, 78, 77, 81,
            40, 207, 47, 202, 73, 81, 200, 24, 21, 30, 122, 194, 0, 184, 96, 235, 144, 204, 1, 0, 0,
        ]
        let plain = String(repeating: "hello compressed world ", count: 20)
        try await withNetwork(mode) { net in
            net.origin.route("/z", LoopbackRoute(headers: [("Cache-Control", "max-age=60"), ("Content-Encoding", "gzip")], body: .bytes(gzip)))
            let first = try await net.get("/z")
            #expect(first.body.string == plain)
            #expect(first.head.headerFields[.contentEncoding] == nil)
            #expect(first.head.headerFields[.contentLength] == String(plain.utf8.count))
            #expect(net.origin.receivedRequests.last?.header("Accept-Encoding")?.contains("gzip") == true)
            let hit = try await net.get("/z")
            #expect(hit.cacheStatus == .hit)
            #expect(hit.body.string == plain)
            #expect(hit.head.headerFields[.contentEncoding] == nil)
        }
    }

    @Test("a request timeout is a timed-out error naming the URL")
    func timeout() async throws {
        let origin = try await LoopbackOrigin.start()
        origin.route("/slow", LoopbackRoute(body: "late", delay: .seconds(5)))
        let client = HTTPCacheClient(transport: CurlTransport(), configuration: .init(timeout: .milliseconds(200)))
        let error = await #expect(throws: CacheChainError.self) { try await client.data(for: HTTPRequest(url: origin.url("/slow"))) }
        #expect(error?.code == .timedOut)
        #expect(error?.message.contains("/slow") == true)
        try await origin.shutdown()
    }

    /// `preferringLibcurlThread`: the task runs on `CurlTransport.taskExecutor` (its transfer is handed over and
    /// cancelled from the libcurl thread's own queue) instead of Swift's default pool.
    @Test("cancelling the task aborts the transfer promptly and stores nothing", arguments: [false, true])
    func cancellation(preferringLibcurlThread: Bool) async throws {
        let origin = try await LoopbackOrigin.start()
        let (arrivals, arrived) = AsyncStream<Void>.makeStream()
        origin.route("/hang", handler: { _ in
            arrived.yield()
            return LoopbackRoute(headers: [("Cache-Control", "max-age=60")], body: "never", delay: .seconds(30))
        })
        let storage = MemoryStorage(capacity: 1 << 20)
        let transport = CurlTransport()
        let client = HTTPCacheClient(transport: transport, configuration: .init(storage: storage))
        let request = try HTTPRequest(url: origin.url("/hang"))
        let task = Task(executorPreference: preferringLibcurlThread ? transport.taskExecutor : nil) {
            try await client.data(for: request)
        }
        var iterator = arrivals.makeAsyncIterator()
        _ = await iterator.next()
        task.cancel()
        let result = await task.result
        #expect(throws: (any Error).self) { try result.get() }
        if case .failure(let error as CacheChainError) = result { #expect(error.code == .cancelled) }
        #expect(try await client.cachedResponse(for: request) == nil)
        #expect(await storage.usage().entryCount == 0)
        try await origin.shutdown()
    }

    @Test("a wrong public key pin fails the TLS connection with libcurl's explanation")
    func pinMismatch() async throws {
        let origin = try await LoopbackOrigin.start(tls: true)
        origin.route("/t", LoopbackRoute(body: "tls"))
        let caFile = try LoopbackCertificate.writeCertificate(to: NSTemporaryDirectory())
        let good = HTTPCacheClient(transport: CurlTransport(configuration: .init(caFile: caFile, pinnedPublicKey: LoopbackCertificate.publicKeyPin)))
        #expect(try await good.data(for: HTTPRequest(url: origin.url("/t"))).body.string == "tls")
        let wrongPin = "sha256//AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="
        let bad = HTTPCacheClient(transport: CurlTransport(configuration: .init(caFile: caFile, pinnedPublicKey: wrongPin)))
        let error = await #expect(throws: CacheChainError.self) { try await bad.data(for: HTTPRequest(url: origin.url("/t"))) }
        #expect(error?.code == .transportFailed)
        #expect(error?.message.lowercased().contains("pin") == true || error?.message.contains("public key") == true, "\(error?.message ?? "")")
        let untrusted = HTTPCacheClient(transport: CurlTransport())
        await #expect(throws: CacheChainError.self) { try await untrusted.data(for: HTTPRequest(url: origin.url("/t"))) }
        try await origin.shutdown()
    }

    @Test(
        "200 concurrent requests for one cold URL reach the origin once; 200 different URLs all succeed",
        arguments: ProtocolMode.allCases
    )
    func concurrency(_ mode: ProtocolMode) async throws {
        try await withNetwork(mode, outer: [RequestCoalescingInterceptor()]) { net in
            net.origin.route("/cold", LoopbackRoute(headers: [("Cache-Control", "max-age=60")], body: "shared", delay: .milliseconds(200)))
            let bodies = try await withThrowingTaskGroup(of: String?.self) { group in
                for _ in 0..<200 { group.addTask { try await net.get("/cold").body.string } }
                return try await group.reduce(into: [String?]()) { $0.append($1) }
            }
            #expect(bodies.count == 200 && bodies.allSatisfy { $0 == "shared" })
            #expect(net.origin.requestCount(for: "/cold") == 1)

            net.origin.route("/many", handler: { request in
                LoopbackRoute(headers: [("Cache-Control", "max-age=60")], body: request.path)
            })
            let paths = (0..<200).map { "/many?i=\($0)" }
            let answers = try await withThrowingTaskGroup(of: (String, String?).self) { group in
                for path in paths { group.addTask { (path, try await net.get(path).body.string) } }
                return try await group.reduce(into: [(String, String?)]()) { $0.append($1) }
            }
            #expect(answers.count == 200)
            #expect(answers.allSatisfy { $0.0 == $0.1 })
        }
    }
}
