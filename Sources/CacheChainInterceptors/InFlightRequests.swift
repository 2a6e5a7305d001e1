import CacheChainCore

/// The registry behind ``RequestCoalescingInterceptor``: who leads each in-flight request and who waits.
actor InFlightRequests {
    enum Role {
        case leader
        case follower(Int)
    }

    private struct Flight {
        var waiters: [Int: CheckedContinuation<PipelineResponse, any Error>] = [:]
    }

    private var flights: [String: Flight] = [:]
    private var nextWaiterID = 0

    /// Registers a request: the first of an identity leads, later ones follow.
    func join(_ identity: String) -> Role {
        guard flights[identity] != nil else {
            flights[identity] = Flight()
            return .leader
        }
        nextWaiterID += 1
        return .follower(nextWaiterID)
    }

    /// Waits for the leader's result; a cancelled waiter leaves with `CancellationError`.
    func wait(for waiter: Int, identity: String) async throws -> PipelineResponse {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                guard flights[identity] != nil, !Task.isCancelled else {
                    continuation.resume(throwing: CancellationError())
                    return
                }
                flights[identity]?.waiters[waiter] = continuation
            }
        } onCancel: {
            Task { await self.cancel(waiter, identity: identity) }
        }
    }

    /// Publishes the leader's result to every waiter and forgets the flight.
    func finish(_ identity: String, with result: Result<PipelineResponse, any Error>) {
        guard let flight = flights.removeValue(forKey: identity) else { return }
        for continuation in flight.waiters.values {
            continuation.resume(with: result)
        }
    }

    private func cancel(_ waiter: Int, identity: String) {
        flights[identity]?.waiters.removeValue(forKey: waiter)?.resume(throwing: CancellationError())
    }
}
