public import CacheChainCore
import CacheChainPolicy
import HTTPTypes

/// Caches `POST` and `QUERY` requests that a ``BodyKeyedCachingRule`` names (GraphQL queries, search APIs)
/// under a key that includes a SHA-256 digest of the method and the body, and a keyed digest of the request's
/// `Authorization`, `Proxy-Authorization` and `Cookie` fields when it has any (so an entry is never served to a
/// request with other credentials); off unless rules are given.
///
/// It works at two places of the chain, like ``PolicyOverrideInterceptor``. ``Position/request``, just
/// outside ``CachePolicyInterceptor``, hands the cache interceptors the request as a `GET` with the
/// body-keyed `CacheLookup`: the request's key under the context's key strategy, with the method and a
/// discriminator `body-sha256=<hex>`. So the usual RFC 9111 rules decide freshness, validation and
/// storage, and a `GET` of the same URI never sees these entries. ``Position/network``, next to the
/// transport, sends the original method and body to the origin (without the cache's validators for a
/// `POST`: RFC 9110 §13.1.2 would answer 412, not 304). `HTTPCacheClient.Configuration.bodyKeyedCaching`
/// puts both in place:
/// ```swift
/// let configuration = HTTPCacheClient.Configuration(bodyKeyedCaching: [
///     BodyKeyedCachingRule("search", host: "api.example.com", pathPrefix: "/search"),
/// ])
/// ```
///
/// SHA-256 (the package's own, as for Vary digests) rather than XXH3: a collision would serve one body's
/// response to another, which a 128-bit non-cryptographic hash does not rule out against crafted bodies, and
/// `CacheChainClient` links no system library. Invalidation is unchanged: a body-keyed `POST` the origin
/// answers with a non-error status invalidates the URI's `GET` entries as any `POST` does (RFC 9111 §4.4;
/// a `QUERY` is safe and invalidates nothing); unsafe requests to the URI do not remove body-keyed entries,
/// which live until they are stale, evicted or purged.
public struct BodyKeyedCachingInterceptor: HTTPInterceptor {
    /// Where in the chain an instance works.
    public enum Position: String, Sendable, Hashable, CaseIterable {
        /// Just outside the cache interceptors: the key and the `GET` form.
        case request
        /// Next to the transport: the original method and body again.
        case network
    }

    /// What ``Position/request`` tells ``Position/network`` (and a background revalidation) about a
    /// body-keyed request.
    struct Original: Sendable {
        let method: HTTPRequest.Method
        let body: [UInt8]
        let key: CacheKey
        let scheme: String?
        let authority: String?
        let path: String?

        func isFor(_ request: HTTPRequest) -> Bool {
            request.method == .get && request.scheme == scheme && request.authority == authority && request.path == path
        }
    }

    enum OriginalKey: ContextValueKey {
        typealias Value = Original
    }

    /// The rules, first match wins.
    public var rules: [BodyKeyedCachingRule]
    /// Where this instance works.
    public var position: Position

    /// Creates one side of body-keyed caching.
    /// - Parameters:
    ///   - rules: The rules, first match wins.
    ///   - position: Where the instance is placed.
    public init(rules: [BodyKeyedCachingRule], position: Position) {
        self.rules = rules
        self.position = position
    }

    /// Applies the matching rule on this instance's side.
    /// - Parameters:
    ///   - request: The request.
    ///   - context: The context.
    ///   - next: The rest of the chain.
    /// - Returns: The response, with a `body-keyed` trace entry when the rule applied.
    /// - Throws: What `next` throws.
    public func intercept(_ request: PipelineRequest, context: InterceptorContext, next: Next) async throws -> PipelineResponse {
        var request = request
        if position == .network {
            if let original = context.values[OriginalKey.self], original.isFor(request.head) {
                request.head.method = original.method
                request.body = HTTPBody(original.body)
                if original.method == .post {
                    request.head.headerFields[.ifNoneMatch] = nil
                    request.head.headerFields[.ifModifiedSince] = nil
                }
            }
            return try await next(request, context)
        }
        if let original = context.values[OriginalKey.self], original.isFor(request.head) {
            request.cacheLookup = CacheLookup(key: original.key)  // a background revalidation, sent again
            return try await next(request, context)
        }
        guard let rule = rules.first(where: { $0.matches(request.head) }) else { return try await next(request, context) }
        let method = request.head.method
        guard let body = try? (request.body ?? .empty).collect(upTo: rule.maximumBodySize) else {
            var response = try await next(request, context)
            response.trace.insert(CacheReason(.bodyKeyed, "rule '\(rule.name)': the body is over \(rule.maximumBodySize) bytes, not cached"), at: 0)
            return response
        }
        guard rule.isCacheable?(request.head, body) ?? true else { return try await next(request, context) }
        var key = context.cacheKeyStrategy.key(for: request.head)
        let digest = BodyKeyDigest.discriminator(method: method, body: body, request: request.head, secret: context.storage.varyDigestKey(for: key))
        key.method = method.rawValue
        key.discriminator += (key.discriminator.isEmpty ? "" : " ") + digest
        let original = Original(
            method: method, body: body, key: key,
            scheme: request.head.scheme, authority: request.head.authority, path: request.head.path
        )
        var inner = request
        inner.head.method = .get
        inner.cacheLookup = CacheLookup(key: key)
        var context = context
        context.values[OriginalKey.self] = original
        var response = try await next(inner, context)
        response.trace.insert(
            CacheReason(.bodyKeyed, "rule '\(rule.name)': \(method) keyed by its body (\(digest.prefix(24))…)"), at: 0
        )
        if method == .post, !response.cacheStatus.isFromCache || response.cacheStatus == .revalidated {
            // RFC 9111 §4.4 for the original request (nothing for a `QUERY`).
            await context.invalidateTargets(of: request.head, answeredBy: &response)
        }
        return response
    }
}
