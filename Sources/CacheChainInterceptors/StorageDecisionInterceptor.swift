public import CacheChainCore
import CacheChainPolicy
import Foundation
import HTTPTypes
import Logging

/// Decides whether and how a response from the origin is stored: the `willCacheResponse` hook.
///
/// After `next` returns a network response it applies, in order:
/// 1. the request's `PipelineRequest.storageLimit` when it is `StorageLimit.refused` (nothing is proposed, no
///    hook runs), the response's `PipelineResponse.storageVeto` (set by a transport that repaired conflicting
///    framing) and RFC 9111 §3 storability (method, status, `no-store`, `private` in a shared cache,
///    `Authorization`, `Vary: *`…);
/// 2. Apple's size rule: a body larger than ``maximumEntryFraction`` (about 5%) of the backend's largest
///    tier capacity is not stored;
/// 3. the ``WillCacheResponse`` hook, which may keep the proposed `CachedResponse` as is, change its
///    `StoragePolicy`, rewrite its `userInfo` or body, or veto it by returning `nil`; then the request's
///    own hook under ``WillCacheResponseKey``, if any, given what the first one decided;
/// 4. the request's `StorageLimit.capped(_:)`, which an outer interceptor may have set (the stricter policy wins);
/// 5. the write, whose failure becomes an event and a trace reason, never a failed request.
///
/// It is the one place that writes what a network exchange taught the cache, acting on the request's `CachePlan`
/// (computed by the `CachePolicyInterceptor` outside it; without one it computes the key from the context's key
/// strategy): it stores under the plan's key; merges a `304` into the stored variants of the plan's
/// `CachePlan.validation` (§4.3.4) and answers with the stored body (status `revalidated`); after an unsafe request
/// (`POST`, `PUT`, `DELETE`…) invalidates the target URI and its same-origin `Location`/`Content-Location` (§4.4),
/// then stores a `POST`'s response for a later `GET` of its URI when it says it is that URI's representation with
/// explicit freshness (RFC 9110 §9.3.3; only under a plan, whose key is the `GET`'s);
/// applies a policy-override rule's `CachePlan.responseOverride` to the response's caching fields before anything
/// else; and sends a body-keyed request with its own method and body (`CachePlan.sentAs`). A `304` without the
/// plan's validation answers the application's own conditional request and goes up untouched. Whatever `next` answered is a
/// candidate, whichever `PipelineResponse.cacheStatus` it carries: a transport that is itself a cache (a shared
/// cache behind this private one) may answer with a `hit`, and that response is stored like any other.
///
/// `userInfo` values left by outer interceptors under `PendingUserInfoKey` are merged into the proposal
/// before the hook runs. A `HEAD` response is never stored as a new entry; it freshens (or, if it
/// contradicts it, invalidates) a stored `GET` response (§4.3.5).
///
/// Unlike Apple's URL loading system, which stores only 2xx responses, storability follows RFC 9111:
/// statuses that are cacheable by default (e.g. 301, 404) are stored too.
public struct StorageDecisionInterceptor: HTTPInterceptor {
    /// The hook: receives the proposed cached response and the request; returns what to store, or `nil` to veto.
    public typealias WillCacheResponse =
        @Sendable (CachedResponse, PipelineRequest, InterceptorContext) async -> CachedResponse?

    /// The largest body, as a fraction of the backend's largest tier capacity, that is stored.
    public var maximumEntryFraction: Double
    private let willCacheResponse: WillCacheResponse?

    /// Creates the interceptor.
    /// - Parameters:
    ///   - maximumEntryFraction: Largest storable body as a fraction of capacity; 0.05 (Apple's "about 5%").
    ///   - willCacheResponse: The hook; `nil` keeps every proposal as is.
    public init(maximumEntryFraction: Double = 0.05, willCacheResponse: WillCacheResponse? = nil) {
        self.maximumEntryFraction = maximumEntryFraction
        self.willCacheResponse = willCacheResponse
    }

    /// Handles one request as described in the type's documentation.
    /// - Parameters:
    ///   - request: The request.
    ///   - context: Its context.
    ///   - next: The rest of the chain (normally the transport).
    /// - Returns: The response, with storage reasons appended to its trace.
    /// - Throws: The chain's error.
    public func intercept(
        _ request: PipelineRequest,
        context: InterceptorContext,
        next: Next
    ) async throws -> PipelineResponse {
        let plan = request.cachePlan
        let storageLimit = request.storageLimit  // read once: `refused` applies here, a cap after the hooks
        let method = request.head.method
        let mayStore = method == .get || (method == .post && plan != nil)  // a POST's answer may be its URI's (§9.3.3)
        let limit = mayStore && storageLimit != .refused ? await storableBodyLimit(context.storage) : nil
        if let stream = context.responseBodyStream {
            if let limit { stream.limitStorableBody(to: limit) }  // a streaming transport stops keeping a longer body at once
            if let override = plan?.responseOverride {
                // A streamed head reaches the caller before `next` returns: the same lifetime (the trace says it at the end).
                stream.amendStreamedHead { head, _ in head.headerFields = override.rewritten(head.headerFields, method: method, status: head.status.code).0 }
            }
        }
        let requestTime = context.now
        var response = try await next(Self.sent(request, as: plan?.sentAs), context)
        let responseTime = context.now
        if let override = plan?.responseOverride {
            let (fields, reason) = override.rewritten(response.head.headerFields, method: method, status: response.head.status.code)
            response.head.headerFields = fields
            if let reason { response.trace.append(reason) }
        }
        if let sentAs = plan?.sentAs, sentAs.method != .get {
            var original = request.head
            original.method = sentAs.method
            await context.invalidateTargets(of: original, answeredBy: &response)  // RFC 9111 §4.4 (nothing for a `QUERY`)
        }
        let validates = plan?.validation.map { !$0.candidates.isEmpty } ?? false
        if validates, response.head.status.code == 304, let validation = plan?.validation {
            return await merge(notModified: response, into: validation, request: request, context: context, times: (requestTime, responseTime))
        }
        var answer = await decided(response, request: request, plan: plan, limit: limit, context: context, times: (requestTime, responseTime))
        if validates { answer.trace.append(CacheReason(.stale, "validation answered \(response.head.status.code)")) }
        return answer
    }

    /// What becomes of a network response that is not the `304` of the plan's validation: invalidation after an
    /// unsafe request, a `HEAD`'s freshening of the stored `GET`, or the storage decision of a `GET`'s response.
    private func decided(
        _ response: PipelineResponse,
        request: PipelineRequest,
        plan: CachePlan?,
        limit: Int?,
        context: InterceptorContext,
        times: (request: Date, response: Date)
    ) async -> PipelineResponse {
        var response = response
        // A 304 without the plan's validation answers the application's own conditional request: not an entry.
        guard response.head.status.code != 304 else { return response }
        let method = request.head.method
        guard method == .get || method == .head else {
            await context.invalidateTargets(of: request.head, answeredBy: &response)  // RFC 9111 §4.4
            return await storedForGet(response, answering: request, plan: plan, limit: limit, context: context, times: times)
        }
        let key = plan?.key ?? context.cacheKeyStrategy.key(for: request.head)
        if method == .head {
            await freshenStoredGet(with: response.head, key: key, request: request, context: context,
                                   requestTime: times.request, responseTime: times.response, trace: &response.trace)
            return response
        }
        return await stored(response, request: request, key: key, limit: limit, context: context, times: times)
    }

    /// After a `POST` whose plan the cache's front door made: its response stored for a later `GET` of the target
    /// URI, under the plan's key, when it says it is that URI's representation with explicit freshness
    /// (`CachePolicyEngine.getRequestAnswered(byPost:response:)`, RFC 9110 §9.3.3), after the invalidation of
    /// RFC 9111 §4.4. Never served to another `POST`: the front door sends every `POST` to the origin.
    private func storedForGet(
        _ response: PipelineResponse,
        answering request: PipelineRequest,
        plan: CachePlan?,
        limit: Int?,
        context: InterceptorContext,
        times: (request: Date, response: Date)
    ) async -> PipelineResponse {
        guard let plan, plan.sentAs == nil,
            let get = context.policyEngine.getRequestAnswered(byPost: request.head, response: response.head)
        else { return response }
        var asGet = request
        asGet.head = get
        asGet.body = nil
        var answer = response
        answer.trace.append(CacheReason(
            .contentLocation,
            "the POST's response has explicit freshness and Content-Location equal to its URI: a candidate for GET (RFC 9110 §9.3.3)"
        ))
        return await stored(answer, request: asGet, key: plan.key, limit: limit, context: context, times: times)
    }

    /// The request as the origin gets it: a body-keyed request's own method and body (without the cache's validators
    /// for a `POST`: RFC 9110 §13.1.2 would answer 412, not 304).
    private static func sent(_ request: PipelineRequest, as sentAs: CachePlan.SentRequest?) -> PipelineRequest {
        guard let sentAs else { return request }
        var sent = request
        sent.head.method = sentAs.method
        sent.body = PipelineBody(sentAs.body)
        if sentAs.method == .post {
            sent.head.headerFields[.ifNoneMatch] = nil
            sent.head.headerFields[.ifModifiedSince] = nil
        }
        return sent
    }

    /// Decides whether a network response to a `GET` is stored, and stores it.
    private func stored(
        _ response: PipelineResponse,
        request: PipelineRequest,
        key: CacheKey,
        limit: Int?,
        context: InterceptorContext,
        times: (request: Date, response: Date)
    ) async -> PipelineResponse {
        var response = response
        // Each way of not storing gives its reasons to the trace and to one `notStored` event.
        func notStored(_ reasons: [CacheReason], bytes: Int? = nil) -> PipelineResponse {
            response.trace += reasons
            context.events.emit(CacheEvent(.notStored, key: key, reasons: reasons.map(\.code.rawValue), bytes: bytes))
            return response
        }
        let storageLimit = request.storageLimit
        guard storageLimit != .refused else { return notStored([CacheReason(.policy, "this request does not store responses")]) }
        if let veto = response.storageVeto { return notStored([veto]) }
        let verdict = context.policyEngine.storability(request: request.head, response: response.head)
        guard verdict.isStorable else { return notStored(verdict.reasons) }
        var proposal = CachedResponse(
            response: context.policyEngine.headForStorage(response.head, receivedAt: times.response),
            body: response.body,
            userInfo: response.userInfo,
            storagePolicy: .allowed,
            requestTime: times.request,
            responseTime: times.response
        )
        if let pending = context.values[PendingUserInfoKey.self] { proposal.userInfo.merge(pending) }
        if let limit, proposal.body.count > limit {
            let reason = CacheReason(.tooLarge, "\(proposal.body.count) bytes exceeds \(limit) (\(Int(maximumEntryFraction * 100))% of capacity)")
            return notStored([reason], bytes: proposal.body.count)
        }
        // The configured hook first, then this request's own (``WillCacheResponseKey``): either may veto.
        for hook in [willCacheResponse, context.values.count > 0 ? context.values[WillCacheResponseKey.self] : nil] {
            guard let hook else { continue }
            guard let decided = await hook(proposal, request, context) else {
                return notStored([CacheReason(.vetoed, "willCacheResponse returned nil")])
            }
            proposal = decided
        }
        if case .capped(let cap) = storageLimit { proposal.storagePolicy = proposal.storagePolicy.capped(at: cap) }
        guard proposal.storagePolicy != .notAllowed else { return notStored([CacheReason(.policy, "storage policy notAllowed")]) }
        let entry = CacheEntry(
            key: key, request: request.head, cached: proposal, storedAt: times.response,
            varyDigestKey: context.storage.varyDigestKey(for: key)
        )
        do {
            try await context.storage.store(entry)
            response.trace += verdict.reasons
            let where_ = proposal.storagePolicy == .allowedInMemoryOnly ? "stored in memory only" : "stored"
            response.trace.append(CacheReason(.storable, where_))
            response.userInfo = proposal.userInfo
            context.events.emit(CacheEvent(.stored, key: key, reasons: verdict.reasons.map(\.code.rawValue), bytes: entry.cost))
        } catch {
            response.trace.append(CacheReason(.storageError, "store failed: \(error)"))
            context.events.emit(CacheEvent(.storageError, key: key, reasons: ["store", "\(error)"]))
            context.logger.warning("cache store failed; response served uncached", metadata: ["key": "\(key)"])
        }
        return response
    }

    /// The largest body stored: ``maximumEntryFraction`` of the largest tier's capacity (`CacheStorage.capacities`,
    /// known without a query); `nil` when the storage has no capacity (no limit).
    private func storableBodyLimit(_ storage: any CacheStorage) async -> Int? {
        let capacity = await storage.capacities.largestCapacity
        return capacity > 0 ? Int(Double(capacity) * maximumEntryFraction) : nil
    }
}
