import Foundation
public import HTTPTypes

extension CachePolicyEngine {
    /// The URIs whose stored responses must be invalidated after an unsafe request (RFC 9111 §4.4).
    ///
    /// When a request with an unsafe method (anything but `GET`, `HEAD`, `OPTIONS`, `TRACE`) gets a
    /// non-error response (2xx or 3xx), the target URI is invalidated, and so are the URIs in `Location`
    /// and `Content-Location` when they have the same origin (scheme, host and port) as the target.
    /// - Parameters:
    ///   - request: The unsafe request.
    ///   - response: Its response head.
    /// - Returns: The targets, the request's own first; empty for safe methods and error responses.
    public func invalidationTargets(request: HTTPRequest, response: HTTPResponse) -> [InvalidationTarget] {
        let safe: [HTTPRequest.Method] = [.get, .head, .options, .trace]
        guard !safe.contains(request.method), (200..<400).contains(response.status.code),
            let scheme = request.scheme?.lowercased(), let authority = request.authority
        else { return [] }
        let path = request.path ?? "/"
        var targets = [InvalidationTarget(scheme: scheme, authority: authority, path: path)]
        guard let base = URL(string: "\(scheme)://\(authority)\(path)") else { return targets }
        for name in [HTTPField.Name.location, .contentLocation] {
            guard let value = response.headerFields[name]?.trimmingOWS(), !value.isEmpty,
                let resolved = URL(string: value, relativeTo: base)?.absoluteURL,
                let components = URLComponents(url: resolved, resolvingAgainstBaseURL: true),
                let targetScheme = components.scheme?.lowercased(), let host = components.host?.lowercased(),
                Self.sameOrigin(base, scheme: targetScheme, host: host, port: components.port)
            else { continue }
            let defaultPort = targetScheme == "https" ? 443 : 80
            let portPart = components.port.flatMap { $0 == defaultPort ? nil : ":\($0)" } ?? ""
            let query = components.percentEncodedQuery.map { "?\($0)" } ?? ""
            let targetPath = (components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath) + query
            let target = InvalidationTarget(scheme: targetScheme, authority: host + portPart, path: targetPath)
            if !targets.contains(target) { targets.append(target) }
        }
        return targets
    }

    private static func sameOrigin(_ base: URL, scheme: String, host: String, port: Int?) -> Bool {
        guard let baseScheme = base.scheme?.lowercased(), let baseHost = base.host?.lowercased() else { return false }
        func effective(_ port: Int?, _ scheme: String) -> Int? { port ?? (scheme == "https" ? 443 : scheme == "http" ? 80 : nil) }
        return baseScheme == scheme && baseHost == host && effective(base.port, baseScheme) == effective(port, scheme)
    }
}
