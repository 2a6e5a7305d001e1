/// Waits until a condition holds, checking it every 10 ms: for tests that wait on another process (a
/// server writing its first line, a file appearing) instead of pausing for a fixed time.
/// - Parameters:
///   - what: What is awaited, for the error message.
///   - timeout: How long to keep checking; 30 s by default (generous for loaded CI machines).
///   - condition: The condition; checked at once, then every 10 ms. It may be `async` (e.g. read an actor's
///     state); a synchronous closure works as well.
/// - Throws: ``WaitTimedOut`` when the condition still fails after `timeout`, or the task's cancellation.
public func waitUntil(_ what: String, timeout: Duration = .seconds(30), _ condition: () async throws -> Bool) async throws {
    let clock = ContinuousClock()
    let deadline = clock.now + timeout
    while try await !condition() {
        guard clock.now < deadline else { throw WaitTimedOut(what: what, timeout: timeout) }
        try await Task.sleep(for: .milliseconds(10))
    }
}

/// ``waitUntil(_:timeout:_:)`` gave up.
public struct WaitTimedOut: Error, CustomStringConvertible {
    /// What was awaited.
    public let what: String
    /// How long it was awaited.
    public let timeout: Duration

    /// A sentence naming what did not happen.
    public var description: String { "\(what) did not happen within \(timeout)" }
}
