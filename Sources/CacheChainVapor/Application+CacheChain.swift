#if Vapor
public import CacheChainClient
public import Vapor

extension Application.Clients.Provider {
    /// Makes `app.client` and every route's `req.client` send through `client`, so Vapor's outbound requests are
    /// cached: `app.clients.use(.cacheChain(client))`.
    ///
    /// `app.client` completes its futures on one of the application's event loops and logs to the application's
    /// logger; `req.client` (Vapor's `delegating(to:)`, `logging(to:)`) on the request's event loop, to
    /// `req.logger`. See ``CacheChainVaporClient``.
    /// - Parameter client: The cache client (you shut it down, after the application's `asyncShutdown()`).
    /// - Returns: The provider for `app.clients.use(_:)`.
    public static func cacheChain(_ client: HTTPCacheClient) -> Self {
        .init { application in
            application.clients.use { application in
                CacheChainVaporClient(cacheClient: client, eventLoop: application.eventLoopGroup.any(), logger: application.logger)
            }
        }
    }
}
#endif
