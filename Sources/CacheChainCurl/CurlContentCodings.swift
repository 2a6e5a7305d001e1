import CCurl
import CacheChainPolicy

/// The content codings libcurl can decode in this process (RFC 9110 §8.4.1), from the features it was
/// built with: `gzip`/`x-gzip` and `deflate` with zlib, `br` with brotli, `zstd` with zstd; `identity` always.
///
/// A response in any other coding (a misbehaving origin's `Content-Encoding: x-foo`, or `compress`) is not
/// decoded: libcurl would fail the transfer with "Unrecognized content encoding", so the transfer switches
/// decoding off as soon as such a header arrives, and the body is passed through and stored as received,
/// with its `Content-Encoding` (the head then says what the body is).
enum CurlContentCodings {
    /// The decodable codings, lowercased.
    static let decodable: Set<String> = {
        _ = CurlGlobal.initialization
        var codings: Set<String> = ["identity"]
        if cachechain_decodes_zlib() != 0 { codings.formUnion(["gzip", "x-gzip", "deflate"]) }
        if cachechain_decodes_brotli() != 0 { codings.insert("br") }
        if cachechain_decodes_zstd() != 0 { codings.insert("zstd") }
        return codings
    }()

    /// Whether libcurl can undo every coding a `Transfer-Encoding` field value lists: `chunked` and the
    /// decodable content codings (libcurl decodes `gzip`, `deflate`, `br` and `zstd` transfer codings too).
    /// - Parameter value: The field value, e.g. `chunked` or `gzip, x-foo`.
    /// - Returns: `false` when one of its codings is unknown here.
    static func canDecode(transferCodings value: [UInt8]) -> Bool {
        String(decoding: value, as: UTF8.self).split(separator: ",").allSatisfy { coding in
            let name = coding.trimmingOWS().lowercased()
            return name.isEmpty || name == "chunked" || decodable.contains(name)
        }
    }

    /// Whether libcurl can decode every coding a `Content-Encoding` field value lists.
    /// - Parameter value: The field value, e.g. `gzip` or `gzip, x-foo`.
    /// - Returns: `false` when one of its codings is not decodable here.
    static func canDecode(_ value: [UInt8]) -> Bool {
        String(decoding: value, as: UTF8.self).split(separator: ",").allSatisfy { coding in
            let name = coding.trimmingOWS().lowercased()
            return name.isEmpty || decodable.contains(name)
        }
    }
}
