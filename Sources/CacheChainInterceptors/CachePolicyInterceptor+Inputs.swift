import CacheChainCore
import CacheChainPolicy
import HTTPTypes

/// The inputs of a request's plan that the configuration adds: a policy-override rule and a body key. Each is
/// looked at only when rules are configured (or the request carries its own override rule).
extension CachePolicyInterceptor {
    /// A request on its way to its plan: the request as the cache handles it, the reasons the inputs gave, and
    /// what the plan carries inward besides the decision.
    struct PlanInputs: Sendable {
        /// The request as the cache handles it (a body-keyed `POST` as a `GET`, with a rule's `stale-if-error`).
        var request: PipelineRequest
        /// The inputs' reasons, first in the response's trace.
        var trace: [CacheReason] = []
        /// The key of a body-keyed request (the request's key with its method and body digest).
        var bodyKey: CacheKey?
        /// The origin's form of a body-keyed request.
        var sentAs: CachePlan.SentRequest?
        /// The response side of the policy-override rule that applies.
        var responseOverride: CachePlan.ResponseOverride?

        init(request: PipelineRequest) {
            self.request = request
        }

        /// The request's key: its body key, a plan's key an outer interceptor gave, or the key strategy's.
        func key(_ context: InterceptorContext, for head: HTTPRequest? = nil) -> CacheKey {
            bodyKey ?? request.cachePlan?.key ?? context.cacheKeyStrategy.key(for: head ?? request.head)
        }

        /// The plan handed inward for this key (its validation is the decision's to add).
        func plan(key: CacheKey) -> CachePlan {
            CachePlan(key: key, sentAs: sentAs, responseOverride: responseOverride)
        }

        /// Whether the request may not use the network: `returnCacheDataDontLoad`, or `only-if-cached` under the
        /// protocol's policy.
        var mayNotLoad: Bool {
            switch request.effectiveCachePolicy {
            case .returnCacheDataDontLoad: true
            case .useProtocolCachePolicy: CacheControl(request.head.headerFields).contains("only-if-cached")
            default: false
            }
        }
    }

    /// Applies the request's policy-override rule (its own under `PolicyOverrideRule.RequestKey`, else the first
    /// configured rule that matches): never cache (no lookup; not stored), `stale-if-error` on the request, a
    /// lifetime for the response (applied by the storage decision). A never-cache request that may not use the
    /// network gets its miss here: a rule never turns "don't use the network" into a fetch.
    /// - Returns: The answer when the request ends here, else `nil`.
    func applyOverride(to inputs: inout PlanInputs, context: InterceptorContext) throws -> PipelineResponse? {
        let head = inputs.request.head
        guard let rule = context.values[PolicyOverrideRule.RequestKey.self] ?? policyOverrides.first(where: { $0.matches(head) })
        else { return nil }
        if rule.neverCache {
            inputs.trace.append(CacheReason(.policyOverride, "rule '\(rule.name)': never cache (no lookup, not stored)"))
            inputs.responseOverride = CachePlan.ResponseOverride(ruleName: rule.name, isNeverCache: true)
            if inputs.mayNotLoad {
                let key = inputs.key(context)
                context.events.emit(CacheEvent(.miss, key: key, reasons: codes(inputs.trace)))
                let reason = CacheReason(.onlyIfCached, "the request may not use the network and the rule forbids the cache")
                return try unsatisfiable(inputs.request, key: key, trace: inputs.trace + [reason])
            }
            inputs.request.cachePolicy = .reloadIgnoringLocalCacheData
            return nil
        }
        if let bound = rule.staleOnError {
            let seconds = Int(bound.housekeepingSeconds)
            inputs.request.head.headerFields[.cacheControl] = CacheControlList.appending(
                "stale-if-error=\(seconds)", to: head.headerFields[.cacheControl]
            )
            inputs.trace.append(CacheReason(.policyOverride, "rule '\(rule.name)': stale-if-error=\(seconds) on the request"))
        }
        if let freshness = rule.freshness {
            inputs.responseOverride = CachePlan.ResponseOverride(ruleName: rule.name, freshness: freshness)
        }
        return nil
    }

    /// The rule every `QUERY` that no configured rule names is cached under: content up to 64 KiB.
    static let queryRule = BodyKeyedCachingRule("query", methods: [BodyKeyedCachingRule.query])

    /// Turns a `POST` or `QUERY` that a body-keyed rule names into the `GET` the cache handles, keyed by a digest of
    /// its method and body and a keyed digest of its `Authorization`, `Proxy-Authorization` and `Cookie` fields when
    /// it has any (`BodyKeyDigest`: an entry is never served to a request with other credentials), with the origin's
    /// form in the plan (`CachePlan.sentAs`).
    /// - Returns: Whether the request is now body-keyed (otherwise it goes to the origin uncached).
    ///
    /// A `QUERY` that no rule names is keyed by its content under ``queryRule`` (RFC 10008 §2.7: its responses are
    /// cacheable; trace code `query`).
    func applyBodyKey(to inputs: inout PlanInputs, context: InterceptorContext) -> Bool {
        let head = inputs.request.head
        let configured = bodyKeyedCaching.isEmpty ? nil : bodyKeyedCaching.first(where: { $0.matches(head) })
        guard let rule = configured ?? (head.method == BodyKeyedCachingRule.query ? Self.queryRule : nil) else { return false }
        let code: CacheReason.Code = configured == nil ? .query : .bodyKeyed
        guard let body = try? (inputs.request.body ?? .empty).collect(upTo: rule.maximumBodySize) else {
            inputs.trace.append(CacheReason(code, "rule '\(rule.name)': the body is over \(rule.maximumBodySize) bytes, not cached"))
            return false
        }
        guard rule.isCacheable?(head, body) ?? true else { return false }
        var key = context.cacheKeyStrategy.key(for: head)
        // The body's digest, and a keyed digest of the credentials it was sent with: never served to other users.
        let digest = BodyKeyDigest.discriminator(method: head.method, body: body, request: head, secret: context.storage.varyDigestKey(for: key))
        key.method = head.method.rawValue
        key.discriminator += (key.discriminator.isEmpty ? "" : " ") + digest
        inputs.bodyKey = key
        inputs.sentAs = CachePlan.SentRequest(method: head.method, body: body)
        inputs.request.head.method = .get
        inputs.request.body = nil
        if configured == nil {
            inputs.trace.append(CacheReason(.query, "QUERY keyed by its content (RFC 10008 §2.7; \(digest.prefix(27))…)"))
        } else {
            inputs.trace.append(CacheReason(.bodyKeyed, "rule '\(rule.name)': \(head.method) keyed by its body (\(digest.prefix(24))…)"))
        }
        return true
    }
}
