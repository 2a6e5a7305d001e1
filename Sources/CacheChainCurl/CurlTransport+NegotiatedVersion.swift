public import CacheChainCore

extension CurlTransport {
    /// The HTTP version a response arrived over, as libcurl reports it (`CURLINFO_HTTP_VERSION`).
    ///
    /// Which version is used depends on ``Configuration/httpVersion`` and on the origin: with
    /// ``Configuration/HTTPVersion/http2OverTLS`` an `https` origin that offers `h2` through ALPN gets
    /// ``http2``; plain `http`, or an origin without `h2`, gets ``http1_1``.
    public enum NegotiatedHTTPVersion: String, Sendable, Hashable, Codable, CustomStringConvertible {
        /// HTTP/1.0.
        case http1_0 = "HTTP/1.0"
        /// HTTP/1.1.
        case http1_1 = "HTTP/1.1"
        /// HTTP/2 (a stream of a multiplexed connection).
        case http2 = "HTTP/2"
        /// HTTP/3 (QUIC), with a libcurl built for it; this transport never asks for it today.
        case http3 = "HTTP/3"

        /// The protocol as written on a status line, e.g. `HTTP/2`.
        public var description: String { rawValue }

        /// Maps libcurl's `CURL_HTTP_VERSION_*` value (`1_0` = 1, `1_1` = 2, `2_0` = 3, `3` = 30); `nil` for
        /// 0 (no response) and unknown values.
        init?(curlValue: Int) {
            switch curlValue {
            case 1: self = .http1_0
            case 2: self = .http1_1
            case 3: self = .http2
            case 30: self = .http3
            default: return nil
            }
        }
    }

    /// The `CacheUserInfoKey` under which a response from the network carries the
    /// ``NegotiatedHTTPVersion`` it arrived over, when ``Configuration/recordsHTTPVersion`` is on.
    ///
    /// ```swift
    /// let transport = CurlTransport(configuration: .init(recordsHTTPVersion: true))
    /// let response = try await client.data(for: request)
    /// let version = response.userInfo[CurlTransport.NegotiatedHTTPVersionKey.self]  // .http2
    /// ```
    /// Like any `userInfo` value it is stored with the entry, so a cached (HIT, STALE, REVALIDATED) response
    /// reports the version its stored copy arrived over.
    public enum NegotiatedHTTPVersionKey: CacheUserInfoKey {
        /// The negotiated version.
        public typealias Value = NegotiatedHTTPVersion
        /// `curl-http-version`.
        public static let name = "curl-http-version"
    }
}
