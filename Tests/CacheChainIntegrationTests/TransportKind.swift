import AsyncHTTPClient
import CacheChain
import CacheChainAsyncHTTPClient
import CacheChainCurl
import Foundation
import NIOCore
import NIOPosix
import NIOSSL
import Testing

/// The transports the shared end-to-end suite runs through: every scenario is written once and run over each.
enum TransportKind: String, CaseIterable, Sendable, CustomTestStringConvertible {
    /// `CurlTransport`: libcurl's multi interface on its own thread.
    case curl
    /// `CacheChainAHCTransport`: AsyncHTTPClient on SwiftNIO's event loops.
    case asyncHTTPClient

    var testDescription: String { self == .curl ? "libcurl" : "AsyncHTTPClient" }

    /// A transport of this kind for a protocol mode: trusting `caFile` (the loopback test CA), asking for
    /// HTTP/1.1 only in ``ProtocolMode/https1_1``, decoding gzip, spooling bodies above `inMemoryBodyLimit`.
    func makeTransport(
        mode: ProtocolMode = .http,
        caFile: String? = nil,
        inMemoryBodyLimit: Int = 4 << 20,
        spoolDirectory: String = NSTemporaryDirectory() + "cachechain-spool",
        loopCount: Int? = nil
    ) throws -> any HTTPTransport {
        switch self {
        case .curl:
            var configuration = CurlTransport.Configuration(
                httpVersion: mode.clientPreference,
                caFile: caFile,
                inMemoryBodyLimit: inMemoryBodyLimit,
                spoolDirectory: spoolDirectory
            )
            if let loopCount { configuration.loopCount = loopCount }  // else the transport's default
            return CurlTransport(configuration: configuration)
        case .asyncHTTPClient:
            // What `HTTPClient.shared` uses (decompression on), with the test CA and the mode's HTTP version.
            var clientConfiguration = HTTPClient.Configuration.singletonConfiguration
            var tls = TLSConfiguration.makeClientConfiguration()
            if let caFile { tls.trustRoots = .file(caFile) }
            clientConfiguration.tlsConfiguration = tls
            clientConfiguration.httpVersion = mode == .https1_1 ? .http1Only : .automatic
            // Fail at once when the origin is down, as libcurl does: AsyncHTTPClient's default retries a refused
            // connection until the request's deadline.
            clientConfiguration.connectionPool.retryConnectionEstablishment = false
            // An event loop of its own, as each loopback origin has: tests running in parallel do not share (and
            // starve) AsyncHTTPClient's two default event loops.
            let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
            let transport = CacheChainAHCTransport(
                configuration: .init(inMemoryBodyLimit: inMemoryBodyLimit, spoolDirectory: spoolDirectory),
                clientConfiguration: clientConfiguration,
                eventLoopGroup: group
            )
            return TransportOnOwnEventLoop(transport: transport, group: group)
        }
    }
}

/// An AsyncHTTPClient transport with an event loop group of its own, which its shutdown also shuts down.
struct TransportOnOwnEventLoop: HTTPTransport {
    let transport: CacheChainAHCTransport
    let group: MultiThreadedEventLoopGroup

    func send(_ request: PipelineRequest, context: InterceptorContext) async throws -> PipelineResponse {
        try await transport.send(request, context: context)
    }

    func shutdown() async {
        await transport.shutdown()
        try? await group.shutdownGracefully()
    }
}

/// Every transport over every protocol mode: the arguments of the suite's protocol-level scenarios.
let everyTransportAndMode: [(TransportKind, ProtocolMode)] = TransportKind.allCases.flatMap { kind in
    ProtocolMode.allCases.map { (kind, $0) }
}
