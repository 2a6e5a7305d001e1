public import CacheChainCore
import CacheChainPolicy
import HTTPTypes

/// Sends the cache's conditional request for a stale (or must-validate) stored response and applies the
/// origin's `304 Not Modified`.
///
/// It acts only when the request carries a `CacheLookup` with a `CacheLookup.validation` — the
/// ``CachePolicyInterceptor`` outside it puts one there when its decision is to validate — and otherwise
/// passes the request through untouched. It sends the decision's conditional `GET` as it is
/// (`CacheLookup.Validation.conditional`: `If-None-Match` with every stored `ETag`, `If-Modified-Since`;
/// RFC 9111 §4.3.1 — a conditional `GET`, not the `HEAD` request Apple's older documents describe), and on a
/// 304 freshens the matching stored variants (`CacheEntry.freshened(by:engine:requestTime:responseTime:)`,
/// §4.3.4), writes them back and answers with the stored body (status `revalidated`). Any other answer goes
/// up unchanged: a new `200` replaces the entry in the ``StorageDecisionInterceptor`` below.
///
/// A 304 that answers the application's *own* validators and matches no stored variant is passed through
/// as is. Storage failures while writing the freshened entry become an event and a trace reason.
public struct RevalidationInterceptor: HTTPInterceptor {
    /// Creates the interceptor.
    public init() {}

    /// Handles one request as described in the type's documentation.
    /// - Parameters:
    ///   - request: The request (with the cache's lookup when revalidating).
    ///   - context: Its context.
    ///   - next: The rest of the chain.
    /// - Returns: The freshened stored response on 304, otherwise the origin's response.
    /// - Throws: The chain's error.
    public func intercept(
        _ request: PipelineRequest,
        context: InterceptorContext,
        next: Next
    ) async throws -> PipelineResponse {
        guard let validation = request.cacheLookup?.validation, !validation.candidates.isEmpty else {
            return try await next(request, context)
        }
        var conditional = request
        conditional.head = validation.conditional
        let requestTime = context.now
        var response = try await next(conditional, context)
        let responseTime = context.now
        guard response.head.status.code == 304 else {
            response.trace.append(CacheReason(.stale, "validation answered \(response.head.status.code)"))
            return response
        }
        let engine = context.policyEngine
        let chosen = engine.selectForFreshening(
            notModified: response.head,
            candidates: validation.candidates.map(\.exchange)
        )
        guard !chosen.isEmpty else {
            response.trace.append(CacheReason(.notModified, "304 matches no stored variant; passed through"))
            return response
        }
        let freshened = chosen.map {
            validation.candidates[$0].freshened(
                by: response.head, engine: engine, requestTime: requestTime, responseTime: responseTime
            )
        }
        var trace = response.trace
        trace.append(CacheReason(.revalidated, "304 Not Modified freshened the stored response"))
        for entry in freshened {
            do {
                try await context.storage.store(entry)
            } catch {
                trace.append(CacheReason(.storageError, "could not update the freshened entry: \(error)"))
                context.events.emit(CacheEvent(.storageError, key: entry.key, reasons: ["update", "\(error)"]))
            }
        }
        let served = freshened[0]
        let head = engine.responseForServing(served.exchange, now: responseTime)
        return PipelineResponse(serving: served, head: head, for: request.head, cacheStatus: .revalidated, trace: trace)
    }
}
