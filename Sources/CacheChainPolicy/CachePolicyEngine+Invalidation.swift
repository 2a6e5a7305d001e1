public import HTTPTypes

extension CachePolicyEngine {
    /// The URIs whose stored responses must be invalidated after an unsafe request (RFC 9111 §4.4).
    ///
    /// When a request with an unsafe method (anything but `GET`, `HEAD`, `OPTIONS`, `TRACE` and `QUERY`) gets a
    /// non-error response (2xx or 3xx), the target URI is invalidated, and so are the URIs in `Location`
    /// and `Content-Location` when they have the same origin (scheme, host and port) as the target.
    /// - Parameters:
    ///   - request: The unsafe request.
    ///   - response: Its response head.
    /// - Returns: The targets, the request's own first; empty for safe methods and error responses.
    public func invalidationTargets(request: HTTPRequest, response: HTTPResponse) -> [InvalidationTarget] {
        // Safe methods (RFC 9110 §9.2.1) change nothing at the origin, QUERY included (RFC 10008 §2).
        let safe: [HTTPRequest.Method] = [.get, .head, .options, .trace, .query]
        guard !safe.contains(request.method), (200..<400).contains(response.status.code),
            let scheme = request.scheme?.lowercased(), let authority = request.authority
        else { return [] }
        let own = InvalidationTarget(scheme: scheme, authority: authority, path: request.path ?? "/")
        var targets = [own]
        for name in [HTTPField.Name.location, .contentLocation] {
            guard let value = response.headerFields[name],
                let target = InvalidationTarget(resolving: value, against: request),
                target.hasSameOrigin(as: own), !targets.contains(target)
            else { continue }
            targets.append(target)
        }
        return targets
    }
}

extension HTTPRequest.Method {
    /// `QUERY` (RFC 10008): safe and idempotent, with a body.
    package static let query = HTTPRequest.Method("QUERY")!  // a literal, valid token: covered by InvalidationTests
}
