#if OpenAPI
public import CacheChainClient
public import Foundation
public import HTTPTypes
public import OpenAPIRuntime

/// An OpenAPI client middleware that puts a CacheChain pipeline in front of the client's transport.
///
/// Add it to a generated client in one line, whatever `ClientTransport` the client uses (URLSession,
/// AsyncHTTPClient, your own):
///
/// ```swift
/// import CacheChainClient
/// import CacheChainOpenAPI
/// import OpenAPIAsyncHTTPClient
///
/// let client = Client(serverURL: try Servers.Server1.url(), transport: AsyncHTTPClientTransport(), middlewares: [HTTPCacheMiddleware()])
/// ```
///
/// Every operation goes through the default chain (`configuration.outerInterceptors → CachePolicy →
/// Revalidation → StorageDecision → configuration.networkInterceptors`, without redirect following) with the rest of the middleware chain (the later middlewares, then the
/// transport) as the pipeline's transport: safe operations are answered from the cache by RFC 9111 (fresh
/// hits never reach `next`; stale ones are revalidated with a conditional request), unsafe ones invalidate
/// what they change. Put it first in `middlewares` to cache what the rest of the chain produces, or after a
/// middleware whose effect (authentication, say) must also apply to cache hits.
///
/// **Cache status and trace.** A generated client returns typed outputs, which have no place for them. Read
/// them for the operations run inside ``collectingOutcomes(_:)`` (`outcomes.map(\.cacheStatus)` is `[.hit]` for a
/// fresh stored answer), or subscribe to the cache's events (`HTTPCacheClient.Configuration.events`) for metrics.
///
/// **Bodies.** Request and response bodies are converted between OpenAPIRuntime's `HTTPBody` and CacheChain's
/// at the boundary: a body is held in memory up to ``BodyLimits/inMemoryBodyLimit`` and in a temporary file
/// beyond it (what the pipeline holds for any transport), and handed back to the generated code as a stream.
///
/// **Stale-while-revalidate** is served as a revalidation before the response, not in the background: a
/// middleware's `next` is valid only while `intercept` runs, so no background work may use it.
///
/// **Errors.** The rest of the chain's errors (already `ClientError`s) pass through unchanged; the cache's own
/// (for example `not-in-cache` under `returnCacheDataDontLoad`) are `CacheChainError` values, which the
/// generated client wraps in its `ClientError` once.
public struct HTTPCacheMiddleware: ClientMiddleware {
    /// The client behind the middleware: its configuration, and the management API over its storage
    /// (`removeAllCachedResponses()`, `cachedResponse(for:)`, usage, `shutdown()`).
    public let client: HTTPCacheClient
    /// How large request and response bodies are held while they pass through the cache.
    public let bodyLimits: BodyLimits

    /// Creates the middleware with CacheChain's default chain.
    /// - Parameters:
    ///   - configuration: Storage, policies, hooks and outer interceptors, as for `HTTPCacheClient`; its
    ///     `isStaleWhileRevalidateEnabled` is turned off (see the type's discussion), and so is its
    ///     `isRedirectFollowingEnabled`: redirects are the OpenAPI transport's to follow.
    ///   - bodyLimits: Memory limit, spool directory and size limit for bodies.
    public init(configuration: HTTPCacheClient.Configuration = HTTPCacheClient.Configuration(), bodyLimits: BodyLimits = BodyLimits()) {
        var configuration = configuration
        configuration.isStaleWhileRevalidateEnabled = false
        // The rest of the chain is reached by the operation's relative path only, so a redirect cannot be sent
        // there as a new hop: the OpenAPI transport follows redirects (or not) as it is configured to.
        configuration.isRedirectFollowingEnabled = false
        self.client = HTTPCacheClient(transport: DownstreamTransport(), configuration: configuration)
        self.bodyLimits = bodyLimits
    }

    /// Sends an operation's request through the cache; the rest of the middleware chain is the transport.
    /// - Parameters:
    ///   - request: The operation's request (its path is relative to `baseURL`).
    ///   - body: The request body.
    ///   - baseURL: The server URL.
    ///   - operationID: The OpenAPI operation identifier.
    ///   - next: The rest of the middleware chain, then the transport.
    /// - Returns: The response (from the cache or from `next`) and its body.
    /// - Throws: What `next` throws, unchanged; `CacheChainError` for the cache's own failures.
    public func intercept(
        _ request: HTTPRequest,
        body: OpenAPIRuntime.HTTPBody?,
        baseURL: URL,
        operationID: String,
        next: @Sendable (HTTPRequest, OpenAPIRuntime.HTTPBody?, URL) async throws -> (HTTPResponse, OpenAPIRuntime.HTTPBody?)
    ) async throws -> (HTTPResponse, OpenAPIRuntime.HTTPBody?) {
        let absolute = try Self.absoluteRequest(request, baseURL: baseURL)
        var pipelineRequest = PipelineRequest(head: absolute)
        if let body {
            pipelineRequest.body = try await CacheChainCore.PipelineBody(collecting: body, limits: bodyLimits)
        }
        // `next` is only valid during this call: the pipeline's transport uses it through the request's context
        // values, and background revalidation (which would outlive the call) is off.
        let response = try await withoutActuallyEscaping(next) { next in
            var values = ContextValues()
            values[DownstreamTransport.Key.self] = DownstreamTransport.Downstream(
                send: next,
                baseURL: baseURL,
                relativePath: request.path,
                limits: bodyLimits
            )
            return try await client.send(pipelineRequest, values: values)
        }
        OutcomeRecorder.current?.record(
            Outcome(operationID: operationID, request: absolute, cacheStatus: response.cacheStatus, trace: response.trace, userInfo: response.userInfo)
        )
        let responseBody = request.method == .head ? nil : OpenAPIRuntime.HTTPBody(response.body)
        return (response.head, responseBody)
    }

    /// The absolute request the cache works with: the server URL's scheme, authority and path prefix, then the
    /// operation's path and query.
    static func absoluteRequest(_ request: HTTPRequest, baseURL: URL) throws -> HTTPRequest {
        var base = baseURL.absoluteString
        while base.hasSuffix("/") { base.removeLast() }
        var absolute = try HTTPRequest(method: request.method, url: base + (request.path ?? "/"), headerFields: request.headerFields)
        absolute.extendedConnectProtocol = request.extendedConnectProtocol
        return absolute
    }
}
#endif
