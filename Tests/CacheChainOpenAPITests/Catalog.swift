import CacheChain
import CacheChainLoopback
import CacheChainOpenAPI
import CacheChainTesting
import Foundation
import NIOCore
import OpenAPIAsyncHTTPClient
import OpenAPIRuntime
import OpenAPIURLSession
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The `ClientTransport` a generated client uses below the middleware: the middleware must work over any.
enum DownstreamKind: String, CaseIterable, Sendable, CustomTestStringConvertible {
    /// swift-openapi-async-http-client's transport.
    case asyncHTTPClient
    /// swift-openapi-urlsession's transport (FoundationNetworking on Linux).
    case urlSession

    var testDescription: String { self == .asyncHTTPClient ? "AsyncHTTPClient" : "URLSession" }

    /// The transport, over `HTTPClient.shared` or a URLSession of its own.
    /// - Parameter timeout: The AsyncHTTPClient transport's request timeout (the shared client retries a refused
    ///   connection until then).
    func makeTransport(timeout: Duration = .seconds(60)) -> any ClientTransport {
        switch self {
        case .asyncHTTPClient:
            let (seconds, attoseconds) = timeout.components
            let nanoseconds = seconds * 1_000_000_000 + attoseconds / 1_000_000_000
            return OpenAPIAsyncHTTPClient.AsyncHTTPClientTransport(configuration: .init(timeout: .nanoseconds(nanoseconds)))
        case .urlSession:
            // URLSession's own cache is turned off: CacheChain is the cache.
            let configuration = URLSessionConfiguration.ephemeral
            configuration.urlCache = nil
            configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
            return URLSessionTransport(configuration: .init(session: URLSession(configuration: configuration)))
        }
    }
}

/// A generated client (from this target's `openapi.yaml`) with ``HTTPCacheMiddleware`` over a real transport,
/// talking to a loopback origin under `/api`.
struct Catalog {
    let origin: LoopbackOrigin
    let clock = ManualClock()
    let middleware: HTTPCacheMiddleware
    let client: Client

    static func start(
        _ kind: DownstreamKind,
        timeout: Duration = .seconds(60),
        bodyLimits: HTTPCacheMiddleware.BodyLimits = .init(),
        configure: (inout HTTPCacheClient.Configuration) -> Void = { _ in }
    ) async throws -> Catalog {
        let origin = try await LoopbackOrigin.start()
        return try Catalog(origin: origin, transport: kind.makeTransport(timeout: timeout), bodyLimits: bodyLimits, configure: configure)
    }

    private init(
        origin: LoopbackOrigin,
        transport: any ClientTransport,
        bodyLimits: HTTPCacheMiddleware.BodyLimits,
        configure: (inout HTTPCacheClient.Configuration) -> Void
    ) throws {
        self.origin = origin
        var configuration = HTTPCacheClient.Configuration(storage: MemoryStorage(capacity: 64 << 20), clock: clock)
        configure(&configuration)
        middleware = HTTPCacheMiddleware(configuration: configuration, bodyLimits: bodyLimits)
        let serverURL = try #require(URL(string: origin.url("/api")))
        client = Client(serverURL: serverURL, transport: transport, middlewares: [middleware])
    }

    /// The current time as an HTTP-date, agreeing with the manual clock.
    var date: String { HTTPDate.format(clock.now()) }

    /// Calls `getItem` and returns the item's name with the middleware's outcome.
    func item(_ id: String, lang: String? = nil) async throws -> (name: String, outcome: HTTPCacheMiddleware.Outcome) {
        let (output, outcomes) = try await HTTPCacheMiddleware.collectingOutcomes {
            try await client.getItem(path: .init(id: id), query: .init(lang: lang))
        }
        let outcome = try #require(outcomes.last)
        #expect(outcomes.count == 1)
        return (try output.ok.body.json.name, outcome)
    }

    func stop() async throws {
        try await origin.shutdown()
    }
}
