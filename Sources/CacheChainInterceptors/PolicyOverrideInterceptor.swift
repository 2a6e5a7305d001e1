public import CacheChainCore
import CacheChainPolicy
public import HTTPTypes

/// Policy overrides without writing an interceptor: ``PolicyOverrideRule``s per URL pattern, or one rule per
/// request (``RuleKey``), that give responses a freshness lifetime, keep requests out of the cache, or serve
/// stale responses when the origin fails. Each change appears in the response's trace (code `override`)
/// with its rule's name.
///
/// It works at two places of the chain, around the cache interceptors rather than inside them:
/// ``Position/request`` outside them (no lookup for a never-cache rule; a request `stale-if-error` for the
/// stale-on-error bound; the trace) and ``Position/network`` between them and the transport (the response's
/// `Cache-Control` rewritten before the storage decision sees it). `HTTPCacheClient.Configuration.policyOverrides`
/// puts both in place:
/// ```swift
/// let configuration = HTTPCacheClient.Configuration(policyOverrides: [
///     PolicyOverrideRule("avatars", host: "cdn.example.com", pathGlob: "/avatars/*.png", freshness: .whenAbsent(.seconds(3_600))),
/// ])
/// ```
///
/// What RFC 9111 forbids a shared cache stays forbidden in both modes: a rule never adds `public` or
/// `s-maxage` and never removes `private`, `no-store` or `no-cache`; a lifetime is given only to responses
/// to `GET` and `HEAD` whose status is cacheable by default (never to an error page or a `201`) and to the
/// `304`s that freshen them.
public struct PolicyOverrideInterceptor: HTTPInterceptor {
    /// Where in the chain an instance works.
    public enum Position: String, Sendable, Hashable, CaseIterable {
        /// Outside the cache interceptors: request-side changes and the trace.
        case request
        /// Between the cache interceptors and the transport: response-side changes, before storage.
        case network
    }

    /// The context key of one request's own rule, used instead of the URL rules (its host and path
    /// conditions are ignored).
    public enum RuleKey: ContextValueKey {
        /// The rule.
        public typealias Value = PolicyOverrideRule
    }

    /// The field that carries a lifetime override from ``Position/network`` (stored with the response) to
    /// ``Position/request``, which turns it into a trace entry and removes it.
    static let markerName = HTTPField.Name("CacheChain-Override")!  // a literal, valid token: covered by PolicyOverrideTests

    /// The rules, first match wins.
    public var rules: [PolicyOverrideRule]
    /// Where this instance works.
    public var position: Position

    /// Creates one side of the overrides.
    /// - Parameters:
    ///   - rules: The rules, first match wins.
    ///   - position: Where the instance is placed.
    public init(rules: [PolicyOverrideRule], position: Position) {
        self.rules = rules
        self.position = position
    }

    /// The rule for a request: its own (``RuleKey``), else the first URL rule that matches.
    /// - Parameters:
    ///   - request: The request.
    ///   - context: Its context.
    /// - Returns: The rule, or `nil`.
    public func rule(for request: HTTPRequest, context: InterceptorContext) -> PolicyOverrideRule? {
        if let own = context.values[RuleKey.self] { return own }
        return rules.first { $0.matches(request) }
    }

    /// Applies the matching rule on this instance's side.
    /// - Parameters:
    ///   - request: The request.
    ///   - context: The context.
    ///   - next: The rest of the chain.
    /// - Returns: The response, changed as the rule says.
    /// - Throws: What `next` throws.
    public func intercept(_ request: PipelineRequest, context: InterceptorContext, next: Next) async throws -> PipelineResponse {
        guard let rule = rule(for: request.head, context: context) else { return try await next(request, context) }
        switch position {
        case .request: return try await interceptRequest(request, context: context, rule: rule, next: next)
        case .network: return try await interceptNetwork(request, context: context, rule: rule, next: next)
        }
    }

    private func interceptRequest(
        _ request: PipelineRequest, context: InterceptorContext, rule: PolicyOverrideRule, next: Next
    ) async throws -> PipelineResponse {
        var request = request
        var trace: [CacheReason] = []
        if rule.neverCache {
            request.cachePolicy = .reloadIgnoringLocalCacheData
            trace.append(CacheReason(.policyOverride, "rule '\(rule.name)': never cache (no lookup, not stored)"))
        } else if let bound = rule.staleOnError {
            let seconds = Int(bound.housekeepingSeconds)
            request.head.headerFields[.cacheControl] = CacheControlList.appending(
                "stale-if-error=\(seconds)", to: request.head.headerFields[.cacheControl]
            )
            trace.append(CacheReason(.policyOverride, "rule '\(rule.name)': stale-if-error=\(seconds) on the request"))
        }
        var response = try await next(request, context)
        if let marker = response.head.headerFields[Self.markerName] {
            response.head.headerFields[Self.markerName] = nil
            trace.append(CacheReason(.policyOverride, marker))
        }
        response.trace.insert(contentsOf: trace, at: 0)
        return response
    }

    private func interceptNetwork(
        _ request: PipelineRequest, context: InterceptorContext, rule: PolicyOverrideRule, next: Next
    ) async throws -> PipelineResponse {
        if let stream = context.responseBodyStream {
            // A streamed head reaches the caller before `next` returns: the same lifetime, without the marker
            // (the trace says it once the body has ended).
            stream.amendStreamedHead { [method = request.head.method] head, _ in
                head.headerFields = Self.rewritten(head.headerFields, rule: rule, method: method, status: head.status.code)
                head.headerFields[Self.markerName] = nil
            }
        }
        var response = try await next(request, context)
        response.head.headerFields = Self.rewritten(
            response.head.headerFields, rule: rule, method: request.head.method, status: response.head.status.code
        )
        return response
    }

    /// A response's fields with the rule's `Cache-Control` changes and the marker that carries a lifetime
    /// override to the trace.
    private static func rewritten(_ fields: HTTPFields, rule: PolicyOverrideRule, method: HTTPRequest.Method, status: Int) -> HTTPFields {
        var fields = fields
        if rule.neverCache {
            fields[.cacheControl] = CacheControlList.appending("no-store", to: fields[.cacheControl])
        } else if let freshness = rule.freshness, [.get, .head].contains(method),
            CachePolicyEngine.heuristicallyCacheableStatuses.contains(status) || status == 304
        {
            let control = fields[.cacheControl]
            let hasLifetime = CacheControlList.names(in: control).contains { $0 == "max-age" || $0 == "s-maxage" }
                || fields[.expires] != nil
            switch freshness {
            case .whenAbsent(let lifetime) where !hasLifetime:
                let seconds = Int(lifetime.housekeepingSeconds)
                fields[.cacheControl] = CacheControlList.appending("max-age=\(seconds)", to: control)
                fields[markerName] = "rule '\(printable(rule.name))': max-age=\(seconds) (the origin gave no lifetime)"
            case .always(let lifetime):
                let seconds = Int(lifetime.housekeepingSeconds)
                let kept = CacheControlList.removing(["max-age", "s-maxage"], from: control)
                fields[.cacheControl] = CacheControlList.appending("max-age=\(seconds)", to: kept)
                fields[.expires] = nil
                fields[markerName] = "rule '\(printable(rule.name))': max-age=\(seconds) (replacing the origin's lifetime)"
            default:
                break
            }
        }
        return fields
    }

    /// A rule name as a field value may hold it: visible ASCII and spaces.
    private static func printable(_ name: String) -> String {
        String(name.unicodeScalars.filter { (0x20..<0x7F).contains($0.value) })
    }
}
