import CacheChainCore
@testable import CacheChainEncryption
import CacheChainStorage
import CacheChainTesting
import HTTPTypes
import Testing

@Suite("Derived names, subkeys and metadata remembered with their key")
struct DerivedKeyCacheTests {
    @Test("a store and a hit remember one name and one subkey; another instance of the same key derives the same ones and opens the entry")
    func rememberedAndEquivalent() async throws {
        let bytes = (0..<32).map { UInt8(truncatingIfNeeded: $0 &* 11) }
        let first = try EncryptionKey(bytes: bytes, id: "k")
        let inner = MemoryStorage(capacity: 8 << 20)
        let storage = EncryptedStorage(wrapping: inner, keys: InMemoryKeyProvider(key: first))
        let entry = markedEntry(path: "/remembered")
        try await storage.store(entry)
        #expect(try await storage.entries(for: entry.key) == [entry])
        #expect(try await storage.entries(for: entry.key) == [entry])
        #expect(first.derived.counts.names == 1)
        #expect(first.derived.counts.subkeys == 1)
        #expect(first.derived.counts.metadata == 1)

        let second = try EncryptionKey(bytes: bytes, id: "k")
        #expect(second.derived.counts.names == 0)
        let reopened = EncryptedStorage(wrapping: inner, keys: InMemoryKeyProvider(key: second))
        #expect(try await reopened.entries(for: entry.key) == [entry])
        #expect(second.derived.counts.names == 1)
        #expect(second.derived.counts.subkeys == 1)
        #expect(second.derived.counts.metadata == 1)
    }

    @Test("remembered metadata is only reused for the same envelope bytes: a re-stored entry is read with its new headers")
    func metadataFollowsTheEnvelope() async throws {
        let key = try EncryptionKey.random(id: "meta")
        let storage = EncryptedStorage(wrapping: MemoryStorage(capacity: 8 << 20), keys: InMemoryKeyProvider(key: key))
        var entry = markedEntry(path: "/re-stored")
        try await storage.store(entry)
        #expect(try await storage.entries(for: entry.key) == [entry])
        entry.cached.response.headerFields[.eTag] = "\"second\""
        try await storage.store(entry)
        let found = try await storage.entries(for: entry.key)
        #expect(found == [entry])
        #expect(found.first?.cached.response.headerFields[.eTag] == "\"second\"")
        #expect(key.derived.counts.metadata == 2)
    }

    @Test("64 concurrent hits on one entry (one kept decryption context, taken out one open at a time) all return it")
    func concurrentHitsShareTheContext() async throws {
        let key = try EncryptionKey.random(id: "shared")
        let storage = EncryptedStorage(wrapping: MemoryStorage(capacity: 8 << 20), keys: InMemoryKeyProvider(key: key))
        let entry = markedEntry(path: "/shared", bodySize: 1024)
        try await storage.store(entry)
        let results = try await withThrowingTaskGroup(of: [CacheEntry].self) { group in
            for _ in 0..<64 { group.addTask { try await storage.entries(for: entry.key) } }
            var all: [[CacheEntry]] = []
            for try await found in group { all.append(found) }
            return all
        }
        #expect(results.count == 64)
        #expect(results.allSatisfy { $0 == [entry] })
        #expect(key.derived.counts.subkeys == 1)
    }

    @Test("an envelope salt is four words of exactly 32 bytes; equal bytes give equal salts")
    func envelopeSalt() {
        let bytes = (0..<32).map { UInt8($0) }
        #expect(EnvelopeSalt(bytes) == EnvelopeSalt(bytes))
        #expect(EnvelopeSalt(bytes) != EnvelopeSalt(bytes.reversed()))
        #expect(EnvelopeSalt(Array(bytes.prefix(31))) == nil)
        #expect(EnvelopeSalt(bytes + [0]) == nil)
    }

    @Test("memoized subkeys never open an entry for a key that is not provided any more")
    func destroyedKeyStillRefuses() async throws {
        let key = try EncryptionKey.random(id: "shredded")
        let keys = InMemoryKeyProvider(key: key)
        let storage = EncryptedStorage(wrapping: MemoryStorage(capacity: 8 << 20), keys: keys)
        let entry = markedEntry(path: "/shredded")
        try await storage.store(entry)
        #expect(try await storage.entries(for: entry.key).count == 1)
        #expect(key.derived.counts.subkeys == 1)
        #expect(keys.destroyKey(withID: "shredded"))
        #expect(try await storage.entries(for: entry.key).isEmpty)
    }
}
