extension RedisStorage {
    /// When a ``RedisStorage`` stops calling Redis after failures, and how often it tries again.
    ///
    /// A cache must not be slower than no cache. Once `failureThreshold` calls in a row fail at the
    /// connection level (Redis unreachable, `AUTH` or `SELECT` refused, an I/O error or a command timeout),
    /// the circuit opens: for `retryInterval` every call fails at once with a `storage-failed` error naming
    /// the cause, which the cache serves as a miss (the request trace says "circuit breaker open"). After the
    /// interval one call is let through as a probe, while the others keep failing fast; if it succeeds the
    /// circuit closes and every connection is re-established, otherwise it stays open for another interval.
    /// A hung Redis therefore costs one ``Configuration/commandTimeout`` per interval, not one per call.
    ///
    /// Error replies from a healthy Redis (such as `OOM` when `maxmemory` is reached) are not failures of the
    /// connection and never open the circuit.
    ///
    /// ```swift
    /// let redis = RedisStorage(configuration: .init(
    ///     commandTimeout: .milliseconds(500),
    ///     circuitBreaker: .init(failureThreshold: 1, retryInterval: .seconds(10))
    /// ))
    /// ```
    public struct CircuitBreaker: Sendable, Hashable {
        /// How many connection-level failures in a row open the circuit; 1 by default.
        public var failureThreshold: Int
        /// How long the circuit stays open before one call probes Redis again; 5 seconds by default.
        public var retryInterval: Duration

        /// Creates circuit breaker settings.
        /// - Parameters:
        ///   - failureThreshold: Connection-level failures in a row that open the circuit (at least 1); 1.
        ///   - retryInterval: How long calls fail fast before one probes Redis again; 5 s.
        public init(failureThreshold: Int = 1, retryInterval: Duration = .seconds(5)) {
            precondition(failureThreshold >= 1, "a circuit breaker opens after at least one failure")
            precondition(retryInterval >= .zero, "a circuit breaker's retry interval cannot be negative")
            self.failureThreshold = failureThreshold
            self.retryInterval = retryInterval
        }
    }

    /// The state of a ``RedisStorage``'s circuit breaker (see ``CircuitBreaker``), for health checks.
    public enum CircuitState: Sendable, Hashable {
        /// Calls go to Redis.
        case closed
        /// Calls fail at once; one will probe Redis again after `retryIn`. `cause` is the failure that opened it.
        case open(retryIn: Duration, cause: String)
        /// One call is probing Redis; the others fail at once until it ends.
        case probing(cause: String)
    }

    /// The circuit breaker's current state: ``CircuitState/closed`` while Redis answers.
    ///
    /// Each opening is also reported to the backend's event sink, as a `CacheEvent.Kind.storageError`
    /// event with the reasons `redis-circuit-open` and the cause; while the circuit is open, each request's
    /// trace says "circuit breaker open" with the time left before the next probe.
    public var circuitState: CircuitState {
        pool.circuitState
    }
}
