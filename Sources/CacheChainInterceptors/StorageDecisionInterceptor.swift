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
/// The entry is stored under the key of the request's `CacheLookup` (computed from the context's key strategy
/// when the request carries none). A `304` is never an entry: with a lookup's validation
/// (`CacheLookup.validation`) it is the merge the `RevalidationInterceptor` applies, without one it answers the
/// application's own conditional request; either way it goes up untouched. Whatever `next` answered is a
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
        let requestTime = context.now
        if let stream = context.responseBodyStream, request.head.method == .get, request.storageLimit != .refused,
            let limit = storableBodyLimit(of: await context.storage.usage())
        {
            stream.limitStorableBody(to: limit)  // a streaming transport stops keeping a longer body at once
        }
        var response = try await next(request, context)
        let responseTime = context.now
        // A 304 is never an entry: with the lookup's validation it is the merge the revalidation applies outside,
        // without one it answers the application's own conditional request.
        guard response.head.status.code != 304 else { return response }
        let method = request.head.method
        guard method == .get || method == .head else { return response }
        let key = request.cacheLookup?.key ?? context.cacheKeyStrategy.key(for: request.head)
        if method == .head {
            await freshenStoredGet(with: response.head, key: key, request: request, context: context,
                                   requestTime: requestTime, responseTime: responseTime, trace: &response.trace)
            return response
        }
        // Each way of not storing gives its reasons to the trace and to one `notStored` event.
        func notStored(_ reasons: [CacheReason], bytes: Int? = nil) -> PipelineResponse {
            response.trace += reasons
            context.events.emit(CacheEvent(.notStored, key: key, reasons: reasons.map(\.code.rawValue), bytes: bytes))
            return response
        }
        let storageLimit = request.storageLimit  // read once: `refused` applies here, a cap after the hooks
        guard storageLimit != .refused else { return notStored([CacheReason(.policy, "this request does not store responses")]) }
        if let veto = response.storageVeto { return notStored([veto]) }
        let verdict = context.policyEngine.storability(request: request.head, response: response.head)
        guard verdict.isStorable else { return notStored(verdict.reasons) }
        var proposal = CachedResponse(
            response: context.policyEngine.headForStorage(response.head, receivedAt: responseTime),
            body: response.body,
            userInfo: response.userInfo,
            storagePolicy: .allowed,
            requestTime: requestTime,
            responseTime: responseTime
        )
        if let pending = context.values[PendingUserInfoKey.self] { proposal.userInfo.merge(pending) }
        if let limit = storableBodyLimit(of: await context.storage.usage()), proposal.body.count > limit {
            let reason = CacheReason(.tooLarge, "\(proposal.body.count) bytes exceeds \(limit) (\(Int(maximumEntryFraction * 100))% of capacity)")
            return notStored([reason], bytes: proposal.body.count)
        }
        // The configured hook first, then this request's own (``WillCacheResponseKey``): either may veto.
        for hook in [willCacheResponse, context.values[WillCacheResponseKey.self]].compactMap({ $0 }) {
            guard let decided = await hook(proposal, request, context) else {
                return notStored([CacheReason(.vetoed, "willCacheResponse returned nil")])
            }
            proposal = decided
        }
        if case .capped(let cap) = storageLimit { proposal.storagePolicy = proposal.storagePolicy.capped(at: cap) }
        guard proposal.storagePolicy != .notAllowed else { return notStored([CacheReason(.policy, "storage policy notAllowed")]) }
        let entry = CacheEntry(
            key: key, request: request.head, cached: proposal, storedAt: responseTime,
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

    /// The largest body stored: ``maximumEntryFraction`` of the largest tier's capacity; `nil` when the
    /// storage reports no capacity (no limit).
    private func storableBodyLimit(of usage: StorageUsage) -> Int? {
        usage.largestCapacity > 0 ? Int(Double(usage.largestCapacity) * maximumEntryFraction) : nil
    }

    private func freshenStoredGet(
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
