public import CacheChainCore
import CacheChainPolicy
import HTTPTypes
import Tracing

/// Sends the cache's conditional request for a stale (or must-validate) stored response: the validation step of
/// the request's `CachePlan`.
///
/// It acts only when the request carries a plan with a `CachePlan.validation` — the ``CachePolicyInterceptor``
/// outside it puts one there when its decision is to validate — and otherwise passes the request through untouched.
/// It sends the decision's conditional `GET` as it is (`CachePlan.Validation.conditional`: `If-None-Match` with every
/// stored `ETag`, `If-Modified-Since`; RFC 9111 §4.3.1 — a conditional `GET`, not the `HEAD` request Apple's older
/// documents describe). The ``StorageDecisionInterceptor`` inside it, the one place that writes what a network
/// exchange taught the cache, merges a `304 Not Modified` into the stored variants (§4.3.4) and answers with the
/// stored body (status `revalidated`); a new `200` replaces the entry there. When the request is traced
/// (`InterceptorContext.span`), the validation is a `cache.revalidation` event with the origin's status code.
public struct RevalidationInterceptor: HTTPInterceptor {
    /// Creates the interceptor.
    public init() {}

    /// Handles one request as described in the type's documentation.
    /// - Parameters:
    ///   - request: The request (with the cache's plan when revalidating).
    ///   - context: Its context.
    ///   - next: The rest of the chain.
    /// - Returns: The chain's response to the conditional request, or to the request as it is.
    /// - Throws: The chain's error.
    public func intercept(
        _ request: PipelineRequest,
        context: InterceptorContext,
        next: Next
    ) async throws -> PipelineResponse {
        guard let validation = request.cachePlan?.validation, !validation.candidates.isEmpty else {
            return try await next(request, context)
        }
        var conditional = request
        conditional.head = validation.conditional
        guard let span = context.span else { return try await next(conditional, context) }
        // A traced request shows its validation: an event with the origin's answer (304, or a new response).
        do {
            let response = try await next(conditional, context)
            span.addEvent(SpanEvent(name: "cache.revalidation", attributes: ["http.response.status_code": .int64(Int64(response.head.status.code))]))
            return response
        } catch {
            span.addEvent(SpanEvent(name: "cache.revalidation", attributes: ["error.type": "\(type(of: error))"]))
            throw error
        }
    }
}
