public import CacheChainCore
public import CacheChainInterceptors
import CacheChainPolicy
import HTTPTypes

/// One `{"type":"request",…}` line, validated and mapped onto a `PipelineRequest` and its options.
///
/// Build one with ``BatchInput/init(line:)``; every check (URL, method, header names and values,
/// `cache_mode`, `redirect`, `timeout_ms`) happens there, so a request that reaches the pipeline is sound.
public struct BatchRequest: Sendable, Hashable {
    /// The caller's `id`, echoed in the reply.
    public var id: Int64
    /// The request: the method, the URL and the caller's header pairs in order (repeated names kept), with
    /// its body when one was given.
    public var request: PipelineRequest
    /// The `cache_mode`.
    public var cacheMode: BatchCacheMode
    /// The `redirect` mode.
    public var redirect: RedirectInterceptor.Mode
    /// The `timeout_ms`, when one was given.
    public var timeout: Duration?

    /// Creates a request.
    /// - Parameters:
    ///   - id: The caller's id.
    ///   - request: The pipeline request.
    ///   - cacheMode: The cache mode; `default`.
    ///   - redirect: The redirect mode; `follow`.
    ///   - timeout: The time limit; none (the transport's) by default.
    public init(
        id: Int64,
        request: PipelineRequest,
        cacheMode: BatchCacheMode = .default,
        redirect: RedirectInterceptor.Mode = .follow,
        timeout: Duration? = nil
    ) {
        self.id = id
        self.request = request
        self.cacheMode = cacheMode
        self.redirect = redirect
        self.timeout = timeout
    }

    /// The context values the request runs with (its redirect mode).
    public var contextValues: ContextValues {
        var values = ContextValues()
        values[RedirectInterceptor.ModeKey.self] = redirect
        return values
    }
}

extension BatchRequest {
    /// Maps a header value from the protocol's text to bytes: each code point U+0000–U+00FF is one byte
    /// (Latin-1, the inverse of how replies write bytes outside ASCII).
    /// - Parameter text: The value as the caller wrote it.
    /// - Returns: The bytes to send.
    /// - Throws: ``BatchLineError`` for a code point above U+00FF.
    static func bytes(ofHeaderValue text: String) throws(BatchLineError) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.unicodeScalars.count)
        for scalar in text.unicodeScalars {
            guard scalar.value <= 0xFF else {
                throw BatchLineError(
                    "the character U+\(String(scalar.value, radix: 16, uppercase: true)) is outside U+0000–U+00FF: "
                        + "write each byte of a header value as one code point"
                )
            }
            bytes.append(UInt8(scalar.value))
        }
        return bytes
    }

    /// Checks a header value (already trimmed) against RFC 9110 §5.5's `field-value`: visible characters,
    /// `obs-text` (bytes 0x80–0xFF), and spaces and tabs between them.
    /// - Parameter bytes: The value.
    /// - Throws: ``BatchLineError`` naming the first byte that cannot be in a field value and where it is.
    static func checkHeaderValue(_ bytes: [UInt8]) throws(BatchLineError) {
        for (offset, byte) in bytes.enumerated() {
            let what: String
            switch byte {
            case 0x20...0x7E, 0x80...0xFF, UInt8(ascii: "\t"): continue
            case UInt8(ascii: "\r"), UInt8(ascii: "\n"):
                what = "a line break (\(byte == UInt8(ascii: "\r") ? "CR" : "LF"))"
            case 0x00: what = "a NUL character (U+0000)"
            default: what = "the control character U+00\(byte < 0x10 ? "0" : "")\(String(byte, radix: 16, uppercase: true))"
            }
            throw BatchLineError(
                "the value has \(what) at offset \(offset), which HTTP does not allow in a field value (RFC 9110 §5.5)"
            )
        }
        guard HTTPField.isValidValue(bytes) else {
            throw BatchLineError("the value is not a valid HTTP field value (RFC 9110 §5.5)")
        }
    }

    /// Builds the header fields from `[name, value]` pairs, keeping their order and repeated names.
    /// - Parameter pairs: The `headers` member.
    /// - Returns: The fields.
    /// - Throws: ``BatchLineError`` for a pair that is not two strings, an invalid name or an invalid value.
    static func fields(from pairs: JSONValue?) throws(BatchLineError) -> HTTPFields {
        var fields = HTTPFields()
        switch pairs {
        case nil, .null?: return fields
        case .array(let elements)?:
            for (index, element) in elements.enumerated() {
                guard case .array(let pair) = element, pair.count == 2,
                    case .string(let name) = pair[0], case .string(let value) = pair[1]
                else { throw BatchLineError("headers[\(index)] is not a [name, value] pair of strings") }
                guard let fieldName = HTTPField.Name(name) else {
                    throw BatchLineError("headers[\(index)]: '\(name)' is not a valid field name")
                }
                let bytes: [UInt8]
                do {
                    bytes = Array(try Self.bytes(ofHeaderValue: value).trimmingOWS())  // the OWS around a value is not part of it (RFC 9110 §5.5)
                    try Self.checkHeaderValue(bytes)
                } catch {
                    throw BatchLineError("headers[\(index)] (\(name)): \(error.message)")
                }
                fields.append(HTTPField(name: fieldName, value: bytes))
            }
            return fields
        default: throw BatchLineError("headers is not an array of [name, value] pairs")
        }
    }
}
