import FoundationEssentials
package import HTTPTypes

/// The one byte range a `206 Partial Content` carries (`Content-Range: bytes first-last/length`, RFC 9110
/// §14.4), and the strong validator that lets parts of one representation be combined (RFC 9111 §3.4).
///
/// Only what a cache may keep is represented: a single range of the `bytes` unit whose complete length is
/// known. `bytes first-last/*` (unknown length), `bytes */length` (a `416`), another unit and a
/// `multipart/byteranges` answer (which has no `Content-Range` field) give `nil` from ``init(field:)``.
package struct ContentRange: Sendable, Hashable {
    /// The first byte position.
    package var first: Int
    /// The last byte position (inclusive).
    package var last: Int
    /// The representation's complete length.
    package var completeLength: Int

    /// A range of a representation.
    /// - Parameters:
    ///   - first: The first byte position.
    ///   - last: The last byte position (inclusive).
    ///   - completeLength: The representation's complete length.
    package init(first: Int, last: Int, completeLength: Int) {
        self.first = first
        self.last = last
        self.completeLength = completeLength
    }

    /// Parses a `Content-Range` field value; `nil` unless it is `bytes first-last/length` with
    /// `first <= last < length`.
    /// - Parameter value: The field value, e.g. `bytes 0-499/1234`.
    package init?(field value: String) {
        let text = value.trimmingOWS()
        guard text.count > 6, text.prefix(6).lowercased() == "bytes " else { return nil }
        let spec = text.dropFirst(6).trimmingOWS()
        guard let dash = spec.firstIndex(of: "-"), let slash = spec.firstIndex(of: "/"), dash < slash else { return nil }
        func number(_ digits: Substring) -> Int? {
            digits.isEmpty || !digits.allSatisfy({ $0.isASCII && $0.isNumber }) ? nil : Int(digits)
        }
        guard let first = number(spec[..<dash]), let last = number(spec[spec.index(after: dash)..<slash]),
            let length = number(spec[spec.index(after: slash)...]), first <= last, last < length
        else { return nil }
        self.init(first: first, last: last, completeLength: length)
    }

    /// The number of bytes in the range.
    package var count: Int { last - first + 1 }

    /// Whether the range is the whole representation.
    package var isComplete: Bool { first == 0 && last == completeLength - 1 }

    /// The field value: `bytes first-last/length`.
    package var fieldValue: String { "bytes \(first)-\(last)/\(completeLength)" }

    /// The strong validator of a response, as `If-Range` sends it (RFC 9110 §13.1.5): its `ETag` when that is
    /// not weak (`W/`), else its `Last-Modified` when that is strong (the `Date` at least one second later,
    /// §8.8.2.2); `nil` when it has neither — such parts are never stored nor combined.
    /// - Parameter fields: The response's fields.
    /// - Returns: The validator, or `nil`.
    package static func strongValidator(of fields: HTTPFields) -> String? {
        if let text = fields[.eTag], let tag = EntityTag(parsing: text.trimmingOWS()) {
            return tag.isWeak ? nil : text.trimmingOWS()
        }
        guard let modified = fields[.lastModified], let date = HTTPDate.parse(modified),
            let responseDate = fields[.date].flatMap(HTTPDate.parse), responseDate.timeIntervalSince(date) >= 1
        else { return nil }
        return modified.trimmingOWS()
    }
}
