import CacheChain
import Foundation
import Synchronization

/// The demo's clock: the real time plus an offset the walk-through moves forward, so "two minutes later"
/// takes no time.
final class DemoClock: CacheClock {
    /// The offset in milliseconds.
    private let offset = Atomic<Int64>(0)

    /// Now, plus every advance so far.
    func now() -> Date { Date().addingTimeInterval(TimeInterval(offset.load(ordering: .relaxed)) / 1000) }

    /// Moves the clock forward.
    func advance(by seconds: TimeInterval) { offset.add(Int64((seconds * 1000).rounded()), ordering: .relaxed) }
}
