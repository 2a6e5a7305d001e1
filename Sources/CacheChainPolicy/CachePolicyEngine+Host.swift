public import HTTPTypes

extension CachePolicyEngine {
    /// Why a request's `Host` field makes it unfit for the cache, or `nil` when it has none or it names the
    /// request's own authority (RFC 9110 §7.2).
    ///
    /// The cache key is built from the request's scheme, authority and path, but an origin picks the
    /// virtual host from the `Host` field (HTTP/1.1) or `:authority` (HTTP/2), and transports such as
    /// libcurl send a caller's `Host` field instead of the URL's authority. A request for
    /// `https://example.com/` with `Host: victim.example` would otherwise store victim's response for
    /// everyone asking for `https://example.com/`. Such a request is neither answered from the cache nor
    /// stored (nor used to freshen a stored response); the returned reason says so in its trace.
    ///
    /// The comparison is case-insensitive and treats a scheme's default port as absent (`Host:
    /// example.com:443` matches `https://example.com`); several `Host` fields, or an empty one, never match.
    /// - Parameter request: The request.
    /// - Returns: A ``CacheReason/Code/hostMismatch`` reason, or `nil`.
    /// - Complexity: O(length of the field).
    public func hostMismatch(of request: HTTPRequest) -> CacheReason? {
        let values = request.headerFields[values: .hostField]
        guard !values.isEmpty else { return nil }
        let authority = request.authority ?? ""
        if values.count == 1, let host = values.first,
            Self.normalizedAuthority(host, scheme: request.scheme) == Self.normalizedAuthority(authority, scheme: request.scheme),
            !host.isEmpty
        {
            return nil
        }
        let named = values.count == 1 ? "Host: \(values[0].prefix(100))" : "\(values.count) Host fields"
        return CacheReason(
            .hostMismatch,
            "\(named) differs from the URL's authority \(authority): not answered from or stored in the cache, "
                + "whose key is the URL's"
        )
    }

    /// `host[:port]` in lower case, without the scheme's default port, a trailing dot or surrounding spaces.
    static func normalizedAuthority(_ text: String, scheme: String?) -> String {
        var value = text.trimmingOWS().lowercased()
        // Userinfo is not part of Host (RFC 9110 §4.2.4 forbids it in http URIs); ignore it on the URL side.
        if let at = value.lastIndex(of: "@") { value = String(value[value.index(after: at)...]) }
        let defaultPort = scheme?.lowercased() == "https" ? ":443" : ":80"
        if value.hasSuffix(defaultPort) { value.removeLast(defaultPort.count) }
        if value.hasSuffix(":") { value.removeLast() }  // an empty port is the default port (RFC 3986 §6.2.3)
        if value.hasSuffix(".") { value.removeLast() }
        return value
    }
}

extension HTTPField.Name {
    /// `Host` (RFC 9110 §7.2), which swift-http-types marks unavailable in favour of `HTTPRequest.authority`;
    /// a caller can still add the field, and transports send it, so the policy reads it.
    static let hostField = HTTPField.Name("Host")!  // invariant: "Host" is a valid token, so this cannot fail
}
