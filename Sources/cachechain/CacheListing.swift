import CacheChain
import Foundation

/// One stored variant as `ls` and `explain` show it.
struct ListedEntry {
    /// The stored entry.
    let entry: CacheEntry
    /// Its freshness now, by the RFC 9111 rules of a private cache.
    let freshness: FreshnessReport

    /// Every stored variant in a storage, by URL, optionally under a URL prefix.
    /// - Throws: The storage's error.
    static func all(in storage: any CacheStorage, prefix: String? = nil, now: Date = Date()) async throws -> [ListedEntry] {
        let engine = CachePolicyEngine()
        var listed: [ListedEntry] = []
        for key in try await storage.keys().sorted() where prefix.map(key.url.hasPrefix) ?? true {
            for entry in try await storage.entries(for: key) {
                listed.append(ListedEntry(entry: entry, freshness: engine.freshness(of: entry.exchange, now: now)))
            }
        }
        return listed
    }

    /// `fresh 540 s left` or `stale by 60 s`.
    var freshnessText: String {
        freshness.isFresh
            ? "fresh, \(Int(freshness.remainingFreshness)) s left"
            : "stale by \(Int(freshness.staleness)) s"
    }

    /// One line: URL, status, size, stored date, freshness.
    var line: String {
        let stored = ISO8601DateFormatter().string(from: entry.storedAt)
        let variant = entry.variantKey.isEmpty ? "" : " [variant \(entry.variantKey)]"
        return "\(entry.key.method) \(entry.key.url)\(variant)  \(entry.cached.response.status.code)  "
            + "\(entry.cached.body.count) B  stored \(stored)  \(freshnessText)"
    }
}
