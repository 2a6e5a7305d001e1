#if Loopback
/// The HTTP version a request reached the loopback origin over, as logged in ``LoopbackRequest/version``.
///
/// Tests use it to prove which protocol a client negotiated: HTTP/2 is only possible over TLS (ALPN `h2`)
/// with an origin started with `offersHTTP2: true`.
public enum LoopbackHTTPVersion: Sendable, Hashable, CustomStringConvertible {
    /// HTTP/1.0.
    case http1_0
    /// HTTP/1.1.
    case http1_1
    /// HTTP/2 (one stream of a multiplexed TLS connection).
    case http2

    /// The protocol as written on a status line: `HTTP/1.0`, `HTTP/1.1` or `HTTP/2`.
    public var description: String {
        switch self {
        case .http1_0: "HTTP/1.0"
        case .http1_1: "HTTP/1.1"
        case .http2: "HTTP/2"
        }
    }

    /// Maps a parsed version (NIO's `HTTPVersion` numbers) to a case: major 2 or more is HTTP/2,
    /// `1.0` (and `0.9`) is HTTP/1.0, anything else HTTP/1.1.
    init(major: Int, minor: Int) {
        switch (major, minor) {
        case (2..., _): self = .http2
        case (1, 0), (0, _): self = .http1_0
        default: self = .http1_1
        }
    }
}
#endif
