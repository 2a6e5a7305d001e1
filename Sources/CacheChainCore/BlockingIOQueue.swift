import Dispatch
import Foundation

/// A thread of a backend's own on which its blocking calls run (SQLite with its busy timeout, file reads,
/// writes and `fsync`): never on — and never pinning — a thread of Swift's cooperative pool.
///
/// One queue runs one piece of work at a time, in the order submitted, so the state the work touches needs no
/// other lock. The caller's task is suspended (not blocked) while long work runs.
///
/// **Cost.** A hop to a parked thread and back costs two thread wake-ups, tens of microseconds on a VM: more
/// than a small disk hit itself. So both sides spin briefly before parking. The queue's thread keeps looking for
/// work for ``idleSpin`` after its last piece (yielding the CPU between looks), so calls in a row find it awake;
/// the caller keeps looking for its result for ``callerSpin`` (a short bounded wait, as a spin lock's) and only
/// then suspends, so short work returns without a wake-up of the cooperative pool. Work longer than that —
/// a large read, a lock wait — suspends the caller as before.
///
/// ```swift
/// let io = BlockingIOQueue(label: "cachechain.example")
/// let size = await io.run { FileManager.default.contents(atPath: "/etc/hostname")?.count ?? 0 }
/// ```
package final class BlockingIOQueue: Sendable {
    /// How long the queue's thread keeps looking for work after its last piece before it parks.
    package static let idleSpin: Duration = .microseconds(100)
    /// How long a caller waits for its result before it suspends.
    package static let callerSpin: Duration = .microseconds(20)

    private let worker: BlockingIOWorker

    /// Creates the queue and starts its thread, which ends when the queue is released.
    /// - Parameter label: The thread's name, as debuggers and thread lists show it (its first 15 bytes on Linux).
    package init(label: String) {
        worker = BlockingIOWorker()
        let worker = self.worker
        let thread = Thread {
            BlockingIOWorker.nameCurrentThread(label)
            worker.runLoop()
        }
        thread.start()
    }

    deinit {
        worker.stop()
    }

    /// Runs blocking work on the queue's thread and returns its result, suspending the caller meanwhile (after
    /// a wait of at most ``callerSpin``).
    /// - Parameter work: The work; it runs once, on the queue's thread, before this call returns.
    /// - Returns: What `work` returned.
    /// - Throws: What `work` threw.
    package func run<Value: Sendable, Failure: Error>(
        _ work: () throws(Failure) -> Value
    ) async throws(Failure) -> Value {
        let outcome = await withoutActuallyEscaping(work) { work async -> Result<Value, Failure> in
            let job = BlockingIOJob(work)
            worker.submit { job.run() }
            if let early = job.awaitBriefly(Self.callerSpin) { return early }
            return await withCheckedContinuation { continuation in job.deliver(to: continuation) }
        }
        return try outcome.get()
    }
}

/// One piece of work, its result and the caller waiting for it.
private final class BlockingIOJob<Value: Sendable, Failure: Error>: @unchecked Sendable {  // invariant: `work` is touched only by the queue's thread, in `run()` (the caller waits for its result before the closure's lifetime ends); `handoff` only under its lock
    private struct Handoff {
        var result: Result<Value, Failure>?
        var waiter: CheckedContinuation<Result<Value, Failure>, Never>?
    }

    private var work: (() throws(Failure) -> Value)?
    private let handoff = LockedValue(Handoff())

    init(_ work: @escaping () throws(Failure) -> Value) {
        self.work = work
    }

    /// On the queue's thread: runs the work once, drops it, and hands the result to the caller (resuming it if it
    /// already suspended).
    func run() {
        guard let result = perform() else { return }
        let waiter = handoff.withLock { handoff in
            guard let waiter = handoff.waiter else {
                handoff.result = result
                return nil as CheckedContinuation<Result<Value, Failure>, Never>?
            }
            handoff.waiter = nil
            return waiter
        }
        waiter?.resume(returning: result)
    }

    /// Runs the work and drops every reference to it before returning, so none outlives the caller's
    /// `withoutActuallyEscaping` once the result is published; nil when it already ran.
    private func perform() -> Result<Value, Failure>? {
        guard let work else { return nil }
        self.work = nil
        return Result { () throws(Failure) -> Value in try work() }
    }

    /// The result, if the work ends within `limit`; nil otherwise.
    func awaitBriefly(_ limit: Duration) -> Result<Value, Failure>? {
        let deadline = ContinuousClock.now + limit
        repeat {
            if let result = handoff.withLock({ $0.result }) { return result }
        } while ContinuousClock.now < deadline
        return nil
    }

    /// Resumes `continuation` with the result now if there is one, or when the work ends.
    func deliver(to continuation: CheckedContinuation<Result<Value, Failure>, Never>) {
        let ready = handoff.withLock { handoff in
            if handoff.result == nil { handoff.waiter = continuation }
            return handoff.result
        }
        if let ready { continuation.resume(returning: ready) }
    }
}
