import Dispatch
import CacheChain

/// The hand-over between ``FileDescriptorLines``' reading thread and the task that consumes the lines: at most
/// `capacity` lines wait in between. When that many are waiting the thread blocks in ``push(_:)`` and stops
/// reading, so the writer on the other end of the pipe is held back by the pipe instead of the process
/// buffering all of its input.
final class BoundedLineQueue: Sendable {
    private struct State {
        var lines: [[UInt8]] = []
        var head = 0
        var isFinished = false
        var isCancelled = false
        var consumer: CheckedContinuation<[UInt8]?, Never>?
        /// Lines taken whose permits are not yet given back.
        var unreturned = 0
    }

    // A ``LockedValue`` (pthread) rather than `Synchronization.Mutex`, which ThreadSanitizer does not see on Linux.
    private let state = LockedValue(State())
    /// One permit per line that may still be queued; the consumer returns one for every line it takes.
    private let space: DispatchSemaphore
    /// How many permits the consumer gives back at once: a reading thread blocked on a full queue is then woken
    /// once per quarter of the queue rather than once per line (a wake-up is a system call).
    private let returnBatch: Int

    /// Creates a queue.
    /// - Parameter capacity: How many lines may wait; at least 1.
    init(capacity: Int) {
        // Created at 0 and raised: libdispatch traps when a semaphore is released below its initial value, which
        // this one may be (lines still queued when the consumer goes away).
        space = DispatchSemaphore(value: 0)
        for _ in 0..<max(1, capacity) { space.signal() }
        // At most the capacity, so a consumer waiting on an empty queue always leaves the thread a permit.
        returnBatch = max(1, capacity / 4)
    }

    /// Queues a line, blocking the calling thread while the queue is full (call it from the reading thread only).
    /// - Returns: `false` once the consumer has gone away: stop reading (later calls return `false` at once).
    func push(_ line: [UInt8]) -> Bool {
        space.wait()
        let waiting = state.withLock { state -> (CheckedContinuation<[UInt8]?, Never>?, Bool) in
            guard !state.isCancelled else {
                space.signal()  // passed on, so that no later call blocks
                return (nil, false)
            }
            if let consumer = state.consumer {
                state.consumer = nil
                return (consumer, true)
            }
            state.lines.append(line)
            return (nil, true)
        }
        waiting.0?.resume(returning: line)
        return waiting.1
    }

    /// Marks the end of the input: the consumer gets the queued lines, then `nil`.
    func finish() {
        let consumer = state.withLock { state in
            state.isFinished = true
            defer { state.consumer = nil }
            return state.consumer
        }
        consumer?.resume(returning: nil)
    }

    /// The consumer has gone away: wakes a blocked reading thread (its next ``push(_:)`` returns `false`) and ends
    /// a pending ``next()``.
    func cancel() {
        let consumer = state.withLock { state in
            state.isCancelled = true
            defer { state.consumer = nil }
            return state.consumer
        }
        space.signal()
        consumer?.resume(returning: nil)
    }

    /// The next line, waiting for the reading thread when none is queued; `nil` after the last one.
    func next() async -> [UInt8]? {
        let line: [UInt8]? = await withCheckedContinuation { continuation in
            let ready = state.withLock { state -> (line: [UInt8]?, resumeNow: Bool) in
                if state.head < state.lines.count {
                    let line = state.lines[state.head]
                    state.lines[state.head] = []
                    state.head += 1
                    if state.head == state.lines.count {
                        state.lines.removeAll(keepingCapacity: true)
                        state.head = 0
                    }
                    return (line, true)
                }
                if state.isFinished || state.isCancelled { return (nil, true) }
                state.consumer = continuation
                return (nil, false)
            }
            if ready.resumeNow { continuation.resume(returning: ready.line) }
        }
        if line != nil {
            let returning = state.withLock { state -> Int in
                state.unreturned += 1
                guard state.unreturned >= returnBatch else { return 0 }
                defer { state.unreturned = 0 }
                return state.unreturned
            }
            for _ in 0..<returning { space.signal() }
        }
        return line
    }

}
