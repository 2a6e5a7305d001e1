import CacheChainCore
import CacheChainPolicy
import Foundation
import HTTPTypes

/// What a network answer changes in stored responses besides a new entry: the plan's `304` merged into the stored
/// variants it validated (§4.3.4), and a `HEAD` response's freshening of the stored `GET` (§4.3.5).
extension StorageDecisionInterceptor {
    /// Applies the origin's `304 Not Modified` to the plan's validation: freshens the matching stored variants
    /// (`CacheEntry.freshened(by:engine:requestTime:responseTime:)`), writes them back and answers with the stored
    /// body (status `revalidated`). A `304` that matches no stored variant (it answers the application's own
    /// validators) goes up as it is. A failed write becomes an event and a trace reason.
    func merge(
        notModified response: PipelineResponse,
        into validation: CachePlan.Validation,
        request: PipelineRequest,
        context: InterceptorContext,
        times: (request: Date, response: Date)
    ) async -> PipelineResponse {
        var response = response
        let engine = context.policyEngine
        let chosen = engine.selectForFreshening(notModified: response.head, candidates: validation.candidates.map(\.exchange))
        guard !chosen.isEmpty else {
            response.trace.append(CacheReason(.notModified, "304 matches no stored variant; passed through"))
            return response
        }
        let freshened = chosen.map {
            validation.candidates[$0].freshened(by: response.head, engine: engine, requestTime: times.request, responseTime: times.response)
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
        let head = engine.responseForServing(served.exchange, now: times.response)
        return PipelineResponse(serving: served, head: head, for: request.head, cacheStatus: .revalidated, trace: trace)
    }

    /// A `HEAD` response freshens (or, if it contradicts it, invalidates) the stored `GET` response (§4.3.5).
    func freshenStoredGet(
        with head: HTTPResponse,
        key: CacheKey,
        request: PipelineRequest,
        context: InterceptorContext,
        requestTime: Date,
        responseTime: Date,
        trace: inout [CacheReason]
    ) async {
        guard head.status.code == 200 else { return }
        if let mismatch = context.policyEngine.hostMismatch(of: request.head) {
            trace.append(mismatch)  // another virtual host's HEAD says nothing about the URL's stored GET
            return
        }
        do {
            let stored = try await context.storage.entries(for: key, matching: request.head)
            var engine = context.policyEngine
            engine.varyDigestKey = context.storage.varyDigestKey(for: key)
            guard let index = engine.selectVariant(for: request.head, among: stored.map(\.exchange)) else {
                return
            }
            if let updated = stored[index].freshened(
                byHeadResponse: head, engine: context.policyEngine, requestTime: requestTime, responseTime: responseTime
            ) {
                try await context.storage.store(updated)
                trace.append(CacheReason(.revalidated, "HEAD response freshened the stored GET response"))
            } else {
                try await context.storage.remove(key)
                trace.append(CacheReason(.invalidated, "HEAD response contradicts the stored GET response"))
                context.events.emit(CacheEvent(.invalidated, key: key, reasons: ["head-mismatch"]))
            }
        } catch {
            trace.append(CacheReason(.storageError, "HEAD freshening failed: \(error)"))
            context.events.emit(CacheEvent(.storageError, key: key, reasons: ["head-freshen", "\(error)"]))
        }
    }
}
