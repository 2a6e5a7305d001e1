import CacheChain
import CacheChainCurl
import CacheChainLoopback
import CacheChainTesting
import Foundation
import HTTPTypes
import Testing

/// An origin on loopback, a real transport (``TransportKind``: libcurl or AsyncHTTPClient) and a client with a
/// manual clock (so tests can age entries without waiting), reached over one ``ProtocolMode``.
struct Network {
    let mode: ProtocolMode
    let kind: TransportKind
    let origin: LoopbackOrigin
    let transport: any HTTPTransport
    let clock = ManualClock()
    let storage = MemoryStorage(capacity: 64 << 20)
    let client: HTTPCacheClient

    /// The transport, when it is a `CurlTransport` (for the tests of libcurl's own features).
    var curlTransport: CurlTransport? { transport as? CurlTransport }

    /// Starts an origin and a libcurl transport for a mode, with libcurl-only settings.
    /// - Parameters:
    ///   - mode: Plain HTTP, HTTPS/1.1 or HTTPS/2.
    ///   - offersHTTP2: Whether an HTTPS origin offers `h2` (`false`: an HTTP/1.1-only origin).
    ///   - recordsHTTPVersion: The transport's ``CurlTransport/Configuration/recordsHTTPVersion``.
    ///   - pin: A public key pin for the transport.
    ///   - outer: Interceptors outside the cache.
    ///   - loopCount: libcurl threads; `nil` for `CurlTransport`'s default (one per core).
    static func start(
        _ mode: ProtocolMode = .http,
        offersHTTP2: Bool = true,
        recordsHTTPVersion: Bool = false,
        pin: String? = nil,
        outer: [any HTTPInterceptor] = [],
        loopCount: Int? = nil
    ) async throws -> Network {
        let origin = try await LoopbackOrigin.start(tls: mode.isTLS, offersHTTP2: offersHTTP2)
        let caFile = mode.isTLS ? try LoopbackCertificate.writeCertificate(to: NSTemporaryDirectory()) : nil
        var configuration = CurlTransport.Configuration(
            httpVersion: mode.clientPreference,
            caFile: caFile,
            pinnedPublicKey: pin,
            recordsHTTPVersion: recordsHTTPVersion
        )
        if let loopCount { configuration.loopCount = loopCount }  // else the transport's default
        return Network(mode: mode, kind: .curl, origin: origin, transport: CurlTransport(configuration: configuration), outer: outer)
    }

    /// Starts an origin and a transport of a kind for a mode.
    /// - Parameters:
    ///   - kind: libcurl or AsyncHTTPClient.
    ///   - mode: Plain HTTP, HTTPS/1.1 or HTTPS/2.
    ///   - outer: Interceptors outside the cache.
    ///   - loopCount: libcurl threads; `nil` for `CurlTransport`'s default (one per core).
    static func start(
        _ kind: TransportKind,
        _ mode: ProtocolMode = .http,
        outer: [any HTTPInterceptor] = [],
        loopCount: Int? = nil
    ) async throws -> Network {
        let origin = try await LoopbackOrigin.start(tls: mode.isTLS)
        let caFile = mode.isTLS ? try LoopbackCertificate.writeCertificate(to: NSTemporaryDirectory()) : nil
        let transport = try kind.makeTransport(mode: mode, caFile: caFile, loopCount: loopCount)
        return Network(mode: mode, kind: kind, origin: origin, transport: transport, outer: outer)
    }

    private init(mode: ProtocolMode, kind: TransportKind, origin: LoopbackOrigin, transport: any HTTPTransport, outer: [any HTTPInterceptor]) {
        self.mode = mode
        self.kind = kind
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

    /// Expects that the origin received requests and every one over the mode's HTTP version.
    func expectOriginSawModeVersion(sourceLocation: SourceLocation = #_sourceLocation) {
        let versions = Set(origin.receivedRequests.map(\.version))
        #expect(versions == [mode.originVersion], "\(mode): the origin saw \(versions)", sourceLocation: sourceLocation)
    }

    /// Stops the origin (the client goes on, e.g. to serve stale responses while the origin is down).
    func stop() async throws {
        try await origin.shutdown()
    }
}

/// Runs `body` with a started network, checks that the origin saw only the mode's HTTP version, and
/// always stops the origin.
func withNetwork<T>(
    _ mode: ProtocolMode = .http,
    through kind: TransportKind = .curl,
    outer: [any HTTPInterceptor] = [],
    loopCount: Int? = nil,
    sourceLocation: SourceLocation = #_sourceLocation,
    _ body: (Network) async throws -> T
) async throws -> T {
    let network = try await Network.start(kind, mode, outer: outer, loopCount: loopCount)
    do {
        let result = try await body(network)
        await network.client.waitForBackgroundRevalidations()
        network.expectOriginSawModeVersion(sourceLocation: sourceLocation)
        try await network.client.shutdown()
        try await network.stop()
        return result
    } catch {
        try? await network.client.shutdown()
        try? await network.stop()
        throw error
    }
}
