import CCurl
import CacheChainCore
import HTTPTypes

extension CurlTransport {
    /// How many times a request that lost its connection or HTTP/2 stream is sent again
    /// (``mayRetry(_:after:streaming:)`` says which requests).
    static let connectionRetries = 2

    /// Whether a request that failed with `error` may be sent again as it is: the origin closed or reset the
    /// connection under it (libcurl's codes 55 and 56, send and receive failures), closed its HTTP/2 connection
    /// (code 16: a `GOAWAY`, e.g. a server's rapid-reset protection answering the `RST_STREAM` frames libcurl 7.88
    /// sends for streams it finished reading before the origin's `END_STREAM`) or refused its stream (code 92:
    /// `REFUSED_STREAM`, RFC 9113 §8.7). A refused or failed connection attempt (code 7) is not retried here.
    ///
    /// Only a safe method without a body (RFC 9110 §9.2.1: `GET`, `HEAD`, `OPTIONS`, `TRACE`) is sent again, and
    /// only when no caller is reading the body as it arrives (part of it may have reached the caller). OkHttp
    /// retries such requests likewise (`retryOnConnectionFailure`, on by default).
    /// - Parameters:
    ///   - request: The request that failed.
    ///   - error: Its error.
    ///   - streaming: Whether a caller's stream received the body.
    /// - Returns: Whether sending it again is safe and may succeed.
    static func mayRetry(_ request: PipelineRequest, after error: any Error, streaming: Bool) -> Bool {
        guard !streaming, request.body == nil, !Task.isCancelled,
            [.get, .head, .options, .trace].contains(request.head.method),
            let error = error as? CacheChainError, let code = failureCode(of: error)
        else { return false }
        return [CURLE_HTTP2, CURLE_HTTP2_STREAM, CURLE_SEND_ERROR, CURLE_RECV_ERROR].contains { Int($0.rawValue) == code }
    }
}
