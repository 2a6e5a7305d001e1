public import CacheChainCore
import CacheChainPolicy
import Foundation
import HTTPTypes

/// Turns a request for a stale (or must-validate) stored response into a conditional `GET` and applies
/// the origin's `304 Not Modified`.
///
/// It acts only when an outer ``CachePolicyInterceptor`` left stored variants in the context. It adds
/// `If-None-Match` (every stored `ETag`) and `If-Modified-Since` (RFC 9111 §4.3.1 — a conditional `GET`,
/// not the `HEAD` request Apple's older documents describe), calls `next`, and on a 304 freshens the
/// matching stored variants (§4.3.4: new header fields replace stored ones, `Content-Length` excluded),
/// writes them back and answers with the stored body (status `revalidated`). Any other answer goes up
/// unchanged: a new `200` replaces the entry in the ``StorageDecisionInterceptor`` below.
///
/// A 304 that answers the application's *own* validators and matches no stored variant is passed through
/// as is. Storage failures while writing the freshened entry become an event and a trace reason.
public struct RevalidationInterceptor: HTTPInterceptor {
    /// Creates the interceptor.
    public init() {}

    /// Handles one request as described in the type's documentation.
    /// - Parameters:
    ///   - request: The request.
    ///   - context: Its context (with validation candidates when revalidating).
    ///   - next: The rest of the chain.
    /// - Returns: The freshened stored response on 304, otherwise the origin's response.
    /// - Throws: The chain's error.
    public func intercept(
        _ request: PipelineRequest,
        context: InterceptorContext,
        next: Next
    ) async throws -> PipelineResponse {
        guard let candidates = context.values[ValidationCandidatesKey.self], !candidates.entries.isEmpty else {
            return try await next(request, context)
        }
        var inner = context
        inner.values[ValidationCandidatesKey.self] = nil
        var conditional = request
        conditional.head = context.policyEngine.conditionalRequest(
            for: request.head,
            validating: candidates.entries.map(\.exchange)
        )
        let requestTime = context.now
        var response = try await next(conditional, inner)
        let responseTime = context.now
        guard response.head.status.code == 304 else {
            response.trace.append(CacheReason(.stale, "validation answered \(response.head.status.code)"))
            return response
        }
        let engine = context.policyEngine
        let chosen = engine.selectForFreshening(
            notModified: response.head,
            candidates: candidates.entries.map(\.exchange)
        )
        guard !chosen.isEmpty else {
            response.trace.append(CacheReason(.notModified, "304 matches no stored variant; passed through"))
            return response
        }
        var freshened: [CacheEntry] = []
        for index in chosen {
            var entry = candidates.entries[index]
            let exchange = engine.freshen(
                entry.exchange,
                with: response.head,
                requestTime: requestTime,
                responseTime: responseTime
            )
            entry.cached.response = exchange.response
            entry.cached.requestTime = exchange.requestTime
            entry.cached.responseTime = exchange.responseTime
            freshened.append(entry)
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
        let body: HTTPBody = request.head.method == .head ? .empty : served.cached.body
        return PipelineResponse(
            head: engine.responseForServing(served.exchange, now: responseTime),
            body: body,
            cacheStatus: .revalidated,
            trace: trace,
            userInfo: served.cached.userInfo
        )
    }
}
