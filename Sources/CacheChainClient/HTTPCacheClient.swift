public import CacheChainCore
import CacheChainInterceptors
public import CacheChainPolicy
public import HTTPTypes
public import Logging

/// An HTTP client with a cache in front of its transport: the counterpart of a `URLSession` with a
/// `URLCache`.
///
/// ```swift
/// let client = HTTPCacheClient(transport: CurlTransport())
/// let first = try await client.data(for: HTTPRequest(url: "https://example.com/"))
/// print(first.cacheStatus, first.trace)   // miss, [storable: …]
/// let second = try await client.data(for: HTTPRequest(url: "https://example.com/"))
/// print(second.cacheStatus)               // hit
/// ```
/// The default chain is ``defaultInterceptors(for:)``:
/// ```
///  caller ─▶ Redirect → outerInterceptors → CachePolicy → Revalidation → StorageDecision → networkInterceptors → transport
///                                             └─ a hit returns from here; a miss or a revalidation goes on
/// ```
/// Outer interceptors see every request and the response the caller gets; network interceptors see only network
/// exchanges, and what they return is what is stored. Coalescing,
/// ranges, policy overrides and body keys are inputs of the cache policy's one plan per request;
/// ``init(pipeline:configuration:)`` takes a pipeline you compose yourself.
///
/// ## Redirects
///
/// Redirects are followed by default, as URLSession and AsyncHTTPClient do: `301`, `302`, `303`, `307` and `308`
/// with a `Location`, at most ``Configuration/maximumRedirects`` (10) hops, each through the whole chain (its own
/// lookup and storage decision: a cacheable `301` is served from the cache next time). `Authorization`, `Cookie`
/// and `Proxy-Authorization` are not sent to an origin other than the first request's. Turn following off with
/// ``Configuration/isRedirectFollowingEnabled``, or per request with `RedirectInterceptor.ModeKey` (`.manual`).
///
/// ## Request targets
///
/// ``send(_:cachePolicy:timeout:values:logger:)`` (which ``data(for:body:cachePolicy:logger:)``, `stream`, the URLSession
/// and OpenAPI adapters and `cachechain` use) normalises each request's path and query once, as RFC 3986 §6.2.2
/// says, and sends that target: what is fetched is what is keyed, and policy-override and body-keyed rules
/// match it too. Percent-encoded unreserved characters are decoded in either case (`%2e`, `%2E` → `.`,
/// `%7E` → `~`), other percent-encodings get uppercase digits, then `.` and `..` segments are removed, so
/// `/up/%2e%2e/app.js`, `/up/.%2E/app.js` and `/up/../app.js` are all fetched, keyed and matched as
/// `/app.js`. Decoding happens once: `/up/%252e%252e/app.js` stays that (its `%25` is a literal `%`). A fragment
/// is dropped. Redirect hops (`RedirectInterceptor`) are normalised the same way.
///
/// ## Tracing
///
/// With a tracer bootstrapped (`InstrumentationSystem.bootstrap(_:)`, before the configuration is made) or set as
/// ``Configuration/tracer``, each request is one client span, named and attributed as OpenTelemetry's HTTP client
/// conventions say (`GET`; `http.request.method`, `url.full`, `server.address`, `server.port`,
/// `http.response.status_code`), with `http.cache.status`: what the cache did in RFC 9211 `Cache-Status` terms
/// (`hit; ttl=540`, `fwd=uri-miss; fwd-status=200; stored`, `fwd=stale; fwd-status=304; ttl=600; stored`…). A
/// revalidation adds a `cache.revalidation` event; a background revalidation is a client span of its own, a child
/// of the request's. `CurlTransport` sends the trace context (`traceparent`) to the origin; AsyncHTTPClient does
/// it itself. Without a tracer a request makes no span.
///
/// The client owns a `RevalidationQueue` for `stale-while-revalidate`; ``withClient(transport:configuration:_:)``
/// scopes a client and waits for its background work before returning.
public struct HTTPCacheClient: Sendable {
    /// The settings the client was created with.
    public let configuration: Configuration
    /// The chain every request goes through.
    public let pipeline: Pipeline
    /// Background revalidations started by `stale-while-revalidate` hits.
    public let revalidationQueue: RevalidationQueue
    /// Runs ``shutdown()``'s work once, for every copy of this client.
    let shutdownGate = ShutdownOnce()
    /// The context every request starts from (the configuration's storage, engine, clock, logger and events),
    /// made once.
    let sharedContext: InterceptorContext

    /// Creates a client with the default chain in front of a transport.
    /// - Parameters:
    ///   - transport: The one transport that does I/O (e.g. `CurlTransport`).
    ///   - configuration: Storage, policies and hooks; in-memory storage by default.
    public init(transport: any HTTPTransport, configuration: Configuration = Configuration()) {
        self.init(
            pipeline: Pipeline(interceptors: Self.defaultInterceptors(for: configuration), transport: transport),
            configuration: configuration
        )
    }

    /// Creates a client around a pipeline you composed.
    /// - Parameters:
    ///   - pipeline: The chain; include `CachePolicyInterceptor` etc. where you want them.
    ///   - configuration: Storage, policies, clock and logger used to build each request's context.
    ///
    /// The client's ``revalidationQueue`` is the first `CachePolicyInterceptor`'s (a new, unused one when the
    /// pipeline has none or it validates in line).
    public init(pipeline: Pipeline, configuration: Configuration = Configuration()) {
        self.configuration = configuration
        self.pipeline = pipeline
        self.sharedContext = InterceptorContext(
            policyEngine: CachePolicyEngine(configuration: configuration.policy),
            storage: configuration.storage,
            cacheKeyStrategy: configuration.cacheKeyStrategy,
            clock: configuration.clock,
            logger: configuration.logger,
            events: configuration.events,
            tracer: configuration.tracer
        )
        self.revalidationQueue = pipeline.interceptors.lazy
            .compactMap { ($0 as? CachePolicyInterceptor)?.revalidationQueue }.first ?? RevalidationQueue()
    }

    /// The built-in chain for a configuration: a `RedirectInterceptor` (when
    /// ``Configuration/isRedirectFollowingEnabled`` and the outer interceptors have none), its outer interceptors,
    /// then cache policy (with the configuration's coalescing, range serving, policy overrides and body keys as
    /// inputs of its plan), revalidation, storage decision (with the configuration's `willCacheResponse` hook) and
    /// its network interceptors, just before the transport.
    /// - Parameter configuration: The configuration.
    /// - Returns: The interceptors, outermost first (a new `CachePolicyInterceptor`, with its own in-flight requests
    ///   and revalidation queue, each call).
    public static func defaultInterceptors(for configuration: Configuration) -> [any HTTPInterceptor] {
        let followsRedirects =
            configuration.isRedirectFollowingEnabled && !configuration.outerInterceptors.contains { $0 is RedirectInterceptor }
        let redirects: [any HTTPInterceptor] =
            followsRedirects ? [RedirectInterceptor(maximumRedirects: configuration.maximumRedirects)] : []
        return redirects + configuration.outerInterceptors + [
            CachePolicyInterceptor(
                revalidationQueue: configuration.isStaleWhileRevalidateEnabled ? RevalidationQueue() : nil,
                isRequestCoalescingEnabled: configuration.isRequestCoalescingEnabled,
                isRangeServingEnabled: configuration.isRangeServingEnabled,
                policyOverrides: configuration.policyOverrides,
                bodyKeyedCaching: configuration.bodyKeyedCaching
            ),
            RevalidationInterceptor(),
            StorageDecisionInterceptor(
                maximumEntryFraction: configuration.maximumEntryFraction,
                willCacheResponse: configuration.willCacheResponse
            ),
        ] + configuration.networkInterceptors
    }

    /// Creates a client, runs `body` with it and waits for its background revalidations before returning.
    /// - Parameters:
    ///   - transport: The transport.
    ///   - configuration: The configuration.
    ///   - body: The work to do with the client.
    /// - Returns: What `body` returns.
    /// - Throws: What `body` throws.
    public static func withClient<Result: Sendable>(
        transport: any HTTPTransport,
        configuration: Configuration = Configuration(),
        _ body: (HTTPCacheClient) async throws -> Result
    ) async throws -> Result {
        let client = HTTPCacheClient(transport: transport, configuration: configuration)
        do {
            let result = try await body(client)
            await client.waitForBackgroundRevalidations()
            return result
        } catch {
            await client.waitForBackgroundRevalidations()
            throw error
        }
    }

    /// Sends a request through the cache.
    /// - Parameters:
    ///   - request: The request; it needs a scheme and an authority.
    ///   - body: An optional request body.
    ///   - cachePolicy: This request's policy; the configuration's ``Configuration/requestCachePolicy`` when `nil`.
    ///   - logger: Where this request's log lines go (the chain's interceptors and the transport log to it through
    ///     `InterceptorContext.logger`), as AsyncHTTPClient's `execute(_:deadline:logger:)`; the configuration's
    ///     ``Configuration/logger`` when `nil`.
    /// - Returns: The response with its `PipelineResponse.cacheStatus` and decision `PipelineResponse.trace`.
    /// - Throws: `CacheChainError` (`invalid-request`, `not-in-cache`, `transport-failed`, …).
    public func data(
        for request: HTTPRequest,
        body: PipelineBody? = nil,
        cachePolicy: RequestCachePolicy? = nil,
        logger: Logger? = nil
    ) async throws -> PipelineResponse {
        try await send(PipelineRequest(head: request, body: body), cachePolicy: cachePolicy, logger: logger)
    }

    /// Sends a pipeline request through the cache.
    ///
    /// To use the network without storing the response (Fetch's `no-store`), set the request's
    /// `PipelineRequest.storageLimit` to `StorageLimit.refused`.
    ///
    /// The request target is normalised first, once, as RFC 3986 §6.2.2 says (see "Request targets" in ``HTTPCacheClient``):
    /// the cache key, every rule, the transport and the trace all see the normalised target.
    /// - Parameters:
    ///   - request: The request.
    ///   - cachePolicy: This request's policy; when `nil`, the request's own `PipelineRequest.cachePolicy`, else
    ///     the configuration's default.
    ///   - timeout: This request's network timeout; when `nil`, the request's own `PipelineRequest.timeout`, else
    ///     the configuration's.
    ///   - values: Typed values for this request's `InterceptorContext.values`, read by the interceptors
    ///     (e.g. `RedirectInterceptor.ModeKey` to return a redirect instead of following it).
    ///   - logger: Where this request's log lines go, every interceptor's and the transport's (its context's
    ///     `InterceptorContext.logger`), a background revalidation it starts included; the configuration's
    ///     ``Configuration/logger`` when `nil`.
    /// - Returns: The response.
    /// - Throws: `CacheChainError`.
    public func send(
        _ request: PipelineRequest,
        cachePolicy: RequestCachePolicy? = nil,
        timeout: Duration? = nil,
        values: ContextValues = ContextValues(),
        logger: Logger? = nil
    ) async throws -> PipelineResponse {
        guard let scheme = request.head.scheme, !scheme.isEmpty,
            let authority = request.head.authority, !authority.isEmpty
        else {
            throw CacheChainError(
                .invalidRequest,
                "the request needs a scheme and an authority (an absolute http or https URL)",
                request: request.head
            )
        }
        var request = request
        request.head.normalizeTarget()  // the one target the key, every rule, the transport and the trace see
        request.cachePolicy = cachePolicy ?? request.cachePolicy ?? configuration.requestCachePolicy
        request.timeout = timeout ?? request.timeout ?? configuration.timeout
        var context = sharedContext
        context.values = values
        if let logger { context.logger = logger }
        // The request runs where its caller runs: a hit crosses no thread, a miss crosses to the transport's
        // I/O thread and back (`CurlTransport.taskExecutor` lets a caller run on that thread instead).
        guard let tracer = context.tracer else { return try await pipeline.send(request, context: context) }
        return try await sendInSpan(request, context: context, tracer: tracer)
    }

    /// Waits until every background revalidation started so far has finished.
    public func waitForBackgroundRevalidations() async {
        await revalidationQueue.drain()
    }
}
