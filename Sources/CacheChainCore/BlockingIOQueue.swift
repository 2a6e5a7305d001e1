import Dispatch
import Synchronization

/// A serial dispatch queue of a backend's own, on which its blocking calls run (SQLite with its busy
/// timeout, file reads, writes and `fsync`, hiredis): never on — and never pinning — a thread of Swift's
/// cooperative pool.
///
/// Dispatch runs the queue on a thread of its own pool, outside the cooperative one, as `CurlMultiLoop`'s
/// thread and the Redis backend's per-connection queues do. The caller's task is suspended (not blocked)
/// while the work runs, and one queue runs one piece of work at a time, so the state the work touches needs
/// no other lock.
///
/// ```swift
/// let io = BlockingIOQueue(label: "cachechain.example")
/// let size = await io.run { FileManager.default.contents(atPath: "/etc/hostname")?.count ?? 0 }
/// ```
package final class BlockingIOQueue: Sendable {
    private let queue: DispatchQueue
    private let crossings = Atomic<Int>(0)

    /// How many pieces of work have crossed to the queue so far (for tests of what crosses a thread).
    package var crossingCount: Int { crossings.load(ordering: .relaxed) }

    /// Creates the queue.
    /// - Parameter label: Its label, as debuggers and thread lists show it.
    package init(label: String) {
        queue = DispatchQueue(label: label)
    }

    /// Runs blocking work on the queue and returns its result, suspending the caller meanwhile.
    /// - Parameter work: The work; it runs once, on the queue, before this call returns.
    /// - Returns: What `work` returned.
    /// - Throws: What `work` threw.
    package func run<Value: Sendable, Failure: Error>(
        _ work: () throws(Failure) -> Value
    ) async throws(Failure) -> Value {
        crossings.add(1, ordering: .relaxed)
        let outcome = await withoutActuallyEscaping(work) { work async -> Result<Value, Failure> in
            let job = Unmanaged.passRetained(BlockingIOJob(work))
            // The result travels in the continuation itself: there is no state in which the caller resumes
            // without one.
            return await withCheckedContinuation { continuation in
                queue.async { continuation.resume(returning: BlockingIOJob.runAndRelease(job)) }
            }
        }
        return try outcome.get()
    }
}

/// One piece of work handed to the queue.
private final class BlockingIOJob<Value: Sendable, Failure: Error>: @unchecked Sendable {  // invariant: the job is reached only through the one retained reference handed to the queue's block, which runs it once in `runAndRelease`
    private let work: () throws(Failure) -> Value

    init(_ work: @escaping () throws(Failure) -> Value) {
        self.work = work
    }

    /// Runs the job and releases it — and with it the work — before returning, so no reference to the work
    /// outlives the caller's `withoutActuallyEscaping` once the result is delivered.
    static func runAndRelease(_ job: Unmanaged<BlockingIOJob>) -> Result<Value, Failure> {
        let job = job.takeRetainedValue()
        return Result { () throws(Failure) -> Value in try job.work() }
    }
}
