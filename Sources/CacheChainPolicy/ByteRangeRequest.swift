import FoundationEssentials
package import HTTPTypes

/// The one byte range a `Range` field asks for (RFC 9110 §14.1.2), and the `If-Range` rule (§13.1.5):
/// what a cache needs to answer a range request from a stored complete response.
///
/// Only a single range of the `bytes` unit is represented: `bytes=first-last`, `bytes=first-` or
/// `bytes=-suffix`. Several ranges, another unit or a field that is not valid syntax give `nil` from
/// ``init(rangeField:)``, and a cache forwards such requests to the origin as they are.
package enum ByteRangeRequest: Sendable, Hashable {
    /// `bytes=first-last` (`last` may lie past the end).
    case bounded(first: Int, last: Int)
    /// `bytes=first-`: from `first` to the end.
    case open(first: Int)
    /// `bytes=-length`: the last `length` bytes.
    case suffix(length: Int)

    /// What a range selects in a representation of a given length.
    package enum Selection: Sendable, Hashable {
        /// These byte positions (a `206` with `Content-Range: bytes first-last/length`).
        case bytes(ClosedRange<Int>)
        /// Nothing: a `416` with `Content-Range: bytes */length`.
        case unsatisfiable
        /// The whole representation (a suffix of an empty one, for which no `Content-Range` can be written).
        case whole
    }

    /// Parses a `Range` field value; `nil` unless it is exactly one valid range of the `bytes` unit.
    /// - Parameter value: The field value, e.g. `bytes=0-499`.
    package init?(rangeField value: String) {
        let text = value.trimmingOWS()
        guard let equals = text.firstIndex(of: "="), text[..<equals].lowercased() == "bytes" else { return nil }
        let specs = text[text.index(after: equals)...].split(separator: ",", omittingEmptySubsequences: false)
            .map { $0.trimmingOWS() }
            .filter { !$0.isEmpty }
        guard specs.count == 1, let spec = specs.first, let dash = spec.firstIndex(of: "-") else { return nil }
        let firstText = spec[..<dash], lastText = spec[spec.index(after: dash)...]
        func number(_ digits: Substring) -> Int? {
            digits.isEmpty || !digits.allSatisfy({ $0.isASCII && $0.isNumber }) ? nil : Int(digits)
        }
        switch (firstText.isEmpty, lastText.isEmpty) {
        case (true, true):
            return nil
        case (true, false):
            guard let length = number(lastText) else { return nil }
            self = .suffix(length: length)
        case (false, true):
            guard let first = number(firstText) else { return nil }
            self = .open(first: first)
        case (false, false):
            guard let first = number(firstText), let last = number(lastText), last >= first else { return nil }
            self = .bounded(first: first, last: last)
        }
    }

    /// The bytes the range selects in a representation of `length` bytes (RFC 9110 §14.1.1: a range is
    /// satisfiable when its first position lies inside the representation, or it is a non-empty suffix).
    /// - Parameter length: The representation's length.
    /// - Returns: The selected positions, `unsatisfiable`, or `whole`.
    package func selection(inLength length: Int) -> Selection {
        switch self {
        case .bounded(let first, let last):
            first < length ? .bytes(first...min(last, length - 1)) : .unsatisfiable
        case .open(let first):
            first < length ? .bytes(first...(length - 1)) : .unsatisfiable
        case .suffix(let count):
            count == 0 ? .unsatisfiable : length == 0 ? .whole : .bytes(max(0, length - count)...(length - 1))
        }
    }

    /// Whether an `If-Range` validator lets the range apply to a stored response (RFC 9110 §13.1.5): an
    /// entity tag that strongly matches the stored `ETag`, or a date exactly equal to the stored
    /// `Last-Modified` when that is a strong validator (the stored `Date` at least one second later).
    /// - Parameters:
    ///   - value: The `If-Range` field value.
    ///   - stored: The stored response's fields.
    /// - Returns: `true` to answer with the range, `false` to answer with the whole response.
    package static func ifRangeAllowsRange(_ value: String, stored: HTTPFields) -> Bool {
        ifRangeAllowsRange(value, eTag: stored[.eTag], lastModified: stored[.lastModified], date: stored[.date])
    }

    /// ``ifRangeAllowsRange(_:stored:)`` given the stored response's `ETag`, `Last-Modified` and `Date` values.
    /// - Parameters:
    ///   - value: The `If-Range` field value.
    ///   - eTag: The stored `ETag`, if any.
    ///   - lastModified: The stored `Last-Modified`, if any.
    ///   - date: The stored `Date`, if any.
    /// - Returns: `true` to answer with the range, `false` to answer with the whole response.
    package static func ifRangeAllowsRange(_ value: String, eTag: String?, lastModified: String?, date: String?) -> Bool {
        let validator = value.trimmingOWS()
        if validator.hasPrefix("\"") || validator.hasPrefix("W/") {
            guard let tag = EntityTag(parsing: validator), let storedText = eTag,
                let storedTag = EntityTag(parsing: storedText)
            else { return false }
            return tag.strongMatches(storedTag)
        }
        guard let asked = HTTPDate.parse(validator), let modifiedText = lastModified,
            let modified = HTTPDate.parse(modifiedText), asked == modified,
            let responseDate = date.flatMap(HTTPDate.parse)
        else { return false }
        return responseDate.timeIntervalSince(modified) >= 1
    }
}
