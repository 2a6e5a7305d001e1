import CacheChainCore
import CacheChainPolicy
import Foundation
import HTTPTypes

/// Serving stored responses: a hit, a stale response, a `stale-if-error` fallback, and the application's own
/// conditional request answered with a `304`.
extension CachePolicyInterceptor {
    /// The response that serves a stored entry; `age` is its current age when the decision already computed it (the
    /// served `Age` then matches the decision's report), else it is computed now. When a policy-override rule's
    /// lifetime applies to the request, the trace says so after the inputs' reasons.
    func serve(
        _ entry: CacheEntry,
        status: CacheStatus,
        inputs: PlanInputs,
        context: InterceptorContext,
        trace: [CacheReason],
        age: TimeInterval? = nil
    ) -> PipelineResponse {
        var trace = trace
        if let reason = inputs.responseOverride?.reasonForStored(entry.cached.response) {
            trace.insert(reason, at: min(inputs.trace.count, trace.count))
        }
        let head = age.map { context.policyEngine.responseForServing(entry.exchange, currentAge: $0) }
            ?? context.policyEngine.responseForServing(entry.exchange, now: context.now)
        let response = PipelineResponse(serving: entry, head: head, for: inputs.request.head, cacheStatus: status, trace: trace)
        return answeringApplicationConditional(response, request: inputs.request.head, context: context)
    }

    /// A stored response served because the origin failed (`stale-if-error`).
    func serveFallback(
        _ entry: CacheEntry,
        status: CacheStatus,
        request: PipelineRequest,
        context: InterceptorContext,
        trace: [CacheReason]
    ) -> PipelineResponse {
        let head = context.policyEngine.responseForServing(entry.exchange, now: context.now)
        let response = PipelineResponse(serving: entry, head: head, for: request.head, cacheStatus: status, trace: trace)
        return answeringApplicationConditional(response, request: request.head, context: context)
    }

    /// The response, or a `304` when the application's own validators match it (RFC 9110 §13.2.2).
    func answeringApplicationConditional(
        _ response: PipelineResponse,
        request: HTTPRequest,
        context: InterceptorContext
    ) -> PipelineResponse {
        guard Self.isConditional(request),
            let notModified = context.policyEngine.evaluateConditional(request: request, servedResponse: response.head)
        else { return response }
        var answer = response
        answer.head = notModified
        answer.body = .empty
        answer.trace.append(CacheReason(.notModified, "the application's validators match the stored response"))
        return answer
    }

    /// Whether the request carries the application's own validators.
    static func isConditional(_ request: HTTPRequest) -> Bool {
        request.headerFields.contains(.ifNoneMatch) || request.headerFields.contains(.ifModifiedSince)
    }
}
