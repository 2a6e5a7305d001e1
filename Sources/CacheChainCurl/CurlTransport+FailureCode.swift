package import CacheChainCore
import Foundation

extension CurlTransport {
    /// How a `transport-failed` message names libcurl's code: `… (curl code 7)`.
    static let curlCodeLabel = "curl code "

    /// libcurl's `CURLcode` behind a `transport-failed` error of this transport, for callers that translate it
    /// (`CacheChainFoundation` into the `URLError` codes Foundation reports for the same failures).
    /// - Parameter error: An error thrown by ``send(_:context:)``.
    /// - Returns: The code (e.g. 7, `CURLE_COULDNT_CONNECT`), or `nil` when the error does not come from libcurl.
    package static func failureCode(of error: CacheChainError) -> Int? {
        guard error.code == .transportFailed, let range = error.message.range(of: "(" + curlCodeLabel, options: .backwards) else {
            return nil
        }
        let digits = error.message[range.upperBound...].prefix { $0.isNumber }
        return Int(digits)
    }
}
