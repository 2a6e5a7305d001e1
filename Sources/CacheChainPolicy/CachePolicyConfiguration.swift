public import FoundationEssentials

/// The tunable parts of the RFC 9111 rules.
public struct CachePolicyConfiguration: Sendable, Hashable {
    /// Private (default) or shared cache rules.
    public var mode: CacheMode
    /// The fraction of the time since `Last-Modified` used as a heuristic freshness lifetime
    /// (RFC 9111 §4.2.2 suggests 10%).
    public var heuristicFraction: Double
    /// The longest heuristic freshness lifetime, in seconds (one day by default).
    public var maximumHeuristicLifetime: TimeInterval

    /// Creates a configuration.
    /// - Parameters:
    ///   - mode: Private or shared cache.
    ///   - heuristicFraction: Heuristic fraction of the `Last-Modified` age; 0 disables heuristic freshness.
    ///   - maximumHeuristicLifetime: Cap on heuristic lifetimes, in seconds.
    public init(
        mode: CacheMode = .privateCache,
        heuristicFraction: Double = 0.1,
        maximumHeuristicLifetime: TimeInterval = 86_400
    ) {
        self.mode = mode
        self.heuristicFraction = heuristicFraction
        self.maximumHeuristicLifetime = maximumHeuristicLifetime
    }
}
