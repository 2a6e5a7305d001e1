import CacheChainCore
internal import COpenSSL

/// Builds the error for a failed libcrypto call, with OpenSSL's own reason text when it queued one.
///
/// Drains OpenSSL's thread-local error queue, so that a later failure does not report a stale reason.
func openSSLFailure(_ what: String, code: CacheChainError.Code = .storageFailed) -> CacheChainError {
    var reasons: [String] = []
    while true {
        let error = ERR_get_error()
        if error == 0 { break }
        var text = [CChar](repeating: 0, count: 256)
        ERR_error_string_n(error, &text, text.count)
        reasons.append(String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
    }
    let detail = reasons.isEmpty ? "" : " (OpenSSL: \(reasons.joined(separator: "; ")))"
    return CacheChainError(code, "\(what) failed\(detail)")
}
