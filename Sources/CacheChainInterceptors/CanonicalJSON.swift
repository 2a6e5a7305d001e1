/// A JSON text without insignificant whitespace and with each object's members sorted by their name's bytes
/// (stably): the `QUERY` cache key's form of JSON content (``QueryContentNormalization``).
///
/// Strings and numbers are copied as written, never decoded, so two texts are one key only when they differ in
/// whitespace or member order alone. Validates RFC 8259's grammar as it goes; `nil` for anything else (trailing
/// bytes, a bad escape, a control character in a string, nesting deeper than the bound).
enum CanonicalJSON {
    /// The canonical form, or `nil` when `text` is not one JSON value within `maximumDepth` levels of nesting.
    /// - Complexity: O(n log m) for n bytes and objects of at most m members.
    static func canonical(_ text: [UInt8], maximumDepth: Int) -> [UInt8]? {
        var parser = Parser(bytes: text, maximumDepth: maximumDepth)
        var output: [UInt8] = []
        output.reserveCapacity(text.count)
        guard parser.value(into: &output, depth: 0) else { return nil }
        parser.skipWhitespace()
        return parser.position == text.count ? output : nil
    }

    private struct Parser {
        let bytes: [UInt8]
        let maximumDepth: Int
        var position = 0

        init(bytes: [UInt8], maximumDepth: Int) {
            self.bytes = bytes
            self.maximumDepth = maximumDepth
        }

        var current: UInt8? { position < bytes.count ? bytes[position] : nil }

        mutating func skipWhitespace() {
            while let byte = current, byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D { position += 1 }
        }

        mutating func value(into output: inout [UInt8], depth: Int) -> Bool {
            skipWhitespace()
            switch current {
            case UInt8(ascii: "{"): return object(into: &output, depth: depth + 1)
            case UInt8(ascii: "["): return array(into: &output, depth: depth + 1)
            case UInt8(ascii: "\""): return string(into: &output)
            case UInt8(ascii: "t"): return literal("true", into: &output)
            case UInt8(ascii: "f"): return literal("false", into: &output)
            case UInt8(ascii: "n"): return literal("null", into: &output)
            case .some(let byte) where byte == UInt8(ascii: "-") || isDigit(byte): return number(into: &output)
            default: return false
            }
        }

        mutating func object(into output: inout [UInt8], depth: Int) -> Bool {
            guard depth <= maximumDepth else { return false }
            position += 1
            var members: [(name: [UInt8], member: [UInt8])] = []
            skipWhitespace()
            if current == UInt8(ascii: "}") {
                position += 1
                output += Array("{}".utf8)
                return true
            }
            while true {
                skipWhitespace()
                var name: [UInt8] = []
                guard current == UInt8(ascii: "\""), string(into: &name) else { return false }
                skipWhitespace()
                guard current == UInt8(ascii: ":") else { return false }
                position += 1
                var member = name + [UInt8(ascii: ":")]
                guard value(into: &member, depth: depth) else { return false }
                members.append((name, member))
                skipWhitespace()
                if current == UInt8(ascii: ",") {
                    position += 1
                    continue
                }
                guard current == UInt8(ascii: "}") else { return false }
                position += 1
                break
            }
            // Stable: members with the same name keep their order (a parser that keeps the last one sees the same).
            let sorted = members.enumerated().sorted { lhs, rhs in
                lhs.element.name.lexicographicallyPrecedes(rhs.element.name)
                    || (lhs.element.name == rhs.element.name && lhs.offset < rhs.offset)
            }
            output.append(UInt8(ascii: "{"))
            for (index, entry) in sorted.enumerated() {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                output += entry.element.member
            }
            output.append(UInt8(ascii: "}"))
            return true
        }

        mutating func array(into output: inout [UInt8], depth: Int) -> Bool {
            guard depth <= maximumDepth else { return false }
            position += 1
            output.append(UInt8(ascii: "["))
            skipWhitespace()
            if current == UInt8(ascii: "]") {
                position += 1
                output.append(UInt8(ascii: "]"))
                return true
            }
            while true {
                guard value(into: &output, depth: depth) else { return false }
                skipWhitespace()
                if current == UInt8(ascii: ",") {
                    position += 1
                    output.append(UInt8(ascii: ","))
                    continue
                }
                guard current == UInt8(ascii: "]") else { return false }
                position += 1
                output.append(UInt8(ascii: "]"))
                return true
            }
        }

        /// A string, copied with its quotes and escapes as written.
        mutating func string(into output: inout [UInt8]) -> Bool {
            let start = position
            position += 1
            while let byte = current {
                position += 1
                switch byte {
                case UInt8(ascii: "\""):
                    output += bytes[start..<position]
                    return true
                case UInt8(ascii: "\\"):
                    guard let escaped = current else { return false }
                    position += 1
                    if escaped == UInt8(ascii: "u") {
                        guard position + 4 <= bytes.count, bytes[position..<position + 4].allSatisfy(isHexDigit) else { return false }
                        position += 4
                    } else if !Array("\"\\/bfnrt".utf8).contains(escaped) {
                        return false
                    }
                case 0..<0x20:
                    return false
                default:
                    continue
                }
            }
            return false
        }

        /// A number, copied as written after checking RFC 8259's grammar.
        mutating func number(into output: inout [UInt8]) -> Bool {
            let start = position
            if current == UInt8(ascii: "-") { position += 1 }
            guard let first = current, isDigit(first) else { return false }
            position += 1
            if first != UInt8(ascii: "0") { skipDigits() }
            if current == UInt8(ascii: ".") {
                position += 1
                guard let digit = current, isDigit(digit) else { return false }
                skipDigits()
            }
            if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
                position += 1
                if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { position += 1 }
                guard let digit = current, isDigit(digit) else { return false }
                skipDigits()
            }
            output += bytes[start..<position]
            return true
        }

        mutating func skipDigits() {
            while let byte = current, isDigit(byte) { position += 1 }
        }

        mutating func literal(_ word: StaticString, into output: inout [UInt8]) -> Bool {
            let expected = word.withUTF8Buffer { Array($0) }
            guard bytes.count - position >= expected.count, Array(bytes[position..<position + expected.count]) == expected else { return false }
            position += expected.count
            output += expected
            return true
        }
    }
}

private func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

private func isHexDigit(_ byte: UInt8) -> Bool {
    isDigit(byte) || (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "f")) || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "F"))
}
