public import CacheChainPolicy
public import Foundation
import HTTPTypes

/// Housekeeping: whether an entry has expired, and whether a backend's stale-retention cap has passed.
extension CacheEntry {
    /// Whether the entry is stale at `now` and has been for at least `olderThan` (RFC 9111 §4.2: its current
    /// age exceeds its freshness lifetime). What `CacheStorage.removeExpired(now:olderThan:policy:)` removes.
    ///
    /// A stale entry may still be useful (a validator to revalidate with, `stale-while-revalidate`,
    /// `stale-if-error`, `max-stale`); `olderThan` keeps those for a while.
    /// - Parameters:
    ///   - now: The current time.
    ///   - olderThan: How long the entry must have been stale; zero (the default) selects every stale entry.
    ///   - policy: The rules that compute the freshness lifetime (private cache by default).
    /// - Returns: Whether the entry is stale by at least `olderThan`.
    public func isExpired(at now: Date, olderThan: Duration = .zero, policy: CachePolicyConfiguration = .init()) -> Bool {
        let report = CachePolicyEngine(configuration: policy).freshness(of: exchange, now: now)
        return !report.isFresh && report.staleness >= olderThan.housekeepingSeconds
    }

    /// Whether a backend keeping stale entries for at most `retention` should drop this one at `now`: it has
    /// been stale for longer than the time its own `stale-while-revalidate` or `stale-if-error` grants
    /// (``staleExtension``) plus `retention`. The rule of the Redis backend's expiry, for every backend.
    /// - Parameters:
    ///   - retention: How long an entry is kept once stale beyond its own stale extensions.
    ///   - now: The current time.
    /// - Returns: Whether the entry is past its retention.
    public func isPastRetention(_ retention: Duration, at now: Date) -> Bool {
        let report = CachePolicyEngine().freshness(of: exchange, now: now)
        return !report.isFresh && report.staleness > staleExtension + retention.housekeepingSeconds
    }

    /// How long, in seconds, the response itself allows serving it stale: the larger of its
    /// `stale-while-revalidate` and `stale-if-error` (RFC 5861), 0 when it has neither.
    public var staleExtension: TimeInterval {
        let control = CacheControl(exchange.response.headerFields)
        let extensions = ["stale-while-revalidate", "stale-if-error"].compactMap { control.seconds($0)?.value }
        return TimeInterval(extensions.max() ?? 0)
    }
}

extension Duration {
    /// The duration in seconds, as the policy engine counts ages.
    package var housekeepingSeconds: TimeInterval {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}
