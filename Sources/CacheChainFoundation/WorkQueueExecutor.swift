import Dispatch

/// A task executor over a task's work queue, the serial queue where FoundationNetworking calls `startLoading` and
/// `stopLoading` and where the protocol's client must be called.
///
/// A task's loading runs on it (task executor preference), so an answer that needs no I/O — a memory hit — is
/// computed and delivered on the thread that called `startLoading`, right after it returns: no wake-up of a thread
/// of Swift's cooperative pool and none of the work queue's thread to hand the answer back (each costs 30–50 µs on
/// a quiet machine). Awaiting the network suspends the loading and frees the queue; it resumes there.
///
/// The queue is never blocked without bound by the loading: storage that blocks (writes, `fsync`, large reads)
/// crosses to the storage's own thread, and the transport waits on its own threads.
final class WorkQueueExecutor: TaskExecutor {
    let queue: DispatchQueue

    /// Creates an executor over a work queue.
    /// - Parameter queue: A serial queue.
    init(_ queue: DispatchQueue) {
        self.queue = queue
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        // The block keeps the executor alive until the job has run.
        queue.async { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}
