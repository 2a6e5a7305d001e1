public import CacheChainCore
import CacheChainPolicy
import Foundation
import HTTPTypes

/// Collapses concurrent requests that one response can answer into one trip down the chain: 100 concurrent
/// requests for the same cold URL reach the origin once. On by default in `HTTPCacheClient`'s chain
/// (`Configuration.isRequestCoalescingEnabled` turns it off).
///
/// Requests are merged when they have no body, are `GET` or `HEAD`, and agree on what decides the answer
/// besides `Vary` (method, cache key, cache policy, storing permission, timeout, and `Cache-Control`,
/// `Pragma`, conditional, `Range`, `Authorization` and `Cookie` fields). The first request (the leader) runs
/// the rest of the chain; the others wait for its response and then check it against their own request as
/// a cache would check a stored one (RFC 9111 §4.1): when the response's `Vary` names a field whose value
/// differs, that request goes down the chain itself. A shared response gets a `coalesced` reason in its trace.
///
/// Errors and cancellation:
/// - the leader's error (a transport failure, a `not-in-cache`, …) reaches every waiter;
/// - a cancelled waiter stops waiting at once, and nobody else notices;
/// - a waiter leaves at its own timeout (`PipelineRequest.timeout`) with a `timed-out` error, whatever holds the
///   leader (e.g. a `willCacheResponse` hook that never answers); the leader and the other waiters go on;
/// - a cancelled leader does not cancel its waiters: one of them leads a new trip, as when the leader streamed
///   a body too large for the store to its caller without keeping it (`HTTPCacheClient.stream`).
///
/// The request goes inward with a `CacheLookup` holding its key, which ``CachePolicyInterceptor`` then uses.
///
/// Place it just outside ``CachePolicyInterceptor``, as the default chain does: the leader looks the
/// request up, fetches and stores before the waiters are released, and a request that arrives after that
/// starts a trip of its own that finds the stored response. (Placed inside `CachePolicyInterceptor`, a
/// request that looked the URL up before the leader stored it but arrived after the leader finished would go
/// to the origin again.)
public struct RequestCoalescingInterceptor: HTTPInterceptor {
    private let flights = InFlightRequests()

    /// Creates the interceptor (each instance has its own set of in-flight requests).
    public init() {}

    /// Runs the request, or waits for an equivalent one already in flight.
    /// - Parameters:
    ///   - request: The request.
    ///   - context: Its context.
    ///   - next: The rest of the chain.
    /// - Returns: This request's response, or the one it shared.
    /// - Throws: The shared trip's error, or `CancellationError` when this waiter is cancelled.
    public func intercept(
        _ request: PipelineRequest,
        context: InterceptorContext,
        next: Next
    ) async throws -> PipelineResponse {
        let method = request.head.method
        guard method == .get || method == .head, request.body == nil else {
            return try await next(request, context)
        }
        let identity = CoalescingIdentity(request, context: context)
        // The key goes inward with the request, so the cache's front door does not compute it again.
        var request = request
        request.cacheLookup = request.cacheLookup ?? CacheLookup(key: identity.key)
        // `next` is only valid during this call, so the leader runs it here and publishes the result;
        // followers wait for that publication.
        while true {
            switch flights.join(identity) {
            case .leader(let flight):
                do {
                    let response = try await next(request, context)
                    if context.responseBodyStream?.isBodyDetached == true {
                        // The body went to the leader's caller only (too large to keep): each waiter fetches its own.
                        flights.finish(flight, with: .failure(LeaderKeptNoBody()))
                        return response
                    }
                    flights.finish(flight, with: .success(InFlightRequests.Answer(request: request.head, response: response)))
                    return response
                } catch {
                    let leaderCancelled = error is CancellationError || Task.isCancelled
                    flights.finish(flight, with: .failure(leaderCancelled ? LeaderCancelled() : error))
                    throw error
                }
            case .follower(let ticket):
                context.events.emit(CacheEvent(.coalesced, key: identity.key))
                let answer: InFlightRequests.Answer
                do {
                    answer = try await flights.wait(for: ticket, timeout: request.timeout)
                } catch is LeaderCancelled, is LeaderKeptNoBody {
                    try Task.checkCancellation()
                    continue  // this follower has not called `next` yet: it may lead a new trip
                }
                guard Self.answer(answer, serves: request.head, engine: context.policyEngine) else {
                    var response = try await next(request, context)
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

    /// Tells followers that the leader was cancelled, so they retry instead of failing.
    struct LeaderCancelled: Error {}

    /// Tells followers that the leader streamed a body too large for the store to its own caller without
    /// keeping it, so they retry instead of sharing an empty body.
    struct LeaderKeptNoBody: Error {}

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
}
