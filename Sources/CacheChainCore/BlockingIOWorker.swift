import Dispatch
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The thread behind a ``BlockingIOQueue``: runs submitted work in order, looks for more for
/// ``BlockingIOQueue/idleSpin`` after the last piece, then parks until the next submission.
final class BlockingIOWorker: Sendable {
    private struct State {
        var pending: [@Sendable () -> Void] = []
        var isParked = false
        var isStopping = false

        /// Clears the parked mark; true when the thread was parked and must be signalled.
        mutating func unpark() -> Bool {
            defer { isParked = false }
            return isParked
        }
    }

    private enum Step {
        case run(@Sendable () -> Void)
        case idle
        case stop
    }

    private let state = LockedValue(State())
    /// Wakes the parked thread: signalled once per park, by the submission (or stop) that ends it.
    private let wakeUp = DispatchSemaphore(value: 0)

    /// Appends work and wakes the thread if it parked.
    func submit(_ work: @escaping @Sendable () -> Void) {
        let wake = state.withLock { state in
            state.pending.append(work)
            return state.unpark()
        }
        if wake { wakeUp.signal() }
    }

    /// Ends the thread once the work already submitted has run.
    func stop() {
        let wake = state.withLock { state in
            state.isStopping = true
            return state.unpark()
        }
        if wake { wakeUp.signal() }
    }

    /// Names the calling thread (its first 15 bytes, as thread lists show it). Linux gives a new thread its
    /// creator's name, and Glibc's `pthread_setname_np` is not imported into Swift: the thread writes its own
    /// `comm` file instead. Best effort: a name that cannot be set leaves the inherited one.
    static func nameCurrentThread(_ label: String) {
        #if os(Linux)
        let descriptor = open("/proc/thread-self/comm", O_WRONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return }
        let name = Array(label.utf8.prefix(15))
        _ = name.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        close(descriptor)
        #endif
    }

    /// The thread's body.
    func runLoop() {
        var idleSince = ContinuousClock.now
        while true {
            switch next() {
            case .run(let work):
                work()
                idleSince = ContinuousClock.now
            case .stop:
                return
            case .idle:
                if ContinuousClock.now - idleSince < BlockingIOQueue.idleSpin {
                    sched_yield()
                } else if park() {
                    wakeUp.wait()
                    idleSince = ContinuousClock.now
                }
            }
        }
    }

    private func next() -> Step {
        state.withLock { state in
            if !state.pending.isEmpty { return .run(state.pending.removeFirst()) }
            return state.isStopping ? .stop : .idle
        }
    }

    /// Marks the thread parked unless work or a stop arrived meanwhile; true when it must wait.
    private func park() -> Bool {
        state.withLock { state in
            guard state.pending.isEmpty, !state.isStopping else { return false }
            state.isParked = true
            return true
        }
    }
}
