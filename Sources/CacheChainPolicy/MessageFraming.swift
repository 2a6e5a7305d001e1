public import HTTPTypes

/// What a response's framing fields said on the wire, and the head that describes the body actually received
/// (RFC 9112 §6.3, RFC 9110 §8.6): a transport's last step before it hands a response to the cache.
///
/// A transport has already framed the body by the rules of §6.3 (chunked wins over `Content-Length`; a
/// 1xx, 204 or 304 response, and a response to `HEAD`, has no content). What it hands on must then say what
/// it holds: ``headDescribing(_:bodyLength:requestMethod:)`` drops `Transfer-Encoding` (the body is no
/// longer chunked) and sets `Content-Length` to the received length, or removes it where no content is
/// allowed. ``defect(of:)`` names framing the cache must not trust: such a response is passed on but not
/// stored.
public enum MessageFraming {
    /// A defect of a response's framing fields.
    public enum Defect: Sendable, Hashable, CustomStringConvertible {
        /// `Transfer-Encoding` and `Content-Length` both present: the first overrides the second, but the
        /// message "ought to be handled as an error" (§6.3 item 3).
        case transferEncodingWithContentLength
        /// `Content-Length` values that differ, or one that is not a number (§6.3 item 5): the framing is
        /// invalid and a user agent must discard the response.
        case invalidContentLength([String])

        /// What was wrong, in words.
        public var description: String {
            switch self {
            case .transferEncodingWithContentLength:
                "the origin sent both Transfer-Encoding and Content-Length (RFC 9112 §6.3)"
            case .invalidContentLength(let values):
                "the origin sent conflicting or invalid Content-Length values (\(values.joined(separator: ", "))) (RFC 9112 §6.3)"
            }
        }
    }

    /// The framing defect of a response head as received, or `nil` when its framing fields agree.
    ///
    /// Repeated identical `Content-Length` values (`5, 5` or two lines of `5`) are one valid length (§8.6).
    /// - Parameter response: The head as it arrived.
    /// - Returns: The defect, or `nil`.
    public static func defect(of response: HTTPResponse) -> Defect? {
        let lengths = response.headerFields[values: .contentLength]
            .flatMap { $0.split(separator: ",", omittingEmptySubsequences: false) }
            .map { $0.trimmingOWS() }
        if !lengths.isEmpty {
            let isNumber = lengths.allSatisfy { !$0.isEmpty && $0.utf8.allSatisfy { $0 >= 0x30 && $0 <= 0x39 } }
            if !isNumber || Set(lengths).count > 1 { return .invalidContentLength(lengths) }
        }
        if response.headerFields.contains(.transferEncoding), !lengths.isEmpty {
            return .transferEncodingWithContentLength
        }
        return nil
    }

    /// The head that describes a body of `bodyLength` bytes, as received for a request with `requestMethod`.
    ///
    /// `Transfer-Encoding` is removed. Where the response has content (not 1xx, 204 or 304, not an answer to
    /// `HEAD`), `Content-Length` becomes `bodyLength`; a 1xx or 204 response loses its `Content-Length`
    /// (RFC 9110 §8.6 forbids it there); a 304's and a `HEAD` answer's, which describe the selected
    /// representation rather than this message, are kept (one value when it was repeated).
    /// - Parameters:
    ///   - response: The head as received.
    ///   - bodyLength: The bytes of content the transport received (after any content decoding).
    ///   - requestMethod: The request's method.
    /// - Returns: The head to hand on.
    public static func headDescribing(_ response: HTTPResponse, bodyLength: Int, requestMethod: HTTPRequest.Method) -> HTTPResponse {
        var head = response
        head.headerFields[.transferEncoding] = nil
        let status = response.status.code
        if status < 200 || status == 204 {
            head.headerFields[.contentLength] = nil
        } else if status == 304 || requestMethod == .head {
            if let first = response.headerFields[values: .contentLength].first?.split(separator: ",").first {
                head.headerFields[.contentLength] = first.trimmingOWS()
            }
        } else {
            head.headerFields[.contentLength] = String(bodyLength)
        }
        return head
    }
}
