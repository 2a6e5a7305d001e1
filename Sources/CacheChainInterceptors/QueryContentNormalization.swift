import HTTPTypes

/// The form of a `QUERY` request's content that its cache key digests (RFC 10008 §2.7: the key incorporates the
/// content, which a cache should first normalise to remove semantically insignificant differences).
///
/// Only differences that cannot change what the origin answers are removed, and only for media types whose
/// syntax says so; anything else is keyed by its exact bytes:
/// - `application/json` and every `+json` type: whitespace between tokens, and the order of an object's
///   members (sorted by their name's bytes, stably, so repeated names keep their order). Strings and numbers are
///   kept as written (`1.0` and `1` stay different, `"\u0061"` and `"a"` too): nothing is decoded, so no
///   precision or escaping difference can make two different queries one. Content that is not valid JSON, or
///   nested deeper than ``maximumJSONDepth``, is keyed by its bytes.
/// - `application/x-www-form-urlencoded`: the order of the `&`-separated fields, sorted by name (stably: the
///   values of a repeated name keep their order, which may be a list's).
/// - A `Content-Encoding` other than `identity`: the exact bytes (nothing is decoded).
///
/// The media type (lowercased, parameters kept as sent) and the content coding are part of the digest too
/// (``keyedContent(_:contentType:contentEncoding:)``), so the same bytes sent as another type are another query.
package enum QueryContentNormalization {
    /// How deep JSON arrays and objects may nest before the content is keyed by its bytes.
    package static let maximumJSONDepth = 64

    /// The bytes a `QUERY`'s cache key digests: the media type, the content coding, then the normalised content.
    /// - Parameters:
    ///   - body: The request content.
    ///   - contentType: The `Content-Type` field value, if any.
    ///   - contentEncoding: The `Content-Encoding` field value, if any.
    /// - Returns: `type · 0 · coding · 0 · content`.
    package static func keyedContent(_ body: [UInt8], contentType: String?, contentEncoding: String?) -> [UInt8] {
        let type = mediaType(contentType)
        var coding = (contentEncoding ?? "").lowercased().filter { $0 != " " && $0 != "\t" }
        if coding == "identity" { coding = "" }  // no coding at all (RFC 9110 §8.4.1)
        let content: [UInt8]
        if !coding.isEmpty {
            content = body
        } else {
            content = normalized(body, mediaType: type.essence)
        }
        return Array(type.full.utf8) + [0] + Array(coding.utf8) + [0] + content
    }

    /// The content normalised for its media type (`type/subtype`, lowercased), or as it is.
    package static func normalized(_ body: [UInt8], mediaType: String) -> [UInt8] {
        if mediaType == "application/json" || mediaType.hasSuffix("+json") {
            return CanonicalJSON.canonical(body, maximumDepth: maximumJSONDepth) ?? body
        }
        if mediaType == "application/x-www-form-urlencoded" {
            return sortedFormFields(body)
        }
        return body
    }

    /// The media type's essence (`type/subtype`, lowercased) and the whole value with the essence lowercased and
    /// whitespace around parameters removed.
    static func mediaType(_ value: String?) -> (essence: String, full: String) {
        guard let value else { return ("", "") }
        let parts = value.split(separator: ";", omittingEmptySubsequences: false).map { $0.trimmingOWS() }
        let essence = (parts.first ?? "").lowercased()
        return (essence, ([essence] + parts.dropFirst()).joined(separator: ";"))
    }

    /// The `&`-separated fields sorted by name (the bytes before `=`), stably.
    static func sortedFormFields(_ body: [UInt8]) -> [UInt8] {
        let fields = body.split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: false)
        let named = fields.enumerated().map { index, field in
            (name: Array(field.prefix { $0 != UInt8(ascii: "=") }), index: index, field: field)
        }
        let sorted = named.sorted { lhs, rhs in
            lhs.name.lexicographicallyPrecedes(rhs.name) || (lhs.name == rhs.name && lhs.index < rhs.index)
        }
        return Array(sorted.map { Array($0.field) }.joined(separator: [UInt8(ascii: "&")]))
    }
}

extension StringProtocol {
    /// Without leading and trailing spaces and tabs (RFC 9110 OWS).
    fileprivate func trimmingOWS() -> String {
        let isOWS: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let start = firstIndex(where: { !isOWS($0) }), let end = lastIndex(where: { !isOWS($0) }) else { return "" }
        return String(self[start...end])
    }
}
