import CacheChainCore
import CacheChainPolicy
import Foundation
import HTTPTypes

extension StorageConformanceSuite {
    /// An entry of the fixtures whose response carries `Cache-Groups: <groups>` (RFC 9875), on an authority of
    /// choice.
    static func grouped(_ path: String, _ groups: String?, language: String? = nil, authority: String = "conformance.test") -> CacheEntry {
        var request = HTTPRequest(method: .get, scheme: "https", authority: authority, path: path)
        var response = HTTPResponse(status: .ok)
        response.headerFields[.cacheControl] = "max-age=600"
        if let groups { response.headerFields[.cacheGroups] = groups }
        if let language {
            request.headerFields[.acceptLanguage] = language
            response.headerFields[.vary] = "Accept-Language"
        }
        let epoch = Date(timeIntervalSince1970: 1_700_000_000)
        return CacheEntry(request: request, cached: CachedResponse(response: response, body: "grouped", requestTime: epoch), storedAt: epoch)
    }

    /// RFC 9875: the variants of a group on an origin go together; another group, the same group on another
    /// origin, a variant of the same key without the group, and a malformed `Cache-Groups` stay.
    static func removeGroups(_ storage: any CacheStorage) async throws {
        try await removeGroups(storing: storage, removingWith: storage)
    }

    /// ``removeGroups(_:)`` across a reopening: the group index of a persistent backend outlives its instance.
    static func removeGroupsReopened(_ storage: any CacheStorage, _ reopen: Reopen) async throws {
        try await removeGroups(storing: storage, removingWith: try await reopen(storage))
    }

    private static func removeGroups(storing storage: any CacheStorage, removingWith other: @autoclosure @Sendable () async throws -> any CacheStorage) async throws {
        let doomed = [
            grouped("/g/1", "\"a\", \"c\""), grouped("/g/2", "\"b\";p=1, \"a\""), grouped("/g/v", "\"a\"", language: "fr"),
        ]
        let kept = [
            grouped("/g/3", "\"b\""), grouped("/g/v", nil, language: "en"), grouped("/g/1", "\"a\"", authority: "other.test"),
            grouped("/g/4", "a"), grouped("/g/5", "\"A\""), grouped("/g/6", nil),
        ]
        for entry in doomed + kept { try await storage.store(entry) }
        let remover = try await other()
        try await remover.removeEntries(inGroups: ["a", "never-stored"], origin: "https://conformance.test")
        for entry in doomed {
            let left = try await remover.entries(for: entry.key).filter { $0.variantKey == entry.variantKey }
            try expect(left.isEmpty, "remove-groups", "\(entry.key) (\(entry.variantKey)) of group a survived")
        }
        for entry in kept {
            let left = try await remover.entries(for: entry.key).filter { $0.variantKey == entry.variantKey }
            try expect(left.count == 1, "remove-groups", "\(entry.key) (\(entry.variantKey)), not of group a on the origin, was removed")
        }
        try await remover.removeEntries(inGroups: ["b"], origin: "https://conformance.test")
        try expect(try await remover.entries(for: kept[0].key).isEmpty, "remove-groups", "group b's entry survived its invalidation")
    }
}
