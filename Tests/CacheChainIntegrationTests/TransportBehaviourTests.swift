import CacheChain
import CacheChainLoopback
import CacheChainTesting
import Foundation
import HTTPTypes
import Testing

/// What every transport must do, run through each (``TransportKind``): keep-alive, decoding, timeouts,
/// cancellation and 200 concurrent requests.
@Suite("Each transport against a loopback origin", .tags(.integration))
struct TransportBehaviourTests {
    @Test("connections are reused across sequential requests (keep-alive)", arguments: TransportKind.allCases, ProtocolMode.allCases)
    func keepAlive(_ kind: TransportKind, _ mode: ProtocolMode) async throws {
        try await withNetwork(mode, through: kind) { net in
            net.origin.route("/k", LoopbackRoute(headers: [("Cache-Control", "no-store")], body: "k"))
            for _ in 0..<10 { _ = try await net.get("/k") }
            #expect(net.origin.requestCount(for: "/k") == 10)
            #expect(net.origin.connectionCount == 1)
        }
    }

    @Test("gzip is decoded and the cached head describes the decoded body", arguments: TransportKind.allCases, ProtocolMode.allCases)
    func decompression(_ kind: TransportKind, _ mode: ProtocolMode) async throws {
        let gzip: [UInt8] = [
            31, 139, 8, 0, 0, 0, 0, 0, 2, 3, 203, 72, 205, 201, 201, 87, 72, 206, 207, 45, 40, 74, 45, 46, 78, 77, 81,
            40, 207, 47, 202, 73, 81, 200, 24, 21, 30, 122, 194, 0, 184, 96, 235, 144, 204, 1, 0, 0,
        ]
        let plain = String(repeating: "hello compressed world ", count: 20)
        try await withNetwork(mode, through: kind) { net in
            net.origin.route("/z", LoopbackRoute(headers: [("Cache-Control", "max-age=60"), ("Content-Encoding", "gzip")], body: .bytes(gzip)))
            let first = try await net.get("/z")
            #expect(first.body.string == plain)
            #expect(first.head.headerFields[.contentEncoding] == nil)
            if let length = first.head.headerFields[.contentLength] {
                #expect(length == String(plain.utf8.count), "a Content-Length, if any, is the decoded body's")
            }
            #expect(net.origin.receivedRequests.last?.header("Accept-Encoding")?.contains("gzip") == true)
            let hit = try await net.get("/z")
            #expect(hit.cacheStatus == .hit)
            #expect(hit.body.string == plain)
            #expect(hit.head.headerFields[.contentEncoding] == nil)
        }
    }

    @Test("a request timeout is a timed-out error naming the URL", arguments: TransportKind.allCases)
    func timeout(_ kind: TransportKind) async throws {
        let origin = try await LoopbackOrigin.start()
        // Far longer than the timeout, so that a loaded machine's scheduling delays cannot let the answer win.
        origin.route("/slow", LoopbackRoute(body: "late", delay: .seconds(60)))
        let client = HTTPCacheClient(transport: try kind.makeTransport(), configuration: .init(timeout: .milliseconds(200)))
        let error = await #expect(throws: CacheChainError.self) { try await client.data(for: HTTPRequest(url: origin.url("/slow"))) }
        #expect(error?.code == .timedOut)
        #expect(error?.message.contains("/slow") == true, "\(error?.message ?? "")")
        try await client.shutdown()
        try await origin.shutdown()
    }

    @Test("the timeout covers the body too: a body that stalls after the head is a timed-out error", arguments: TransportKind.allCases)
    func timeoutWhileReadingTheBody(_ kind: TransportKind) async throws {
        let origin = try await LoopbackOrigin.start()
        // The head and 64 KiB arrive at once; the rest of the announced megabyte never does.
        origin.route("/endless", LoopbackRoute(body: .stalled(count: 1 << 20, sentBeforeStall: 64 << 10)))
        let spool = NSTemporaryDirectory() + "cachechain-spool-test-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: spool) }
        let client = HTTPCacheClient(
            transport: try kind.makeTransport(inMemoryBodyLimit: 1 << 20, spoolDirectory: spool),
            configuration: .init(timeout: .seconds(1))
        )
        let error = await #expect(throws: CacheChainError.self) { try await client.data(for: HTTPRequest(url: origin.url("/endless"))) }
        #expect(error?.code == .timedOut, "\(String(describing: error))")
        #expect(((try? FileManager.default.contentsOfDirectory(atPath: spool)) ?? []).isEmpty, "the partial spool file is deleted")
        try await client.shutdown()
        try await origin.shutdown()
    }

    @Test("cancelling the task aborts the transfer promptly and stores nothing", arguments: TransportKind.allCases)
    func cancellation(_ kind: TransportKind) async throws {
        let origin = try await LoopbackOrigin.start()
        let (arrivals, arrived) = AsyncStream<Void>.makeStream()
        origin.route("/hang", handler: { _ in
            arrived.yield()
            return LoopbackRoute(headers: [("Cache-Control", "max-age=60")], body: "never", delay: .seconds(30))
        })
        let storage = MemoryStorage(capacity: 1 << 20)
        let client = HTTPCacheClient(transport: try kind.makeTransport(), configuration: .init(storage: storage))
        let request = try HTTPRequest(url: origin.url("/hang"))
        let task = Task { try await client.data(for: request) }
        var iterator = arrivals.makeAsyncIterator()
        _ = await iterator.next()
        task.cancel()
        let result = await task.result
        #expect(throws: CacheChainError.self) { try result.get() }
        if case .failure(let error as CacheChainError) = result { #expect(error.code == .cancelled) }
        #expect(try await client.cachedResponse(for: request) == nil)
        #expect(await storage.usage().entryCount == 0)
        try await client.shutdown()
        try await origin.shutdown()
    }

    @Test(
        "200 concurrent requests for one cold URL reach the origin once; 200 different URLs all succeed",
        arguments: TransportKind.allCases, ProtocolMode.allCases
    )
    func concurrency(_ kind: TransportKind, _ mode: ProtocolMode) async throws {
        try await withNetwork(mode, through: kind) { net in  // the default chain coalesces
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
