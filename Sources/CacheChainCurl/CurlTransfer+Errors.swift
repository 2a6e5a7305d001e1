import CCurl
import CacheChainCore
import CacheChainPolicy
import HTTPTypes
import Synchronization

// The errors a failed transfer reports: libcurl's code and error buffer turned into what failed and what to do.
extension CurlTransfer {
    /// The request's URL as the messages name it.
    private var url: String { "\(request.scheme ?? "?")://\(request.authority ?? "?")\(request.path ?? "")" }

    /// The error for a response whose framing is invalid: it names the fields, not libcurl's symptom.
    func framingError(_ defect: MessageFraming.Defect?) -> CacheChainError {
        CacheChainError(
            .transportFailed,
            "the response from \(url) was discarded: \(defect.map(String.init(describing:)) ?? "invalid framing"); the origin must send one Content-Length",
            request: request
        )
    }

    func error(for code: CURLcode) -> CacheChainError {
        let summary = curl_easy_strerror(code).map { String(cString: $0) } ?? "error"
        let detail = String(cString: errorBuffer)
        let text = detail.isEmpty ? summary : "\(summary): \(detail)"
        if isCancelled.load(ordering: .relaxed) || code == CURLE_ABORTED_BY_CALLBACK {
            return CacheChainError(.cancelled, "the request to \(url) was cancelled", request: request)
        }
        if let defect = MessageFraming.defect(of: head.response(status: 0)), case .invalidContentLength = defect {
            return framingError(defect)  // libcurl read one of the lengths and ran short or long
        }
        switch code {
        case CURLE_OPERATION_TIMEDOUT:
            return CacheChainError(.timedOut, "\(url) timed out (\(text)); raise the timeout or check the origin", request: request)
        case CURLE_WRITE_ERROR where spoolFailure != nil:
            return CacheChainError(
                .transportFailed,
                "the response from \(url) could not be spooled to \(spoolDirectory): \(spoolFailure?.message ?? "write failed"); free disk space or set CurlTransport.Configuration.spoolDirectory",
                request: request,
                underlying: spoolFailure
            )
        case CURLE_WRITE_ERROR where exceededMaximum, CURLE_FILESIZE_EXCEEDED:
            return CacheChainError(
                .transportFailed,
                "the response from \(url) is larger than maximumBodySize (\(maximumBodySize) bytes); raise it in CurlTransport.Configuration",
                request: request
            )
        default:
            var error = CacheChainError(.transportFailed, "libcurl failed for \(url): \(text) (\(CurlTransport.curlCodeLabel)\(code.rawValue))", request: request)
            // Refused, unresolved, reset or closed before a status line: the origin was unreachable (RFC 9111 §4.2.4).
            let unreachable = [CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_CONNECT, CURLE_GOT_NOTHING, CURLE_SEND_ERROR, CURLE_RECV_ERROR]
            error.isOriginUnreachable = head.status == 0 && unreachable.contains(code)
            return error
        }
    }
}
