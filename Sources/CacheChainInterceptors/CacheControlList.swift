/// Edits a `Cache-Control` field value as a list of directives (RFC 9111 §5.2): what ``PolicyOverrideInterceptor``
/// needs to add or replace a directive without disturbing the others.
enum CacheControlList {
    /// The directives of a field value, split at commas outside quoted strings, trimmed; empty members dropped.
    static func members(of value: String?) -> [Substring] {
        guard let value else { return [] }
        var members: [Substring] = []
        var start = value.startIndex
        var isQuoted = false
        var isEscaped = false
        for index in value.indices {
            let character = value[index]
            if isEscaped {
                isEscaped = false
            } else if isQuoted, character == "\\" {
                isEscaped = true
            } else if character == "\"" {
                isQuoted.toggle()
            } else if character == ",", !isQuoted {
                members.append(value[start..<index])
                start = value.index(after: index)
            }
        }
        members.append(value[start...])
        return members.map { $0.trimmingSpaces }.filter { !$0.isEmpty }
    }

    /// The lowercased directive names of a field value.
    static func names(in value: String?) -> [String] {
        members(of: value).map { member in
            (member.split(separator: "=", maxSplits: 1).first.map(String.init) ?? "").trimmingSpaces.lowercased()
        }
    }

    /// The field value with `directive` added at the end.
    static func appending(_ directive: String, to value: String?) -> String {
        (members(of: value).map(String.init) + [directive]).joined(separator: ", ")
    }

    /// The field value without the directives named (case-insensitively); `nil` when nothing is left.
    static func removing(_ names: Set<String>, from value: String?) -> String? {
        let kept = members(of: value).filter { member in
            let name = (member.split(separator: "=", maxSplits: 1).first.map(String.init) ?? "").trimmingSpaces.lowercased()
            return !names.contains(name)
        }
        return kept.isEmpty ? nil : kept.joined(separator: ", ")
    }
}

extension StringProtocol {
    /// Without leading and trailing spaces and tabs.
    fileprivate var trimmingSpaces: Substring {
        var text = Substring(self)
        while let first = text.first, first == " " || first == "\t" { text.removeFirst() }
        while let last = text.last, last == " " || last == "\t" { text.removeLast() }
        return text
    }
}
