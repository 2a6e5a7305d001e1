extension JSONValue {
    /// The value as compact JSON on one line: no whitespace between tokens, object members in order,
    /// non-ASCII characters written as UTF-8, and every control character escaped (so a value never
    /// contains a raw line break).
    /// - Complexity: O(*n*) in the size of the output.
    public var jsonText: String {
        var output = ""
        write(to: &output)
        return output
    }

    private func write(to output: inout String) {
        switch self {
        case .null: output += "null"
        case .bool(let value): output += value ? "true" : "false"
        case .integer(let value): output += String(value)
        case .number(let value): output += value.isFinite ? String(value) : "null"
        case .string(let value): Self.writeString(value, to: &output)
        case .array(let elements):
            output += "["
            for (index, element) in elements.enumerated() {
                if index > 0 { output += "," }
                element.write(to: &output)
            }
            output += "]"
        case .object(let members):
            output += "{"
            for (index, member) in members.enumerated() {
                if index > 0 { output += "," }
                Self.writeString(member.name, to: &output)
                output += ":"
                member.value.write(to: &output)
            }
            output += "}"
        }
    }

    private static let hexDigits = Array("0123456789abcdef".unicodeScalars)

    private static func writeString(_ string: String, to output: inout String) {
        output.unicodeScalars.append("\"")
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": output += "\\\""
            case "\\": output += "\\\\"
            case "\n": output += "\\n"
            case "\r": output += "\\r"
            case "\t": output += "\\t"
            case "\u{08}": output += "\\b"
            case "\u{0C}": output += "\\f"
            case "\u{00}"..."\u{1F}", "\u{7F}", "\u{2028}", "\u{2029}":
                // DEL and the JavaScript line separators too: readers that split on them see one line.
                let value = Int(scalar.value)
                output += "\\u"
                for shift in [12, 8, 4, 0] { output.unicodeScalars.append(hexDigits[(value >> shift) & 0xF]) }
            default: output.unicodeScalars.append(scalar)
            }
        }
        output.unicodeScalars.append("\"")
    }
}
