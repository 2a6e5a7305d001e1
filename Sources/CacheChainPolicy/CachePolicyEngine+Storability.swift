public import HTTPTypes

extension CachePolicyEngine {
    /// Whether a response to a `GET` may be stored (RFC 9111 §3).
    ///
    /// Not storable: other methods; interim (1xx), `206 Partial Content` (not as a response: the cache's range
    /// step keeps a single-range part with a strong validator under a key of its own) and
    /// `304`; `no-store` in the request or the response (unless `must-understand` with a status code this
    /// cache implements, §5.2.2.3); `must-understand` with a status code it does not implement (§3);
    /// `private` in a shared cache; a request with `Authorization` in a shared
    /// cache unless `must-revalidate`, `public` or `s-maxage` allow it (§3.5); `Vary: *` (it can never
    /// match, §4.1); responses with no explicit freshness whose status is not cacheable by default; and
    /// responses to a request whose `Host` field names another authority than its URL
    /// (``hostMismatch(of:)``: the key would not say which virtual host answered).
    /// - Parameters:
    ///   - request: The request that was sent.
    ///   - response: The origin's response head.
    /// - Returns: The verdict and its reasons.
    public func storability(request: HTTPRequest, response: HTTPResponse) -> StorabilityVerdict {
        guard request.method == .get else {
            return .notStorable([CacheReason(.method, "only GET responses are stored, not \(request.method)")])
        }
        if let mismatch = hostMismatch(of: request) {
            return .notStorable([mismatch])
        }
        let status = response.status.code
        if status < 200 {
            return .notStorable([CacheReason(.status, "\(status) is an interim response")])
        }
        if status == 206 {
            return .notStorable([CacheReason(.status, "206 Partial Content is not stored as a response (the range step keeps parts)")])
        }
        if status == 304 {
            return .notStorable([CacheReason(.status, "304 freshens a stored response; it is not stored itself")])
        }
        let requestDirectives = CacheControl(request.headerFields)
        let (directives, targeted) = governingDirectives(of: response)
        let source = targeted.map(\.rawName) ?? "Cache-Control"  // RFC 9213: a targeted field replaces it
        if requestDirectives.contains(.noStore) {
            return .notStorable([CacheReason(.noStore, "the request says Cache-Control: no-store")])
        }
        if directives.contains(.mustUnderstand) {
            // §3 and §5.2.2.3: only a cache that implements the status code's caching requirements may store
            // the response, and such a cache ignores no-store.
            guard Self.understoodStatuses.contains(status) else {
                return .notStorable([CacheReason(
                    .status,
                    "must-understand: status \(status) is not one whose caching requirements this cache implements"
                )])
            }
        } else if directives.contains(.noStore) {
            return .notStorable([CacheReason(.noStore, "the response says \(source): no-store")])
        }
        if isShared && directives.contains(.private) {
            return .notStorable([CacheReason(.privateResponse, "private responses are not stored by a shared cache")])
        }
        if isShared && request.headerFields[.authorization] != nil
            && !(directives.contains(.mustRevalidate) || directives.contains(.public) || directives.contains(.sMaxAge))
        {
            return .notStorable([CacheReason(
                .authorization,
                "a shared cache stores answers to requests with Authorization only with public, s-maxage or must-revalidate"
            )])
        }
        if VaryFields.names(in: response).contains("*") {
            return .notStorable([CacheReason(.varyStar, "Vary: * never matches a later request")])
        }
        let hasExplicitFreshness = directives.contains(.public)
            || (!isShared && directives.contains(.private))
            || (targeted == nil && response.headerFields[.expires] != nil)
            || directives.contains(.maxAge)
            || (isShared && directives.contains(.sMaxAge))
        var reasons: [CacheReason] = []
        if let targeted {
            reasons.append(CacheReason(.targeted, "\(targeted.rawName) takes the place of Cache-Control and Expires (RFC 9213)"))
        }
        if !hasExplicitFreshness {
            guard Self.heuristicallyCacheableStatuses.contains(status) else {
                return .notStorable([CacheReason(
                    .status,
                    "status \(status) has no explicit freshness (max-age, Expires, public) and is not cacheable by default"
                )])
            }
            if response.headerFields[.lastModified] != nil && !directives.contains(.noCache) {
                reasons.append(CacheReason(.heuristic, "no explicit freshness; lifetime from Last-Modified"))
            }
        }
        if !isShared && request.headerFields[.authorization] != nil {
            reasons.append(CacheReason(.authorization, "stored by this private cache despite Authorization"))
        }
        return .storable(reasons)
    }
}
