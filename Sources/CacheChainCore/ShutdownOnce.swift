/// Runs a shutdown procedure exactly once, however many callers ask for it and however concurrently.
///
/// The first ``run(_:)`` starts the procedure in a task of its own; every call, the first and later ones,
/// waits for that one task to finish and gets its outcome. So `shutdown()` methods built on it are idempotent,
/// and a second caller never returns before the first caller's shutdown is complete.
package final class ShutdownOnce: Sendable {
    private let task = LockedValue<Task<Void, any Error>?>(nil)

    /// Creates a gate that has not run yet.
    package init() {}

    package var hasStarted: Bool { task.withLock { $0 != nil } }

    /// Starts `procedure` unless it was started before, then waits for it to finish.
    /// - Parameter procedure: The shutdown work; used by the first call only.
    /// - Throws: What the procedure threw (every caller gets the same error).
    package func run(_ procedure: @escaping @Sendable () async throws -> Void) async throws {
        let running = task.withLock { task in
            if let task { return task }
            let started = Task { try await procedure() }
            task = started
            return started
        }
        try await running.value
    }
}
