public import CacheChainCore
import CacheChainPolicy
import Foundation
import HTTPTypes
import Logging

/// Decides, for each request, whether a stored response answers it: the cache's front door.
///
/// It computes the request's key under the context's key strategy (or takes it from a `CacheLookup` an
/// outer interceptor put on the request), looks it up in `InterceptorContext.storage`, asks the RFC 9111
/// engine once for a `CacheDecision` under the request's `PipelineRequest.cachePolicy`, and hands the
/// inner interceptors one `CacheLookup` on the request (`PipelineRequest.cacheLookup`) — the key and, to
/// validate, the decision's conditional request with the stored variants — so they act on it instead of
/// computing it again. Then it:
/// - serves a fresh (or policy-allowed) stored response without calling `next` (status `hit`);
/// - serves a stale response at once and revalidates in the background (`stale-while-revalidate`) in its
///   ``revalidationQueue``, sending the decision's conditional request through the interceptors inside it
///   (`InterceptorChain.inner`: the interceptors outside it do not see that request); without a queue, or
///   outside a `Pipeline`, it validates in line instead;
/// - hands the decision's conditional request and stored variants to the ``RevalidationInterceptor`` and
///   calls `next`;
/// - answers `only-if-cached` with 504 and `returnCacheDataDontLoad` with a `not-in-cache` error, never
///   touching the network;
/// - serves a stale response when the origin fails and `stale-if-error` allows it;
/// - after a successful unsafe request (`POST`, `PUT`, `DELETE`…) invalidates the target URI and its
///   same-origin `Location`/`Content-Location` (§4.4);
/// - answers the application's own conditional request (`If-None-Match`, `If-Modified-Since`) with 304
///   when the response it serves matches.
///
/// A storage failure is reported as a `CacheEvent.Kind.storageError` event and treated as a miss.
public struct CachePolicyInterceptor: ChainBoundInterceptor {
    /// Where background revalidations run; `nil` validates stale-while-revalidate responses in line.
    public let revalidationQueue: RevalidationQueue?
    /// The interceptors inside this one, given by the pipeline (`nil` until bound).
    var inner: Next?

    /// Creates the interceptor.
    /// - Parameter revalidationQueue: Where background revalidations run; a queue of its own by default,
    ///   `nil` to validate in line. A client built on a pipeline adopts this queue as its own
    ///   (`HTTPCacheClient.revalidationQueue`), so it waits for them.
    public init(revalidationQueue: RevalidationQueue? = RevalidationQueue()) {
        self.revalidationQueue = revalidationQueue
    }

    /// This interceptor with the chain inside it, where background revalidations go.
    /// - Parameter chain: The pipeline's entry points.
    /// - Returns: The bound interceptor.
    public func bound(to chain: InterceptorChain) -> any HTTPInterceptor {
        var bound = self
        bound.inner = chain.inner
        return bound
    }

    /// Handles one request as described in the type's documentation.
    /// - Parameters:
    ///   - request: The request.
    ///   - context: Its context.
    ///   - next: The rest of the chain.
    /// - Returns: A stored or fetched response with its cache status and trace.
    /// - Throws: `CacheChainError.Code.notInCache` for `returnCacheDataDontLoad` misses, or the chain's error.
    public func intercept(
        _ request: PipelineRequest,
        context: InterceptorContext,
        next: Next
    ) async throws -> PipelineResponse {
        let method = request.head.method
        guard method == .get || method == .head else {
            return try await forwardUnsafe(request, context: context, next: next)
        }
        let key = request.cacheLookup?.key ?? context.cacheKeyStrategy.key(for: request.head)
        var trace: [CacheReason] = []
        // A request for another virtual host (its Host field) must not see, nor fall back on, the URL's entries.
        let isForAnotherHost = context.policyEngine.hostMismatch(of: request.head) != nil
        let entries = isForAnotherHost ? [] : await lookUp(key, request: request.head, context: context, trace: &trace)
        var engine = context.policyEngine
        engine.varyDigestKey = context.storage.varyDigestKey(for: key)
        let decision = engine.decide(
            request: request.head,
            policy: request.effectiveCachePolicy,
            stored: entries.map(\.exchange),
            now: context.now
        )
        trace += decision.reasons
        context.logger.debug(
            "cache decision",
            metadata: ["key": "\(key)", "reasons": "\(decision.reasons.map(\.code.rawValue))"]
        )

        switch decision {
        case .useStored(let index, let report, _):
            let status: CacheStatus = report.isFresh ? .hit : .stale
            context.events.emit(CacheEvent(status == .hit ? .hit : .staleServed, key: key, reasons: codes(trace)))
            return serve(entries[index], status: status, request: request, context: context, trace: trace, age: report.currentAge)

        case .useStoredAndRevalidate(let index, let conditional, _, _) where revalidationQueue == nil || inner == nil:
            // Background revalidation is off (or there is no chain to send through later): validate in line.
            trace.append(CacheReason(.staleWhileRevalidate, "background revalidation is disabled; validating now"))
            var inner = request
            inner.cacheLookup = CacheLookup(key: key, validation: .init(conditional: conditional, candidates: [entries[index]]))
            return try await fetch(inner, context: context, next: next, fallback: { entries[index] }, key: key, trace: trace)

        case .useStoredAndRevalidate(let index, let conditional, let report, _):
            context.events.emit(CacheEvent(.staleServed, key: key, reasons: codes(trace)))
            await scheduleBackgroundRevalidation(
                of: entries[index], conditional: conditional, request: request, context: context, engine: engine
            )
            return serve(entries[index], status: .stale, request: request, context: context, trace: trace, age: report.currentAge)

        case .validate(let indices, let conditional, _):
            let candidates = indices.map { entries[$0] }
            var inner = request
            inner.cacheLookup = CacheLookup(key: key, validation: .init(conditional: conditional, candidates: candidates))
            return try await fetch(inner, context: context, next: next, fallback: { candidates.first }, key: key, trace: trace)

        case .fetch:
            var outgoing = request
            if request.effectiveCachePolicy == .reloadIgnoringLocalAndRemoteCacheData {
                outgoing.head.headerFields[.cacheControl] = "no-cache"
                outgoing.head.headerFields[.pragma] = "no-cache"
            }
            outgoing.cacheLookup = CacheLookup(key: key)
            // The `stale-if-error` fallback is selected only if the origin fails.
            let fallback = { engine.selectVariant(for: request.head, among: entries.map(\.exchange)).map { entries[$0] } }
            return try await fetch(outgoing, context: context, next: next, fallback: fallback, key: key, trace: trace)

        case .unsatisfiable:
            context.events.emit(CacheEvent(.miss, key: key, reasons: codes(trace)))
            if request.effectiveCachePolicy == .returnCacheDataDontLoad {
                throw CacheChainError(
                    .notInCache,
                    "no stored response for \(key.url) and the cache policy returnCacheDataDontLoad forbids the network",
                    request: request.head,
                    cacheKey: key
                )
            }
            return PipelineResponse(
                head: HTTPResponse(status: .gatewayTimeout, headerFields: [.cacheControl: "no-store", .contentLength: "0"]),
                cacheStatus: .unsatisfiable,
                trace: trace
            )
        }
    }

    // MARK: - Paths

    private func lookUp(
        _ key: CacheKey,
        request: HTTPRequest,
        context: InterceptorContext,
        trace: inout [CacheReason]
    ) async -> [CacheEntry] {
        do {
            return try await context.storage.entries(for: key, matching: request)
        } catch {
            trace.append(CacheReason(.storageError, "lookup failed: \(error)"))
            context.events.emit(CacheEvent(.storageError, key: key, reasons: ["lookup", "\(error)"]))
            context.logger.warning("cache lookup failed; treating as a miss", metadata: ["key": "\(key)"])
            return []
        }
    }

    /// Sends the request inward; when the origin fails (or answers 500, 502, 503 or 504) and `stale-if-error` allows it,
    /// serves `fallback` instead — the first validated variant, or the variant the request selects, which is
    /// selected only then.
    func fetch(
        _ request: PipelineRequest,
        context: InterceptorContext,
        next: Next,
        fallback: () -> CacheEntry?,
        key: CacheKey,
        trace: [CacheReason]
    ) async throws -> PipelineResponse {
        let now = context.now
        func usableFallback() -> CacheEntry? {
            fallback().flatMap {
                context.policyEngine.canServeStaleOnError($0.exchange, request: request.head, now: now) ? $0 : nil
            }
        }
        context.responseBodyStream?.record(trace)  // a streamed head comes before `next` returns
        var response: PipelineResponse
        do {
            response = try await next(request, context)
        } catch let error where !(error is CancellationError) && !Task.isCancelled {
            guard let fallback = usableFallback() else { throw error }
            var trace = trace
            trace.append(CacheReason(.staleIfError, "origin unreachable: \(Self.summary(error))"))
            context.events.emit(CacheEvent(.staleServed, key: key, reasons: codes(trace)))
            return serve(fallback, status: .offline, request: request, context: context, trace: trace)
        }
        if [500, 502, 503, 504].contains(response.head.status.code), let fallback = usableFallback() {
            var trace = trace
            trace.append(CacheReason(.staleIfError, "origin answered \(response.head.status.code)"))
            context.events.emit(CacheEvent(.staleServed, key: key, reasons: codes(trace)))
            return serve(fallback, status: .stale, request: request, context: context, trace: trace)
        }
        response.trace = trace + response.trace
        if response.cacheStatus == .revalidated {
            context.events.emit(CacheEvent(.revalidated, key: key, reasons: codes(response.trace)))
            return answeringApplicationConditional(response, request: request, context: context)
        }
        context.events.emit(CacheEvent(.miss, key: key, reasons: codes(response.trace)))
        return response
    }

    private func forwardUnsafe(
        _ request: PipelineRequest,
        context: InterceptorContext,
        next: Next
    ) async throws -> PipelineResponse {
        var response = try await next(request, context)
        response.cacheStatus = .bypass
        response.trace.insert(CacheReason(.unsafeMethod, "\(request.head.method) is not served from cache"), at: 0)
        await context.invalidateTargets(of: request.head, answeredBy: &response)
        return response
    }

    // MARK: - Serving

    /// The response that serves a stored entry; `age` is its current age when the decision already
    /// computed it (the served `Age` then matches the decision's report), else it is computed now.
    private func serve(
        _ entry: CacheEntry,
        status: CacheStatus,
        request: PipelineRequest,
        context: InterceptorContext,
        trace: [CacheReason],
        age: TimeInterval? = nil
    ) -> PipelineResponse {
        let head = age.map { context.policyEngine.responseForServing(entry.exchange, currentAge: $0) }
            ?? context.policyEngine.responseForServing(entry.exchange, now: context.now)
        let response = PipelineResponse(serving: entry, head: head, for: request.head, cacheStatus: status, trace: trace)
        return answeringApplicationConditional(response, request: request, context: context)
    }

    private func answeringApplicationConditional(
        _ response: PipelineResponse,
        request: PipelineRequest,
        context: InterceptorContext
    ) -> PipelineResponse {
        guard Self.isConditional(request.head),
            let notModified = context.policyEngine.evaluateConditional(request: request.head, servedResponse: response.head)
        else { return response }
        var answer = response
        answer.head = notModified
        answer.body = .empty
        answer.trace.append(CacheReason(.notModified, "the application's validators match the stored response"))
        return answer
    }

    static func isConditional(_ request: HTTPRequest) -> Bool {
        request.headerFields.contains(.ifNoneMatch) || request.headerFields.contains(.ifModifiedSince)
    }

    private static func summary(_ error: any Error) -> String {
        (error as? CacheChainError)?.shortDescription ?? String(describing: type(of: error))
    }

    private func codes(_ trace: [CacheReason]) -> [String] { trace.map(\.code.rawValue) }
}
