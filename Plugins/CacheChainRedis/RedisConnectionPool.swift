import CacheChainCore
import Dispatch
import Synchronization

/// A few hiredis connections, each owned by one serial dispatch queue, so blocking Redis calls never run
/// on Swift's cooperative pool. A failed connection is dropped and re-established on a later call, with
/// exponential backoff (100 ms doubling to 5 s): while backing off, calls fail at once with a clear error,
/// which the cache turns into a miss.
final class RedisConnectionPool: Sendable {
    private struct SlotState {
        var connection: RedisConnection?
        var failures = 0
        var retryAt: ContinuousClock.Instant?
        var lastError = ""
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

    init(configuration: RedisStorage.Configuration) {
        self.configuration = configuration
        slots = (0..<max(1, configuration.connectionCount)).map { Slot(index: $0) }
    }

    /// Runs `work` with a connected connection on one slot's queue.
    /// - Throws: ``CacheChainError`` (`storage-failed`) when Redis is unreachable or the connection fails;
    ///   what `work` throws.
    func withConnection<T: Sendable>(_ work: @escaping @Sendable (RedisConnection) throws(CacheChainError) -> T) async throws(CacheChainError) -> T {
        let slot = slots[next.wrappingAdd(1, ordering: .relaxed).oldValue % slots.count]
        let configuration = self.configuration
        let result: Result<T, CacheChainError> = await withCheckedContinuation { continuation in
            slot.queue.async {
                let outcome = slot.state.withLock { state -> Result<T, CacheChainError> in
                    Self.run(work, state: &state, configuration: configuration)
                }
                continuation.resume(returning: outcome)
            }
        }
        return try result.get()
    }

    private static func run<T>(
        _ work: (RedisConnection) throws(CacheChainError) -> T,
        state: inout SlotState,
        configuration: RedisStorage.Configuration
    ) -> Result<T, CacheChainError> {
        let now = ContinuousClock.now
        if state.connection == nil {
            if let retryAt = state.retryAt, now < retryAt {
                return .failure(CacheChainError(
                    .storageFailed,
                    "Redis at \(configuration.endpoint) is unavailable (\(state.lastError)); reconnecting in \(retryAt - now)"
                ))
            }
            do throws(CacheChainError) {
                state.connection = try RedisConnection(configuration: configuration)
                state.failures = 0
                state.retryAt = nil
            } catch {
                noteFailure(error, state: &state, now: now)
                return .failure(error)
            }
        }
        guard let connection = state.connection else {
            return .failure(CacheChainError(.storageFailed, "Redis at \(configuration.endpoint) is unavailable"))
        }
        do throws(CacheChainError) {
            return .success(try work(connection))
        } catch {
            if connection.isBroken {
                state.connection = nil
                noteFailure(error, state: &state, now: now)
            }
            return .failure(error)
        }
    }

    private static func noteFailure(_ error: CacheChainError, state: inout SlotState, now: ContinuousClock.Instant) {
        state.failures += 1
        state.lastError = error.message
        let backoff = Duration.milliseconds(min(5_000, 100 << min(state.failures - 1, 6)))
        state.retryAt = now + backoff
    }
}
