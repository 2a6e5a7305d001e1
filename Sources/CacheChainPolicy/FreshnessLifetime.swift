public import FoundationEssentials

/// How long a response stays fresh and where that number came from (RFC 9111 §4.2.1).
public struct FreshnessLifetime: Sendable, Hashable {
    /// The rule that produced the lifetime.
    public enum Source: String, Sendable, Hashable {
        /// `s-maxage` (shared caches only).
        case sharedMaxAge
        /// `max-age`.
        case maxAge
        /// `Expires` minus `Date`.
        case expires
        /// ``CachePolicyConfiguration/heuristicFraction`` (10% by default) of the time since `Last-Modified`, capped (§4.2.2).
        case heuristic
        /// No explicit or heuristic freshness: the response is stale at once.
        case none
        /// A directive or `Expires` was invalid; the response is treated as stale (§4.2.1, §5.3).
        case invalid
    }

    /// The lifetime in seconds (0 for ``Source/none`` and ``Source/invalid``).
    public var seconds: TimeInterval
    /// Where it came from.
    public var source: Source

    /// Creates a lifetime.
    /// - Parameters:
    ///   - seconds: The lifetime in seconds.
    ///   - source: Where it came from.
    public init(seconds: TimeInterval, source: Source) {
        self.seconds = seconds
        self.source = source
    }
}
