import CacheChain
import CacheChainCurl
import CacheChainFoundation
import CacheChainLoopback
import CacheChainTesting
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing

/// Plain HTTP or HTTPS (HTTP/1.1 or HTTP/2 as libcurl and the origin agree) to the loopback origin.
enum Scheme: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case http, https
    var testDescription: String { rawValue }
}

/// Counts the requests that reach a point of the chain, and what cache events the client emitted.
final class ChainProbe: Sendable {
    let arrivals = LockedValue(0)
    let events = LockedValue<[CacheEvent.Kind]>([])

    var sink: CacheEventSink { CacheEventSink { event in self.events.withLock { $0.append(event.kind) } } }

    /// An interceptor that counts the requests passing it.
    var counter: AnyInterceptor {
        AnyInterceptor { request, context, next in
            self.arrivals.withLock { $0 += 1 }
            return try await next(request, context)
        }
    }

    /// The request-level decisions (hit, miss, revalidated, stale served), in order.
    var decisions: [CacheEvent.Kind] {
        events.withLock { $0.filter { [.hit, .miss, .revalidated, .staleServed].contains($0) } }
    }
}

/// A loopback origin, a client over a real `CurlTransport` (trusting the origin's test CA for HTTPS), a manual
/// clock, and a real `URLSession` whose configuration is `usingCacheChain(client)`.
struct LoopbackSession {
    let scheme: Scheme
    let origin: LoopbackOrigin
    let clock: ManualClock
    let storage: any CacheStorage
    let probe = ChainProbe()
    let client: HTTPCacheClient
    let session: URLSession

    /// Starts an origin and a session.
    /// - Parameters:
    ///   - scheme: HTTP or HTTPS.
    ///   - storage: The client's storage; 64 MiB of memory by default.
    ///   - delegate: The session's delegate.
    ///   - configure: Changes to the configuration after `usingCacheChain`.
    ///   - outer: Interceptors outside the client's cache.
    static func start(
        _ scheme: Scheme = .http,
        storage: (any CacheStorage)? = nil,
        delegate: (any URLSessionDelegate)? = nil,
        configure: (URLSessionConfiguration) -> Void = { _ in },
        outer: [any HTTPInterceptor] = []
    ) async throws -> LoopbackSession {
        let origin = try await LoopbackOrigin.start(tls: scheme == .https)
        let transport = try makeTransport(scheme)
        return LoopbackSession(
            scheme: scheme, origin: origin, transport: transport, storage: storage ?? MemoryStorage(capacity: 64 << 20),
            delegate: delegate, configure: configure, outer: outer
        )
    }

    /// A transport that trusts the loopback origin's certificate.
    static func makeTransport(_ scheme: Scheme) throws -> CurlTransport {
        let caFile = scheme == .https ? try LoopbackCertificate.writeCertificate(to: NSTemporaryDirectory()) : nil
        return CurlTransport(configuration: .init(caFile: caFile))
    }

    private init(
        scheme: Scheme,
        origin: LoopbackOrigin,
        transport: CurlTransport,
        storage: any CacheStorage,
        delegate: (any URLSessionDelegate)?,
        configure: (URLSessionConfiguration) -> Void,
        outer: [any HTTPInterceptor]
    ) {
        self.scheme = scheme
        self.origin = origin
        self.storage = storage
        let clock = ManualClock()
        self.clock = clock
        let configuration = HTTPCacheClient.Configuration(
            storage: storage, clock: clock, events: probe.sink, timeout: .seconds(20), outerInterceptors: outer
        )
        // The counter sees each request that reaches the chain, before the default chain's request coalescing.
        var interceptors = HTTPCacheClient.defaultInterceptors(for: configuration)
        interceptors.insert(probe.counter, at: 0)
        client = HTTPCacheClient(pipeline: Pipeline(interceptors: interceptors, transport: transport), configuration: configuration)
        let sessionConfiguration = URLSessionConfiguration.ephemeral.usingCacheChain(client)
        configure(sessionConfiguration)
        session = URLSession(configuration: sessionConfiguration, delegate: delegate, delegateQueue: nil)
    }

    /// An absolute URL on the origin.
    func url(_ path: String) -> URL {
        URL(string: origin.url(path)) ?? URL(fileURLWithPath: "/")
    }

    /// A request for a path.
    func request(_ path: String, policy: URLRequest.CachePolicy = .useProtocolCachePolicy, method: String = "GET") -> URLRequest {
        var request = URLRequest(url: url(path), cachePolicy: policy)
        request.httpMethod = method
        return request
    }

    /// Fetches a path with `URLSession.data(for:)`.
    func fetch(_ path: String, policy: URLRequest.CachePolicy = .useProtocolCachePolicy) async throws -> (body: String, response: HTTPURLResponse) {
        let (data, response) = try await session.data(for: request(path, policy: policy))
        let http = try #require(response as? HTTPURLResponse)
        return (String(decoding: data, as: UTF8.self), http)
    }

    /// Stops the session and the origin.
    func stop() async throws {
        session.invalidateAndCancel()
        await client.waitForBackgroundRevalidations()
        try await origin.shutdown()
    }
}

/// Runs `body` with a started session and always stops it.
func withLoopbackSession<T>(
    _ scheme: Scheme = .http,
    storage: (any CacheStorage)? = nil,
    delegate: (any URLSessionDelegate)? = nil,
    configure: (URLSessionConfiguration) -> Void = { _ in },
    outer: [any HTTPInterceptor] = [],
    _ body: (LoopbackSession) async throws -> T
) async throws -> T {
    let net = try await LoopbackSession.start(scheme, storage: storage, delegate: delegate, configure: configure, outer: outer)
    do {
        let result = try await body(net)
        try await net.stop()
        return result
    } catch {
        try? await net.stop()
        throw error
    }
}

/// Runs `body` in the current task (its test context included) on a dispatch thread instead of one of Swift's
/// cooperative threads: URLCache's synchronous members block their thread, and on two cores the cooperative
/// pool has two threads, shared by every test running in parallel.
func offPool<T: Sendable>(_ body: () async throws -> T) async rethrows -> T {
    try await withTaskExecutorPreference(DispatchThreadExecutor()) { try await body() }
}

/// A task executor that runs each job on a dispatch queue of its own.
final class DispatchThreadExecutor: TaskExecutor {
    private let queue = DispatchQueue(label: "cachechain.tests.off-pool")

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        queue.async { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}
