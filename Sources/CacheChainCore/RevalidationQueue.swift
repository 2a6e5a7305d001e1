/// Background revalidations (`stale-while-revalidate`) owned by a client's scope, deduplicated by key.
///
/// The queue runs each scheduled operation in a child `Task` it keeps track of (never a detached task);
/// at most one operation per identifier runs at a time, so a burst of stale hits revalidates once.
/// ``drain()`` waits for every operation, which a client's scope does before it ends; ``close()`` also refuses
/// new ones, which a client's `shutdown()` does, and ``cancelAll()`` abandons the running ones.
public actor RevalidationQueue {
    private var running: [String: Task<Void, Never>] = [:]
    private var isClosed = false

    /// Creates an empty queue.
    public init() {}

    /// Schedules an operation unless one with the same identifier is already running.
    /// - Parameters:
    ///   - id: Deduplication identifier (the cache key and variant).
    ///   - operation: The work; errors are the operation's to handle.
    /// - Returns: Whether the operation was scheduled (false when a duplicate was running, or the queue is closed).
    @discardableResult
    public func schedule(id: String, operation: @escaping @Sendable () async -> Void) -> Bool {
        guard !isClosed, running[id] == nil else { return false }
        running[id] = Task {
            await operation()
            self.finish(id)
        }
        return true
    }

    /// The number of operations still running.
    public var pendingCount: Int { running.count }

    /// The number of operations that have finished since the queue was created.
    public private(set) var completedCount = 0

    /// Waits until every scheduled operation, including ones scheduled while waiting, has finished.
    public func drain() async {
        while let task = running.values.first {
            await task.value
        }
    }

    /// Whether the queue still schedules work: `false` once ``close()`` was called.
    public var isAcceptingWork: Bool { !isClosed }

    /// Refuses every later operation, then waits for the running ones, as ``drain()`` does.
    ///
    /// Idempotent. A stale response served after the queue closed is still served; it is just not refreshed in
    /// the background.
    public func close() async {
        isClosed = true
        await drain()
    }

    /// Cancels every running operation (their network transfers fail with `cancelled` and store nothing); they
    /// finish promptly, so a ``drain()`` in progress returns soon after.
    public func cancelAll() {
        for task in running.values { task.cancel() }
    }

    private func finish(_ id: String) {
        running[id] = nil
        completedCount += 1
    }
}
