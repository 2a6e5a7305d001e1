public import CacheChainCore
public import CacheChainInterceptors
public import CacheChainPolicy
import CacheChainStorage
public import Logging
public import Tracing

extension HTTPCacheClient {
    /// Everything a client needs besides its transport, with documented defaults.
    public struct Configuration: Sendable {
        /// The backend; by default a `MemoryStorage` of 10 MiB that reports its evictions to ``events``.
        public var storage: any CacheStorage {
            didSet { defaultStorageCapacity = nil }
        }
        /// The capacity of the default `MemoryStorage` while ``storage`` is the one this configuration made (it can
        /// then be made anew with other events: `enableMetrics`); `nil` once another backend was set.
        package private(set) var defaultStorageCapacity: Int?
        /// The policy of requests that don't name one (`URLSessionConfiguration.requestCachePolicy`).
        public var requestCachePolicy: RequestCachePolicy
        /// RFC 9111 settings: private (default) or shared cache, heuristic freshness.
        public var policy: CachePolicyConfiguration
        /// How requests map to cache keys.
        public var cacheKeyStrategy: CacheKeyStrategy
        /// The wall clock; inject a manual one in tests.
        public var clock: any CacheClock
        /// Where the cache logs; CacheChain never bootstraps logging.
        public var logger: Logger
        /// Where cache events go (metrics, logging plugins).
        public var events: CacheEventSink
        /// The default network timeout (`nil`: the transport's).
        public var timeout: Duration?
        /// The `willCacheResponse` hook of the storage decision; `nil` keeps every proposal.
        public var willCacheResponse: StorageDecisionInterceptor.WillCacheResponse?
        /// The largest storable body as a fraction of the backend's capacity (Apple's "about 5%").
        public var maximumEntryFraction: Double
        /// Interceptors placed outside the cache in the default chain (stamping, logging…), outermost first.
        public var outerInterceptors: [any HTTPInterceptor]
        /// Whether `stale-while-revalidate` serves stale responses and refreshes them in the background;
        /// when `false` such responses are validated before being served. It shapes the default chain; in a
        /// pipeline you compose, `CachePolicyInterceptor(revalidationQueue:)` decides.
        public var isStaleWhileRevalidateEnabled: Bool
        /// Whether concurrent requests that one response can answer, and whose lookup said fetch or validate, share
        /// one trip to the origin (`CachePolicyInterceptor`'s coalescing; a hit never reaches it); `true` by
        /// default. Turn it off when every request must reach the transport on its own (e.g. to count or log each
        /// one there).
        public var isRequestCoalescingEnabled: Bool
        /// Rules that override the origin's caching headers per URL pattern (`PolicyOverrideRule`); empty
        /// (no override) by default. They are inputs of the cache policy's plan: matched once per request, their
        /// response side applied by the storage decision before anything is stored.
        public var policyOverrides: [PolicyOverrideRule]
        /// Whether a single-range `GET` is answered from a stored complete, fresh `200` with a `206` (or a
        /// `416`) by the cache policy (a step of its plan for requests with a `Range`); `true` by default.
        public var isRangeServingEnabled: Bool
        /// Rules under which `POST` and `QUERY` requests are cached, keyed by a digest of their body
        /// (`BodyKeyedCachingRule`); empty (never cached) by default. They are inputs of the cache policy's plan:
        /// the request is handled as a `GET` under its body key and sent with its own method and body.
        public var bodyKeyedCaching: [BodyKeyedCachingRule]
        /// Whether redirects are followed, as URLSession and AsyncHTTPClient do; `true` by default. The default
        /// chain then starts with a `RedirectInterceptor` (unless ``outerInterceptors`` already has one): each hop
        /// goes through the whole chain, so it gets its own cache lookup and storage decision, and
        /// `Authorization`, `Cookie` and `Proxy-Authorization` are dropped when a hop leaves the first origin.
        /// When `false`, a `3xx` is returned as is; one request can ask for that too with
        /// `RedirectInterceptor.ModeKey` set to `.manual`.
        public var isRedirectFollowingEnabled: Bool
        /// The most redirects followed for one request (10 by default); one more is a `too-many-redirects` error
        /// naming the hops.
        public var maximumRedirects: Int
        /// Interceptors placed inside the storage decision, just before the transport, outermost first: they run on
        /// every network exchange (a miss, a revalidation, a background revalidation) and never on a hit, and the
        /// response they return is what the storage decision sees and stores (OkHttp's network interceptors).
        /// Use them to shape what is cached, e.g. a minimum lifetime; use ``outerInterceptors`` to shape what the
        /// caller sees.
        public var networkInterceptors: [any HTTPInterceptor]
        /// The tracer of each request's client span (see "Tracing" in ``HTTPCacheClient``): the tracer bootstrapped
        /// with `InstrumentationSystem.bootstrap(_:)` when this configuration was made, as AsyncHTTPClient's
        /// `HTTPClient.Configuration.tracing.tracer` is, or `nil` when none was, and then a request makes no span
        /// and costs nothing more. Set it to use another tracer, or to `nil` to trace nothing.
        public var tracer: (any Tracer)?

        /// Creates a configuration.
        /// - Parameters:
        ///   - storage: The backend; a 10 MiB `MemoryStorage` reporting to `events` when `nil`.
        ///   - requestCachePolicy: The default cache policy.
        ///   - policy: RFC 9111 settings.
        ///   - cacheKeyStrategy: Key mapping.
        ///   - clock: The wall clock.
        ///   - logger: The logger.
        ///   - events: The event sink.
        ///   - timeout: The default network timeout.
        ///   - willCacheResponse: The storage-decision hook.
        ///   - maximumEntryFraction: The size rule's fraction.
        ///   - outerInterceptors: Interceptors outside the cache.
        ///   - isStaleWhileRevalidateEnabled: Background revalidation on or off.
        ///   - isRequestCoalescingEnabled: Request coalescing on (the default) or off.
        ///   - policyOverrides: Rules overriding the origin's caching headers; none by default.
        ///   - isRangeServingEnabled: Ranges answered from the cache (the default) or always sent to the origin.
        ///   - bodyKeyedCaching: Rules for caching `POST`/`QUERY` by body; none by default.
        ///   - isRedirectFollowingEnabled: Redirects followed (the default) or returned as is.
        ///   - maximumRedirects: The most redirects followed for one request; 10 by default.
        ///   - networkInterceptors: Interceptors between the storage decision and the transport; none by default.
        public init(
            storage: (any CacheStorage)? = nil,
            requestCachePolicy: RequestCachePolicy = .useProtocolCachePolicy,
            policy: CachePolicyConfiguration = CachePolicyConfiguration(),
            cacheKeyStrategy: CacheKeyStrategy = .standard,
            clock: any CacheClock = SystemClock(),
            logger: Logger = Logger(label: "cachechain"),
            events: CacheEventSink = .none,
            timeout: Duration? = nil,
            willCacheResponse: StorageDecisionInterceptor.WillCacheResponse? = nil,
            maximumEntryFraction: Double = 0.05,
            outerInterceptors: [any HTTPInterceptor] = [],
            isStaleWhileRevalidateEnabled: Bool = true,
            isRequestCoalescingEnabled: Bool = true,
            policyOverrides: [PolicyOverrideRule] = [],
            isRangeServingEnabled: Bool = true,
            bodyKeyedCaching: [BodyKeyedCachingRule] = [],
            isRedirectFollowingEnabled: Bool = true,
            maximumRedirects: Int = 10,
            networkInterceptors: [any HTTPInterceptor] = []
        ) {
            self.isRedirectFollowingEnabled = isRedirectFollowingEnabled
            self.maximumRedirects = maximumRedirects
            self.networkInterceptors = networkInterceptors
            self.bodyKeyedCaching = bodyKeyedCaching
            self.policyOverrides = policyOverrides
            self.isRangeServingEnabled = isRangeServingEnabled
            self.storage = storage ?? MemoryStorage(capacity: Self.defaultCapacity, events: events)
            self.defaultStorageCapacity = storage == nil ? Self.defaultCapacity : nil
            self.requestCachePolicy = requestCachePolicy
            self.policy = policy
            self.cacheKeyStrategy = cacheKeyStrategy
            self.clock = clock
            self.logger = logger
            self.events = events
            self.timeout = timeout
            self.willCacheResponse = willCacheResponse
            self.maximumEntryFraction = maximumEntryFraction
            self.outerInterceptors = outerInterceptors
            self.isStaleWhileRevalidateEnabled = isStaleWhileRevalidateEnabled
            self.isRequestCoalescingEnabled = isRequestCoalescingEnabled
            self.tracer = Self.bootstrappedTracer()
        }

        /// The capacity of the default `MemoryStorage`: 10 MiB.
        static let defaultCapacity = 10 * 1024 * 1024

        /// Sends ``events`` to a new default storage too (its evictions), when ``storage`` is still the default one.
        package mutating func reportDefaultStorageEvents() {
            guard let capacity = defaultStorageCapacity else { return }
            storage = MemoryStorage(capacity: capacity, events: events)
            defaultStorageCapacity = capacity
        }

        /// The bootstrapped tracer, or `nil` when it is the no-op one (read once per configuration, not per request).
        static func bootstrappedTracer() -> (any Tracer)? {
            let tracer = InstrumentationSystem.tracer
            return tracer is NoOpTracer ? nil : tracer
        }
    }
}
