import CacheChain
import Foundation

/// One stored variant as `ls` and `explain` show it.
struct ListedEntry {
    let entry: CacheEntry
    /// Its freshness now, by the RFC 9111 rules of a private cache.
    let freshness: FreshnessReport

    /// Visits every stored variant in a storage in URL order, optionally under a URL prefix, one at a time: only
    /// the keys are held at once, so listing a cache of a million entries prints its first line after the keys
    /// are read and holds one entry at a time, not all of them.
    /// - Returns: How many variants were visited.
    /// - Throws: The storage's error (the variants visited before it stay visited).
    @discardableResult
    static func forEach(
        in storage: any CacheStorage,
        prefix: String?,
        _ visit: (ListedEntry) -> Void
    ) async throws -> Int {
        let engine = CachePolicyEngine()
        let now = Date()
        // Filtered first, then sorted on strings made once per key (`CacheKey`'s `<` builds both strings on every
        // comparison): at a million keys this is seconds less.
        let matching = try await storage.keys().lazy.map { (key: $0, text: $0.stringValue) }
            .filter { prefix.map($0.key.url.hasPrefix) ?? true }
        var count = 0
        for (key, _) in matching.sorted(by: { $0.text < $1.text }) {
            for entry in try await storage.entries(for: key) {
                visit(ListedEntry(entry: entry, freshness: engine.freshness(of: entry.exchange, now: now)))
                count += 1
            }
        }
        return count
    }

    /// `fresh 540 s left` or `stale by 60 s`.
    var freshnessText: String {
        freshness.isFresh
            ? "fresh, \(Int(freshness.remainingFreshness)) s left"
            : "stale by \(Int(freshness.staleness)) s"
    }

    /// One JSON object (`ls --json`): method, url, variant, status, bytes, stored_at, fresh, ttl or stale_by.
    var jsonLine: String {
        var object: [String: Any] = [
            "method": entry.key.method, "url": entry.key.url, "variant": entry.variantKey,
            "status": entry.cached.response.status.code, "bytes": entry.cached.body.count,
            "stored_at": entry.storedAt.formatted(.iso8601), "fresh": freshness.isFresh,
        ]
        if freshness.isFresh {
            object["ttl"] = Int(freshness.remainingFreshness)
        } else {
            object["stale_by"] = Int(freshness.staleness)
        }
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data("{}".utf8)
        return String(decoding: data, as: UTF8.self)
    }

    /// One line: URL, status, size, stored date, freshness.
    var line: String {
        // A format style, not a new ISO8601DateFormatter per line (which cost more than the rest of the line).
        let stored = entry.storedAt.formatted(.iso8601)
        let variant = entry.variantKey.isEmpty ? "" : " [variant \(entry.variantKey)]"
        return "\(entry.key.method) \(entry.key.url)\(variant)  \(entry.cached.response.status.code)  "
            + "\(entry.cached.body.count) B  stored \(stored)  \(freshnessText)"
    }
}
