public import HTTPTypes

/// The primary cache key of RFC 9111 §2: the request method and the normalized target URI.
///
/// `HEAD` requests share the key of `GET` (a stored `GET` response can answer a `HEAD`, §4), the scheme and
/// host are lowercased, default ports are dropped and the query is kept. The path and query are normalized
/// as RFC 3986 §6.2.2 describes (unreserved characters' percent-encodings decoded, the others' uppercased,
/// `.` and `..` segments removed), so `/a/b/../c` is stored under `/a/c`, the target libcurl fetches, and
/// a purge by URL prefix finds it. Vary variants of one key are told
/// apart by ``CacheEntry/variantKey``.
public struct CacheKey: Sendable, Hashable, Codable, Comparable, CustomStringConvertible {
    /// The method the entry answers (`GET` for `GET` and `HEAD`).
    public var method: String
    /// The lowercased scheme, `http` or `https`.
    public var scheme: String
    /// The lowercased authority without a default port.
    public var authority: String
    /// The path and query, normalized as RFC 3986 §6.2.2 describes (`/` when empty).
    public var path: String
    /// Extra text that tells apart requests a custom ``CacheKeyStrategy`` wants stored separately (for
    /// example chosen request fields); empty for RFC 9111's standard key.
    public var discriminator: String

    /// Hashes the path, the authority and (when there is one) the discriminator: the parts that tell keys
    /// apart in practice. The method and scheme are left out to keep the hash short (every memory hit and
    /// every encrypted lookup hashes a key); keys that differ only there still compare unequal.
    /// - Parameter hasher: The hasher.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(path)
        hasher.combine(authority)
        if !discriminator.isEmpty { hasher.combine(discriminator) }
    }

    /// Creates a key from its parts, normalizing them.
    /// - Parameters:
    ///   - method: The request method; `HEAD` is stored as `GET`.
    ///   - scheme: The URI scheme.
    ///   - authority: Host and optional port.
    ///   - path: Path and query.
    ///   - discriminator: Extra text for custom strategies; empty by default.
    public init(method: String, scheme: String, authority: String, path: String, discriminator: String = "") {
        let upper = Self.uppercased(method)
        self.method = upper == "HEAD" ? "GET" : upper
        self.scheme = Self.lowercased(scheme)
        self.authority = Self.normalizeAuthority(Self.lowercased(authority), scheme: self.scheme)
        self.path = path.isEmpty ? "/" : URIPathNormalization.normalized(Self.stripFragment(path))
        self.discriminator = discriminator
    }

    /// Creates the key for a request.
    /// - Parameter request: The request; a missing scheme reads as `http` and a missing path as `/`.
    public init(_ request: HTTPRequest) {
        self.init(
            method: request.method.rawValue,
            scheme: request.scheme ?? "http",
            authority: request.authority ?? "",
            path: request.path ?? "/"
        )
    }

    /// The absolute URL of the key, e.g. `https://example.com/a?b=1`.
    public var url: String {
        var url = String()
        url.reserveCapacity(scheme.utf8.count + authority.utf8.count + path.utf8.count + 3)
        appendURL(to: &url)
        return url
    }

    /// The key as one stable string, e.g. `GET https://example.com/a?b=1` (followed by ` {discriminator}` when
    /// there is one): the input of file-name hashes.
    public var stringValue: String {
        // Appended into one reserved buffer rather than interpolated: every disk and Redis lookup builds it.
        var text = String()
        text.reserveCapacity(
            method.utf8.count + scheme.utf8.count + authority.utf8.count + path.utf8.count + discriminator.utf8.count + 7
        )
        text += method
        text += " "
        appendURL(to: &text)
        if !discriminator.isEmpty {
            text += " {"
            text += discriminator
            text += "}"
        }
        return text
    }

    private func appendURL(to text: inout String) {
        text += scheme
        text += "://"
        text += authority
        text += path
    }

    /// Whether two keys name the same method and URL, whatever their ``discriminator``s (the keys of the `QUERY`
    /// requests of one URI, ``CacheStorage/removeEntries(sameTargetAs:)``).
    /// - Parameter other: The other key.
    /// - Returns: Whether method, scheme, authority and path are equal.
    public func isSameTarget(as other: CacheKey) -> Bool {
        path == other.path && authority == other.authority && method == other.method && scheme == other.scheme
    }

    /// Same as ``stringValue``.
    public var description: String { stringValue }

    /// Orders keys by ``stringValue``.
    public static func < (lhs: CacheKey, rhs: CacheKey) -> Bool { lhs.stringValue < rhs.stringValue }

    private enum CodingKeys: String, CodingKey {
        case method, scheme, authority, path, discriminator
    }

    /// Decodes a key; a key written before ``discriminator`` existed decodes with an empty one.
    /// - Parameter decoder: The decoder.
    /// - Throws: A decoding error.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        method = try container.decode(String.self, forKey: .method)
        scheme = try container.decode(String.self, forKey: .scheme)
        authority = try container.decode(String.self, forKey: .authority)
        path = try container.decode(String.self, forKey: .path)
        discriminator = try container.decodeIfPresent(String.self, forKey: .discriminator) ?? ""
    }

    private static func normalizeAuthority(_ authority: String, scheme: String) -> String {
        // A byte-wise suffix test: `String.hasSuffix` compares Unicode-canonically, and this runs on every lookup.
        let defaultPort: String? = scheme == "http" ? ":80" : scheme == "https" ? ":443" : nil
        guard let defaultPort, authority.utf8.reversed().starts(with: defaultPort.utf8.reversed()) else { return authority }
        return String(authority.dropLast(defaultPort.utf8.count))
    }

    // Keys are built on every lookup and store: the common case (ASCII, already in canonical case, no
    // fragment) returns the string itself instead of a case-mapped copy.

    /// `text.lowercased()`, without a copy when it is ASCII with no capital letter.
    private static func lowercased(_ text: String) -> String {
        let needsMapping = text.utf8.contains { $0 >= 0x80 || ($0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z")) }
        return needsMapping ? text.lowercased() : text
    }

    /// `text.uppercased()`, without a copy when it is ASCII with no small letter.
    private static func uppercased(_ text: String) -> String {
        let needsMapping = text.utf8.contains { $0 >= 0x80 || ($0 >= UInt8(ascii: "a") && $0 <= UInt8(ascii: "z")) }
        return needsMapping ? text.uppercased() : text
    }

    private static func stripFragment(_ path: String) -> String {
        guard path.utf8.contains(UInt8(ascii: "#")), let hash = path.firstIndex(of: "#") else { return path }
        let trimmed = String(path[..<hash])
        return trimmed.isEmpty ? "/" : trimmed
    }
}
