import CacheChainCore
import Dispatch

/// Runs async CacheChain work for a synchronous Foundation API (`URLCache`'s members return their answer) and
/// blocks the calling thread until it ends.
///
/// The work runs in a task whose executor is a dispatch queue of its own, not Swift's cooperative pool: a
/// caller that blocks a cooperative thread (synchronous `URLCache` calls from async code) can then never
/// starve the work it waits for, however many such callers there are. Default actors the work calls (the
/// storage backends) run on that executor too, as task executor preference makes them.
enum BlockingCall {
    /// Runs `work` to its end and returns its result.
    /// - Parameter work: The async work.
    /// - Returns: What `work` returned.
    /// - Throws: What `work` threw.
    static func run<Value: Sendable>(_ work: @escaping @Sendable () async throws -> Value) throws -> Value {
        try run { () async -> Result<Value, any Error> in
            do {
                return .success(try await work())
            } catch {
                return .failure(error)
            }
        }.get()
    }

    /// Runs `work` that cannot fail to its end and returns its result.
    /// - Parameter work: The async work.
    /// - Returns: What `work` returned.
    static func run<Value: Sendable>(_ work: @escaping @Sendable () async -> Value) -> Value {
        let finished = DispatchSemaphore(value: 0)
        let result = LockedValue<Value?>(nil)
        let executor = QueueExecutor()
        Task(executorPreference: executor) {
            let value = await work()
            result.withLock { $0 = value }
            finished.signal()
        }
        withExtendedLifetime(executor) { finished.wait() }
        guard let value = result.withLock({ $0 }) else { preconditionFailure("the blocking call ended without a result") }
        return value
    }
}

/// A task executor over a serial dispatch queue of its own (dispatch gives it a thread of its own pool, not
/// one of Swift's cooperative threads).
private final class QueueExecutor: TaskExecutor {
    private let queue = DispatchQueue(label: "cachechain.foundation.blocking-call")

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        // The block keeps the executor alive until the job has run.
        queue.async { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}
