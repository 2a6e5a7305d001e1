import CacheChainCurl
import CacheChainLoopback
import Testing

/// How an integration test reaches the loopback origin: the same scenarios run over each mode.
enum ProtocolMode: String, CaseIterable, Sendable, CustomTestStringConvertible {
    /// Plain HTTP/1.1.
    case http
    /// HTTPS with the transport asking for HTTP/1.1 (the origin offers `h2` too, so ALPN settles on `http/1.1`).
    case https1_1
    /// HTTPS with HTTP/2 negotiated through ALPN (the transport's default preference).
    case https2

    var testDescription: String {
        switch self {
        case .http: "HTTP/1.1"
        case .https1_1: "HTTPS/1.1"
        case .https2: "HTTPS/2"
        }
    }

    var isTLS: Bool { self != .http }

    /// The transport's version preference for this mode.
    var clientPreference: CurlTransport.Configuration.HTTPVersion {
        self == .https1_1 ? .http1_1 : .http2OverTLS
    }

    /// The version the origin must log for every request.
    var originVersion: LoopbackHTTPVersion { self == .https2 ? .http2 : .http1_1 }

    /// The version the transport must report.
    var negotiatedVersion: CurlTransport.NegotiatedHTTPVersion { self == .https2 ? .http2 : .http1_1 }

    /// Whether concurrent requests share one connection (HTTP/2 streams) rather than one connection each.
    var multiplexes: Bool { self == .https2 }
}
