import CacheChainCore
import Dispatch
import Synchronization

/// A few hiredis connections, each owned by one serial dispatch queue, so blocking Redis calls never run
/// on Swift's cooperative pool. A failed connection is dropped and re-established on a later call, and a
/// ``RedisCircuitBreaker`` shared by all slots decides when: while its circuit is open calls fail at once
/// with a clear error, which the cache turns into a miss.
final class RedisConnectionPool: Sendable {
    private struct SlotState {
        var connection: RedisConnection?
        /// The breaker generation the connection was made in; an older one is dropped before use.
        var generation = 0
    }

    private final class Slot: Sendable {
        let queue: DispatchQueue
        let state = LockedValue(SlotState())

        init(index: Int) {
            queue = DispatchQueue(label: "CacheChain Redis \(index)")
        }
    }

    private let slots: [Slot]
    private let next = Atomic<Int>(0)
    private let configuration: RedisStorage.Configuration
    private let breaker: LockedValue<RedisCircuitBreaker>
    private let events: CacheEventSink

    init(configuration: RedisStorage.Configuration, events: CacheEventSink) {
        self.configuration = configuration
        self.events = events
        breaker = LockedValue(RedisCircuitBreaker(settings: configuration.circuitBreaker))
        slots = (0..<max(1, configuration.connectionCount)).map { Slot(index: $0) }
    }

    /// The breaker's state, for ``RedisStorage/circuitState``.
    var circuitState: RedisStorage.CircuitState {
        let now = ContinuousClock.now
        return breaker.withLock { $0.publicState(now: now) }
    }

    /// Runs `work` with a connected connection on one slot's queue.
    /// - Throws: ``CacheChainError`` (`storage-failed`) when Redis is unreachable, the connection fails or
    ///   the circuit is open; what `work` throws.
    func withConnection<T: Sendable>(_ work: @escaping @Sendable (RedisConnection) throws(CacheChainError) -> T) async throws(CacheChainError) -> T {
        // Fail fast without waiting behind a slot's hung command when the circuit is already open.
        if let rejection = rejectionWhileOpen() { throw rejection }
        let slot = slots[next.wrappingAdd(1, ordering: .relaxed).oldValue % slots.count]
        let result: Result<T, CacheChainError> = await withCheckedContinuation { continuation in
            slot.queue.async {
                let outcome = slot.state.withLock { state -> Result<T, CacheChainError> in
                    self.run(work, state: &state)
                }
                continuation.resume(returning: outcome)
            }
        }
        return try result.get()
    }

    /// The error for a call made while the circuit is open (or probing) and not due for a probe, else `nil`.
    private func rejectionWhileOpen() -> CacheChainError? {
        let now = ContinuousClock.now
        guard case .reject(let retryAt, let cause) = breaker.withLock({ $0.peek(now: now) }) else { return nil }
        return unavailable(retryAt: retryAt, cause: cause, now: now)
    }

    private func unavailable(retryAt: ContinuousClock.Instant, cause: String, now: ContinuousClock.Instant) -> CacheChainError {
        let seconds = Double((retryAt - now) / .milliseconds(1)) / 1000
        return CacheChainError(
            .storageFailed,
            "Redis at \(configuration.endpoint) is unavailable, circuit breaker open (\(cause)); next attempt in \(seconds) s"
        )
    }

    private func run<T>(_ work: (RedisConnection) throws(CacheChainError) -> T, state: inout SlotState) -> Result<T, CacheChainError> {
        let now = ContinuousClock.now
        let (admission, generation) = breaker.withLock { ($0.admit(now: now), $0.generation) }
        if case .reject(let retryAt, let cause) = admission {
            return .failure(unavailable(retryAt: retryAt, cause: cause, now: now))
        }
        if state.generation != generation {
            state.connection = nil  // made before the last outage: reconnect rather than find out with a failed call
            state.generation = generation
        }
        do throws(CacheChainError) {
            let connection: RedisConnection
            if let existing = state.connection {
                connection = existing
            } else {
                connection = try RedisConnection.connect(configuration: configuration)
                state.connection = connection
            }
            let value = try work(connection)
            report(breaker.withLock { $0.recordSuccess() })
            return .success(value)
        } catch {
            let connectionFailed = state.connection.map(\.isBroken) ?? true
            if connectionFailed {
                state.connection = nil
                report(breaker.withLock { $0.recordFailure(error.message, now: ContinuousClock.now) })
            } else {
                // The connection is fine (the work's own failure, e.g. a damaged entry): Redis answered.
                report(breaker.withLock { $0.recordSuccess() })
            }
            return .failure(error)
        }
    }

    private func report(_ transition: RedisCircuitBreaker.Transition?) {
        guard case .opened(let cause) = transition else { return }
        events.emit(CacheEvent(.storageError, reasons: ["redis-circuit-open", cause]))
    }
}
