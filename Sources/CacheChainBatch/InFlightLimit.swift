import CacheChain

/// A counting gate for the requests a ``BatchRunner`` has in flight: ``acquire()`` takes one of `limit`
/// slots, suspending while none is free; ``release()`` gives one back and resumes the longest waiter.
///
/// The runner's reading loop is the only caller of ``acquire()``: while it waits, no further input line is
/// read, so a caller that sends thousands of requests gets them performed `limit` at a time instead of
/// opening thousands of connections at once.
final class InFlightLimit: Sendable {
    private struct State {
        var available: Int
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    // A ``LockedValue`` (pthread) rather than `Synchronization.Mutex`, which ThreadSanitizer does not see on Linux.
    private let state: LockedValue<State>

    /// Creates a gate.
    /// - Parameter limit: How many slots there are; at least 1.
    init(_ limit: Int) {
        state = LockedValue(State(available: max(1, limit)))
    }

    /// Takes a slot, waiting until one is free.
    func acquire() async {
        let acquired = state.withLock { state in
            guard state.available > 0 else { return false }
            state.available -= 1
            return true
        }
        if acquired { return }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let resumeNow = state.withLock { state in
                // A slot may have come back between the first look and now.
                guard state.available > 0 else {
                    state.waiters.append(continuation)
                    return false
                }
                state.available -= 1
                return true
            }
            if resumeNow { continuation.resume() }
        }
    }

    /// Gives a slot back: to the longest waiter when there is one (the slot passes straight to it).
    func release() {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard !state.waiters.isEmpty else {
                state.available += 1
                return nil
            }
            return state.waiters.removeFirst()
        }
        waiter?.resume()
    }

}
