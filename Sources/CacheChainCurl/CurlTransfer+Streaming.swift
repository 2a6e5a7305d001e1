import CCurl
import CacheChainCore
import HTTPTypes

// A caller reading the body as it arrives (`HTTPCacheClient.stream`): on the loop thread, each piece of the body
// is offered to the caller's `ResponseBodyStream` before it joins the body the cache stores; a full stream
// pauses the transfer (`CURL_WRITEFUNC_PAUSE`) until the caller has read, when `curl_easy_pause` resumes it.
extension CurlTransfer {
    /// What the write callback returns for a piece of the body, when the caller's stream decides it: `nil` to
    /// go on (not streaming, or the stream took the bytes), `CURL_WRITEFUNC_PAUSE` when the stream is full (libcurl
    /// hands the same bytes again after the resume), 0 when the caller stopped reading (the transfer fails).
    func streamingVerdict(for bytes: UnsafeRawBufferPointer) -> Int? {
        guard let bodyStream else { return nil }
        if !hasDecidedStreaming {
            hasDecidedStreaming = true
            isStreamingBody = claimableHead().map { bodyStream.claim($0) } ?? false
        }
        guard isStreamingBody else { return nil }
        switch bodyStream.offer(bytes, onWritable: resumeStreaming ?? {}) {
        case .accepted: return nil
        case .full: return Int(CURL_WRITEFUNC_PAUSE)
        case .abandoned: return 0
        }
    }

    /// The head the caller sees when this response is theirs: a final `2xx` to a request other than `HEAD`,
    /// without the framing fields that describe the wire rather than the bytes handed over (the length of a body
    /// libcurl decodes, `Transfer-Encoding`); `nil` for other responses, which the cache may replace.
    private func claimableHead() -> HTTPResponse? {
        var status = 0
        _ = cachechain_easy_getinfo_long(easy, CURLINFO_RESPONSE_CODE, &status)
        guard (200..<300).contains(status), request.method != .head else { return nil }
        var response = head.response(status: status)
        response.headerFields[.transferEncoding] = nil
        if decodesContent, let encoding = response.headerFields[.contentEncoding], encoding.lowercased() != "identity" {
            response.headerFields[.contentEncoding] = nil
            response.headerFields[.contentLength] = nil
        }
        return response
    }

    /// Resumes a transfer paused for a full stream (on the loop thread).
    func resumeAfterPause() {
        _ = curl_easy_pause(easy, CURLPAUSE_RECV_CONT)
    }
}
