#if ServiceLifecycle
public import CacheChainClient
public import Logging
public import ServiceLifecycle

/// Runs an `HTTPCacheClient` under a swift-service-lifecycle `ServiceGroup`, so the cache shuts down with the
/// application (a Hummingbird or Vapor app's group, on SIGTERM or SIGINT).
///
/// ```swift
/// import CacheChain
/// import CacheChainCurl
/// import CacheChainServiceLifecycle
/// import Logging
/// import ServiceLifecycle
///
/// let storage = try DiskStorage(directory: "/var/cache/myapp/http")
/// let client = HTTPCacheClient(transport: CurlTransport(), configuration: .init(storage: storage))
/// let group = ServiceGroup(
///     services: [HTTPCacheService(client: client)],   // then the app's services, which use the client
///     gracefulShutdownSignals: [.sigterm, .sigint],
///     logger: Logger(label: "app")
/// )
/// try await group.run()
/// ```
///
/// ``run()`` waits for the group's graceful shutdown, then calls `HTTPCacheClient.shutdown()`: background
/// revalidations already running finish and store their responses, the storage is flushed (a `DiskStorage`
/// writes its batched LRU uses), and the transport stops (its libcurl thread, or the `HTTPClient` it created).
/// If the group cancels the service instead (its `maximumGracefulShutdownDuration` ran out, or another service
/// failed), the revalidations still running are abandoned: their transfers are cancelled and store nothing,
/// and every entry stored before stays intact.
///
/// List it before the services that use the client: a group shuts its services down in reverse order, so the
/// cache then outlives the services that send requests through it.
public struct HTTPCacheService: Service, CustomStringConvertible {
    /// The client the service shuts down.
    public let client: HTTPCacheClient
    private let logger: Logger

    /// Creates the service.
    /// - Parameters:
    ///   - client: The client to shut down with the group.
    ///   - logger: Where the service logs its shutdown; the client's logger by default.
    public init(client: HTTPCacheClient, logger: Logger? = nil) {
        self.client = client
        self.logger = logger ?? client.configuration.logger
    }

    /// Waits for the graceful shutdown of the group (or the task's cancellation), then shuts the client down.
    /// - Throws: The storage's flush error from `HTTPCacheClient.shutdown()`.
    public func run() async throws {
        // Throws CancellationError when the group cancels us rather than asking for a graceful shutdown: the
        // client is shut down all the same, and the cancellation abandons its running revalidations.
        try? await gracefulShutdown()
        logger.debug("shutting the HTTP cache down")
        try await client.shutdown()
        logger.debug("the HTTP cache is shut down")
    }

    /// `HTTPCacheService`, as the group's logs name it.
    public var description: String { "HTTPCacheService" }
}
#else
#error("CacheChainServiceLifecycle needs the ServiceLifecycle trait: depend with .package(url: …, from: '0.2.0', traits: ['ServiceLifecycle'])")
#endif
