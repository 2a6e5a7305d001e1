public import HTTPTypes

extension CachePolicyEngine {
    /// The `GET` request a response to a `POST` also answers, when the response says so (RFC 9110 §9.3.3,
    /// RFC 9111 §4): a `200` or `203` with explicit freshness (`max-age`, `Expires`, or in a shared cache
    /// `s-maxage`) and a `Content-Location` that resolves to the request's own target URI (RFC 9110 §8.7: the
    /// response then is a representation of that resource).
    ///
    /// The cache may store such a response for a later `GET` of the URI; it never answers another `POST` with it
    /// (a `POST` is always sent to the origin). The returned request is the `POST`'s head as a `GET` (same
    /// target, same fields, so its `Vary` fields are matched as usual); whether it is stored is still
    /// ``storability(request:response:)``'s decision.
    /// - Parameters:
    ///   - request: The `POST` request.
    ///   - response: Its response head.
    /// - Returns: The `GET` whose answer the response is, or `nil`.
    public func getRequestAnswered(byPost request: HTTPRequest, response: HTTPResponse) -> HTTPRequest? {
        guard request.method == .post, [200, 203].contains(response.status.code),
            let location = response.headerFields[.contentLocation],
            let target = InvalidationTarget(resolving: location, against: request),
            let own = InvalidationTarget(resolving: request.path ?? "/", against: request),
            target.hasSameOrigin(as: own), target.path == own.path
        else { return nil }
        let (directives, targeted) = governingDirectives(of: response)
        let isExplicitlyFresh = directives.contains(.maxAge) || (targeted == nil && response.headerFields[.expires] != nil)
            || (isShared && directives.contains(.sMaxAge))
        guard isExplicitlyFresh else { return nil }
        var get = request
        get.method = .get
        return get
    }
}
