public import Foundation

/// The wall clock the cache reads: RFC 9111's ages and lifetimes are in wall-clock time.
///
/// Inject a manual clock in tests (`CacheChainTesting.ManualClock`) so that freshness can be stepped
/// through without sleeping.
public protocol CacheClock: Sendable {
    /// The current instant.
    /// - Returns: Now.
    func now() -> Date
}

/// The system's wall clock.
public struct SystemClock: CacheClock {
    /// Creates the system clock.
    public init() {}

    /// The current instant, from `Date()`.
    /// - Returns: Now.
    public func now() -> Date { Date() }
}
