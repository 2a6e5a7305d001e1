import CacheChainCore
import Foundation
import HTTPTypes

extension StorageConformanceSuite {
    static func roundTrip(_ storage: any CacheStorage) async throws {
        let entry = makeEntry(path: "/round-trip?x=1", body: PipelineBody([0, 1, 2, 250, 255]), tag: "t")
        try await storage.store(entry)
        let found = try await storage.entries(for: entry.key)
        try expect(found.count == 1, "round-trip", "expected 1 variant, found \(found.count)")
        try expect(found[0] == entry, "round-trip", "the entry read back differs from the one stored")
        try expect(found[0].cached.response.headerFields[values: .setCookie] == ["a=1", "b=2"], "round-trip",
                   "repeated fields lost their order or values")
        try expect(try await storage.keys().contains(entry.key), "round-trip", "keys() misses the stored key")
        try expect(await storage.usage().entryCount == 1, "round-trip", "usage().entryCount is not 1")
    }

    static func variants(_ storage: any CacheStorage) async throws {
        let fr = makeEntry(path: "/v", body: "fr", language: "fr", storedAt: 1)
        let en = makeEntry(path: "/v", body: "en", language: "en", storedAt: 2)
        try await storage.store(fr)
        try await storage.store(en)
        var found = try await storage.entries(for: fr.key)
        try expect(found.count == 2, "variants", "expected 2 variants, found \(found.count)")
        try expect(found.first?.cached.body == "en", "variants", "variants are not most recently stored first")
        let frNewer = makeEntry(path: "/v", body: "fr-2", language: "fr", storedAt: 3)
        try await storage.store(frNewer)
        found = try await storage.entries(for: fr.key)
        try expect(found.count == 2, "variants", "storing the same variant key must replace it, found \(found.count)")
        try expect(Set(found.map(\.cached.body)) == ["fr-2", "en"], "variants", "the replaced variant is wrong")
    }

    static func matchingVariants(_ storage: any CacheStorage) async throws {
        let variants = ["fr", "en", "de"].enumerated().map { makeEntry(path: "/m", body: PipelineBody(string: $1), language: $1, storedAt: Double($0)) }
        for entry in variants { try await storage.store(entry) }
        let plain = makeEntry(path: "/m-plain", body: "plain")
        try await storage.store(plain)
        for entry in variants {
            let found = try await storage.entries(for: entry.key, matching: entry.request)
            try expect(found.contains { $0.variantKey == entry.variantKey }, "matching-variants",
                       "entries(for:matching:) misses the request's own variant \(entry.variantKey)")
            try expect(found.allSatisfy { candidate in variants.contains { $0.variantKey == candidate.variantKey } }, "matching-variants",
                       "entries(for:matching:) returned something that is not a stored variant")
        }
        let other = try await storage.entries(for: plain.key, matching: HTTPRequest(method: .get, scheme: "https", authority: "conformance.test", path: "/m-plain"))
        try expect(other.map(\.cached.body) == ["plain"], "matching-variants", "a key without Vary must return its one entry")
    }

    static func removeKey(_ storage: any CacheStorage) async throws {
        let a = makeEntry(path: "/a", language: "fr")
        let a2 = makeEntry(path: "/a", language: "en")
        let b = makeEntry(path: "/b")
        for entry in [a, a2, b] { try await storage.store(entry) }
        try await storage.remove(a.key)
        try expect(try await storage.entries(for: a.key).isEmpty, "remove-key", "variants survived remove(_:)")
        try expect(try await storage.entries(for: b.key).count == 1, "remove-key", "remove(_:) touched another key")
        try await storage.remove(CacheKey(method: "GET", scheme: "https", authority: "conformance.test", path: "/never"))
    }

    static func removeAll(_ storage: any CacheStorage) async throws {
        for index in 0..<10 { try await storage.store(makeEntry(path: "/all/\(index)")) }
        try await storage.removeAll()
        try expect(try await storage.keys().isEmpty, "remove-all", "keys remain after removeAll()")
        try expect(await storage.usage().entryCount == 0, "remove-all", "usage().entryCount is not 0")
        let again = makeEntry(path: "/after")
        try await storage.store(again)
        try expect(try await storage.entries(for: again.key).count == 1, "remove-all", "storage unusable after removeAll()")
    }

    static func removeSince(_ storage: any CacheStorage) async throws {
        let old = makeEntry(path: "/old", storedAt: 10)
        let new = makeEntry(path: "/new", storedAt: 20)
        try await storage.store(old)
        try await storage.store(new)
        try await storage.removeEntries(storedSince: new.storedAt)
        try expect(try await storage.entries(for: new.key).isEmpty, "remove-since", "an entry stored at the date survived")
        try expect(try await storage.entries(for: old.key).count == 1, "remove-since", "an older entry was removed")
    }

    static func removeWhere(_ storage: any CacheStorage) async throws {
        let tagged = makeEntry(path: "/users/1/profile", tag: "user-1")
        let other = makeEntry(path: "/users/2/profile", tag: "user-2")
        let prefixed = makeEntry(path: "/static/logo")
        for entry in [tagged, other, prefixed] { try await storage.store(entry) }
        try await storage.removeEntries(where: { $0.cached.userInfo[ConformanceTagKey.self] == "user-1" })
        try expect(try await storage.entries(for: tagged.key).isEmpty, "remove-where", "tagged entry survived")
        try await storage.removeEntries(where: { $0.key.url.hasPrefix("https://conformance.test/static/") })
        try expect(try await storage.entries(for: prefixed.key).isEmpty, "remove-where", "prefixed entry survived")
        try expect(try await storage.entries(for: other.key).count == 1, "remove-where", "an unmatched entry was removed")
    }

    static func notAllowed(_ storage: any CacheStorage) async throws {
        let entry = makeEntry(path: "/never-store", policy: .notAllowed)
        try? await storage.store(entry)
        try expect(try await storage.entries(for: entry.key).isEmpty, "not-allowed", "a notAllowed entry was returned")
    }

    static func bodies(_ storage: any CacheStorage) async throws {
        let empty = makeEntry(path: "/empty", body: .empty)
        let bytes = (0..<(1 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
        let large = makeEntry(path: "/large", body: PipelineBody(bytes))
        try await storage.store(empty)
        try await storage.store(large)
        try expect(try await storage.entries(for: empty.key).first?.cached.body.isEmpty == true, "bodies", "empty body changed")
        try expect(try await storage.entries(for: large.key).first?.cached.body.collect() == bytes, "bodies", "1 MiB body changed")

        // A file-backed body (what transports produce for large responses) must read back byte for byte,
        // even after the producer released its file.
        let directory = NSTemporaryDirectory() + "cachechain-conformance-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let writer = try BodyFileWriter(directory: directory)
        try writer.append(bytes)
        let spooled = makeEntry(path: "/spooled", body: try writer.finish())
        try await storage.store(spooled)
        let read = try await storage.entries(for: spooled.key).first?.cached.body
        try expect(try read?.collect() == bytes, "bodies", "file-backed 1 MiB body changed")
    }

    static func manyKeys(_ storage: any CacheStorage) async throws {
        let entries = (0..<1000).map { makeEntry(path: "/many/\($0)", body: PipelineBody(string: "b\($0)")) }
        for entry in entries { try await storage.store(entry) }
        for entry in entries.shuffled().prefix(100) {
            let found = try await storage.entries(for: entry.key)
            try expect(found.first?.cached.body == entry.cached.body, "many-keys", "wrong body for \(entry.key)")
        }
        try expect(try await storage.keys().count == 1000, "many-keys", "keys().count is not 1000")
    }

    static func concurrency(_ storage: any CacheStorage) async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<64 {
                group.addTask {
                    let entry = makeEntry(path: "/concurrent/\(index)", body: PipelineBody(string: "c\(index)"))
                    try await storage.store(entry)
                    let found = try await storage.entries(for: entry.key)
                    try expect(found.first?.cached.body == entry.cached.body, "concurrency", "lost or mixed entry \(index)")
                }
            }
            try await group.waitForAll()
        }
        try expect(await storage.usage().entryCount == 64, "concurrency", "entryCount is not 64 after concurrent stores")
    }

    static func oddKeys(_ storage: any CacheStorage) async throws {
        let paths = ["/caf%C3%A9?q=%E2%9C%93", "/a/../b", "/" + String(repeating: "x", count: 2000), "/?", "/%00"]
        for path in paths { try await storage.store(makeEntry(path: path, body: PipelineBody(string: path))) }
        for path in paths {
            let key = makeEntry(path: path).key
            let found = try await storage.entries(for: key)
            try expect(found.count == 1 && found[0].key == key, "odd-keys", "key \(path.prefix(40)) not found exactly")
        }
        // Keys that differ only by a custom strategy's discriminator are stored apart.
        var plain = makeEntry(path: "/discriminated", body: "plain")
        var discriminated = makeEntry(path: "/discriminated", body: "other")
        discriminated.key.discriminator = "lang=fr"
        plain.key.discriminator = ""
        try await storage.store(plain)
        try await storage.store(discriminated)
        try expect(try await storage.entries(for: plain.key).map(\.cached.body) == ["plain"], "odd-keys", "discriminator ignored")
        try expect(try await storage.entries(for: discriminated.key).map(\.cached.body) == ["other"], "odd-keys", "discriminator ignored")
    }
}
