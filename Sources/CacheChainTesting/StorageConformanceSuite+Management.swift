import CacheChainCore
import Foundation
import HTTPTypes

extension StorageConformanceSuite {
    static func removeVariant(_ storage: any CacheStorage) async throws {
        let fr = makeEntry(path: "/rv", body: "fr", language: "fr", storedAt: 1)
        let en = makeEntry(path: "/rv", body: "en", language: "en", storedAt: 2)
        try await storage.store(fr)
        try await storage.store(en)
        try await storage.remove(fr.key, variantKey: fr.variantKey)
        let found = try await storage.entries(for: fr.key)
        try expect(found.map(\.variantKey) == [en.variantKey], "remove-variant", "expected only the en variant, found \(found.map(\.variantKey))")
        try await storage.remove(fr.key, variantKey: "never-stored")
        try expect(try await storage.entries(for: fr.key).count == 1, "remove-variant", "removing an absent variant changed the key")
    }

    static func removeURLPrefix(_ storage: any CacheStorage) async throws {
        let inside = [makeEntry(path: "/users/42/a"), makeEntry(path: "/users/42/b?x=1", language: "fr")]
        let outside = [makeEntry(path: "/users/421"), makeEntry(path: "/users/4"), makeEntry(path: "/other")]
        for entry in inside + outside { try await storage.store(entry) }
        try await storage.removeEntries(urlPrefix: "https://conformance.test/users/42/")
        for entry in inside {
            try expect(try await storage.entries(for: entry.key).isEmpty, "remove-url-prefix", "\(entry.key.path) survived")
        }
        for entry in outside {
            try expect(try await storage.entries(for: entry.key).count == 1, "remove-url-prefix", "\(entry.key.path) was removed")
        }
    }

    /// `QUERY` entries of one URI, one key per content (a discriminator), removed together; the URI's `GET` entry,
    /// another URI's `QUERY` and a `POST` key of the same URI stay.
    static func removeSameTarget(_ storage: any CacheStorage) async throws {
        func keyed(_ entry: CacheEntry, _ method: String, _ discriminator: String) -> CacheEntry {
            var entry = entry
            entry.key.method = method
            entry.key.discriminator = discriminator
            return entry
        }
        let queries = [
            keyed(makeEntry(path: "/q?x=1"), "QUERY", "content-sha256=aa"),
            keyed(makeEntry(path: "/q?x=1", language: "fr"), "QUERY", "content-sha256=bb"),
            keyed(makeEntry(path: "/q?x=1"), "QUERY", ""),
        ]
        let kept = [
            makeEntry(path: "/q?x=1"), keyed(makeEntry(path: "/q?x=1"), "POST", "body-sha256=aa"),
            keyed(makeEntry(path: "/q?x=12"), "QUERY", "content-sha256=aa"), keyed(makeEntry(path: "/q"), "QUERY", "content-sha256=aa"),
        ]
        for entry in queries + kept { try await storage.store(entry) }
        var target = queries[0].key
        target.discriminator = "anything"
        try await storage.removeEntries(sameTargetAs: target)
        for entry in queries {
            try expect(try await storage.entries(for: entry.key).isEmpty, "remove-same-target", "\(entry.key) survived")
        }
        for entry in kept {
            try expect(try await storage.entries(for: entry.key).count == 1, "remove-same-target", "\(entry.key) was removed")
        }
    }

    static func removeTagged(_ storage: any CacheStorage) async throws {
        let user1 = [makeEntry(path: "/t/1", tag: "user-1"), makeEntry(path: "/t/2", language: "fr", tag: "user-1")]
        let user2 = makeEntry(path: "/t/3", tag: "user-2")
        let untagged = makeEntry(path: "/t/4")
        for entry in user1 + [user2, untagged] { try await storage.store(entry) }
        try await storage.removeEntries(withUserInfoNamed: ConformanceTagKey.name, where: { $0.cached.userInfo[ConformanceTagKey.self] == "user-1" })
        for entry in user1 {
            try expect(try await storage.entries(for: entry.key).isEmpty, "remove-tagged", "\(entry.key.path) of user-1 survived")
        }
        try expect(try await storage.entries(for: user2.key).count == 1, "remove-tagged", "user-2's entry was removed")
        try expect(try await storage.entries(for: untagged.key).count == 1, "remove-tagged", "an untagged entry was removed")
    }

    /// The fixtures are fresh for 600 s from their `storedAt`: at 1,700 s, one stored at 0 has been stale for
    /// 1,100 s, the fr variant stored at 1,000 for 100 s, and the en variant and the entry stored at 1,500 are fresh.
    static func removeExpired(_ storage: any CacheStorage) async throws {
        let old = makeEntry(path: "/x/old")
        let staleFrench = makeEntry(path: "/x/v", body: "fr", language: "fr", storedAt: 1_000)
        let freshEnglish = makeEntry(path: "/x/v", body: "en", language: "en", storedAt: 1_500)
        let fresh = makeEntry(path: "/x/fresh", storedAt: 1_500)
        for entry in [old, staleFrench, freshEnglish, fresh] { try await storage.store(entry) }
        let now = Date(timeIntervalSince1970: 1_700_000_000 + 1_700)
        let none = try await storage.removeExpired(now: now, olderThan: .seconds(2_000))
        try expect(none == 0, "remove-expired", "olderThan 2000 s removed \(none) entries, expected 0")
        let longStale = try await storage.removeExpired(now: now, olderThan: .seconds(500))
        try expect(longStale == 1, "remove-expired", "olderThan 500 s removed \(longStale) entries, expected 1")
        try expect(try await storage.entries(for: old.key).isEmpty, "remove-expired", "the entry stale for 1100 s survived")
        try expect(try await storage.entries(for: staleFrench.key).count == 2, "remove-expired", "a variant stale for 100 s was removed")
        let stale = try await storage.removeExpired(now: now)
        try expect(stale == 1, "remove-expired", "removing every stale entry removed \(stale), expected 1")
        let variants = try await storage.entries(for: staleFrench.key)
        try expect(variants.map(\.variantKey) == [freshEnglish.variantKey], "remove-expired", "expected only the fresh en variant, found \(variants.map(\.variantKey))")
        try expect(try await storage.entries(for: fresh.key).count == 1, "remove-expired", "a fresh entry was removed")
    }

    /// Byte figures are checked when the backend reports a capacity (a backend whose capacity belongs to
    /// someone else, like Redis's `maxmemory`, reports zero bytes); entry counts always.
    static func usage(_ storage: any CacheStorage) async throws {
        let reportsBytes = await storage.usage().largestCapacity > 0
        func bytes() async -> Int {
            let usage = await storage.usage()
            return usage.memoryBytes + usage.diskBytes
        }
        let fresh = await bytes()
        let freshCount = await storage.usage().entryCount
        try expect(fresh == 0 && freshCount == 0, "usage", "a fresh backend is not empty")
        let entries = (0..<5).map { makeEntry(path: "/u/\($0)", body: PipelineBody([UInt8](repeating: 1, count: 3000 * ($0 + 1)))) }
        for entry in entries { try await storage.store(entry) }
        let full = await bytes()
        try expect(await storage.usage().entryCount == 5, "usage", "entryCount is not 5")
        try await storage.store(entries[0])
        try expect(await bytes() == full, "usage", "replacing an entry with itself changed the usage")
        try await storage.remove(entries[4].key)
        let less = await bytes()
        try expect(await storage.usage().entryCount == 4, "usage", "entryCount is not 4 after a removal")
        if reportsBytes {
            try expect(full >= entries.map(\.cached.body.count).reduce(0, +), "usage", "\(full) bytes reported for larger bodies")
            try expect(less < full && less > 0, "usage", "removing an entry did not lower the usage (\(full) → \(less))")
        }
        try await storage.removeAll()
        let emptied = await bytes()
        let emptiedCount = await storage.usage().entryCount
        try expect(emptied == 0 && emptiedCount == 0, "usage", "usage is not zero after removeAll()")
    }

    /// A body handed to a caller stays readable, byte for byte, after its entry is replaced or removed.
    static func readersOutliveRemoval(_ storage: any CacheStorage) async throws {
        let bytes = (0..<(1 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 13 &+ 5) }
        let entry = makeEntry(path: "/reader", body: PipelineBody(bytes))
        try await storage.store(entry)
        let body = try await storage.entries(for: entry.key).first?.cached.body
        try await storage.store(makeEntry(path: "/reader", body: "replaced"))
        try await storage.removeAll()
        try expect(try body?.collect() == bytes, "readers-outlive-removal", "a returned body changed after removal")
    }

    static func persistence(_ storage: any CacheStorage, _ reopen: Reopen) async throws {
        let bytes = (0..<(1 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 3) }
        let entries = [
            makeEntry(path: "/p/small?q=1", body: "small", tag: "t"),
            makeEntry(path: "/p/large", body: PipelineBody(bytes)),
            makeEntry(path: "/p/v", body: "fr", language: "fr", storedAt: 1),
            makeEntry(path: "/p/v", body: "en", language: "en", storedAt: 2),
        ]
        for entry in entries { try await storage.store(entry) }
        let usage = await storage.usage()
        let second = try await reopen(storage)
        for entry in entries {
            let found = try await second.entries(for: entry.key).first { $0.variantKey == entry.variantKey }
            try expect(found == entry, "persistence", "\(entry.key.path) [\(entry.variantKey)] differs after reopening")
        }
        try expect(await second.usage() == usage, "persistence", "usage differs after reopening")
        try await second.remove(entries[0].key)
        let third = try await reopen(second)
        try expect(try await third.entries(for: entries[0].key).isEmpty, "persistence", "a removal did not persist")
        try expect(try await third.entries(for: entries[1].key).count == 1, "persistence", "a removal touched another key")
    }
}
