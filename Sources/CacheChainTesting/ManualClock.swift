public import CacheChainCore
public import Foundation

/// A wall clock that only moves when a test moves it: step through freshness without sleeping.
///
/// ```swift
/// let origin = ScriptedTransport()
/// let clock = ManualClock()
/// let client = HTTPCacheClient(transport: origin, configuration: .init(clock: clock))
/// clock.advance(by: 61)   // a max-age=60 response is now stale
/// ```
public final class ManualClock: CacheClock {
    private let current: LockedValue<Date>

    /// Creates a clock.
    /// - Parameter now: The starting instant; a fixed date in 2023 by default, so tests are repeatable.
    public init(now: Date = Date(timeIntervalSince1970: 1_700_000_000)) {
        current = LockedValue(now)
    }

    /// The clock's current instant.
    /// - Returns: Now, as set by the test.
    public func now() -> Date { current.withLock { $0 } }

    /// Moves the clock forward (or back, with a negative value).
    /// - Parameter seconds: The step.
    public func advance(by seconds: TimeInterval) {
        current.withLock { $0 += seconds }
    }

    /// Sets the clock to an instant.
    /// - Parameter date: The new instant.
    public func set(_ date: Date) {
        current.withLock { $0 = date }
    }
}
