public import HTTPTypes

/// The directives of one message's `Cache-Control` field lines (RFC 9111 §5.2), parsed tolerantly.
///
/// Every field line is read and split on commas outside quoted strings; directive names are
/// case-insensitive; values may be tokens or quoted strings (`max-age="60"` is accepted, §5.2). A quoted
/// string that is never closed does not swallow the rest of its line: the restrictive directives after it
/// (`no-store`, `no-cache`, `private`, `must-revalidate`, `proxy-revalidate`) still count.
/// Bad input never throws: the accessors give the conservative reading the RFC prescribes. A numeric
/// directive that is negative, not a number, or given twice with different values is
/// ``DeltaSeconds/invalid(_:)`` — the engine then treats the response as stale (§4.2.1).
public struct CacheControl: Sendable, Hashable {
    /// One directive as written: a lowercased name and an optional, unquoted value.
    public struct Directive: Sendable, Hashable {
        /// The directive name, lowercased (e.g. `max-age`).
        public var name: String
        /// The value after `=`, unquoted; `nil` when there was no `=`.
        public var value: String?
    }

    /// The directives in the order they appear.
    public private(set) var directives: [Directive]

    /// Which of the directives the engine asks about are present (derived from ``directives``).
    private(set) var known: Known = []

    /// Parses every `Cache-Control` line of a field section.
    /// - Parameter fields: A request's or response's header fields.
    public init(_ fields: HTTPFields) {
        // Straight from the fields, without collecting the lines first (this runs on every cache hit).
        directives = []
        for field in fields where field.name == .cacheControl {
            Self.parse(line: field.value, into: &directives)
        }
        known = Self.known(in: directives)
    }

    /// Parses `Cache-Control` field values.
    /// - Parameter lines: The field line values.
    public init(lines: [String]) {
        directives = []
        for line in lines {
            Self.parse(line: line, into: &directives)
        }
        known = Self.known(in: directives)
    }

    /// Directives read elsewhere (a targeted field's Structured Field Dictionary, RFC 9213).
    init(directives: [Directive]) {
        self.directives = directives
        known = Self.known(in: directives)
    }

    /// Whether the directive is present (with or without a value).
    /// - Parameter name: A directive name, any case.
    /// - Returns: `true` if present.
    public func contains(_ name: String) -> Bool {
        let name = Self.normalized(name)
        return directives.contains { $0.name == name }
    }

    /// The `delta-seconds` value of a directive, `nil` when absent.
    ///
    /// Several occurrences with the same value are one; with different values the result is
    /// ``DeltaSeconds/invalid(_:)`` (§4.2.1 allows treating such a response as stale).
    /// - Parameter name: A directive name such as `max-age`.
    /// - Returns: The value, `.invalid` when unusable, or `nil` when absent.
    public func seconds(_ name: String) -> DeltaSeconds? {
        let name = Self.normalized(name)
        var first: DeltaSeconds?
        var count = 0
        var conflicting = false
        for directive in directives where directive.name == name {
            let value = DeltaSeconds.parse(directive.value)
            count += 1
            if let first {
                conflicting = conflicting || value != first
            } else {
                first = value
            }
        }
        if conflicting {
            return .invalid("\(name) appears \(count) times with different values")
        }
        return first
    }

    /// The value of `max-stale`: `nil` when absent, ``DeltaSeconds/maximum`` when it has no value
    /// (any staleness is acceptable, §5.2.1.2).
    public var maxStale: DeltaSeconds? {
        guard known.contains(.maxStale), let directive = directives.first(where: { $0.name == "max-stale" }) else { return nil }
        guard directive.value != nil else { return .seconds(DeltaSeconds.maximum) }
        return seconds("max-stale")
    }

    /// A queried name in lowercase; the engine's names already are, so they are not copied.
    private static func normalized(_ name: String) -> String {
        name.utf8.contains { $0 >= ASCII.upperA && $0 <= ASCII.upperZ } ? name.lowercased() : name
    }

    // MARK: - Parsing

    /// The known directives among `directives`.
    private static func known(in directives: [Directive]) -> Known {
        directives.reduce(into: Known()) { $0.formUnion(Known(name: $1.name)) }
    }

    /// Splits a line into directives, working on its UTF-8 bytes (this runs on every cache hit): commas,
    /// quotes, `=`, spaces and tabs are ASCII and never occur inside a multi-byte UTF-8 sequence.
    private static func parse(line: String, into result: inout [Directive]) {
        var line = line
        line.withUTF8 { bytes in
            var start = 0
            var inQuotes = false
            var escaped = false
            for index in 0..<bytes.count {
                let byte = bytes[index]
                if escaped {
                    escaped = false
                } else if inQuotes && byte == ASCII.backslash {
                    escaped = true
                } else if byte == ASCII.quote {
                    inQuotes.toggle()
                } else if byte == ASCII.comma && !inQuotes {
                    if let directive = directive(bytes, start, index) { result.append(directive) }
                    start = index + 1
                }
            }
            guard inQuotes else {
                if let directive = directive(bytes, start, bytes.count) { result.append(directive) }
                return
            }
            // A quoted string that never ends: the directive it opened keeps its name, and what follows its
            // opening quote is read as plain comma-separated directives, of which only the restrictive ones
            // count. A stray quote then never hides a later no-store, nor turns text into a max-age.
            var pieces = (start..<bytes.count).filter { bytes[$0] == ASCII.comma }
            pieces.append(bytes.count)
            if let directive = directive(bytes, start, pieces[0]) { result.append(directive) }
            for (lower, upper) in zip(pieces, pieces.dropFirst()) {
                if let directive = directive(bytes, lower + 1, upper), directive.value == nil,
                    restrictiveFlags.contains(directive.name)
                {
                    result.append(directive)
                }
            }
        }
    }

    /// Directives that only ever make a cache do less (store nothing, validate, keep private): the ones read
    /// after an unterminated quote.
    private static let restrictiveFlags: Set<String> = ["no-store", "no-cache", "private", "must-revalidate", "proxy-revalidate"]

    /// The directive written in `bytes[lower..<upper]`, or `nil` when it is empty or has an empty name.
    private static func directive(_ bytes: UnsafeBufferPointer<UInt8>, _ lower: Int, _ upper: Int) -> Directive? {
        let (start, end) = trimmed(bytes, lower, upper)
        guard start < end else { return nil }
        guard let equals = (start..<end).first(where: { bytes[$0] == ASCII.equals }) else {
            return Directive(name: lowercasedName(bytes, start, end), value: nil)
        }
        let (nameStart, nameEnd) = trimmed(bytes, start, equals)
        guard nameStart < nameEnd else { return nil }
        let (valueStart, valueEnd) = trimmed(bytes, equals + 1, end)
        let raw = String(decoding: UnsafeBufferPointer(rebasing: bytes[valueStart..<valueEnd]), as: UTF8.self)
        return Directive(name: lowercasedName(bytes, nameStart, nameEnd), value: unquote(raw))
    }

    /// The bounds without leading and trailing spaces and tabs (HTTP's `OWS`).
    private static func trimmed(_ bytes: UnsafeBufferPointer<UInt8>, _ lower: Int, _ upper: Int) -> (Int, Int) {
        var start = lower, end = upper
        while start < end, bytes[start] == ASCII.space || bytes[start] == ASCII.tab { start += 1 }
        while end > start, bytes[end - 1] == ASCII.space || bytes[end - 1] == ASCII.tab { end -= 1 }
        return (start, end)
    }

    /// A directive name with ASCII letters lowercased (names are tokens: ASCII only).
    private static func lowercasedName(_ bytes: UnsafeBufferPointer<UInt8>, _ lower: Int, _ upper: Int) -> String {
        let slice = UnsafeBufferPointer(rebasing: bytes[lower..<upper])
        guard slice.contains(where: { $0 >= ASCII.upperA && $0 <= ASCII.upperZ }) else {
            return String(decoding: slice, as: UTF8.self)
        }
        return String(decoding: slice.map { $0 >= ASCII.upperA && $0 <= ASCII.upperZ ? $0 + 0x20 : $0 }, as: UTF8.self)
    }

    /// The ASCII bytes the parser looks for.
    private enum ASCII {
        static let comma = UInt8(ascii: ",")
        static let quote = UInt8(ascii: "\"")
        static let backslash = UInt8(ascii: "\\")
        static let equals = UInt8(ascii: "=")
        static let space = UInt8(ascii: " ")
        static let tab = UInt8(ascii: "\t")
        static let upperA = UInt8(ascii: "A")
        static let upperZ = UInt8(ascii: "Z")
    }

    /// Splits on commas that are not inside a quoted string.
    package static func splitOutsideQuotes(_ line: String) -> [Substring] {
        var parts: [Substring] = []
        var start = line.startIndex
        var inQuotes = false
        var escaped = false
        for index in line.indices {
            let character = line[index]
            if escaped {
                escaped = false
            } else if inQuotes && character == "\\" {
                escaped = true
            } else if character == "\"" {
                inQuotes.toggle()
            } else if character == "," && !inQuotes {
                parts.append(line[start..<index])
                start = line.index(after: index)
            }
        }
        parts.append(line[start...])
        return parts
    }

    /// Removes surrounding quotes and backslash escapes from a quoted-string; returns tokens unchanged.
    static func unquote(_ value: String) -> String {
        guard value.utf8.first == ASCII.quote, value.count >= 2, value.last == "\"" else { return value }
        var result = ""
        var escaped = false
        for character in value.dropFirst().dropLast() {
            if escaped {
                result.append(character)
                escaped = false
            } else if character == "\\" {
                escaped = true
            } else {
                result.append(character)
            }
        }
        return result
    }
}

extension StringProtocol {
    /// The text without leading and trailing spaces and horizontal tabs (HTTP's `OWS`).
    package func trimmingOWS() -> String {
        var slice = Substring(self)
        while let first = slice.first, first == " " || first == "\t" { slice = slice.dropFirst() }
        while let last = slice.last, last == " " || last == "\t" { slice = slice.dropLast() }
        return String(slice)
    }
}

extension BidirectionalCollection<UInt8> {
    /// The bytes without leading and trailing spaces and horizontal tabs (HTTP's `OWS`).
    @inlinable package func trimmingOWS() -> SubSequence {
        let isOWS = { (byte: UInt8) in byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") }
        guard let first = firstIndex(where: { !isOWS($0) }), let last = lastIndex(where: { !isOWS($0) }) else {
            return self[endIndex...]
        }
        return self[first...last]
    }
}
