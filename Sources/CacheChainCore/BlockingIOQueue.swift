import Dispatch

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

    /// Creates the queue.
    /// - Parameter label: Its label, as debuggers and thread lists show it.
    package init(label: String) {
        queue = DispatchQueue(label: label)
    }

    /// Runs blocking work on the queue and returns its result, suspending the caller meanwhile.
    /// - Parameter work: The work; it runs once, on the queue, before this call returns.
    /// - Returns: What `work` returned.
    /// - Throws: What `work` threw.
    package func run<Value, Failure: Error>(_ work: () throws(Failure) -> Value) async throws(Failure) -> Value {
        try await withoutActuallyEscaping(work) { (work) async throws(Failure) -> Value in
            let job = Job(work)
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                queue.async {
                    job.run()
                    continuation.resume()
                }
            }
            return try job.outcome()
        }
    }

    /// One piece of work and its result, handed to the queue and back.
    private final class Job<Value, Failure: Error>: @unchecked Sendable {  // invariant: the queue's block touches `work` and `result` first, the caller reads `result` only after the continuation resumes (which orders the two), never both at once
        private var work: (() throws(Failure) -> Value)?
        private var result: Result<Value, Failure>?

        init(_ work: @escaping () throws(Failure) -> Value) {
            self.work = work
        }

        /// Runs the work and drops it, so no reference to it outlives the run.
        func run() {
            guard let work else { return }
            self.work = nil
            result = Result { () throws(Failure) -> Value in try work() }
        }

        /// The work's result.
        func outcome() throws(Failure) -> Value {
            guard let result else { preconditionFailure("the blocking work did not run") }
            return try result.get()
        }
    }
}
