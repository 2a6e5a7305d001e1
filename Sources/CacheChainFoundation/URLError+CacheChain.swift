import CacheChainCore
import CacheChainCurl
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension URLError {
    /// The `URLError` a Foundation caller expects for a failure of the CacheChain pipeline.
    ///
    /// | CacheChain | `URLError.Code` |
    /// |---|---|
    /// | `cancelled`, `CancellationError` | `.cancelled` |
    /// | `timed-out` | `.timedOut` |
    /// | `not-in-cache` (`returnCacheDataDontLoad` on a miss) | `.resourceUnavailable` |
    /// | `invalid-request` | `.badURL` |
    /// | `transport-failed`, by libcurl's code | `.unsupportedURL`, `.badURL`, `.cannotFindHost`, `.cannotConnectToHost`, `.badServerResponse`, `.timedOut`, `.secureConnectionFailed`, `.serverCertificateUntrusted`, `.networkConnectionLost`, `.dataLengthExceedsMaximum`, `.unknown` |
    /// | `body-unreadable` | `.resourceUnavailable` |
    ///
    /// The error's description is CacheChain's message (what failed and what to do); the CacheChain error is
    /// kept under `NSUnderlyingErrorKey`.
    /// - Parameters:
    ///   - error: What the pipeline threw.
    ///   - url: The failing URL.
    /// - Returns: The Foundation error.
    static func from(_ error: any Error, url: URL?) -> URLError {
        if let error = error as? URLError { return error }
        if error is CancellationError {
            return URLError(.cancelled, userInfo: details("the request was cancelled", url: url))
        }
        guard let error = error as? CacheChainError else {
            return URLError(.unknown, userInfo: details("\(error)", url: url, underlying: error))
        }
        return URLError(code(for: error), userInfo: details(error.description, url: url, underlying: error))
    }

    private static func code(for error: CacheChainError) -> URLError.Code {
        switch error.code {
        case .cancelled: return .cancelled
        case .timedOut: return .timedOut
        case .notInCache, .bodyUnreadable: return .resourceUnavailable
        case .invalidRequest: return .badURL
        case .transportFailed: return CurlTransport.failureCode(of: error).map(code(forCurlCode:)) ?? .unknown
        default: return .unknown
        }
    }

    /// libcurl's error codes (`curl.h`) by the `URLError` FoundationNetworking's own loader reports for them.
    private static func code(forCurlCode curlCode: Int) -> URLError.Code {
        switch curlCode {
        case 1: .unsupportedURL  // CURLE_UNSUPPORTED_PROTOCOL
        case 3: .badURL  // CURLE_URL_MALFORMAT
        case 5, 6: .cannotFindHost  // CURLE_COULDNT_RESOLVE_PROXY, CURLE_COULDNT_RESOLVE_HOST
        case 7: .cannotConnectToHost  // CURLE_COULDNT_CONNECT
        case 8: .badServerResponse  // CURLE_WEIRD_SERVER_REPLY
        case 28: .timedOut  // CURLE_OPERATION_TIMEDOUT
        case 35, 53, 54, 58, 59, 66, 80, 83, 90, 91: .secureConnectionFailed  // TLS handshake, engine, cert or cipher setup
        case 60, 51: .serverCertificateUntrusted  // CURLE_PEER_FAILED_VERIFICATION (and its old code)
        case 16, 18, 52, 55, 56, 92: .networkConnectionLost  // HTTP/2, partial file, nothing, send, receive, stream error
        case 63: .dataLengthExceedsMaximum  // CURLE_FILESIZE_EXCEEDED
        default: .unknown
        }
    }

    /// The `userInfo` FoundationNetworking puts in its errors: a description and the failing URL.
    /// - Parameters:
    ///   - description: What failed and what to do.
    ///   - url: The failing URL.
    ///   - underlying: The error this one stands for.
    /// - Returns: The dictionary.
    static func details(_ description: String, url: URL?, underlying: (any Error)? = nil) -> [String: Any] {
        var info: [String: Any] = [NSLocalizedDescriptionKey: description]
        if let url { info[NSURLErrorFailingURLErrorKey] = url }
        if let underlying { info[NSUnderlyingErrorKey] = underlying }
        return info
    }
}
