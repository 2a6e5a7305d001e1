public import CacheChainPolicy
public import Foundation
public import Logging
public import Tracing

/// What the whole chain shares besides the request (the request's own cache policy and timeout are on
/// ``PipelineRequest``), passed down the chain by value.
///
/// Because it is a value, a change made by an interceptor is seen only by the interceptors inside it
/// (for example the HTTPS-encryption plugin swaps ``storage`` for `https` requests, so lookup and store
/// below it agree on the encrypted backend). Facts for outer interceptors travel back on the
/// ``PipelineResponse``.
public struct InterceptorContext: Sendable {
    /// The RFC 9111 rules: private or shared cache, heuristic settings.
    public var policyEngine: CachePolicyEngine
    /// The backend lookups and stores go to.
    public var storage: any CacheStorage
    /// How requests map to cache keys.
    public var cacheKeyStrategy: CacheKeyStrategy
    /// The wall clock for ages and lifetimes.
    public var clock: any CacheClock
    /// Where interceptors log; never bootstrapped by CacheChain.
    public var logger: Logger
    /// Where interceptors report events (metrics, logging plugins).
    public var events: CacheEventSink
    /// Typed values for inner interceptors.
    public var values: ContextValues
    /// The tracer of this request's client span and of a background revalidation's span; `nil` (the default, and
    /// the client's when no tracer was bootstrapped) records nothing and costs nothing.
    public var tracer: (any Tracer)?
    /// This request's client span, where an interceptor adds events (a revalidation adds `cache.revalidation`);
    /// `nil` when the request is not traced.
    public var span: (any Span)?

    /// Creates a context.
    /// - Parameters:
    ///   - policyEngine: The RFC 9111 rules.
    ///   - storage: The backend.
    ///   - cacheKeyStrategy: How requests map to keys.
    ///   - clock: The wall clock.
    ///   - logger: The logger.
    ///   - events: The event sink.
    ///   - values: Initial typed values.
    ///   - tracer: The tracer of the request's spans; `nil` (no tracing) by default.
    public init(
        policyEngine: CachePolicyEngine = CachePolicyEngine(),
        storage: any CacheStorage,
        cacheKeyStrategy: CacheKeyStrategy = .standard,
        clock: any CacheClock = SystemClock(),
        logger: Logger = Logger(label: "cachechain"),
        events: CacheEventSink = .none,
        values: ContextValues = ContextValues(),
        tracer: (any Tracer)? = nil
    ) {
        self.tracer = tracer
        self.policyEngine = policyEngine
        self.storage = storage
        self.cacheKeyStrategy = cacheKeyStrategy
        self.clock = clock
        self.logger = logger
        self.events = events
        self.values = values
    }

    /// The current instant from ``clock``.
    public var now: Date { clock.now() }
}
