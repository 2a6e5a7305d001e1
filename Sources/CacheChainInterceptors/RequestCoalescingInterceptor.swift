public import CacheChainCore
import CacheChainPolicy
import HTTPTypes

/// Collapses identical concurrent requests into one trip down the chain: 200 concurrent requests for the
/// same cold URL reach the origin once.
///
/// Two requests are identical when their method, cache key and every request field agree (so requests
/// that differ in a field a `Vary` might name are never merged) and they have no body. The first request
/// (the leader) runs the rest of the chain; the others wait for its result and get a copy with a
/// `coalesced` reason added to the trace. Only `GET` and `HEAD` are merged.
///
/// Place it just inside ``CachePolicyInterceptor``: hits never reach it, and only the requests that need the
/// network (or a revalidation) are merged. A cancelled follower stops waiting at once; when the *leader*
/// is cancelled, its followers are not failed with its cancellation: one of them leads a new trip.
public struct RequestCoalescingInterceptor: HTTPInterceptor {
    private let flights = InFlightRequests()

    /// Creates the interceptor (each instance has its own set of in-flight requests).
    public init() {}

    /// Runs the request, or joins an identical one already in flight.
    /// - Parameters:
    ///   - request: The request.
    ///   - context: Its context.
    ///   - next: The rest of the chain.
    /// - Returns: The (shared) response.
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
        let identity = Self.identity(of: request.head, key: context.cacheKeyStrategy.key(for: request.head))
        // `next` is only valid during this call, so the leader runs it here and publishes the result;
        // followers wait for that publication.
        while true {
            switch await flights.join(identity) {
            case .leader:
                do {
                    let response = try await next(request, context)
                    await flights.finish(identity, with: .success(response))
                    return response
                } catch {
                    let leaderCancelled = error is CancellationError || Task.isCancelled
                    await flights.finish(identity, with: .failure(leaderCancelled ? LeaderCancelled() : error))
                    throw error
                }
            case .follower(let waiter):
                do {
                    var response = try await flights.wait(for: waiter, identity: identity)
                    response.trace.append(CacheReason(.coalesced, "shared the response of an identical request in flight"))
                    return response
                } catch is LeaderCancelled {
                    try Task.checkCancellation()
                    continue  // this follower has not called `next` yet: it may lead a new trip
                }
            }
        }
    }

    /// Tells followers that the leader was cancelled, so they retry instead of failing.
    struct LeaderCancelled: Error {}

    static func identity(of head: HTTPRequest, key: CacheKey) -> String {
        var identity = "\(head.method.rawValue) \(key.stringValue)"
        for field in head.headerFields {
            identity += "\n\(field.name.canonicalName): \(field.value)"
        }
        return identity
    }
}
