public import CacheChainCore
import CacheChainPolicy
import Foundation
import HTTPTypes
import Logging

/// Decides, for each request, whether a stored response answers it: the cache's front door, where the one
/// `CachePlan` of a request is made.
///
/// For each request it computes the key under the context's key strategy (or takes it from a plan an outer
/// interceptor put on the request), looks it up once in `InterceptorContext.storage`, asks the RFC 9111 engine once
/// for a `CacheDecision` under the request's `PipelineRequest.cachePolicy`, and acts on that one answer:
/// - serves a fresh (or policy-allowed) stored response without calling `next` (status `hit`);
/// - serves a stale response at once and revalidates in the background (`stale-while-revalidate`) in its
///   ``revalidationQueue``, sending the decision's conditional request through the interceptors inside it
///   (`InterceptorChain.inner`); without a queue, or outside a `Pipeline`, it validates in line instead;
/// - to validate or fetch, hands the plan inward on the request (`PipelineRequest.cachePlan`: the key, the
///   conditional request with the stored variants, …) and calls `next` — the ``RevalidationInterceptor`` sends the
///   conditional request, the ``StorageDecisionInterceptor`` stores what comes back;
/// - sends unsafe requests to the origin; a `POST` with the key of its target URI's `GET`, under which the storage
///   decision keeps a response that says it is that URI's representation (RFC 9110 §9.3.3);
/// - answers `only-if-cached` with 504 and `returnCacheDataDontLoad` with a `not-in-cache` error, never touching
///   the network;
/// - serves a stale response when the origin fails and `stale-if-error` allows it;
/// - answers the application's own conditional request (`If-None-Match`, `If-Modified-Since`) with 304 when the
///   response it serves matches.
///
/// The features below are inputs of that one decision, paid for only by the requests that need them:
/// - **Coalescing** (``isRequestCoalescingEnabled``): concurrent requests that one response can answer, and whose
///   lookup said fetch or validate, share one trip inward; a hit never reaches the coalescer.
/// - **Ranges** (``isRangeServingEnabled``): a single-range `GET` is answered from a stored complete, fresh `200`,
///   else from the key's stored `206` part (looked up only by range requests), which a `206` with the same strong
///   validator extends.
/// - **Policy overrides** (``policyOverrides``, or one request's own rule under `PolicyOverrideRule.RequestKey`).
/// - **Body keys** (``bodyKeyedCaching``): `POST` and `QUERY` requests cached by a digest of their body.
/// - **`QUERY`** (RFC 10008): always cached by its content, normalised for its media type (JSON whitespace and
///   member order, form field order), under a key of its own method: served only to a `QUERY` with equivalent
///   content, never to a `GET` or `POST` (nor they to it), and invalidated with its URI's other entries by an
///   unsafe request (`CacheStorage.removeEntries(sameTargetAs:)`).
///
/// A storage failure is reported as a `CacheEvent.Kind.storageError` event and treated as a miss.
public struct CachePolicyInterceptor: ChainBoundInterceptor {
    /// Where background revalidations run; `nil` validates stale-while-revalidate responses in line.
    public let revalidationQueue: RevalidationQueue?
    /// Whether concurrent requests that one response can answer share one trip to the origin.
    public var isRequestCoalescingEnabled: Bool { flights != nil }
    /// Whether a single-range `GET` is answered from a stored complete, fresh `200` with a `206` (or a `416`).
    public let isRangeServingEnabled: Bool
    /// Rules that override the origin's caching fields per URL pattern; the first match applies.
    public let policyOverrides: [PolicyOverrideRule]
    /// Rules under which `POST` and `QUERY` requests are cached by a digest of their body; the first match applies.
    public let bodyKeyedCaching: [BodyKeyedCachingRule]
    /// The requests in flight, shared by every copy of this interceptor; `nil` when coalescing is off.
    let flights: InFlightRequests?
    /// The interceptors inside this one, given by the pipeline (`nil` until bound).
    var inner: Next?

    /// How many requests have reached the coalescer (joined a flight) so far; 0 when coalescing is off.
    package var coalescerJoinCount: UInt64 { flights?.joinedCount ?? 0 }

    /// Creates the interceptor.
    /// - Parameters:
    ///   - revalidationQueue: Where background revalidations run; a queue of its own by default, `nil` to validate
    ///     in line. A client built on a pipeline adopts this queue as its own (`HTTPCacheClient.revalidationQueue`),
    ///     so it waits for them.
    ///   - isRequestCoalescingEnabled: Whether concurrent fetches of one response share one trip; on by default.
    ///   - isRangeServingEnabled: Whether single ranges are answered from stored responses; on by default.
    ///   - policyOverrides: Rules overriding the origin's caching fields; none by default.
    ///   - bodyKeyedCaching: Rules for caching `POST`/`QUERY` by body; none by default.
    public init(
        revalidationQueue: RevalidationQueue? = RevalidationQueue(),
        isRequestCoalescingEnabled: Bool = true,
        isRangeServingEnabled: Bool = true,
        policyOverrides: [PolicyOverrideRule] = [],
        bodyKeyedCaching: [BodyKeyedCachingRule] = []
    ) {
        self.revalidationQueue = revalidationQueue
        self.flights = isRequestCoalescingEnabled ? InFlightRequests() : nil
        self.isRangeServingEnabled = isRangeServingEnabled
        self.policyOverrides = policyOverrides
        self.bodyKeyedCaching = bodyKeyedCaching
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
        var inputs = PlanInputs(request: request)
        if !policyOverrides.isEmpty || (context.values.count > 0 && context.values[PolicyOverrideRule.RequestKey.self] != nil) {
            if let refused = try applyOverride(to: &inputs, context: context) { return refused }
        }
        let method = inputs.request.head.method
        if method != .get, method != .head {
            guard method == BodyKeyedCachingRule.query || !bodyKeyedCaching.isEmpty, applyBodyKey(to: &inputs, context: context) else {
                return try await forwardUnsafe(inputs, context: context, next: next)
            }
        }
        if isRangeServingEnabled, method == .get, let range = inputs.request.head.headerFields[.range] {
            return try await serveRange(range, inputs: inputs, context: context, next: next)
        }
        return try await decideAndAct(inputs, context: context, next: next)
    }

    /// Looks the request up, decides once and acts on the decision.
    /// - Parameter recheckingFlights: Whether a coalescing leader looks up again when a trip finished during its
    ///   lookup (once per request: the second call passes `false`).
    func decideAndAct(
        _ inputs: PlanInputs,
        context: InterceptorContext,
        next: Next,
        recheckingFlights: Bool = true
    ) async throws -> PipelineResponse {
        let request = inputs.request
        let key = inputs.key(context)
        var trace = inputs.trace
        let epoch = recheckingFlights ? flights?.epoch : nil
        var engine = context.policyEngine
        // A request for another virtual host (its Host field) must not see, nor fall back on, the URL's entries.
        let isForAnotherHost = engine.hostMismatch(of: request.head) != nil
        let entries = isForAnotherHost ? [] : await lookUp(key, request: request.head, context: context, trace: &trace)
        engine.varyDigestKey = context.storage.varyDigestKey(for: key)
        let decision = engine.decide(
            request: request.head,
            policy: request.effectiveCachePolicy,
            stored: entries.map(\.exchange),
            now: context.now
        )
        if trace.isEmpty { trace = decision.reasons } else { trace += decision.reasons }
        context.logger.debug("cache decision", metadata: ["key": "\(key)", "reasons": "\(decision.reasons.map(\.code.rawValue))"])
        switch decision {
        case .useStored(let index, let report, _):
            let status: CacheStatus = report.isFresh ? .hit : .stale
            context.events.emit(CacheEvent(status == .hit ? .hit : .staleServed, key: key, reasons: codes(trace)))
            return serve(entries[index], status: status, inputs: inputs, context: context, trace: trace, age: report.currentAge)

        case .useStoredAndRevalidate(let index, let conditional, _, _) where revalidationQueue == nil || inner == nil:
            // Background revalidation is off (or there is no chain to send through later): validate in line.
            trace.append(CacheReason(.staleWhileRevalidate, "background revalidation is disabled; validating now"))
            var plan = inputs.plan(key: key)
            plan.validation = CachePlan.Validation(conditional: conditional, candidates: [entries[index]])
            let flight = Flight(plan: plan, epoch: epoch, fallback: .entry(entries[index]))
            return try await fetch(inputs, flight, context: context, next: next, trace: trace)

        case .useStoredAndRevalidate(let index, let conditional, let report, _):
            context.events.emit(CacheEvent(.staleServed, key: key, reasons: codes(trace)))
            var plan = inputs.plan(key: key)
            plan.validation = CachePlan.Validation(conditional: conditional, candidates: [entries[index]])
            await scheduleBackgroundRevalidation(of: entries[index], plan: plan, request: request, context: context, engine: engine)
            return serve(entries[index], status: .stale, inputs: inputs, context: context, trace: trace, age: report.currentAge)

        case .validate(let indices, let conditional, _):
            let candidates = indices.map { entries[$0] }
            var plan = inputs.plan(key: key)
            plan.validation = CachePlan.Validation(conditional: conditional, candidates: candidates)
            let flight = Flight(plan: plan, epoch: epoch, fallback: .entry(candidates.first))
            return try await fetch(inputs, flight, context: context, next: next, trace: trace)

        case .fetch:
            var inputs = inputs
            if request.effectiveCachePolicy == .reloadIgnoringLocalAndRemoteCacheData {
                inputs.request.head.headerFields[.cacheControl] = "no-cache"
                inputs.request.head.headerFields[.pragma] = "no-cache"
            }
            // The `stale-if-error` fallback is selected only if the origin fails.
            let flight = Flight(plan: inputs.plan(key: key), epoch: epoch, fallback: .selected(among: entries, for: request.head))
            return try await fetch(inputs, flight, context: context, next: next, trace: trace)

        case .unsatisfiable:
            context.events.emit(CacheEvent(.miss, key: key, reasons: codes(trace)))
            return try unsatisfiable(request, key: key, trace: trace)
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

    /// The answer to a request that may not use the network and that no stored response answers: a `504`, or the
    /// `not-in-cache` error under `returnCacheDataDontLoad`.
    func unsatisfiable(_ request: PipelineRequest, key: CacheKey, trace: [CacheReason]) throws -> PipelineResponse {
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

    /// An unsafe request goes to the origin; the storage decision inside invalidates what it changed (§4.4). A
    /// `POST` carries a plan whose key is the `GET` of its target URI: where its response says it is that URI's
    /// representation (RFC 9110 §9.3.3), the storage decision stores it there for later `GET`s.
    private func forwardUnsafe(_ inputs: PlanInputs, context: InterceptorContext, next: Next) async throws -> PipelineResponse {
        var request = inputs.request
        if request.head.method == .post, request.cachePlan == nil, inputs.responseOverride?.isNeverCache != true {
            var get = request.head
            get.method = .get
            request.cachePlan = CachePlan(key: context.cacheKeyStrategy.key(for: get))
        }
        var response = try await next(request, context)
        response.cacheStatus = .bypass
        response.trace.insert(CacheReason(.unsafeMethod, "\(inputs.request.head.method) is not served from cache"), at: 0)
        response.trace.insert(contentsOf: inputs.trace, at: 0)
        return response
    }

    func codes(_ trace: [CacheReason]) -> [String] { trace.map(\.code.rawValue) }
}
