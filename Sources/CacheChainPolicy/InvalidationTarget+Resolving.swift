public import HTTPTypes

extension InvalidationTarget {
    /// Resolves a URI reference — a `Location` or `Content-Location` value, absolute or relative — against
    /// a request's target (RFC 3986 §5.2, written out in the engine's own resolver rather than Foundation's
    /// `URL`). Used for invalidation (§4.4) and to follow redirects.
    ///
    /// A default port is dropped from the authority, userinfo is dropped, the host is lowercased (an IP
    /// literal keeps its brackets); an empty path becomes `/`; the fragment is dropped. Where Foundation differs,
    /// the RFC is followed: an empty reference names the request's own target (Foundation gave `nil`).
    /// - Parameters:
    ///   - reference: The reference, e.g. `/doc/7`, `items/3` or `https://example.com/x?y=1`.
    ///   - request: The request whose target is the base.
    /// - Returns: The resolved `http`/`https` target, or `nil` when the reference is malformed (a character no
    ///   URI holds, a port that is not a number), names another scheme or has no host.
    public init?(resolving reference: String, against request: HTTPRequest) {
        guard let scheme = request.scheme?.lowercased(), let authority = request.authority,
            let base = URIReference("\(scheme)://\(authority)\(request.path ?? "/")"),
            let resolved = URIReference(reference.trimmingOWS())?.resolved(against: base),
            let targetScheme = resolved.scheme?.lowercased(), targetScheme == "http" || targetScheme == "https",
            let hostPort = resolved.authority.flatMap(Self.hostAndPort(of:)), !hostPort.host.isEmpty
        else { return nil }
        let (host, port) = hostPort
        let portSuffix = port.flatMap { $0 == (targetScheme == "https" ? 443 : 80) ? nil : ":\($0)" } ?? ""
        let path = (resolved.path.isEmpty ? "/" : resolved.path) + (resolved.query.map { "?\($0)" } ?? "")
        self.init(scheme: targetScheme, authority: host + portSuffix, path: path)
    }

    /// Whether two targets share scheme, host and port (defaults filled in).
    /// - Parameter other: Another target.
    /// - Returns: `true` for the same origin.
    public func hasSameOrigin(as other: InvalidationTarget) -> Bool {
        scheme == other.scheme
            && CachePolicyEngine.normalizedAuthority(authority, scheme: scheme)
                == CachePolicyEngine.normalizedAuthority(other.authority, scheme: scheme)
    }

    /// The lowercased host (an IP literal with its brackets) and the port of an authority (RFC 3986 §3.2);
    /// `nil` when the port is not a number or text follows an IP literal's `]`.
    private static func hostAndPort(of authority: String) -> (host: String, port: Int?)? {
        let hostPort = authority.split(separator: "@", omittingEmptySubsequences: false).last ?? ""
        let portStart: Substring.Index?
        if hostPort.hasPrefix("[") {
            guard let close = hostPort.firstIndex(of: "]") else { return nil }
            portStart = hostPort.index(after: close) == hostPort.endIndex ? nil : hostPort.index(after: close)
            if let portStart, hostPort[portStart] != ":" { return nil }
        } else {
            portStart = hostPort.lastIndex(of: ":")
        }
        guard let portStart else { return (hostPort.lowercased(), nil) }
        let digits = hostPort[hostPort.index(after: portStart)...]
        guard digits.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        return (hostPort[..<portStart].lowercased(), digits.isEmpty ? nil : Int(digits))
    }
}
