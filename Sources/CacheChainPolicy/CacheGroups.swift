public import HTTPTypes

/// HTTP Cache Groups (RFC 9875): the groups a stored response belongs to (`Cache-Groups`) and the groups a
/// response to an unsafe request invalidates (`Cache-Group-Invalidation`).
///
/// Both fields are Structured Field Lists of Strings (RFC 9651 §3.1). A group is an opaque string, compared
/// character by character (case-sensitive), and is scoped to an origin: two responses share a group only when
/// they have the same origin (scheme, host and port, RFC 9875 §2.1). A field that does not parse as a List, or
/// has a member that is not a String, is ignored as a whole (as if absent: RFC 9651 §4); parameters on a member
/// are ignored. A malformed field never fails a request.
public enum CacheGroups {
    /// The groups a response names in `Cache-Groups`, each once, in field order; empty when the field is absent
    /// or malformed.
    /// - Parameter fields: The response's header fields.
    /// - Returns: The group names.
    public static func groups(in fields: HTTPFields) -> [String] {
        strings(fields[values: .cacheGroups])
    }

    /// The groups a response names in `Cache-Group-Invalidation`, each once, in field order; empty when the field
    /// is absent or malformed. Whether to act on them is ``CachePolicyEngine/invalidatedGroups(request:response:)``'s
    /// call.
    /// - Parameter fields: The response's header fields.
    /// - Returns: The group names.
    public static func invalidatedGroups(in fields: HTTPFields) -> [String] {
        strings(fields[values: .cacheGroupInvalidation])
    }

    /// The Strings of a List field's lines (joined with commas, RFC 9651 §4.2), each once; empty when the field is
    /// absent, does not parse, or has a member of another type.
    static func strings(_ lines: [String]) -> [String] {
        guard !lines.isEmpty else { return [] }
        var parser = StructuredStringList(bytes: Array(lines.joined(separator: ",").utf8))
        guard let members = parser.parse() else { return [] }
        var seen = Set<String>()
        return members.filter { seen.insert($0).inserted }
    }
}

extension CachePolicyEngine {
    /// The groups whose stored responses on the request's origin must be invalidated (RFC 9875 §3): the
    /// `Cache-Group-Invalidation` members of a response to an unsafe request; nothing for a safe method
    /// (`GET`, `HEAD`, `OPTIONS`, `TRACE`, `QUERY`), whose field is ignored as RFC 9875 requires, and nothing when
    /// the field is malformed.
    /// - Parameters:
    ///   - request: The request.
    ///   - response: Its response head.
    /// - Returns: The group names, each once.
    public func invalidatedGroups(request: HTTPRequest, response: HTTPResponse) -> [String] {
        let safe: [HTTPRequest.Method] = [.get, .head, .options, .trace, .query]
        guard !safe.contains(request.method) else { return [] }
        return CacheGroups.invalidatedGroups(in: response.headerFields)
    }
}

extension HTTPField.Name {
    /// `Cache-Groups` (RFC 9875 §2): the groups a response belongs to.
    public static let cacheGroups = HTTPField.Name("Cache-Groups")!  // invariant: a valid token, so this cannot fail
    /// `Cache-Group-Invalidation` (RFC 9875 §3): the groups a response to an unsafe request invalidates.
    public static let cacheGroupInvalidation = HTTPField.Name("Cache-Group-Invalidation")!  // invariant: a valid token
}

/// A strict parser of a Structured Field List whose members must all be Strings (RFC 9651 §4.2.1), parameters
/// parsed and ignored.
struct StructuredStringList {
    private let bytes: [UInt8]
    private var index = 0

    init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    private var current: UInt8? { index < bytes.count ? bytes[index] : nil }

    /// The members, or `nil` on any syntax error or non-String member.
    mutating func parse() -> [String]? {
        skip(spacesOnly: true)
        var members: [String] = []
        while current != nil {
            guard current == UInt8(ascii: "\""), let member = parseString(), parseParameters() else { return nil }
            members.append(member)
            skip(spacesOnly: false)
            guard current != nil else { break }
            guard current == UInt8(ascii: ",") else { return nil }
            index += 1
            skip(spacesOnly: false)
            guard current != nil else { return nil }  // a trailing comma
        }
        return members
    }

    private mutating func skip(spacesOnly: Bool) {
        while let byte = current, byte == UInt8(ascii: " ") || (!spacesOnly && byte == UInt8(ascii: "\t")) { index += 1 }
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

    /// `*( ";" *SP key [ "=" bare-item ] )`, values checked loosely (up to the next `;`, `,` or space) and discarded.
    private mutating func parseParameters() -> Bool {
        while current == UInt8(ascii: ";") {
            index += 1
            skip(spacesOnly: true)
            guard let first = current, (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(first) || first == UInt8(ascii: "*") else { return false }
            while let byte = current, byte != UInt8(ascii: "="), byte != UInt8(ascii: ";"), byte != UInt8(ascii: ","), byte != UInt8(ascii: " ") {
                guard Self.isKeyCharacter(byte) else { return false }
                index += 1
            }
            guard current == UInt8(ascii: "=") else { continue }
            index += 1
            if current == UInt8(ascii: "\"") {
                guard parseString() != nil else { return false }
                continue
            }
            let start = index
            while let byte = current, byte != UInt8(ascii: ";"), byte != UInt8(ascii: ","), byte != UInt8(ascii: " "), byte != UInt8(ascii: "\t") {
                guard (0x21...0x7E).contains(byte) else { return false }
                index += 1
            }
            guard index > start else { return false }
        }
        return true
    }

    private static func isKeyCharacter(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
            || Array("_-.*".utf8).contains(byte)
    }
}
