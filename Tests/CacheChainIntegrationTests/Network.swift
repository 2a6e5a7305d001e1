import CacheChain
import CacheChainCurl
import CacheChainLoopback
import CacheChainTesting
import Foundation
import HTTPTypes

/// An origin on loopback, a real `CurlTransport` and a client with a manual clock (so tests can age
/// entries without waiting).
struct Network {
    let origin: LoopbackOrigin
    let transport: CurlTransport
    let clock = ManualClock()
    let storage = MemoryStorage(capacity: 64 << 20)
    let client: HTTPCacheClient

    static func start(tls: Bool = false, pin: String? = nil, outer: [any HTTPInterceptor] = []) async throws -> Network {
        let origin = try await LoopbackOrigin.start(tls: tls)
        let caFile = tls ? try LoopbackCertificate.writeCertificate(to: NSTemporaryDirectory()) : nil
        let transport = CurlTransport(configuration: .init(caFile: caFile, pinnedPublicKey: pin))
        return Network(origin: origin, transport: transport, outer: outer)
    }

    private init(origin: LoopbackOrigin, transport: CurlTransport, outer: [any HTTPInterceptor]) {
        self.origin = origin
        self.transport = transport
        client = HTTPCacheClient(
            transport: transport,
            configuration: .init(storage: storage, clock: clock, timeout: .seconds(20), outerInterceptors: outer)
        )
    }

    /// The current time as an HTTP-date, for `Date` headers that agree with the manual clock.
    var date: String { HTTPDate.format(clock.now()) }

    func get(
        _ path: String,
        _ headers: [(HTTPField.Name, String)] = [],
        policy: RequestCachePolicy? = nil
    ) async throws -> PipelineResponse {
        var request = try HTTPRequest(url: origin.url(path))
        for (name, value) in headers { request.headerFields.append(HTTPField(name: name, value: value)) }
        return try await client.data(for: request, cachePolicy: policy)
    }

    func stop() async throws {
        try await origin.shutdown()
    }
}

/// Runs `body` with a started network and always stops the origin.
func withNetwork<T>(
    tls: Bool = false,
    outer: [any HTTPInterceptor] = [],
    _ body: (Network) async throws -> T
) async throws -> T {
    let network = try await Network.start(tls: tls, outer: outer)
    do {
        let result = try await body(network)
        await network.client.waitForBackgroundRevalidations()
        try await network.stop()
        return result
    } catch {
        try? await network.stop()
        throw error
    }
}
