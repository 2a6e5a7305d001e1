public import FoundationEssentials

/// A stored response's freshness at one instant (RFC 9111 §4.2): lifetime, current age, and the verdict.
public struct FreshnessReport: Sendable, Hashable, CustomStringConvertible {
    /// The freshness lifetime.
    public var lifetime: FreshnessLifetime
    /// The current age in seconds (§4.2.3).
    public var currentAge: TimeInterval
    /// Whether `lifetime > currentAge`.
    public var isFresh: Bool { lifetime.seconds > currentAge }
    /// How long the response has been stale, in seconds (0 while fresh).
    public var staleness: TimeInterval { max(0, currentAge - lifetime.seconds) }
    /// How long the response stays fresh, in seconds (0 once stale).
    public var remainingFreshness: TimeInterval { max(0, lifetime.seconds - currentAge) }

    /// Creates a report.
    /// - Parameters:
    ///   - lifetime: The freshness lifetime.
    ///   - currentAge: The current age in seconds.
    public init(lifetime: FreshnessLifetime, currentAge: TimeInterval) {
        self.lifetime = lifetime
        self.currentAge = currentAge
    }

    /// E.g. `age 12s of 60s (maxAge)`.
    public var description: String {
        "age \(Int(currentAge))s of \(Int(lifetime.seconds))s (\(lifetime.source.rawValue))"
    }
}
