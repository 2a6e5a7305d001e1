public import CacheChainClient
import CacheChainCore

extension HTTPCacheClient.Configuration {
    /// Switches CacheChain's metrics on in one call: the configuration's events also go to the counters of
    /// `metrics` (`hits`, `misses`, `stored`…), the default storage's evictions too, and a request timer is placed
    /// first among the outer interceptors.
    ///
    /// ```swift
    /// var configuration = HTTPCacheClient.Configuration()
    /// configuration.enableMetrics()                 // the application's MetricsSystem, prefix `cachechain`
    /// let client = HTTPCacheClient(transport: CurlTransport(), configuration: configuration)
    /// ```
    ///
    /// Call it after setting `events` (it adds to the sink, it does not replace
    /// it). A backend you made yourself reports evictions only to the sink it was created with: give it
    /// `metrics.events` (e.g. `MemoryStorage(capacity:events:)`, `DiskStorage(directory:capacity:durability:events:)`).
    /// - Parameter metrics: The counters and timer; `CacheMetrics()` (the bootstrapped `MetricsSystem`) by default.
    public mutating func enableMetrics(_ metrics: CacheMetrics = CacheMetrics()) {
        events = events.combined(with: metrics.events)
        reportDefaultStorageEvents()
        outerInterceptors.insert(metrics.timing(), at: 0)
    }
}
