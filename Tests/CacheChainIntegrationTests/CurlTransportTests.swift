import CacheChain
import CacheChainCurl
import CacheChainLoopback
import Foundation
import HTTPTypes
import Testing

/// libcurl's own features (public key pins, its thread as a task executor); what every transport does is in
/// `TransportBehaviourTests` and `EndToEndCachingTests`.
@Suite("CurlTransport against a loopback origin", .tags(.integration))
struct CurlTransportTests {
    /// The task runs on `CurlTransport.taskExecutor` (its transfer is handed over and cancelled from the libcurl
    /// thread's own queue); the same scenario on Swift's default pool runs for every transport in
    /// `TransportBehaviourTests`.
    @Test("cancelling a task that prefers the libcurl thread aborts the transfer promptly and stores nothing")
    func cancellationOnTheLibcurlThread() async throws {
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
        let task = Task(executorPreference: transport.taskExecutor) {
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
}
