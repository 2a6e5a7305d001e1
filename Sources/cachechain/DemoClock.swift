import CacheChain
import Foundation

/// The demo's clock: the real time plus an offset the walk-through moves forward, so "two minutes later"
/// takes no time.
final class DemoClock: CacheClock {
    private let offset = LockedValue<TimeInterval>(0)

    /// Now, plus every advance so far.
    func now() -> Date { Date().addingTimeInterval(offset.withLock { $0 }) }

    /// Moves the clock forward.
    func advance(by seconds: TimeInterval) { offset.withLock { $0 += seconds } }
}
