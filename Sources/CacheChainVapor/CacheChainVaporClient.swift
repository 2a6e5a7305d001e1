#if Vapor
public import CacheChainClient
public import Logging
public import NIOCore
public import Vapor

/// Vapor's `Client` over an `HTTPCacheClient`: what `req.client` and `app.client` send goes through the cache.
///
/// Install it with `app.clients.use(.cacheChain(client))` (`Application.Clients.Provider.cacheChain(_:)`); Vapor
/// then hands every route a copy bound to the request's event loop, logger and allocator (`delegating(to:)`,
/// `logging(to:)`, `allocating(to:)`), as it does with its AsyncHTTPClient-backed default.
///
/// ```swift
/// import CacheChain
/// import CacheChainVapor
/// import Vapor
///
/// func configure(_ app: Application, cache: HTTPCacheClient) {
///     app.clients.use(.cacheChain(cache))
///     app.get("weather") { req async throws -> String in
///         let response = try await req.client.get("https://example.com/weather")
///         return response.headers.first(name: "Cache-Status") ?? "-"   // e.g. "CacheChain; hit; ttl=42"
///     }
/// }
/// ```
///
/// - Each `ClientRequest` becomes a pipeline request: its method, absolute URL, header fields in order, its body
///   (`ByteBuffer` → `PipelineBody`) and its `timeout` (the request's network timeout; the cache client's
///   configured one when `nil`). The response keeps the status with its reason phrase, the header fields in
///   order plus the cache's RFC 9211 `Cache-Status` member (`CacheChain; hit; ttl=42`, `CacheChain; fwd=uri-miss;
///   fwd-status=200; stored`, …: added here unless the client's `CacheStatusInterceptor` added it) and the body as one `ByteBuffer` (`nil` when empty, as
///   Vapor's default client returns it); a body the cache holds in a file is read off Swift's cooperative pool.
/// - Failures fail the returned future (an `async` caller's `try await` throws) with the cache client's
///   `CacheChainError` (`invalid-request`, `timed-out`, `transport-failed`, …); an origin's 4xx or 5xx is a
///   response, as with Vapor's default client. Cancelling the calling task does not cancel the request:
///   Vapor's `Client` API returns an `EventLoopFuture`.
/// - The cache client is yours: shut it down (`shutdown()`) after the application's
///   `asyncShutdown()`.
public struct CacheChainVaporClient: Client {
    /// The cache client every request goes through.
    public let cacheClient: HTTPCacheClient
    /// The event loop the returned futures complete on.
    public let eventLoop: any EventLoop
    /// Where the request's log lines go (the route's `req.logger` for `req.client`); the cache client's
    /// configured logger when `nil`.
    public let logger: Logger?
    /// The allocator of the response bodies' buffers.
    public let byteBufferAllocator: ByteBufferAllocator

    /// Creates a Vapor client over a cache client.
    /// - Parameters:
    ///   - cacheClient: The cache client every request goes through (you shut it down).
    ///   - eventLoop: The event loop the returned futures complete on.
    ///   - logger: Where the requests' log lines go; the cache client's configured logger when `nil`.
    ///   - byteBufferAllocator: The allocator of the response bodies' buffers.
    public init(
        cacheClient: HTTPCacheClient,
        eventLoop: any EventLoop,
        logger: Logger? = nil,
        byteBufferAllocator: ByteBufferAllocator = ByteBufferAllocator()
    ) {
        self.cacheClient = cacheClient
        self.eventLoop = eventLoop
        self.logger = logger
        self.byteBufferAllocator = byteBufferAllocator
    }

    /// The same client completing its futures on `eventLoop` (Vapor calls it with the request's event loop).
    /// - Parameter eventLoop: The event loop.
    /// - Returns: A copy bound to `eventLoop`.
    public func delegating(to eventLoop: any EventLoop) -> any Client {
        CacheChainVaporClient(cacheClient: cacheClient, eventLoop: eventLoop, logger: logger, byteBufferAllocator: byteBufferAllocator)
    }

    /// The same client logging to `logger` (Vapor calls it with the request's logger).
    /// - Parameter logger: The logger of every request sent through the copy.
    /// - Returns: A copy logging to `logger`.
    public func logging(to logger: Logger) -> any Client {
        CacheChainVaporClient(cacheClient: cacheClient, eventLoop: eventLoop, logger: logger, byteBufferAllocator: byteBufferAllocator)
    }

    /// The same client allocating response bodies with `byteBufferAllocator`.
    /// - Parameter byteBufferAllocator: The allocator.
    /// - Returns: A copy using `byteBufferAllocator`.
    public func allocating(to byteBufferAllocator: ByteBufferAllocator) -> any Client {
        CacheChainVaporClient(cacheClient: cacheClient, eventLoop: eventLoop, logger: logger, byteBufferAllocator: byteBufferAllocator)
    }

    /// Sends a request through the cache.
    /// - Parameter request: Vapor's request; its URL must be absolute `http` or `https`.
    /// - Returns: A future of the response (its `Cache-Status` field says how the cache answered), failed with the
    ///   cache client's `CacheChainError` when the request could not be answered.
    public func send(_ request: ClientRequest) -> EventLoopFuture<ClientResponse> {
        eventLoop.makeFutureWithTask { [cacheClient, logger, byteBufferAllocator] in
            let pipelineRequest = try Self.pipelineRequest(for: request)
            let response = try await cacheClient.send(pipelineRequest, logger: logger)
            return try await Self.clientResponse(for: response, from: cacheClient, allocator: byteBufferAllocator)
        }
    }
}
#endif
