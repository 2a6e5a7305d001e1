/// The Redis pool's circuit breaker, as a value-type state machine: the pool asks it before every call and
/// tells it how each call ended; it never does I/O and never reads a clock (the caller passes `now`).
///
/// ```
///            failures reach the threshold
///  closed ─────────────────────────────────▶ open (until now + interval)
///    ▲                                         │ interval elapsed: one caller
///    │ the probe succeeds                      ▼ is admitted as the probe
///    └──────────────────────────────────── probing ──▶ open again when the probe fails
/// ```
///
/// While open (and while the one probe runs) every other call is rejected at once, so a Redis that is
/// down, refuses `AUTH` or hangs costs one connection attempt or command timeout per interval instead of
/// one per call. Each opening starts a new ``generation``: the pool drops connections made in an older
/// generation before using them, so after an outage every slot reconnects instead of discovering its dead
/// connection with a failed call of its own.
struct RedisCircuitBreaker: Sendable {
    /// What the breaker lets a caller do.
    enum Admission: Equatable {
        /// Go ahead (the circuit is closed).
        case proceed
        /// Go ahead as the one probe of a circuit that has been open for its interval.
        case probe
        /// Do not touch Redis: the circuit is open (or a probe is running) until `retryAt`, because of `cause`.
        case reject(retryAt: ContinuousClock.Instant, cause: String)
    }

    /// A change of state worth reporting (as an event).
    enum Transition: Equatable {
        /// The circuit opened (or opened again after a failed probe), after `cause`.
        case opened(cause: String)
        /// A probe succeeded: the circuit is closed again.
        case closed
    }

    private enum State {
        case closed(consecutiveFailures: Int)
        case open(retryAt: ContinuousClock.Instant, cause: String)
        case probing(cause: String, startedAt: ContinuousClock.Instant)
    }

    /// The settings.
    let settings: RedisStorage.CircuitBreaker
    private var state = State.closed(consecutiveFailures: 0)
    /// Incremented each time the circuit opens; connections made in an older generation are not reused.
    private(set) var generation = 0

    init(settings: RedisStorage.CircuitBreaker) {
        self.settings = settings
    }

    /// The state as users see it.
    func publicState(now: ContinuousClock.Instant) -> RedisStorage.CircuitState {
        switch state {
        case .closed: .closed
        case .open(let retryAt, let cause): .open(retryIn: max(.zero, retryAt - now), cause: cause)
        case .probing(let cause, _): .probing(cause: cause)
        }
    }

    /// What ``admit(now:)`` would answer, without admitting a probe: for failing fast before queueing.
    func peek(now: ContinuousClock.Instant) -> Admission {
        switch state {
        case .closed:
            return .proceed
        case .open(let retryAt, let cause):
            return now >= retryAt ? .probe : .reject(retryAt: retryAt, cause: cause)
        case .probing(let cause, let startedAt):
            // A probe is bounded by the connect and command timeouts; should its report never come, the
            // next interval admits another probe rather than leaving the circuit stuck.
            let retryAt = startedAt + settings.retryInterval
            return now >= retryAt ? .probe : .reject(retryAt: retryAt, cause: cause)
        }
    }

    /// Asks whether a call may use Redis now; a call admitted as ``Admission/probe`` must report its outcome.
    mutating func admit(now: ContinuousClock.Instant) -> Admission {
        let admission = peek(now: now)
        if admission == .probe, let cause {
            state = .probing(cause: cause, startedAt: now)
        }
        return admission
    }

    /// The failure that opened the circuit, while it is open or probing.
    private var cause: String? {
        switch state {
        case .closed: nil
        case .open(_, let cause), .probing(let cause, _): cause
        }
    }

    /// Records a call that reached Redis and got its replies (error replies included).
    mutating func recordSuccess() -> Transition? {
        switch state {
        case .closed:
            state = .closed(consecutiveFailures: 0)
            return nil
        case .probing:
            state = .closed(consecutiveFailures: 0)
            return .closed
        case .open:
            // A call admitted before the circuit opened finished fine: keep the circuit open until a probe says so.
            return nil
        }
    }

    /// Records a connection-level failure (unreachable, `AUTH` refused, I/O error, timeout).
    mutating func recordFailure(_ cause: String, now: ContinuousClock.Instant) -> Transition? {
        switch state {
        case .closed(let failures):
            guard failures + 1 >= max(1, settings.failureThreshold) else {
                state = .closed(consecutiveFailures: failures + 1)
                return nil
            }
        case .probing:
            break
        case .open:
            return nil  // calls admitted before it opened are failing too: nothing new
        }
        state = .open(retryAt: now + settings.retryInterval, cause: cause)
        generation += 1
        return .opened(cause: cause)
    }
}
