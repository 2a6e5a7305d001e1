import CacheChainPolicy

/// Edits a `Cache-Control` field value as a list of directives (RFC 9111 §5.2): how policy overrides
/// and range serving (``CachePolicyInterceptor``) add or replace a directive without disturbing the others.
enum CacheControlList {
    /// The directives of a field value, split at commas outside quoted strings, trimmed; empty members dropped.
    static func members(of value: String?) -> [String] {
        guard let value else { return [] }
        return CacheControl.splitOutsideQuotes(value).map { $0.trimmingOWS() }.filter { !$0.isEmpty }
    }

    /// The lowercased directive names of a field value.
    static func names(in value: String?) -> [String] {
        members(of: value).map(name(of:))
    }

    /// The field value with `directive` added at the end.
    static func appending(_ directive: String, to value: String?) -> String {
        (members(of: value) + [directive]).joined(separator: ", ")
    }

    /// The field value without the directives named (case-insensitively); `nil` when nothing is left.
    static func removing(_ names: Set<String>, from value: String?) -> String? {
        let kept = members(of: value).filter { !names.contains(name(of: $0)) }
        return kept.isEmpty ? nil : kept.joined(separator: ", ")
    }

    /// The lowercased name of one directive.
    private static func name(of member: String) -> String {
        (member.split(separator: "=", maxSplits: 1).first.map(String.init) ?? "").trimmingOWS().lowercased()
    }
}
