import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// How `CacheChainURLProtocol` follows a redirect: FoundationNetworking's rules (RFC 9110 §15.4), applied by
/// the protocol because FoundationNetworking cannot take a redirect from a custom protocol
/// (`URLProtocolClient.urlProtocol(_:wasRedirectedTo:redirectResponse:)` traps there).
enum RedirectRules {
    /// The most redirects followed for one task, as in FoundationNetworking and on Apple's platforms; one more
    /// fails the task with `URLError(.httpTooManyRedirects)`.
    static let limit = 20

    /// Whether a status is a redirect that is followed: 301, 302, 303, 307 or 308.
    /// - Parameter status: The status code.
    static func isRedirect(_ status: Int) -> Bool {
        [301, 302, 303, 307, 308].contains(status)
    }

    /// The request that follows a redirect response.
    ///
    /// `303`, and `301`/`302` after a `POST`, continue with `GET` and no body (a `HEAD` stays `HEAD`); `307` and
    /// `308` keep the method and body. The `Location` is resolved against the request's URL. When the next hop
    /// leaves the request's origin (scheme, host or port), `Authorization` and `Cookie` are not sent on (the
    /// session's cookie storage adds the cookies of the new URL).
    /// - Parameters:
    ///   - response: The redirect response.
    ///   - request: The request it answered.
    /// - Returns: The next request, or `nil` when the response is not a followable redirect (no `Location`, or
    ///   one that is not an `http`/`https` URL).
    static func request(following response: HTTPURLResponse, from request: URLRequest) -> URLRequest? {
        guard isRedirect(response.statusCode), let location = response.value(forHTTPHeaderField: "Location"),
            let target = URL(string: location, relativeTo: request.url)?.absoluteURL,
            let scheme = target.scheme?.lowercased(), scheme == "http" || scheme == "https"
        else { return nil }
        var next = request
        next.url = target
        let method = request.httpMethod ?? "GET"
        if response.statusCode == 303 ? method != "HEAD" : ([301, 302].contains(response.statusCode) && method == "POST") {
            next.httpMethod = "GET"
            next.httpBody = nil
            next.httpBodyStream = nil
            next.setValue(nil, forHTTPHeaderField: "Content-Type")
            next.setValue(nil, forHTTPHeaderField: "Content-Length")
        }
        if !isSameOrigin(target, request.url) {
            next.setValue(nil, forHTTPHeaderField: "Authorization")
            next.setValue(nil, forHTTPHeaderField: "Cookie")
        }
        return next
    }

    private static func isSameOrigin(_ a: URL, _ b: URL?) -> Bool {
        guard let b else { return false }
        return a.scheme?.lowercased() == b.scheme?.lowercased() && a.host?.lowercased() == b.host?.lowercased()
            && effectivePort(a) == effectivePort(b)
    }

    private static func effectivePort(_ url: URL) -> Int? {
        url.port ?? (url.scheme?.lowercased() == "https" ? 443 : 80)
    }
}
