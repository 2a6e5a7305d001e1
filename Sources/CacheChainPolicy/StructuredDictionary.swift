/// A strict parser of Structured Field Dictionaries (RFC 9651 §4.2.2), the syntax of targeted cache-control
/// fields such as `CDN-Cache-Control` (RFC 9213 §2.2), reading each member as a cache directive.
///
/// Strict as Structured Fields require: any syntax error fails the whole field (`nil`), which RFC 9213 then
/// treats as if the field were absent. Values map to directive values as RFC 9213 §2.2 describes: Boolean
/// `true` (a bare key) is a directive without a value, Integers, Decimals, Tokens and Strings are its value
/// (a String unquoted); a member whose value is Boolean `false` is left out. Parameters are parsed and ignored;
/// an Inner List or Byte Sequence value is kept as a directive without a usable value.
struct StructuredDictionary {
    private let bytes: [UInt8]
    private var index = 0

    /// The directives of a field whose lines are joined with commas (RFC 9651 §4.2: lines combine with `, `),
    /// or `nil` when it does not parse; empty when it has no members.
    static func directives(lines: [String]) -> [CacheControl.Directive]? {
        var parser = StructuredDictionary(bytes: Array(lines.joined(separator: ",").utf8))
        return parser.parse()
    }

    private init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    private var current: UInt8? { index < bytes.count ? bytes[index] : nil }

    /// RFC 9651 §4.2: leading and trailing spaces are discarded; then the dictionary, which must use all input.
    private mutating func parse() -> [CacheControl.Directive]? {
        skip(spacesOnly: true)
        var members: [(String, String?, Bool)] = []  // name, value, present
        while current != nil {
            guard let key = parseKey() else { return nil }
            var value: String?
            var present = true
            if current == UInt8(ascii: "=") {
                index += 1
                if current == UInt8(ascii: "(") {
                    guard parseInnerList() else { return nil }
                } else {
                    guard let item = parseBareItem() else { return nil }
                    switch item {
                    case .boolean(let flag): present = flag
                    case .text(let text): value = text
                    case .opaque: break
                    }
                }
            }
            guard parseParameters() else { return nil }
            // A later member of the same name replaces the earlier one (RFC 9651 §4.2.2).
            members.removeAll { $0.0 == key }
            members.append((key, value, present))
            skip(spacesOnly: false)
            guard current != nil else { break }
            guard current == UInt8(ascii: ",") else { return nil }
            index += 1
            skip(spacesOnly: false)
            guard current != nil else { return nil }  // a trailing comma
        }
        return members.filter(\.2).map { CacheControl.Directive(name: $0.0, value: $0.1) }
    }

    /// Skips spaces (and, between members, horizontal tabs: `OWS`).
    private mutating func skip(spacesOnly: Bool) {
        while let byte = current, byte == UInt8(ascii: " ") || (!spacesOnly && byte == UInt8(ascii: "\t")) { index += 1 }
    }

    /// `key = ( lcalpha / "*" ) *( lcalpha / DIGIT / "_" / "-" / "." / "*" )`.
    private mutating func parseKey() -> String? {
        guard let first = current, Self.isLowerAlpha(first) || first == UInt8(ascii: "*") else { return nil }
        let start = index
        while let byte = current, Self.isLowerAlpha(byte) || Self.isDigit(byte) || Array("_-.*".utf8).contains(byte) {
            index += 1
        }
        return String(decoding: bytes[start..<index], as: UTF8.self)
    }

    /// `*( ";" *SP key [ "=" bare-item ] )`, values discarded.
    private mutating func parseParameters() -> Bool {
        while current == UInt8(ascii: ";") {
            index += 1
            skip(spacesOnly: true)
            guard parseKey() != nil else { return false }
            if current == UInt8(ascii: "=") {
                index += 1
                guard parseBareItem() != nil else { return false }
            }
        }
        return true
    }

    /// `"(" *SP [ item *( 1*SP item ) *SP ] ")" parameters`.
    private mutating func parseInnerList() -> Bool {
        index += 1
        while current != nil {
            skip(spacesOnly: true)
            if current == UInt8(ascii: ")") {
                index += 1
                return parseParameters()
            }
            guard parseBareItem() != nil, parseParameters() else { return false }
            guard current == UInt8(ascii: " ") || current == UInt8(ascii: ")") else { return false }
        }
        return false
    }

    /// A bare item as a directive value.
    private enum Item {
        case boolean(Bool)
        case text(String)
        case opaque
    }

    private mutating func parseBareItem() -> Item? {
        guard let first = current else { return nil }
        if first == UInt8(ascii: "-") || Self.isDigit(first) { return parseNumber().map(Item.text) }
        if first == UInt8(ascii: "\"") { return parseString().map(Item.text) }
        if Self.isAlpha(first) || first == UInt8(ascii: "*") { return .text(parseToken()) }
        if first == UInt8(ascii: ":") { return parseByteSequence() ? .opaque : nil }
        if first == UInt8(ascii: "?") {
            index += 1
            guard let digit = current, digit == UInt8(ascii: "0") || digit == UInt8(ascii: "1") else { return nil }
            index += 1
            return .boolean(digit == UInt8(ascii: "1"))
        }
        return nil
    }

    /// An Integer (at most 15 digits) or a Decimal (at most 12 integer and 1-3 fraction digits), as written.
    private mutating func parseNumber() -> String? {
        let start = index
        if current == UInt8(ascii: "-") { index += 1 }
        var integerDigits = 0
        var fractionDigits: Int?
        while let byte = current {
            if Self.isDigit(byte) {
                if fractionDigits != nil { fractionDigits? += 1 } else { integerDigits += 1 }
            } else if byte == UInt8(ascii: "."), fractionDigits == nil {
                guard integerDigits <= 12 else { return nil }
                fractionDigits = 0
            } else {
                break
            }
            index += 1
        }
        guard integerDigits > 0 else { return nil }
        if let fractionDigits {
            guard (1...3).contains(fractionDigits) else { return nil }
        } else if integerDigits > 15 {
            return nil
        }
        return String(decoding: bytes[start..<index], as: UTF8.self)
    }

    /// A String: printable ASCII between quotes, `\"` and `\\` the only escapes.
    private mutating func parseString() -> String? {
        index += 1
        var result: [UInt8] = []
        while let byte = current {
            index += 1
            switch byte {
            case UInt8(ascii: "\""): return String(decoding: result, as: UTF8.self)
            case UInt8(ascii: "\\"):
                guard let escaped = current, escaped == UInt8(ascii: "\"") || escaped == UInt8(ascii: "\\") else { return nil }
                result.append(escaped)
                index += 1
            case 0x20...0x7E: result.append(byte)
            default: return nil
            }
        }
        return nil
    }

    /// A Token: `( ALPHA / "*" ) *( tchar / ":" / "/" )`.
    private mutating func parseToken() -> String {
        let start = index
        index += 1
        while let byte = current, Self.isTokenCharacter(byte) || byte == UInt8(ascii: ":") || byte == UInt8(ascii: "/") {
            index += 1
        }
        return String(decoding: bytes[start..<index], as: UTF8.self)
    }

    /// A Byte Sequence: base64 between colons.
    private mutating func parseByteSequence() -> Bool {
        index += 1
        while let byte = current, byte != UInt8(ascii: ":") {
            guard Self.isAlpha(byte) || Self.isDigit(byte) || Array("+/=".utf8).contains(byte) else { return false }
            index += 1
        }
        guard current == UInt8(ascii: ":") else { return false }
        index += 1
        return true
    }

    private static func isLowerAlpha(_ byte: UInt8) -> Bool { (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) }
    private static func isAlpha(_ byte: UInt8) -> Bool { isLowerAlpha(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) }
    private static func isDigit(_ byte: UInt8) -> Bool { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) }
    private static func isTokenCharacter(_ byte: UInt8) -> Bool {
        isAlpha(byte) || isDigit(byte) || Array("!#$%&'*+-.^_`|~".utf8).contains(byte)
    }
}
