public import HTTPTypes
import Foundation
import CacheChainCore

extension HTTPRequest {
    /// Creates a request from an absolute `http` or `https` URL string, without FoundationNetworking.
    ///
    /// ```swift
    /// let request = try HTTPRequest(url: "https://example.com/a?b=1")
    /// ```
    /// - Parameters:
    ///   - method: The method; `GET` by default.
    ///   - url: An absolute URL with a scheme and a host.
    ///   - headerFields: Request fields.
    /// - Throws: `CacheChainError` `invalid-request` when the URL is not absolute `http`/`https`.
    public init(method: Method = .get, url: String, headerFields: HTTPFields = [:]) throws {
        guard let components = URLComponents(string: url),
            let scheme = components.scheme?.lowercased(), scheme == "http" || scheme == "https",
            let host = components.percentEncodedHost, !host.isEmpty
        else {
            throw CacheChainError(.invalidRequest, "'\(url)' is not an absolute http or https URL")
        }
        var authority = host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
        if let port = components.port { authority += ":\(port)" }
        var path = components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath
        if let query = components.percentEncodedQuery { path += "?\(query)" }
        self.init(method: method, scheme: scheme, authority: authority, path: path, headerFields: headerFields)
    }
}
