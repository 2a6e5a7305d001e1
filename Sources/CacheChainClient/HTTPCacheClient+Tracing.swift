import CacheChainCore
import CacheChainInterceptors
import Tracing

extension HTTPCacheClient {
    /// Sends the request through the pipeline inside its client span (see "Tracing" in ``HTTPCacheClient``): the
    /// span is the current `ServiceContext` while the chain runs, so the transport sends its trace context and a
    /// background revalidation's span is its child; an error is recorded on it.
    func sendInSpan(_ request: PipelineRequest, context: InterceptorContext, tracer: any Tracer) async throws -> PipelineResponse {
        try await tracer.withSpan(HTTPClientSpan.name(of: request.head), ofKind: .client) { span in
            HTTPClientSpan.setRequestAttributes(of: request.head, on: span)
            var context = context
            context.span = span
            let response = try await pipeline.send(request, context: context)
            let cacheStatus = CacheStatusField.parameters(for: response, now: context.now, policy: configuration.policy)
            HTTPClientSpan.setResponseAttributes(status: response.head.status, cacheStatus: cacheStatus, on: span)
            return response
        }
    }
}
