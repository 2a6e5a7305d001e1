package import HTTPTypes
package import Tracing

/// The OpenTelemetry HTTP client conventions for a span: its name and the attributes of the request and of the
/// response (https://opentelemetry.io/docs/specs/semconv/http/http-spans/), plus the cache's outcome in RFC 9211
/// `Cache-Status` vocabulary. Used by `HTTPCacheClient` for each request's span and by the cache policy for a
/// background revalidation's span.
package enum HTTPClientSpan {
    /// The attribute that carries what the cache did, e.g. `hit; ttl=540` or `fwd=uri-miss; fwd-status=200; stored`:
    /// this cache's `Cache-Status` member without its name.
    package static let cacheStatusAttribute = "http.cache.status"

    /// The span's name: the method, as the conventions name an HTTP client span without a route template.
    package static func name(of request: HTTPRequest) -> String { request.method.rawValue }

    /// Sets `http.request.method`, `url.full` (without user information), `url.scheme`, `server.address` and
    /// `server.port`.
    package static func setRequestAttributes(of request: HTTPRequest, on span: any Span) {
        let scheme = request.scheme ?? "http"
        var hostPort = request.authority ?? ""
        if let at = hostPort.lastIndex(of: "@") { hostPort = String(hostPort[hostPort.index(after: at)...]) }  // no credentials
        let (host, port) = split(hostPort, defaultPort: scheme.lowercased() == "https" ? 443 : 80)
        span.updateAttributes { attributes in
            attributes["http.request.method"] = request.method.rawValue
            attributes["url.full"] = "\(scheme)://\(hostPort)\(request.path ?? "/")"
            attributes["url.scheme"] = scheme
            attributes["server.address"] = host
            attributes["server.port"] = port
        }
    }

    /// Sets `http.response.status_code` and the cache outcome; a `4xx` or `5xx` marks the span as an error, as
    /// the conventions say for a client span.
    package static func setResponseAttributes(status: HTTPResponse.Status, cacheStatus: String, on span: any Span) {
        span.updateAttributes { attributes in
            attributes["http.response.status_code"] = status.code
            attributes[cacheStatusAttribute] = cacheStatus
        }
        if status.code >= 400 { span.setStatus(SpanStatus(code: .error)) }
    }

    /// Splits `host:port` (`[v6]:port` too) into the host and the port, the scheme's default port when none is given.
    static func split(_ hostPort: String, defaultPort: Int) -> (String, Int) {
        if hostPort.hasPrefix("["), let close = hostPort.firstIndex(of: "]") {
            let host = String(hostPort[hostPort.index(after: hostPort.startIndex)..<close])
            let rest = hostPort[hostPort.index(after: close)...]
            return (host, rest.hasPrefix(":") ? Int(rest.dropFirst()) ?? defaultPort : defaultPort)
        }
        guard let colon = hostPort.lastIndex(of: ":") else { return (hostPort, defaultPort) }
        return (String(hostPort[..<colon]), Int(hostPort[hostPort.index(after: colon)...]) ?? defaultPort)
    }
}

/// Writes trace-context fields (W3C `traceparent`, `tracestate`, …) into a request's header fields, for
/// `Instrument.inject(_:into:using:)`: a transport calls it with the current `ServiceContext` before it sends.
package struct HTTPFieldsInjector: Injector {
    package init() {}

    package func inject(_ value: String, forKey key: String, into carrier: inout HTTPFields) {
        guard let name = HTTPField.Name(key) else { return }
        carrier[name] = value
    }
}
