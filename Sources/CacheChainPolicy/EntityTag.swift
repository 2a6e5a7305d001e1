/// An entity tag (RFC 9110 §8.8.3): an opaque quoted string, optionally weak (`W/"…"`).
public struct EntityTag: Sendable, Hashable, CustomStringConvertible {
    /// Whether the tag is weak.
    public var isWeak: Bool
    /// The text between the quotes.
    public var opaque: String

    /// Creates a tag.
    /// - Parameters:
    ///   - opaque: The text between the quotes.
    ///   - isWeak: Whether it is weak.
    public init(opaque: String, isWeak: Bool = false) {
        self.opaque = opaque
        self.isWeak = isWeak
    }

    /// Parses one entity tag such as `"abc"` or `W/"abc"`.
    /// - Parameter text: The field value.
    /// - Returns: The tag, or `nil` when malformed.
    public init?(parsing text: some StringProtocol) {
        var rest = Substring(text.trimmingOWS())
        var weak = false
        if rest.hasPrefix("W/") {
            weak = true
            rest = rest.dropFirst(2)
        }
        guard rest.count >= 2, rest.first == "\"", rest.last == "\"" else { return nil }
        let inner = rest.dropFirst().dropLast()
        guard !inner.contains("\"") else { return nil }
        self.init(opaque: String(inner), isWeak: weak)
    }

    /// Parses a comma-separated list of tags (as in `If-None-Match`); malformed members are skipped.
    /// - Parameter text: The field value.
    /// - Returns: The tags in order.
    public static func parseList(_ text: String) -> [EntityTag] {
        CacheControl.splitOutsideQuotes(text).compactMap { EntityTag(parsing: $0) }
    }

    /// The field form, e.g. `W/"abc"`.
    public var description: String { (isWeak ? "W/" : "") + "\"\(opaque)\"" }

    /// Strong comparison (RFC 9110 §8.8.3.2): both strong and the same opaque text.
    /// - Parameter other: Another tag.
    /// - Returns: Whether they match strongly.
    public func strongMatches(_ other: EntityTag) -> Bool { !isWeak && !other.isWeak && opaque == other.opaque }

    /// Weak comparison (RFC 9110 §8.8.3.2): the same opaque text, weakness ignored.
    /// - Parameter other: Another tag.
    /// - Returns: Whether they match weakly.
    public func weakMatches(_ other: EntityTag) -> Bool { opaque == other.opaque }
}
