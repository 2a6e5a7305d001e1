public import CacheChainPolicy
import Foundation
import HTTPTypes

extension CacheKey {
    /// The key's origin (RFC 6454) as one string: `scheme://authority`, lowercased, without a default port (as
    /// the key's own parts), e.g. `https://example.com` or `http://127.0.0.1:8080`. What cache groups are scoped
    /// to (RFC 9875 §2.1).
    public var origin: String { scheme + "://" + authority }

    /// The origin of a URL written as text (`https://Example.com:443/x` gives `https://example.com`), or `nil`
    /// when the text has no scheme and host: how `cachechain purge --origin` reads its argument.
    /// - Parameter url: An absolute URL; a path, query or fragment is ignored.
    /// - Returns: The normalized origin.
    public static func origin(ofURL url: String) -> String? {
        guard let separator = url.range(of: "://") else { return nil }
        let scheme = url[..<separator.lowerBound]
        let rest = url[separator.upperBound...]
        let authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        guard !scheme.isEmpty, !authority.isEmpty else { return nil }
        return CacheKey(method: "GET", scheme: String(scheme), authority: String(authority), path: "/").origin
    }
}

extension CacheEntry {
    /// The groups the stored response belongs to: its `Cache-Groups` members (RFC 9875 §2), empty when it has
    /// none or the field is malformed. Groups are scoped to the key's ``CacheKey/origin``.
    public var cacheGroups: [String] { CacheGroups.groups(in: cached.response.headerFields) }
}

extension CacheStorage {
    /// Default implementation through ``removeEntries(where:)``: O(n), each entry's `Cache-Groups` parsed.
    /// - Parameters:
    ///   - groups: The group names.
    ///   - origin: The origin, ``CacheKey/origin``.
    public func removeEntries(inGroups groups: [String], origin: String) async throws {
        guard !groups.isEmpty else { return }
        let wanted = Set(groups)
        try await removeEntries(where: { entry in
            entry.key.origin == origin && entry.cacheGroups.contains(where: wanted.contains)
        })
    }
}
