import CacheChain
import CacheChainCurl
import CacheChainEncryption
import CacheChainFoundation
import CacheChainLoopback
import CacheChainTesting
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import HTTPTypes
import Testing

/// Cancellation, failures, request bodies and several sessions side by side, through a real `URLSession`.
@Suite("URLSession through CacheChain: tasks")
struct URLSessionTaskTests {
    @Test("cancel() ends the task at once with URLError.cancelled while the origin still holds its answer; nothing is stored")
    func cancellation() async throws {
        try await withLoopbackSession { net in
            let gate = LoopbackGate()
            var route = LoopbackRoute(headers: [("Cache-Control", "max-age=60")], body: "late")
            route.gate = gate
            net.origin.route("/slow", route)
            let outcome = LockedValue<(error: (any Error)?, gateWasOpen: Bool)?>(nil)
            let task = net.session.dataTask(with: net.url("/slow")) { _, _, error in
                outcome.withLock { $0 = (error, gate.isOpen) }
            }
            task.resume()
            try await waitUntil("the request reached the origin") { gate.waitingCount == 1 }
            task.cancel()
            try await waitUntil("the task completed") { outcome.withLock { $0 != nil } }
            let result = try #require(outcome.withLock { $0 })
            #expect((result.error as? URLError)?.code == .cancelled)
            #expect(!result.gateWasOpen, "the task ended without waiting for the origin")
            gate.open()
            // A cancelled load stores nothing: the next request misses and reaches the origin again.
            #expect(try await net.fetch("/slow").body == "late")
            #expect(net.origin.requestCount(for: "/slow") == 2)
            #expect(net.probe.decisions == [.miss], "the cancelled load decided nothing; the second one missed")
        }
    }

    @Test("a timeout is URLError.timedOut")
    func timeout() async throws {
        try await withLoopbackSession { net in
            let gate = LoopbackGate()
            var route = LoopbackRoute(body: "never in time")
            route.gate = gate
            net.origin.route("/stuck", route)
            var request = net.request("/stuck")
            request.timeoutInterval = 0.3
            let error = await #expect(throws: URLError.self) { _ = try await net.session.data(for: request) }
            #expect(error?.code == .timedOut)
            gate.open()
            // An infinite or absurd interval leaves the client's own limit (no overflow, no instant timeout).
            for interval in [TimeInterval.greatestFiniteMagnitude, .infinity] {
                request.timeoutInterval = interval
                let (data, _) = try await net.session.data(for: request)
                #expect(String(decoding: data, as: UTF8.self) == "never in time")
            }
        }
    }

    @Test("a refused connection is URLError.cannotConnectToHost; an untrusted certificate is serverCertificateUntrusted")
    func connectionFailures() async throws {
        let closed = try await LoopbackOrigin.start()
        let url = try #require(URL(string: closed.url("/gone")))
        try await closed.shutdown()
        let session = URLSession(configuration: .ephemeral.usingCacheChain(HTTPCacheClient(transport: CurlTransport())))
        defer { session.invalidateAndCancel() }
        let refused = await #expect(throws: URLError.self) { _ = try await session.data(from: url) }
        #expect(refused?.code == .cannotConnectToHost)
        #expect(refused?.localizedDescription.contains("transport-failed") == true)

        let tls = try await LoopbackOrigin.start(tls: true)
        defer { Task { try await tls.shutdown() } }
        tls.route("/secure", LoopbackRoute(body: "x"))
        let untrusted = await #expect(throws: URLError.self) { _ = try await session.data(from: try #require(URL(string: tls.url("/secure")))) }
        #expect(untrusted?.code == .serverCertificateUntrusted)
    }

    @Test("httpBodyStream, upload tasks from data and from a file send their bodies")
    func requestBodies() async throws {
        try await withLoopbackSession { net in
            net.origin.route("/upload", handler: { request in LoopbackRoute(body: "got \(request.body.count) bytes") })
            var streamed = net.request("/upload", method: "PUT")
            streamed.httpBodyStream = InputStream(data: Data(repeating: 1, count: 200_000))
            let (first, _) = try await net.session.data(for: streamed)
            #expect(String(decoding: first, as: UTF8.self) == "got 200000 bytes")

            let (second, _) = try await net.session.upload(for: net.request("/upload", method: "POST"), from: Data("abc".utf8))
            #expect(String(decoding: second, as: UTF8.self) == "got 3 bytes")

            let file = FileManager.default.temporaryDirectory.appendingPathComponent("cachechain-upload-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: file) }
            try Data(repeating: 2, count: 70_000).write(to: file)
            let (third, _) = try await net.session.upload(for: net.request("/upload", method: "POST"), fromFile: file)
            #expect(String(decoding: third, as: UTF8.self) == "got 70000 bytes")
            #expect(net.origin.receivedRequests.map(\.body.count) == [200_000, 3, 70_000])
        }
    }

    @Test("download tasks are answered by FoundationNetworking's own loader, uncached")
    func downloadTasksPassThrough() async throws {
        try await withLoopbackSession { net in
            net.origin.route("/file", LoopbackRoute(headers: [("Cache-Control", "max-age=60")], body: "file body"))
            for _ in 0..<2 {
                let (location, response) = try await net.session.download(from: net.url("/file"))
                #expect((response as? HTTPURLResponse)?.statusCode == 200)
                #expect(try String(contentsOf: location, encoding: .utf8) == "file body")
            }
            #expect(net.origin.requestCount(for: "/file") == 2)
            #expect(net.probe.decisions.isEmpty)
        }
    }

    @Test("two sessions with different clients (one encrypted on disk, one in memory) keep separate caches side by side")
    func sessionsSideBySide() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("cachechain-side-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let origin = try await LoopbackOrigin.start(tls: true)
        origin.route("/account", LoopbackRoute(headers: [("Cache-Control", "max-age=60")], body: "balance: 12"))
        let keys = InMemoryKeyProvider(key: try EncryptionKey.random())
        var encryptedConfiguration = HTTPCacheClient.Configuration(storage: MemoryStorage(capacity: 1 << 20))
        encryptedConfiguration.encryptHTTPS(with: EncryptedStorage(wrapping: try DiskStorage(directory: directory.path), keys: keys))
        let encrypted = HTTPCacheClient(transport: try LoopbackSession.makeTransport(.https), configuration: encryptedConfiguration)
        let memory = HTTPCacheClient(transport: try LoopbackSession.makeTransport(.https))
        let first = URLSession(configuration: .ephemeral.usingCacheChain(encrypted))
        let second = URLSession(configuration: .ephemeral.usingCacheChain(memory))
        defer {
            first.invalidateAndCancel()
            second.invalidateAndCancel()
        }
        let url = try #require(URL(string: origin.url("/account")))
        for session in [first, second, first, second] {
            let (data, _) = try await session.data(from: url)
            #expect(String(decoding: data, as: UTF8.self) == "balance: 12")
        }
        #expect(origin.requestCount(for: "/account") == 2, "each session missed once, then hit its own cache")
        let head = try HTTPRequest(url: origin.url("/account"))
        #expect(try await encrypted.cachedResponse(for: head) != nil)
        #expect(try await memory.cachedResponse(for: head) != nil)
        let sealed = try FileManager.default.subpathsOfDirectory(atPath: directory.path)
        #expect(!sealed.isEmpty, "the encrypted client wrote its entry to its own disk")
        try await memory.removeAllCachedResponses()
        _ = try await first.data(from: url)
        #expect(origin.requestCount(for: "/account") == 2, "clearing one client leaves the other's entries")
        try await origin.shutdown()
    }
}
