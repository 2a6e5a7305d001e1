import CCurl
import CacheChainCore
import HTTPTypes

// A caller reading the body as it arrives (`HTTPCacheClient.stream`): on the loop thread, each piece of the body
// is offered to the caller's `ResponseBodyStream` before it joins the body the cache stores; a full stream
// pauses the transfer (`CURL_WRITEFUNC_PAUSE`) until the caller has read, when `curl_easy_pause` resumes it.
// A body the cache would not store (longer than the stream's storable limit, by its `Content-Length` or its
// running count) stops being kept at once: what was spooled is deleted, and the caller's stream goes on.
extension CurlTransfer {
    /// What the write callback returns for a piece of the body, when the caller's stream decides it: `nil` to
    /// go on (not streaming, or the stream took the bytes and the cache keeps them too), the byte count when the
    /// stream took bytes the cache no longer keeps, `CURL_WRITEFUNC_PAUSE` when the stream is full (libcurl
    /// hands the same bytes again after the resume), 0 when the caller stopped reading (the transfer fails).
    func streamingVerdict(for bytes: UnsafeRawBufferPointer) -> Int? {
        guard let bodyStream else { return nil }
        if !hasDecidedStreaming {
            hasDecidedStreaming = true
            isStreamingBody = claimableHead().map { bodyStream.claim($0) } ?? false
        }
        guard isStreamingBody else { return nil }
        switch bodyStream.offer(bytes, onWritable: resumeStreaming ?? {}) {
        case .accepted: return keepsForTheCache(bytes.count, of: bodyStream) ? nil : countDetached(bytes.count)
        case .full: return Int(CURL_WRITEFUNC_PAUSE)
        case .abandoned: return 0
        }
    }

    /// Whether the cache still keeps the body after `count` more bytes; detaches it (deleting what was spooled)
    /// the first time its announced length or its running count exceeds what the store accepts.
    private func keepsForTheCache(_ count: Int, of stream: ResponseBodyStream) -> Bool {
        guard !stream.isBodyDetached else { return false }
        guard let limit = stream.storableBodyLimit else { return true }
        guard bodyCount + count > limit || (expectedBodyCount ?? 0) > limit else { return true }
        spool?.discard()
        spool = nil
        body = []
        stream.detachBody()
        return false
    }

    /// Counts bytes handed to the caller only; past the transport's `maximumBodySize` the transfer fails, as it
    /// would had the body been kept. Returns what the write callback returns.
    private func countDetached(_ count: Int) -> Int {
        bodyCount += count
        guard bodyCount <= maximumBodySize else {
            exceededMaximum = true
            return 0
        }
        return count
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
