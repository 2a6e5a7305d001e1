import Foundation
public import HTTPTypes

extension InvalidationTarget {
    /// Resolves a URI reference — a `Location` or `Content-Location` value, absolute or relative — against
    /// a request's target (RFC 3986 §5). Used for invalidation (§4.4) and to follow redirects.
    ///
    /// A default port is dropped from the authority; an empty path becomes `/`.
    /// - Parameters:
    ///   - reference: The reference, e.g. `/doc/7`, `items/3` or `https://example.com/x?y=1`.
    ///   - request: The request whose target is the base.
    /// - Returns: The resolved `http`/`https` target, or `nil` when the reference is malformed or names
    ///   another scheme.
    public init?(resolving reference: String, against request: HTTPRequest) {
        guard let scheme = request.scheme?.lowercased(), let authority = request.authority,
            let base = URL(string: "\(scheme)://\(authority)\(request.path ?? "/")"),
            let resolved = URL(string: reference.trimmingOWS(), relativeTo: base)?.absoluteURL,
            let components = URLComponents(url: resolved, resolvingAgainstBaseURL: true),
            let targetScheme = components.scheme?.lowercased(), targetScheme == "http" || targetScheme == "https",
            let host = components.host?.lowercased(), !host.isEmpty
        else { return nil }
        let port = components.port.flatMap { $0 == Self.defaultPort(targetScheme) ? nil : ":\($0)" } ?? ""
        let query = components.percentEncodedQuery.map { "?\($0)" } ?? ""
        let path = (components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath) + query
        self.init(scheme: targetScheme, authority: (host.contains(":") ? "[\(host)]" : host) + port, path: path)
    }

    /// Whether two targets share scheme, host and port (defaults filled in).
    /// - Parameter other: Another target.
    /// - Returns: `true` for the same origin.
    public func hasSameOrigin(as other: InvalidationTarget) -> Bool {
        scheme == other.scheme && normalizedAuthority == other.normalizedAuthority
    }

    private var normalizedAuthority: String {
        let lowered = authority.lowercased()
        let hasPort = lowered.range(of: #":\d+$"#, options: .regularExpression) != nil
        return hasPort ? lowered : "\(lowered):\(Self.defaultPort(scheme))"
    }

    private static func defaultPort(_ scheme: String) -> Int { scheme == "https" ? 443 : 80 }
}
