import CacheChainCore
import CacheChainPolicy
import HTTPTypes
import Logging
import Tracing

extension CachePolicyInterceptor {
    /// Sends the plan's conditional request through the interceptors inside this one, in the revalidation queue,
    /// once per stored variant at a time, as an in-line validation is sent (same events, same `stale-if-error` rule).
    /// The application's own validators are left out (the answer is for the cache); the storage decision inside
    /// stores the 304's freshened entry or the new 200.
    func scheduleBackgroundRevalidation(
        of entry: CacheEntry,
        plan: CachePlan,
        request: PipelineRequest,
        context: InterceptorContext,
        engine: CachePolicyEngine
    ) async {
        guard let queue = revalidationQueue, let inner, let validation = plan.validation else { return }
        var plan = plan
        if Self.isConditional(request.head) {
            var own = request.head
            own.headerFields[.ifNoneMatch] = nil
            own.headerFields[.ifModifiedSince] = nil
            plan.validation = CachePlan.Validation(
                conditional: engine.conditionalRequest(for: own, validating: [entry.exchange]), candidates: validation.candidates
            )
        }
        var background = request  // its policy, timeout and storage limit
        background.head = plan.validation?.conditional ?? validation.conditional
        background.cachePlan = plan
        var context = context
        context.values[ResponseBodyStreamKey.self] = nil  // the caller's stream is served from the cache
        let id = "\(entry.key.stringValue)#\(entry.variantKey)"
        // A traced request's background revalidation is a client span of its own, a child of the request's.
        let parent = context.span?.context
        context.span?.addEvent(SpanEvent(name: "cache.background_revalidation"))
        let scheduled = await queue.schedule(id: id) { [context, background] in
            context.events.emit(CacheEvent(.backgroundRevalidation, key: entry.key))
            let send: @Sendable (InterceptorContext) async throws -> PipelineResponse = { context in
                try await exchange(background, context: context, next: inner, fallback: .entry(entry), trace: [])
            }
            do {
                if let tracer = context.tracer, let parent {
                    try await Self.backgroundSpan(of: background, parent: parent, tracer: tracer, context: context, send)
                } else {
                    _ = try await send(context)
                }
            } catch {
                context.logger.notice("background revalidation failed", metadata: ["key": "\(entry.key)"])
            }
        }
        if !scheduled { context.logger.trace("revalidation already running", metadata: ["key": "\(entry.key)"]) }
    }

    /// Runs a background revalidation in its client span (`cachechain.revalidation` = `background`), a child of
    /// `parent`, the request's span whose stale hit started it.
    private static func backgroundSpan(
        of request: PipelineRequest,
        parent: ServiceContext,
        tracer: any Tracer,
        context: InterceptorContext,
        _ send: @Sendable (InterceptorContext) async throws -> PipelineResponse
    ) async throws {
        try await tracer.withSpan(HTTPClientSpan.name(of: request.head), context: parent, ofKind: .client) { span in
            HTTPClientSpan.setRequestAttributes(of: request.head, on: span)
            span.attributes["cachechain.revalidation"] = "background"
            var context = context
            context.span = span
            let response = try await send(context)
            let cacheStatus = CacheStatusField.parameters(for: response, now: context.now, policy: context.policyEngine.configuration)
            HTTPClientSpan.setResponseAttributes(status: response.head.status, cacheStatus: cacheStatus, on: span)
        }
    }
}
