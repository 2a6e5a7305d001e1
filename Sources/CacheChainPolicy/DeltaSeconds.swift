/// A `delta-seconds` directive value (RFC 9111 §1.2.2) as read by a tolerant parser.
public enum DeltaSeconds: Sendable, Hashable {
    /// A valid non-negative number of seconds, clamped to 2147483648 as §1.2.2 requires.
    case seconds(Int)
    /// The value was missing, negative, not a number, or conflicting duplicates; the detail says which.
    case invalid(String)

    /// The largest value a cache must represent (§1.2.2).
    public static let maximum = 2_147_483_648

    /// The seconds, or `nil` when invalid.
    public var value: Int? {
        if case .seconds(let value) = self { return value }
        return nil
    }

    /// Parses the text of a `delta-seconds` value (already unquoted).
    /// - Parameter text: The value, e.g. `60`.
    /// - Returns: `.seconds` for `1*DIGIT` (clamped), `.invalid` otherwise.
    public static func parse(_ text: String?) -> DeltaSeconds {
        guard let text else { return .invalid("missing value") }
        guard !text.isEmpty, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else {
            return .invalid("\"\(text.prefix(32))\" is not a non-negative integer")
        }
        var result = 0
        for byte in text.utf8 {
            result = result * 10 + Int(byte - 0x30)
            if result >= maximum { return .seconds(maximum) }
        }
        return .seconds(result)
    }
}
