import CacheChainCore
@testable import CacheChainEncryption
import CacheChainStorage
import CacheChainTesting
import Foundation
import HTTPTypes
import Testing

/// `EncryptedStorage.removeEntries(sameTargetAs:)` (issue 45.10): a URI's `QUERY` entries are found through a keyed
/// tag in the wrapped backend's tag index, not by opening every entry, and the tag does not show the URL.
@Suite("EncryptedStorage removes a target's QUERY entries through its tag index")
struct SameTargetRemovalTests {
    /// A memory backend that counts the calls that visit every entry (`removeEntries(where:)`).
    struct CountingStorage: CacheStorage {
        let inner = MemoryStorage(capacity: 16 << 20)
        let fullVisits = LockedValue(0)

        func entries(for key: CacheKey) async throws -> [CacheEntry] { await inner.entries(for: key) }
        func store(_ entry: CacheEntry) async throws { await inner.store(entry) }
        func remove(_ key: CacheKey) async throws { await inner.remove(key) }
        func removeAll() async throws { await inner.removeAll() }
        func keys() async throws -> [CacheKey] { await inner.keys() }
        func usage() async -> StorageUsage { await inner.usage() }
        func removeEntries(where shouldRemove: @Sendable (CacheEntry) -> Bool) async throws {
            fullVisits.withLock { $0 += 1 }
            await inner.removeEntries(where: shouldRemove)
        }
        func removeEntries(withUserInfoNamed name: String, where shouldRemove: @Sendable (CacheEntry) -> Bool) async throws {
            // What an indexed backend does: only the entries carrying the name are looked at.
            for key in await inner.keys() {
                for entry in await inner.entries(for: key) where entry.cached.userInfo.names.contains(name) && shouldRemove(entry) {
                    await inner.remove(key, variantKey: entry.variantKey)
                }
            }
        }
    }

    func entry(_ path: String, method: String, discriminator: String) -> CacheEntry {
        var entry = StorageConformanceSuite.makeEntry(path: path)
        entry.key.method = method
        entry.key.discriminator = discriminator
        return entry
    }

    @Test("removes every QUERY of the URI, keeps the others, visits no other entry, and names the tag by an HMAC")
    func removesThroughTag() async throws {
        let wrapped = CountingStorage()
        let storage = EncryptedStorage(wrapping: wrapped, keys: InMemoryKeyProvider(key: try .random()))
        let queries = [entry("/search", method: "QUERY", discriminator: "content-sha256=aa"), entry("/search", method: "QUERY", discriminator: "content-sha256=bb")]
        let kept = [StorageConformanceSuite.makeEntry(path: "/search"), entry("/other", method: "QUERY", discriminator: "content-sha256=aa")]
        for stored in queries + kept { try await storage.store(stored) }
        var names: [String] = []
        for key in try await wrapped.keys() { for sealed in try await wrapped.entries(for: key) { names += sealed.cached.userInfo.names } }
        #expect(names.filter { $0.hasPrefix("cachechain-target-") }.count == 3, "each QUERY entry carries its target's tag: \(names)")
        #expect(!names.contains { $0.contains("search") || $0.contains("conformance") }, "no URL in clear")

        try await storage.removeEntries(sameTargetAs: queries[0].key)
        for query in queries { #expect(try await storage.entries(for: query.key).isEmpty) }
        for other in kept { #expect(try await storage.entries(for: other.key).count == 1) }
        #expect(wrapped.fullVisits.withLock { $0 } == 0, "no entry was visited outside the tag index")
    }
}
