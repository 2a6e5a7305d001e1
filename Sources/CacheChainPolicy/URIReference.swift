/// A URI reference split into its five components (RFC 3986 §3, the parse of Appendix B) and resolved against
/// a base URI as RFC 3986 §5.2 specifies: the engine's own resolver, so the engine needs no `URL`.
///
/// It follows the RFC where Foundation's `URL` differs: an empty reference resolves to the base (without its
/// fragment, §5.2.2) instead of failing, and an IP-literal authority (`[::1]:8080`) is kept as written.
package struct URIReference: Sendable, Hashable, CustomStringConvertible {
    /// The scheme, without its `:`; `nil` for a relative reference.
    package var scheme: String?
    /// The authority (userinfo, host, port), without its `//`; `nil` when absent (an empty one is `""`).
    package var authority: String?
    /// The path, possibly empty.
    package var path: String
    /// The query, without its `?`.
    package var query: String?
    /// The fragment, without its `#`.
    package var fragment: String?

    /// Splits a reference; `nil` when it holds a character no URI may hold (RFC 3986 §2: space, controls,
    /// non-ASCII, `"<>\^`{|}`) or a `%` not followed by two hexadecimal digits.
    /// - Parameter text: The reference, e.g. `../g?y#s` or `https://example.com/x`.
    package init?(_ text: String) {
        guard Self.isWellFormed(text.utf8) else { return nil }
        var rest = Substring(text)
        if let hash = rest.firstIndex(of: "#") {
            fragment = String(rest[rest.index(after: hash)...])
            rest = rest[..<hash]
        }
        if let mark = rest.firstIndex(of: "?") {
            query = String(rest[rest.index(after: mark)...])
            rest = rest[..<mark]
        }
        if let colon = rest.firstIndex(of: ":"), colon != rest.startIndex, !rest[..<colon].contains("/") {
            scheme = String(rest[..<colon])
            rest = rest[rest.index(after: colon)...]
        }
        if rest.hasPrefix("//") {
            rest = rest.dropFirst(2)
            let end = rest.firstIndex(of: "/") ?? rest.endIndex
            authority = String(rest[..<end])
            rest = rest[end...]
        }
        path = String(rest)
    }

    /// The reference recomposed (§5.3).
    package var description: String {
        (scheme.map { "\($0):" } ?? "") + (authority.map { "//\($0)" } ?? "") + path
            + (query.map { "?\($0)" } ?? "") + (fragment.map { "#\($0)" } ?? "")
    }

    /// The target URI this reference names against `base` (§5.2.2, strict: a reference's own scheme is never
    /// dropped, so `http:g` stays `http:g`).
    /// - Parameter base: An absolute URI.
    /// - Returns: The resolved reference, with this reference's fragment.
    package func resolved(against base: URIReference) -> URIReference {
        var target = self
        if scheme != nil || authority != nil {
            target.path = Self.removingDotSegments(path)
        } else {
            target.authority = base.authority
            if path.isEmpty {
                target.path = base.path
                target.query = query ?? base.query
            } else if path.hasPrefix("/") {
                target.path = Self.removingDotSegments(path)
            } else {
                target.path = Self.removingDotSegments(Self.merging(path, into: base))
            }
        }
        target.scheme = scheme ?? base.scheme
        return target
    }

    /// §5.2.3: the base's path up to its last `/`, then the relative path.
    private static func merging(_ path: String, into base: URIReference) -> String {
        if base.authority != nil, base.path.isEmpty { return "/" + path }
        guard let slash = base.path.lastIndex(of: "/") else { return path }
        return String(base.path[...slash]) + path
    }

    /// §5.2.4: removes `.` and `..` segments (the path is printable ASCII, as `init(_:)` accepts only that).
    private static func removingDotSegments(_ path: String) -> String {
        String(decoding: removingDotSegments(Array(path.utf8)), as: UTF8.self)
    }

    /// RFC 3986 §5.2.4 `remove_dot_segments`.
    package static func removingDotSegments(_ path: [UInt8]) -> [UInt8] {
        let slash = UInt8(ascii: "/")
        var input = path[...]
        var output: [UInt8] = []
        func startsWith(_ prefix: String) -> Bool { input.starts(with: prefix.utf8) }
        func isExactly(_ text: String) -> Bool { input.elementsEqual(text.utf8) }
        func removeLastSegment() {
            if let last = output.lastIndex(of: slash) { output.removeSubrange(last...) } else { output.removeAll() }
        }
        while !input.isEmpty {
            if startsWith("../") {
                input = input.dropFirst(3)
            } else if startsWith("./") || startsWith("/./") {
                input = input.dropFirst(2)
            } else if isExactly("/.") {
                input = [slash][...]
            } else if startsWith("/../") {
                input = input.dropFirst(3)
                removeLastSegment()
            } else if isExactly("/..") {
                input = [slash][...]
                removeLastSegment()
            } else if isExactly(".") || isExactly("..") {
                input = []
            } else {
                // Move the first segment, with its leading "/", to the output.
                let segmentEnd = input.dropFirst().firstIndex(of: slash) ?? input.endIndex
                output += input[..<segmentEnd]
                input = input[segmentEnd...]
            }
        }
        return output
    }

    private static func isWellFormed(_ bytes: String.UTF8View) -> Bool {
        var expectedHexDigits = 0
        for byte in bytes {
            let isHex = (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
                || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte | 0x20)
            if expectedHexDigits > 0 {
                guard isHex else { return false }
                expectedHexDigits -= 1
            } else if byte == UInt8(ascii: "%") {
                expectedHexDigits = 2
            } else if byte <= 0x20 || byte >= 0x7F || Self.excluded.contains(byte) {
                return false
            }
        }
        return expectedHexDigits == 0
    }

    /// Printable ASCII characters that are neither reserved nor unreserved (§2.2, §2.3).
    private static let excluded: Set<UInt8> = Set(#""<>\^`{|}"#.utf8)
}
