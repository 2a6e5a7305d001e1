import CacheChainCore
import HTTPTypes
import Synchronization

/// The registry behind ``CachePolicyInterceptor``'s coalescing: the request that leads each identity's trip down
/// the chain, and the requests waiting for its answer.
///
/// One lock guards the flights; only requests whose lookup said fetch or validate join one (a hit never does). A
/// flight leaves the registry when its leader finishes, before its waiters are resumed, so a request that arrives
/// later starts a trip of its own. ``epoch`` counts finished flights, so that a request that looked up before a
/// trip stored its answer, and joins after that trip finished, can tell and look up again.
final class InFlightRequests: Sendable {
    /// Tells followers that the leader withdrew (it was cancelled, it streamed a body too large for the store to its
    /// own caller without keeping it, or it found a trip finished since its lookup), so they retry instead of failing.
    struct LeaderWithdrew: Error {}

    private let finishedFlights = Atomic<UInt64>(0)

    /// How many flights have finished so far: read before a lookup, compared when the request leads a trip.
    var epoch: UInt64 { finishedFlights.load(ordering: .sequentiallyConsistent) }

    /// How many requests have joined a flight (as leader or follower) so far: for tests of what reaches the coalescer.
    var joinedCount: UInt64 { state.withLock { $0.nextNumber } }

    /// The leader's request and the response it got.
    struct Answer: Sendable {
        let request: HTTPRequest
        let response: PipelineResponse
    }

    /// What a request does after ``join(_:)``.
    enum Role {
        /// Run the chain, then call ``finish(_:with:)`` with this flight.
        case leader(FlightID)
        /// Call ``wait(for:)`` with this ticket.
        case follower(Ticket)

        enum Kind { case leader, follower }
    }

    /// A leader's flight: its identity and a number, since a later flight may have the same identity.
    struct FlightID: Sendable {
        let identity: CoalescingIdentity
        let number: UInt64
    }

    /// A follower's place in a flight.
    struct Ticket: Sendable {
        let flight: FlightID
        let waiter: UInt64
    }

    private typealias Continuation = CheckedContinuation<Answer, any Error>

    private struct Flight {
        let number: UInt64
        /// Every waiter that joined; `nil` until it starts waiting.
        var waiters: [UInt64: Continuation?] = [:]

        /// Adds `number` as a waiter unless it is this flight's own number (the flight was just created for
        /// it): one dictionary access serves both cases.
        mutating func join(_ number: UInt64) -> Role.Kind {
            guard number != self.number else { return .leader }
            waiters[number] = .some(nil)
            return .follower
        }
    }

    private struct State {
        var flights: [CoalescingIdentity: Flight] = [:]
        /// Results for waiters the flight finished before they started waiting.
        var delivered: [UInt64: Result<Answer, any Error>] = [:]
        var nextNumber: UInt64 = 0
    }

    private let state = LockedValue(State())

    /// Registers a request: the first of an identity leads, later ones follow.
    /// - Complexity: O(1) on average, under the lock.
    func join(_ identity: CoalescingIdentity) -> Role {
        state.withLock { state in
            state.nextNumber += 1
            let number = state.nextNumber
            switch state.flights[identity, default: Flight(number: number)].join(number) {
            case .leader:
                return .leader(FlightID(identity: identity, number: number))
            case .follower:
                let flight = state.flights[identity]?.number ?? 0
                return .follower(Ticket(flight: FlightID(identity: identity, number: flight), waiter: number))
            }
        }
    }

    /// Waits for the leader's result, at most `timeout`: a waiter leaves at its own deadline, whatever holds
    /// the leader (a slow origin, or a `willCacheResponse` hook that never answers), and fails with `timed-out`,
    /// as its request would if it had gone to the origin itself and heard nothing for that long. The flight and
    /// the other waiters go on.
    /// - Parameters:
    ///   - ticket: The waiter's place in the flight.
    ///   - timeout: The waiter's own timeout (`PipelineRequest.timeout`, which the client fills in from its
    ///     configuration); `nil` waits for the leader, however long it takes.
    /// - Returns: The leader's answer.
    /// - Throws: The leader's error; `CacheChainError` `timed-out` when `timeout` passed first;
    ///   `CancellationError` when the waiter is cancelled.
    func wait(for ticket: Ticket, timeout: Duration?) async throws -> Answer {
        guard let timeout else { return try await wait(for: ticket) }
        // Two children: the wait, and a timer that, when it ends first, cancels the wait (which leaves the flight).
        return try await withThrowingTaskGroup(of: Answer?.self) { group in
            group.addTask { try await self.wait(for: ticket) }
            group.addTask {
                try await Task.sleep(for: timeout)
                return nil
            }
            defer { group.cancelAll() }
            guard case .some(.some(let answer)) = try await group.next() else {
                throw CacheChainError(
                    .timedOut,
                    "no answer within the request's timeout (\(timeout)) while waiting for an identical request in flight "
                        + "(request coalescing) that has not finished, e.g. one whose willCacheResponse hook has not "
                        + "answered; raise the timeout, or turn request coalescing off",
                    cacheKey: ticket.flight.identity.key
                )
            }
            return answer
        }
    }

    /// Waits for the leader's result. A cancelled waiter leaves at once with `CancellationError`; the flight
    /// and the other waiters go on.
    private func wait(for ticket: Ticket) async throws -> Answer {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: Continuation) in
                let ready: Result<Answer, any Error>? = state.withLock { state in
                    if let result = state.delivered.removeValue(forKey: ticket.waiter) { return result }
                    let identity = ticket.flight.identity
                    guard !Task.isCancelled, state.flights[identity]?.number == ticket.flight.number,
                        state.flights[identity]?.waiters[ticket.waiter] != nil
                    else { return .failure(CancellationError()) }
                    state.flights[identity]?.waiters[ticket.waiter] = continuation
                    return nil
                }
                if let ready { continuation.resume(with: ready) }
            }
        } onCancel: {
            let continuation = state.withLock { state -> Continuation? in
                let identity = ticket.flight.identity
                guard state.flights[identity]?.number == ticket.flight.number else { return nil }
                return state.flights[identity]?.waiters.removeValue(forKey: ticket.waiter) ?? nil
            }
            continuation?.resume(throwing: CancellationError())
        }
    }

    /// Forgets the flight and hands its result to every waiter (resumed outside the lock).
    func finish(_ flight: FlightID, with result: Result<Answer, any Error>) {
        finishedFlights.add(1, ordering: .sequentiallyConsistent)
        let waiting = state.withLock { state -> [Continuation] in
            guard let index = state.flights.index(forKey: flight.identity), state.flights.values[index].number == flight.number
            else { return [] }
            let finished = state.flights.remove(at: index).value
            guard !finished.waiters.isEmpty else { return [] }
            var waiting: [Continuation] = []
            for (waiter, continuation) in finished.waiters {
                if let continuation {
                    waiting.append(continuation)
                } else {
                    state.delivered[waiter] = result
                }
            }
            return waiting
        }
        for continuation in waiting { continuation.resume(with: result) }
    }
}
