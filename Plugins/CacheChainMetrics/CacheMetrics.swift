public import CacheChainCore
public import CoreMetrics

/// Publishes a cache's activity to swift-metrics: counters fed by `CacheEvent`s and a request timer.
///
/// Counters (labels under ``prefix``, default `cachechain`): `hits`, `misses`, `revalidations`,
/// `stale_served`, `stored`, `bytes_stored`, `not_stored`, `invalidations`, `evictions`, `storage_errors`,
/// `background_revalidations`, `coalesced`. The timer `request_duration` is recorded per request with a `cache_status`
/// dimension (`hit`, `miss`, `revalidated`, …). Labels never carry URLs or keys, so cardinality stays bounded.
///
/// The one-call switch is `HTTPCacheClient.Configuration.enableMetrics(_:)`; by hand:
///
/// ```swift
/// let metrics = CacheMetrics()
/// let storage = MemoryStorage(capacity: 50 << 20, events: metrics.events)   // evictions
/// let client = HTTPCacheClient(transport: CurlTransport(), configuration: .init(
///     storage: storage, events: metrics.events, outerInterceptors: [metrics.timing()]
/// ))
/// ```
///
/// Libraries never bootstrap `MetricsSystem`: pass a `factory` in tests, or let the application bootstrap.
public struct CacheMetrics: Sendable {
    /// The label prefix, e.g. `cachechain`.
    public let prefix: String
    private let counters: [CacheEvent.Kind: Counter]
    private let bytesStored: Counter
    private let factory: any MetricsFactory
    private let dimensions: [(String, String)]

    /// Creates the counters.
    /// - Parameters:
    ///   - prefix: The label prefix; `cachechain` by default.
    ///   - dimensions: Dimensions added to every metric (e.g. `[("cache", "images")]`).
    ///   - factory: The metrics factory; the bootstrapped `MetricsSystem.factory` by default.
    public init(prefix: String = "cachechain", dimensions: [(String, String)] = [], factory: any MetricsFactory = MetricsSystem.factory) {
        self.prefix = prefix
        self.factory = factory
        self.dimensions = dimensions
        var counters: [CacheEvent.Kind: Counter] = [:]
        for (kind, name) in Self.counterNames {
            counters[kind] = Counter(label: "\(prefix)_\(name)", dimensions: dimensions, factory: factory)
        }
        self.counters = counters
        bytesStored = Counter(label: "\(prefix)_bytes_stored", dimensions: dimensions, factory: factory)
    }

    /// The counter name of each event kind.
    static let counterNames: [(CacheEvent.Kind, String)] = [
        (.hit, "hits"), (.miss, "misses"), (.revalidated, "revalidations"), (.staleServed, "stale_served"),
        (.stored, "stored"), (.notStored, "not_stored"), (.invalidated, "invalidations"), (.evicted, "evictions"),
        (.storageError, "storage_errors"), (.backgroundRevalidation, "background_revalidations"),
        (.coalesced, "coalesced"),
    ]

    /// The sink to give the client (and storage backends, for evictions): each event increments its counter,
    /// and a `stored` event adds its bytes to `bytes_stored`.
    public var events: CacheEventSink {
        CacheEventSink { [counters, bytesStored] event in
            counters[event.kind]?.increment()
            if event.kind == .stored, let bytes = event.bytes, bytes > 0 { bytesStored.increment(by: bytes) }
        }
    }

    /// An interceptor that times each request and records it with its cache status; place it outermost.
    /// - Returns: The interceptor.
    public func timing() -> RequestTimingInterceptor {
        RequestTimingInterceptor(label: "\(prefix)_request_duration", dimensions: dimensions, factory: factory)
    }
}
