public import HTTPTypes
public import CacheChainCore

/// A policy override: which requests it applies to and what it changes, for an origin whose caching headers are
/// missing or wrong, without writing an interceptor (`HTTPCacheClient.Configuration.policyOverrides`, or
/// ``CachePolicyInterceptor/init(revalidationQueue:isRequestCoalescingEnabled:isRangeServingEnabled:policyOverrides:bodyKeyedCaching:)``).
///
/// ```swift
/// let rules = [
///     PolicyOverrideRule("avatars", host: "cdn.example.com", pathGlob: "/avatars/*.png", freshness: .whenAbsent(.seconds(3_600))),
///     PolicyOverrideRule("live", host: "api.example.com", pathPrefix: "/v1/live/", neverCache: true),
///     PolicyOverrideRule("offline", host: "api.example.com", staleOnError: .seconds(86_400)),
/// ]
/// ```
/// The first rule that matches a request applies (later ones are not consulted).
public struct PolicyOverrideRule: Sendable, Hashable {
    /// A freshness lifetime the rule gives responses: `.whenAbsent(_:)` only when the origin gives no explicit
    /// lifetime (no `max-age`, `s-maxage` or `Expires`), `.always(_:)` replacing whatever lifetime it gives.
    public typealias Freshness = CachePlan.ResponseOverride.Freshness

    /// The rule's name, quoted in each trace entry it causes.
    public var name: String
    /// The host it applies to: exact (`api.example.com`), every subdomain (`*.example.com`), or any (`nil`).
    public var host: String?
    /// A path prefix (`/v1/`), or `nil` for any path.
    public var pathPrefix: String?
    /// A path glob: `*` matches within a segment, `**` across segments, `?` one character (`/img/**/*.png`),
    /// matched in time linear in the path.
    public var pathGlob: String?
    /// A lifetime for responses (GET and HEAD, statuses cacheable by default); `nil` keeps the origin's.
    public var freshness: Freshness?
    /// Never answered from the cache, never stored.
    public var neverCache: Bool
    /// Serve a stored response, however stale, up to this long past its freshness when the origin cannot be
    /// reached or answers 500, 502, 503 or 504: a request `stale-if-error` (RFC 5861).
    public var staleOnError: Duration?

    /// Creates a rule.
    /// - Parameters:
    ///   - name: Its name, for the trace.
    ///   - host: The host (`*.` for subdomains); any by default.
    ///   - pathPrefix: A path prefix; any path by default.
    ///   - pathGlob: A path glob; any path by default.
    ///   - freshness: A lifetime to give responses; the origin's by default.
    ///   - neverCache: Whether matching requests bypass the cache entirely.
    ///   - staleOnError: How stale a response may be served when the origin fails; not at all by default.
    public init(
        _ name: String,
        host: String? = nil,
        pathPrefix: String? = nil,
        pathGlob: String? = nil,
        freshness: Freshness? = nil,
        neverCache: Bool = false,
        staleOnError: Duration? = nil
    ) {
        self.name = name
        self.host = host?.lowercased()
        self.pathPrefix = pathPrefix
        self.pathGlob = pathGlob
        self.freshness = freshness
        self.neverCache = neverCache
        self.staleOnError = staleOnError
    }

    /// Whether the rule applies to a request for `host` and `path` (the query is not part of the path).
    /// - Parameters:
    ///   - requestHost: The request's host, without port.
    ///   - path: The request's path, without query.
    /// - Returns: Whether every condition given holds.
    public func matches(host requestHost: String, path: String) -> Bool {
        if let host {
            let candidate = requestHost.lowercased()
            if host.hasPrefix("*.") {
                guard candidate.hasSuffix(host.dropFirst()) else { return false }
            } else if candidate != host {
                return false
            }
        }
        if let pathPrefix, !path.hasPrefix(pathPrefix) { return false }
        if let pathGlob, !PathGlob(pathGlob.utf8).matches(path.utf8) { return false }
        return true
    }

    /// Whether the rule applies to a request: its host (without port or IPv6 brackets) and its path
    /// (without query), as ``matches(host:path:)`` says.
    /// - Parameter request: The request.
    /// - Returns: Whether every condition given holds.
    public func matches(_ request: HTTPRequest) -> Bool {
        var host = request.authority ?? ""
        if let colon = host.lastIndex(of: ":"), !host.hasSuffix("]") { host = String(host[..<colon]) }
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        let path = String((request.path ?? "/").prefix { $0 != "?" })
        return matches(host: host, path: path)
    }
}
