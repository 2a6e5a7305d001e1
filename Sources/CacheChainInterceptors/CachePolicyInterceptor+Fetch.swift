import CacheChainCore
import CacheChainPolicy
import Foundation
import HTTPTypes

/// The network side of a plan: coalescing concurrent trips (only once the lookup said fetch or validate), the
/// exchange through the inner interceptors, and the `stale-if-error` fallback.
extension CachePolicyInterceptor {
    /// A trip the decision asked for: the plan handed inward, the coalescer's epoch read before the lookup, and the
    /// stored response to fall back on when the origin fails.
    struct Flight {
        let plan: CachePlan
        /// `InFlightRequests.epoch` before the lookup; `nil` when no re-check is wanted.
        let epoch: UInt64?
        let fallback: Fallback
    }

    /// The stored response to serve when the origin fails, as data (not a closure: a miss allocates nothing for a
    /// fallback it almost never uses).
    enum Fallback {
        case none
        case entry(CacheEntry?)
        /// The variant `request` selects among `entries`, selected only when the origin fails.
        case selected(among: [CacheEntry], for: HTTPRequest)

        /// The entry to serve, selecting it now if it is to be selected.
        func resolved(key: CacheKey, context: InterceptorContext) -> CacheEntry? {
            switch self {
            case .none: return nil
            case .entry(let entry): return entry
            case .selected(let entries, let request):
                guard !entries.isEmpty else { return nil }
                var engine = context.policyEngine
                engine.varyDigestKey = context.storage.varyDigestKey(for: key)
                return engine.selectVariant(for: request, among: entries.map(\.exchange)).map { entries[$0] }
            }
        }
    }

    /// Sends the planned request inward, sharing the trip with equivalent requests in flight when coalescing is on.
    ///
    /// Requests are merged when they have no body, are `GET` or `HEAD` (a body-keyed request is one), and agree on
    /// what decides the answer besides `Vary` (``CoalescingIdentity``). The first (the leader) makes the exchange;
    /// the others wait for its response and check it against their own request as a cache checks a stored one
    /// (RFC 9111 §4.1): when its `Vary` names a field whose value differs, that request makes its own exchange.
    /// A leader's error reaches every waiter; a cancelled waiter leaves at once; a waiter leaves at its own timeout
    /// (`PipelineRequest.timeout`) with a `timed-out` error, whatever holds the leader (e.g. a `willCacheResponse`
    /// hook that never answers); a cancelled leader does not cancel its waiters (one of them leads a new trip). A leader that finds a trip finished since its lookup (the
    /// coalescer's epoch moved) looks up again once, since that trip may have stored what it needs.
    func fetch(
        _ inputs: PlanInputs,
        _ flight: Flight,
        context: InterceptorContext,
        next: Next,
        trace: [CacheReason]
    ) async throws -> PipelineResponse {
        var request = inputs.request
        request.cachePlan = flight.plan
        let method = request.head.method
        guard let flights, method == .get || method == .head, request.body == nil else {
            return try await exchange(request, context: context, next: next, fallback: flight.fallback, trace: trace)
        }
        let identity = CoalescingIdentity(request, key: flight.plan.key)
        while true {
            switch flights.join(identity) {
            case .leader(let id):
                if let epoch = flight.epoch, flights.epoch != epoch {
                    // A trip finished while this request looked up: what it stored may answer this one.
                    flights.finish(id, with: .failure(InFlightRequests.LeaderWithdrew()))
                    return try await decideAndAct(inputs, context: context, next: next, recheckingFlights: false)
                }
                do {
                    let response = try await exchange(request, context: context, next: next, fallback: flight.fallback, trace: trace)
                    if context.responseBodyStream?.isBodyDetached == true {
                        // The body went to the leader's caller only (too large to keep): each waiter fetches its own.
                        flights.finish(id, with: .failure(InFlightRequests.LeaderWithdrew()))
                        return response
                    }
                    flights.finish(id, with: .success(InFlightRequests.Answer(request: request.head, response: response)))
                    return response
                } catch {
                    let leaderCancelled = error is CancellationError || Task.isCancelled
                    flights.finish(id, with: .failure(leaderCancelled ? InFlightRequests.LeaderWithdrew() : error))
                    throw error
                }
            case .follower(let ticket):
                context.events.emit(CacheEvent(.coalesced, key: identity.key))
                let answer: InFlightRequests.Answer
                do {
                    answer = try await flights.wait(for: ticket, timeout: request.timeout)
                } catch is InFlightRequests.LeaderWithdrew {
                    try Task.checkCancellation()
                    continue  // this follower has not called `next` yet: it may lead a new trip
                }
                guard Self.answer(answer, serves: request.head, engine: context.policyEngine) else {
                    var response = try await exchange(request, context: context, next: next, fallback: flight.fallback, trace: trace)
                    response.trace.append(CacheReason(
                        .coalesced,
                        "an identical request in flight got a response that varies on a field this request sends differently: fetched separately"
                    ))
                    return response
                }
                var response = answer.response
                response.trace.append(CacheReason(.coalesced, "shared the response of an identical request in flight"))
                return response
            }
        }
    }

    /// Whether the leader's response answers `request` as a stored copy would: its `Vary` fields match.
    static func answer(_ answer: InFlightRequests.Answer, serves request: HTTPRequest, engine: CachePolicyEngine) -> Bool {
        guard answer.response.head.headerFields.contains(.vary) else { return true }
        // As a stored entry would hold it: secret fields digested, so a follower with the same cookie matches.
        let exchange = StoredExchange(
            request: VaryFields.minimized(answer.request, varyingOn: answer.response.head, key: engine.varyDigestKey),
            response: answer.response.head,
            requestTime: .distantPast,
            responseTime: .distantPast
        )
        return engine.selectVariant(for: request, among: [exchange]) != nil
    }

    /// Sends the planned request inward; when the origin fails (or answers 500, 502, 503 or 504) and `stale-if-error`
    /// allows it, serves `fallback` instead — the first validated variant, or the variant the request selects, which
    /// is selected only then. When the origin could not be reached at all (`CacheChainError.isOriginUnreachable`),
    /// the fallback is also served, without `stale-if-error`, where RFC 9111 §4.2.4 and the configuration allow it
    /// (`CachePolicyConfiguration.servesStaleWhenOriginUnreachable`): an input of the same plan step, not a
    /// chain position of its own.
    func exchange(
        _ request: PipelineRequest,
        context: InterceptorContext,
        next: Next,
        fallback: Fallback,
        trace: [CacheReason]
    ) async throws -> PipelineResponse {
        let key = request.cachePlan?.key ?? context.cacheKeyStrategy.key(for: request.head)
        let now = context.now
        func allowsStaleOnError(_ entry: CacheEntry) -> Bool {
            context.policyEngine.canServeStaleOnError(entry.exchange, request: request.head, now: now)
        }
        context.responseBodyStream?.record(trace)  // a streamed head comes before `next` returns
        var response: PipelineResponse
        do {
            response = try await next(request, context)
        } catch let error where !(error is CancellationError) && !Task.isCancelled {
            guard let served = fallback.resolved(key: key, context: context) else { throw error }  // selected once, and only now
            var trace = trace
            if allowsStaleOnError(served) {
                trace.append(CacheReason(.staleIfError, "origin unreachable: \(Self.summary(error))"))
            } else if allowsStaleWhenUnreachable(served, after: error, request: request, context: context) {
                trace.append(CacheReason(
                    .originUnreachable,
                    "served stale: the origin could not be reached (\(Self.summary(error))) and nothing forbids it (RFC 9111 §4.2.4)"
                ))
            } else {
                throw error
            }
            context.events.emit(CacheEvent(.staleServed, key: key, reasons: codes(trace)))
            return serveFallback(served, status: .offline, request: request, context: context, trace: trace)
        }
        let status = response.head.status.code
        if status == 500 || status == 502 || status == 503 || status == 504,
            let fallback = fallback.resolved(key: key, context: context), allowsStaleOnError(fallback)
        {
            var trace = trace
            trace.append(CacheReason(.staleIfError, "origin answered \(response.head.status.code)"))
            context.events.emit(CacheEvent(.staleServed, key: key, reasons: codes(trace)))
            return serveFallback(fallback, status: .stale, request: request, context: context, trace: trace)
        }
        if response.trace.isEmpty { response.trace = trace } else { response.trace = trace + response.trace }
        if response.cacheStatus == .revalidated {
            context.events.emit(CacheEvent(.revalidated, key: key, reasons: codes(response.trace)))
            return answeringApplicationConditional(response, request: request.head, context: context)
        }
        context.events.emit(CacheEvent(.miss, key: key, reasons: codes(response.trace)))
        return response
    }

    /// The stored response served when the origin could not be reached at all (RFC 9111 §4.2.4): only for an error
    /// the transport marks `CacheChainError.isOriginUnreachable`, under a policy that may use stored responses the
    /// origin did not confirm (not `reloadIgnoring…` nor `reloadRevalidatingCacheData`), and
    /// when the policy engine allows it (`CachePolicyEngine.canServeStaleWhenOriginUnreachable(_:request:)`).
    private func allowsStaleWhenUnreachable(
        _ entry: CacheEntry,
        after error: any Error,
        request: PipelineRequest,
        context: InterceptorContext
    ) -> Bool {
        guard (error as? CacheChainError)?.isOriginUnreachable == true else { return false }
        switch request.effectiveCachePolicy {
        // These policies use stored data only when the origin confirms it, or not at all.
        case .reloadIgnoringLocalCacheData, .reloadIgnoringLocalAndRemoteCacheData, .reloadRevalidatingCacheData: return false
        default: return context.policyEngine.canServeStaleWhenOriginUnreachable(entry.exchange, request: request.head)
        }
    }

    private static func summary(_ error: any Error) -> String {
        (error as? CacheChainError)?.shortDescription ?? String(describing: type(of: error))
    }
}
